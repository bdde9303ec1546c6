#include "gemm/gemm_benchmark.h"

#include "compare.h"
#include "cuda_check.h"
#include "non_copyable.h"
#include "random.h"

#include <cublas_v2.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace tutorial::benchmark {

namespace {

// The largest size whose reference is computed in full: 1024³ multiply-adds in
// double take about a second; 4096³ would take over a minute.
constexpr int kFullReferenceLimit = 1024;
constexpr int kSampledRows = 64;

void check_cublas(cublasStatus_t status, const char* call) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw std::runtime_error(std::string("cuBLAS error ") + cublasGetStatusName(status) + " (" +
                                 cublasGetStatusString(status) + ") in " + call);
    }
}

// A cuBLAS handle set to pure FP32: with the default math mode cuBLAS may use TF32
// tensor cores, a different and much faster ceiling than our FP32 kernels can reach.
class PedanticCublas : NonCopyable {
public:
    PedanticCublas() {
        check_cublas(cublasCreate(&handle_), "cublasCreate");
        check_cublas(cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode(CUBLAS_PEDANTIC_MATH)");
    }
    ~PedanticCublas() { cublasDestroy(handle_); }

    // Row-major C = A·B. cuBLAS is column-major, where our row-major C is Cᵀ = Bᵀ·Aᵀ,
    // and a row-major matrix read column-major is its transpose: so pass B, then A.
    void sgemm(const float* A, const float* B, float* C, int M, int N, int K) {
        const float alpha = 1.0f, beta = 0.0f;
        check_cublas(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, K, &beta, C, N),
                     "cublasSgemm");
    }

private:
    cublasHandle_t handle_ = nullptr;
};

std::vector<int> rows_to_check(int M) {
    std::vector<int> rows;
    if (M <= kFullReferenceLimit) {
        for (int r = 0; r < M; ++r) rows.push_back(r);
    } else {
        for (int i = 0; i < kSampledRows; ++i) {
            rows.push_back(static_cast<int>(static_cast<long long>(i) * (M - 1) / (kSampledRows - 1)));
        }
    }
    return rows;
}

}  // namespace

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
    PedanticCublas cublas;
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
    work.is_baseline = is_baseline;
    work.prepare = [this] { C_.poison(); };
    work.run = run;
    work.check = [this] { return check_result(); };
    return work;
}

std::string GemmBenchmark::check_result() const {
    const std::vector<float> C = C_.download();
    std::vector<float> got;
    got.reserve(checked_rows_.size() * static_cast<std::size_t>(size_));
    for (int r : checked_rows_) {
        got.insert(got.end(), C.begin() + static_cast<std::ptrdiff_t>(r) * size_,
                   C.begin() + static_cast<std::ptrdiff_t>(r + 1) * size_);
    }
    OutputLayout layout;
    layout.name = checked_rows_.size() == static_cast<std::size_t>(size_)
                      ? std::string("C")
                      : "C (" + std::to_string(checked_rows_.size()) + " rows spread from 0 to " +
                            std::to_string(size_ - 1) + ")";
    layout.rows = static_cast<long long>(checked_rows_.size());
    layout.cols = size_;
    layout.seed = run_seed();
    return compare_with_tolerance(got, expected_, layout).text;
}

}  // namespace tutorial::benchmark
