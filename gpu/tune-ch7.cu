// Tuning run for chapter 7 (issue 14): which tiling of 7c and 7d to keep on this GPU.
//
// One self-contained program, one GPU run of a minute or two. From the repository root:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo -Icommon -Ichapters/07-register-tiled-gemm \
//        gpu/tune-ch7.cu common/cuda_check.cpp common/validate.cpp -lcublas -o /tmp/tune-ch7 \
//     && /tmp/tune-ch7 | tee tune-ch7.txt
//
// It includes the reference solution's kernels (the templates of 7c and 7d), so what
// it times is what the chapter ships, at other template arguments. For 4096³, 4095³,
// 4097³ and 1024³ it times cuBLAS SGEMM in pure FP32 (CUBLAS_PEDANTIC_MATH: no TF32)
// as the ceiling, then each configuration: 3 warm-up runs, then 15 timed runs, each
// after L2 is flushed (a write of twice its size), timed with CUDA events around the
// kernel alone; the median is reported. Every result is checked after timing against
// cuBLAS: |C − C_cuBLAS| ≤ 2·γ_K·(|A|·|B|), element by element, with |A|·|B| itself
// computed by cuBLAS (both results are within γ_K·(|A|·|B|) of the exact product).
//
// The last lines name the best 7c and 7d configurations at 4096³ and what the bounds
// handling costs at 4095³ and 4097³ (time per flop against 4096³).
#include "../solutions/07-register-tiled-gemm/register_tiled_gemm.cu"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

void check_cublas(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "cuBLAS error %s in %s\n", cublasGetStatusName(status), what);
        std::exit(1);
    }
}

__global__ void absolute_values(const float* in, float* out, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        out[i] = fabsf(in[i]);
    }
}

// Count the elements where |got − expected| > 2·γ_K·bound (NaN counts as wrong).
__global__ void count_wrong(const float* got, const float* expected, const float* bound, size_t n, double gamma2,
                            unsigned long long* wrong) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        const double error = fabs(double(got[i]) - double(expected[i]));
        if (!(error <= gamma2 * bound[i])) atomicAdd(wrong, 1ull);
    }
}

struct Problem {
    int size;
    float *A, *B, *C, *C_ref, *bound;
    unsigned long long* wrong;
};

struct Timer {
    cudaEvent_t start, stop;
    void* flush = nullptr;
    size_t flush_bytes = 0;
    Timer() {
        CUDA_CHECK(cudaEventCreate(&start));
        CUDA_CHECK(cudaEventCreate(&stop));
        int l2 = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
        flush_bytes = 2 * size_t(l2);
        CUDA_CHECK(cudaMalloc(&flush, flush_bytes));
    }
    // The median of 15 timed runs after 3 warm-ups, L2 flushed before each; -1 if a run threw.
    double median_ms(const std::function<void()>& run) {
        try {
            for (int i = 0; i < 3; ++i) run();
            CUDA_CHECK(cudaDeviceSynchronize());
            std::vector<double> times;
            for (int i = 0; i < 15; ++i) {
                CUDA_CHECK(cudaMemsetAsync(flush, i, flush_bytes));
                CUDA_CHECK(cudaEventRecord(start));
                run();
                CUDA_CHECK(cudaEventRecord(stop));
                CUDA_CHECK(cudaEventSynchronize(stop));
                float ms = 0;
                CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
                times.push_back(ms);
            }
            std::sort(times.begin(), times.end());
            return times[times.size() / 2];
        } catch (const std::exception& e) {
            std::printf("    error: %s\n", e.what());
            return -1.0;
        }
    }
};

using Gemm = void (*)(const float*, const float*, float*, int, int, int);

struct Config {
    std::string step;  // "7c" or "7d"
    std::string name;
    Gemm gemm;
};

