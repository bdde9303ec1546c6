#include "gemm/gemm_benchmark.h"

#include "compare.h"
#include "cuda_check.h"
#include "random.h"

#include "gemm/cublas_gemm.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace tutorial::benchmark {

using cublas_gemm::rows_to_check;

GemmBenchmark::GemmBenchmark(Session& session, int size)
    : session_(session),
      size_(size),
      problem_(std::to_string(size) + " x " + std::to_string(size) + " x " + std::to_string(size)),
      checked_rows_(rows_to_check(size)),
      A_(static_cast<std::size_t>(size) * size),
      B_(static_cast<std::size_t>(size) * size),
      C_(static_cast<std::size_t>(size) * size) {
    const std::uint64_t seed = derive_seed(run_seed(), {size, size, size});
    const std::vector<float> A = random_floats(A_.size(), seed);
    const std::vector<float> B = random_floats(B_.size(), seed + 1);
    A_.upload(A);
    B_.upload(B);

    // The reference of the checked rows is the product of those rows of A with B.
    std::vector<float> A_rows;
    A_rows.reserve(checked_rows_.size() * static_cast<std::size_t>(size));
    for (int r : checked_rows_) {
        A_rows.insert(A_rows.end(), A.begin() + static_cast<std::ptrdiff_t>(r) * size,
                      A.begin() + static_cast<std::ptrdiff_t>(r + 1) * size);
    }
    expected_ = gemm_reference(A_rows, B, static_cast<int>(checked_rows_.size()), size, size);

    // cuBLAS is both the ceiling and the library a user would call: every row's "× the
    // library" is its share of the ceiling, as a ratio of times.
    cublas_gemm::Handle cublas(/*pedantic=*/true);
    WorkToTime work = work_for("cuBLAS SGEMM (FP32)",
                               [&] { cublas.sgemm(A_.data(), B_.data(), C_.data(), size_, size_, size_); }, false);
    work.is_library = true;
    ceiling_ = session_.measure_ceiling(work);
}

Measurement GemmBenchmark::time_kernel(const std::string& variant, const GemmFunction& gemm, bool is_baseline) {
    return session_.measure_kernel(
        work_for(variant, [&] { gemm(A_.data(), B_.data(), C_.data(), size_, size_, size_); }, is_baseline),
        ceiling_);
}

Measurement GemmBenchmark::time_cpu(const std::string& variant, const GemmFunction& gemm, bool is_baseline,
                                   int warmups, int repetitions) {
    const std::vector<float> A = A_.download(), B = B_.download();
    std::vector<float> C(C_.size());
    WorkToTime work = work_for(variant, [&] { gemm(A.data(), B.data(), C.data(), size_, size_, size_); }, is_baseline);
    work.on_cpu = true;
    work.cpu_warmups = warmups;
    work.cpu_repetitions = repetitions;
    // Poisoned as a kernel's output, then checked through the same code: C goes to the GPU.
    work.prepare = [&] { std::fill(C.begin(), C.end(), std::numeric_limits<float>::quiet_NaN()); };
    work.check = [&] {
        C_.upload(C);
        return check_result();
    };
    return session_.measure_kernel(work, ceiling_);
}

WorkToTime GemmBenchmark::work_for(const std::string& variant, const std::function<void()>& run, bool is_baseline) {
    WorkToTime work;
    work.problem = problem_;
    work.variant = variant;
    work.unit = "GFLOP/s";
    work.work = 2.0 * size_ * static_cast<double>(size_) * size_;  // a multiply and an add per (i, j, k)
    work.bytes_written = static_cast<double>(C_.bytes());
    work.is_baseline = is_baseline;
    work.prepare = [this] { C_.poison(); };
    work.run = run;
    work.check = [this] { return check_result(); };
    return work;
}

std::string GemmBenchmark::check_result() const {
    return cublas_gemm::check_rows(C_.download(), checked_rows_, size_, expected_);
}

}  // namespace tutorial::benchmark
