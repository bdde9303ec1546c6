// Chapter 7 benchmark: the four register-tiling steps against chapter 2 and cuBLAS.
//
// `make chapter7 bench` times your kernels; `make chapter7 bench SOLUTIONS=1` the
// reference. For 1024³, 4096³, 4095³ and 4097³ it times cuBLAS SGEMM in pure FP32 (the
// ceiling: CUBLAS_PEDANTIC_MATH, no TF32), chapter 2's tiled GEMM at TILE 32 (its
// reference solution, linked in by mk/bench.mk: the baseline), then 7a, 7b, 7c and 7d,
// and checks each result against the CPU after timing. 4095³ and 4097³ show what the
// bounds handling costs: every tile along one edge is partial, and no row of A or B
// starts on 16 bytes, so 7c and 7d load them four floats with four scalar loads.
//
// Besides the share of cuBLAS in the table, it prints each kernel's share of the
// GPU's FP32 peak: SMs × 128 FP32 lanes × 2 flops per fused multiply-add × the boost
// clock, as the lesson computes it.
#include "register_tiled_gemm.h"
#include "tutorial_chapter.h"
#include "tiled_gemm.h"

#include "gemm/gemm_benchmark.h"
#include "cuda_check.h"

#include <cstdio>
#include <string>
#include <vector>

namespace {

void tiled_32(const float* A, const float* B, float* C, int M, int N, int K) { tiled_gemm(A, B, C, M, N, K, 32); }

// The FP32 peak in GFLOP/s: SMs × 128 lanes (Volta to Hopper) × 2 flops × clock.
double fp32_peak_gflops(int& multiprocessors, double& clock_mhz) {
    int device = 0, clock_khz = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
    clock_mhz = clock_khz / 1e3;
    return multiprocessors * 128.0 * 2.0 * clock_mhz / 1e3;
}

}  // namespace

int main(int argc, char* argv[]) {
    using namespace tutorial::benchmark;
    return run(argc, argv, [](Session& session) {
        int multiprocessors = 0;
        double clock_mhz = 0.0;
        const double peak = fp32_peak_gflops(multiprocessors, clock_mhz);
        std::vector<std::string> peak_lines;
        for (int size : {1024, 4096, 4095, 4097}) {
            GemmBenchmark gemm(session, size);
            const std::pair<const char*, GemmFunction> variants[] = {
                {STEP("a") " 1D register tiling", register_tiled_gemm_1d},
                {STEP("b") " 2D register tiling", register_tiled_gemm_2d},
                {STEP("c") " float4, A transposed", register_tiled_gemm_vectorized},
                {STEP("d") " warp tiles", register_tiled_gemm_warptiled},
            };
            gemm.time_kernel("tiled 32 (chapter 2 solution)", tiled_32, /*is_baseline=*/true);
            for (const auto& [variant, function] : variants) {
                const Measurement row = gemm.time_kernel(variant, function);
                char line[200];
                std::snprintf(line, sizeof line, "  %-20s %-30s %8.0f GFLOP/s  %5.1f%% of the FP32 peak%s",
                              gemm.problem().c_str(), variant, row.rate(), 100.0 * row.rate() / peak,
                              row.ok ? "" : " (its result is wrong: see the table)");
                peak_lines.push_back(line);
            }
        }
        std::printf("\nFP32 peak: %d SMs x 128 lanes x 2 flops x %.0f MHz = %.0f GFLOP/s (the boost clock: a "
                    "kernel running at a lower clock cannot reach it).\n",
                    multiprocessors, clock_mhz, peak);
        for (const std::string& line : peak_lines) std::printf("%s\n", line.c_str());
    });
}
