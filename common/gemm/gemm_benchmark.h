/// @file gemm_benchmark.h
/// @brief The GEMM benchmark the GEMM chapters share: one square problem, its
/// cuBLAS ceiling, and a checked timing of each variant.
#pragma once

#include "device_buffer.h"
#include "gemm/gemm_operands.h"  // GemmFunction
#include "gemm/gemm_reference.h"
#include "benchmark/session.h"

#include <functional>
#include <string>
#include <vector>

namespace tutorial::benchmark {

using tutorial::GemmFunction;  // the entry points it times (gemm_operands.h), for `using namespace tutorial::benchmark`

/// @brief One square GEMM problem, size³, timed against cuBLAS SGEMM in the same run.
///
/// The constructor makes seeded random A and B, computes the CPU reference and
/// measures the ceiling: cuBLAS SGEMM in pure FP32 (CUBLAS_PEDANTIC_MATH, so no TF32
/// tensor cores), itself checked against the reference. cuBLAS is also the problem's library
/// row (WorkToTime::is_library): the library a user would call for a GEMM.
///
/// The reference covers every row of C up to 1024³; beyond that, computing it in
/// double on one CPU core would take minutes, so it covers 64 rows spread over C,
/// the first and the last included, every column of each. A kernel that skips work
/// or mixes up indices is wrong on nearly every row; the tests check every element.
class GemmBenchmark {
public:
    /// @param session the run to record into
    /// @param size    M = N = K
    GemmBenchmark(Session& session, int size);

    /// @brief The problem's label in the results, e.g. "4096 x 4096 x 4096".
    const std::string& problem() const { return problem_; }

    /// @brief Time @p gemm on this problem and check its result after timing.
    /// @param variant     its name in the results, e.g. "tiled 16"
    /// @param gemm        the entry point
    /// @param is_baseline whether this is the variant speed-ups are over
    /// @return its row, as the table shows it
    Measurement time_kernel(const std::string& variant, const GemmFunction& gemm, bool is_baseline = false);

    /// @brief Time a CPU GEMM on host copies of the same A and B, with a host clock, and
    /// check its result as a kernel's.
    /// @param variant     its name in the results, e.g. "CPU: OpenBLAS SGEMM, 16 threads"
    /// @param gemm        the CPU function, on host pointers
    /// @param is_baseline whether this is the variant speed-ups are over
    /// @param warmups     untimed runs first (OpenBLAS starts its threads on the first call)
    /// @param repetitions timed runs (a slow CPU loop takes seconds each)
    /// @return its row
    Measurement time_cpu(const std::string& variant, const GemmFunction& gemm, bool is_baseline, int warmups,
                         int repetitions);

private:
    WorkToTime work_for(const std::string& variant, const std::function<void()>& run, bool is_baseline);
    std::string check_result() const;

    Session& session_;
    int size_;
    std::string problem_;
    std::vector<int> checked_rows_;  // the rows of C compared with the reference
    ExpectedOutput expected_;        // the reference for those rows
    DeviceBuffer<float> A_, B_, C_;
    Measurement ceiling_;
};

}  // namespace tutorial::benchmark