// 7c: <BM, BN, BK, TM, TN, PAD>
// 7d: <BM, BN, BK, WM, WN, WN_ITER, TM, TN, PAD, DOUBLE_BUFFER>; threads = (BM/WM)(BN/WN)·32
std::vector<Config> configs() {
    return {
        {"7c", "128x128x8 8x8 pad4 (shipped)", launch_gemm_vectorized<128, 128, 8, 8, 8, 4>},
        {"7c", "128x128x8 8x8 pad0", launch_gemm_vectorized<128, 128, 8, 8, 8, 0>},
        {"7c", "128x128x16 8x8 pad4", launch_gemm_vectorized<128, 128, 16, 8, 8, 4>},
        {"7c", "64x128x8 8x8 pad4 (128 thr)", launch_gemm_vectorized<64, 128, 8, 8, 8, 4>},
        {"7d", "128x128x16 w64x64 it1x4 8x4 pad4 db (shipped, 128 thr)",
         launch_gemm_warptiled<128, 128, 16, 64, 64, 4, 8, 4, 4, true>},
        {"7d", "128x128x16 w64x64 it1x4 8x4 pad4 single", launch_gemm_warptiled<128, 128, 16, 64, 64, 4, 8, 4, 4, false>},
        {"7d", "128x128x16 w64x64 it1x4 8x4 pad0 db", launch_gemm_warptiled<128, 128, 16, 64, 64, 4, 8, 4, 0, true>},
        {"7d", "128x128x8 w64x64 it1x4 8x4 pad4 db", launch_gemm_warptiled<128, 128, 8, 64, 64, 4, 8, 4, 4, true>},
        {"7d", "128x128x8 w64x64 it1x4 8x4 pad4 single", launch_gemm_warptiled<128, 128, 8, 64, 64, 4, 8, 4, 4, false>},
        {"7d", "128x128x16 w64x32 it1x2 8x4 pad4 db (256 thr)",
         launch_gemm_warptiled<128, 128, 16, 64, 32, 2, 8, 4, 4, true>},
        {"7d", "128x128x16 w64x32 it1x2 8x4 pad4 single (256 thr)",
         launch_gemm_warptiled<128, 128, 16, 64, 32, 2, 8, 4, 4, false>},
        {"7d", "128x128x16 w32x64 it2x2 4x4 pad4 db (256 thr)",
         launch_gemm_warptiled<128, 128, 16, 32, 64, 2, 4, 4, 4, true>},
        {"7d", "128x128x16 w64x64 it1x2 8x8 pad4 db (128 thr)",
         launch_gemm_warptiled<128, 128, 16, 64, 64, 2, 8, 8, 4, true>},
        {"7d", "256x128x8 w64x64 it1x4 8x4 pad4 db (256 thr)", launch_gemm_warptiled<256, 128, 8, 64, 64, 4, 8, 4, 4, true>},
        {"7d", "128x256x8 w64x64 it1x4 8x4 pad4 db (256 thr)", launch_gemm_warptiled<128, 256, 8, 64, 64, 4, 8, 4, 4, true>},
        {"7d", "128x64x16 w64x32 it1x2 8x4 pad4 db (128 thr)", launch_gemm_warptiled<128, 64, 16, 64, 32, 2, 8, 4, 4, true>},
        {"7d", "64x128x16 w64x32 it1x2 8x4 pad4 db (128 thr)", launch_gemm_warptiled<64, 128, 16, 64, 32, 2, 8, 4, 4, true>},
    };
}

}  // namespace

