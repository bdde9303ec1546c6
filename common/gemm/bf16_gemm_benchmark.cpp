#include "gemm/bf16_gemm_benchmark.h"

#include "compare.h"
#include "cuda_check.h"
#include "random.h"

#include "gemm/cublas_gemm.h"

#include <stdexcept>

namespace tutorial::benchmark {

using cublas_gemm::rows_to_check;

Bf16GemmBenchmark::Bf16GemmBenchmark(Session& session, int size)
    : session_(session),
      size_(size),
      problem_(std::to_string(size) + " x " + std::to_string(size) + " x " + std::to_string(size)),
      checked_rows_(rows_to_check(size)),
      A16_(static_cast<std::size_t>(size) * size),
      B16_(static_cast<std::size_t>(size) * size),
      A_(static_cast<std::size_t>(size) * size),
      B_(static_cast<std::size_t>(size) * size),
      C_(static_cast<std::size_t>(size) * size) {
    const std::uint64_t seed = derive_seed(run_seed(), {size, size, size});
    const std::vector<float> A = rounded_to_bf16(random_floats(A_.size(), seed));
    const std::vector<float> B = rounded_to_bf16(random_floats(B_.size(), seed + 1));
    A_.upload(A);
    B_.upload(B);
    A16_.upload(to_bf16(A));
    B16_.upload(to_bf16(B));

    std::vector<float> A_rows;
    A_rows.reserve(checked_rows_.size() * static_cast<std::size_t>(size));
    for (int r : checked_rows_) {
        A_rows.insert(A_rows.end(), A.begin() + static_cast<std::ptrdiff_t>(r) * size,
                      A.begin() + static_cast<std::ptrdiff_t>(r + 1) * size);
    }
    expected_ = gemm_reference(A_rows, B, static_cast<int>(checked_rows_.size()), size, size);
    // The tensor cores' FP32 additions may truncate: twice the unit roundoff (gemm_operands.cpp).
    for (double& tolerance : expected_.tolerance) tolerance *= 2.0;

    cublas_gemm::Handle cublas(/*pedantic=*/false);
    WorkToTime work = work_for("cuBLAS BF16 (cublasGemmEx, FP32 accumulate)",
                               [&] { cublas.gemm_bf16(A16_.data(), B16_.data(), C_.data(), size_, size_, size_); },
                               false);
    work.is_library = true;
    ceiling_ = session_.measure_ceiling(work);
}

Measurement Bf16GemmBenchmark::time_kernel(const std::string& variant, const Bf16GemmFunction& gemm, bool is_baseline) {
    return session_.measure_kernel(
        work_for(variant, [&] { gemm(A16_.data(), B16_.data(), C_.data(), size_, size_, size_); }, is_baseline),
        ceiling_);
}

Measurement Bf16GemmBenchmark::time_fp32_kernel(const std::string& variant, const GemmFunction& gemm,
                                                bool is_baseline) {
    return session_.measure_kernel(
        work_for(variant, [&] { gemm(A_.data(), B_.data(), C_.data(), size_, size_, size_); }, is_baseline), ceiling_);
}

WorkToTime Bf16GemmBenchmark::work_for(const std::string& variant, const std::function<void()>& run, bool is_baseline) {
    WorkToTime work;
    work.problem = problem_;
    work.variant = variant;
    work.unit = "GFLOP/s";
    work.work = 2.0 * size_ * static_cast<double>(size_) * size_;
    work.bytes_written = static_cast<double>(C_.bytes());
    work.is_baseline = is_baseline;
    work.prepare = [this] { C_.poison(); };
    work.run = run;
    work.check = [this] { return check_result(); };
    return work;
}

std::string Bf16GemmBenchmark::check_result() const {
    return cublas_gemm::check_rows(C_.download(), checked_rows_, size_, expected_);
}

}  // namespace tutorial::benchmark
