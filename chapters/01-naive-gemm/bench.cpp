// Chapter 1 benchmark: the naive GEMM against cuBLAS, at the sizes of the seed articles,
// and against the CPU.
//
// `make chapter1 bench` times your kernel; `make chapter1 bench SOLUTIONS=1` the
// reference. For 1024³ and 4096³ it times cuBLAS SGEMM in pure FP32 (the ceiling),
// then naive_gemm, and checks each result against the CPU after timing. The harness
// (warm-up, L2 flush, median, table and files) is in common/benchmark/.
//
// At 1024³ it also times two CPU versions of the same product, so that the GPU's speed-up
// has something to be over: the seed's triple loop on one core, and OpenBLAS's SGEMM on
// every core (the CPU's best, and what a user comparing would pick, so it is the baseline
// of that size's speed-ups). OpenBLAS is optional: without libopenblas-dev (`make setup`
// installs it) the bench builds without it, says so, and the triple loop is the baseline.
#include "naive_gemm.h"

#include "gemm/gemm_benchmark.h"

#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

#if defined(TUTORIAL_HAVE_OPENBLAS)
#include <cblas.h>
#endif

namespace {

// The seed's CPU GEMM: three loops in the textbook order, one core, float sums.
void cpu_triple_loop(const float* A, const float* B, float* C, int M, int N, int K) {
    for (int row = 0; row < M; ++row) {
        for (int col = 0; col < N; ++col) {
            float sum = 0.0f;
            for (int k = 0; k < K; ++k) {
                sum += A[static_cast<long long>(row) * K + k] * B[static_cast<long long>(k) * N + col];
            }
            C[static_cast<long long>(row) * N + col] = sum;
        }
    }
}

#if defined(TUTORIAL_HAVE_OPENBLAS)
void cpu_openblas(const float* A, const float* B, float* C, int M, int N, int K) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
}
#endif

// "12.3x" for the ratio of two rows' median times, or why there is none.
std::string speedup(const tutorial::benchmark::Measurement& slower, const tutorial::benchmark::Measurement& faster) {
    if (!slower.ok || !faster.ok || faster.timing.median_ms <= 0.0) return "n/a (a row failed)";
    std::ostringstream text;
    text << std::fixed << std::setprecision(1) << slower.timing.median_ms / faster.timing.median_ms << "x";
    return text.str();
}

}  // namespace

int main(int argc, char* argv[]) {
    return tutorial::benchmark::run(argc, argv, [](tutorial::benchmark::Session& session) {
        // 1024³ is 2.1 GFLOP: seconds for the triple loop on one core (its column walk through
        // B misses the cache at every step), tens of milliseconds for OpenBLAS, a fraction of a
        // millisecond on a GPU. The triple loop is timed 3 times without a warm-up.
        constexpr int kCpuSize = 1024;
        for (int size : {kCpuSize, 4096}) {
            tutorial::benchmark::GemmBenchmark gemm(session, size);
            if (size != kCpuSize) {
                gemm.time_kernel("naive", naive_gemm, /*is_baseline=*/true);
                continue;
            }
#if defined(TUTORIAL_HAVE_OPENBLAS)
            const bool have_blas = true;
            const std::string blas_name = "CPU: OpenBLAS SGEMM, " + std::to_string(openblas_get_num_threads()) + " threads";
#else
            const bool have_blas = false;
            std::cout << "  OpenBLAS is not installed (libopenblas-dev; `make setup` installs it): the CPU row is the "
                         "triple loop only, and it is the baseline.\n";
#endif
            const auto loop = gemm.time_cpu("CPU: triple loop, 1 core", cpu_triple_loop, !have_blas, /*warmups=*/0, /*repetitions=*/3);
#if defined(TUTORIAL_HAVE_OPENBLAS)
            const auto blas = gemm.time_cpu(blas_name, cpu_openblas, true, /*warmups=*/1, /*repetitions=*/7);
#endif
            const auto naive = gemm.time_kernel("naive", naive_gemm, false);
            std::cout << "  GPU speed-up at " << kCpuSize << "^3, naive over the triple loop: " << speedup(loop, naive)
#if defined(TUTORIAL_HAVE_OPENBLAS)
                      << "; naive over OpenBLAS: " << speedup(blas, naive)
                      << "; OpenBLAS over the triple loop: " << speedup(loop, blas)
#endif
                      << "\n";
        }
    });
}