int main() {
    tutorial::set_synchronous_kernel_checks(false);
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    // 128 FP32 lanes per SM from Volta through Hopper, 2 flops per fused multiply-add.
    const double peak_gflops = prop.multiProcessorCount * 128.0 * 2.0 * clock_khz * 1e3 / 1e9;
    std::printf("GPU: %s, %d SMs, %.0f MHz boost clock: FP32 peak %.0f GFLOP/s (SMs x 128 x 2 x clock)\n", prop.name,
                prop.multiProcessorCount, clock_khz / 1e3, peak_gflops);

    cublasHandle_t handle;
    check_cublas(cublasCreate(&handle), "cublasCreate");
    check_cublas(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    auto sgemm = [&](const float* A, const float* B, float* C, int M, int N, int K) {
        const float one = 1.0f, zero = 0.0f;
        check_cublas(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N), "sgemm");
    };

    Timer timer;
    const std::vector<Config> all = configs();
    std::map<std::string, std::map<int, double>> ms_of;  // config name -> size -> median ms
    std::map<int, double> cublas_ms;
    bool all_right = true;

    for (int size : {4096, 4095, 4097, 1024}) {
        const size_t n = size_t(size) * size;
        Problem p{size};
        CUDA_CHECK(cudaMalloc(&p.A, n * 4));
        CUDA_CHECK(cudaMalloc(&p.B, n * 4));
        CUDA_CHECK(cudaMalloc(&p.C, n * 4));
        CUDA_CHECK(cudaMalloc(&p.C_ref, n * 4));
        CUDA_CHECK(cudaMalloc(&p.bound, n * 4));
        CUDA_CHECK(cudaMalloc(&p.wrong, sizeof(unsigned long long)));
        std::mt19937 rng(20261123 + size);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        std::vector<float> host(n);
        for (float& x : host) x = dist(rng);
        CUDA_CHECK(cudaMemcpy(p.A, host.data(), n * 4, cudaMemcpyHostToDevice));
        for (float& x : host) x = dist(rng);
        CUDA_CHECK(cudaMemcpy(p.B, host.data(), n * 4, cudaMemcpyHostToDevice));
        // |A|·|B| into bound, via C and C_ref as scratch for |A| and |B|.
        absolute_values<<<1024, 256>>>(p.A, p.C, n);
        absolute_values<<<1024, 256>>>(p.B, p.C_ref, n);
        sgemm(p.C, p.C_ref, p.bound, size, size, size);
        sgemm(p.A, p.B, p.C_ref, size, size, size);
        const double u = 1.0 / (1 << 24), gamma = size * u / (1 - size * u);

        const double flops = 2.0 * size * double(size) * size;
        auto report = [&](const std::string& step, const std::string& name, double ms, const std::string& check) {
            const double gflops = ms > 0 ? flops / ms / 1e6 : 0;
            std::printf("%5d^3  %-3s %-58s %9.3f ms %8.0f GFLOP/s %6.1f%% of cuBLAS %6.1f%% of peak  %s\n", size,
                        step.c_str(), name.c_str(), ms, gflops, ms > 0 ? 100.0 * cublas_ms[size] / ms : 0.0,
                        100.0 * gflops / peak_gflops, check.c_str());
            std::fflush(stdout);
        };
        cublas_ms[size] = timer.median_ms([&] { sgemm(p.A, p.B, p.C, size, size, size); });
        report("", "cuBLAS SGEMM (FP32, pedantic)", cublas_ms[size], "ceiling");

        for (const Config& c : all) {
            CUDA_CHECK(cudaMemset(p.C, 0xFF, n * 4));  // NaN: an element never written fails
            const double ms = timer.median_ms([&] { c.gemm(p.A, p.B, p.C, size, size, size); });
            std::string check = "ERROR";
            if (ms > 0) {
                CUDA_CHECK(cudaMemset(p.wrong, 0, sizeof(unsigned long long)));
                count_wrong<<<1024, 256>>>(p.C, p.C_ref, p.bound, n, 2 * gamma, p.wrong);
                unsigned long long wrong = 0;
                CUDA_CHECK(cudaMemcpy(&wrong, p.wrong, sizeof wrong, cudaMemcpyDeviceToHost));
                check = wrong == 0 ? "ok" : "WRONG (" + std::to_string(wrong) + " elements)";
            }
            all_right = all_right && check == "ok";
            ms_of[c.step + " " + c.name][size] = check == "ok" ? ms : -1.0;
            report(c.step, c.name, ms, check);
        }
        for (void* q : {(void*)p.A, (void*)p.B, (void*)p.C, (void*)p.C_ref, (void*)p.bound, (void*)p.wrong}) {
            CUDA_CHECK(cudaFree(q));
        }
    }

    // Summary: the best of each step at 4096³, and its bounds cost (time per flop).
    std::printf("\nSUMMARY\n");
    for (const char* step : {"7c", "7d"}) {
        std::string best;
        double best_ms = 1e30;
        for (const auto& [name, by_size] : ms_of) {
            if (name.rfind(step, 0) == 0 && by_size.at(4096) > 0 && by_size.at(4096) < best_ms) {
                best_ms = by_size.at(4096);
                best = name;
            }
        }
        if (best.empty()) continue;
        const auto& t = ms_of[best];
        auto per_flop_cost = [&](int size) {
            const double scale = std::pow(4096.0 / size, 3);
            return t.at(size) > 0 ? 100.0 * (t.at(size) * scale / t.at(4096) - 1.0) : NAN;
        };
        std::printf("best %s at 4096^3: %s, %.3f ms, %.1f%% of cuBLAS (%.3f ms), %.1f%% of FP32 peak; bounds cost "
                    "per flop: %+.1f%% at 4095^3, %+.1f%% at 4097^3\n",
                    step, best.c_str(), best_ms, 100.0 * cublas_ms[4096] / best_ms, cublas_ms[4096],
                    100.0 * 2.0 * std::pow(4096.0, 3) / best_ms / 1e6 / peak_gflops, per_flop_cost(4095),
                    per_flop_cost(4097));
    }
    std::printf("%s\n", all_right ? "every configuration matched cuBLAS within 2 gamma_K |A||B|"
                                   : "SOME CONFIGURATIONS FAILED (see WRONG/ERROR above)");
    cublasDestroy(handle);
    return all_right ? 0 : 1;
}
