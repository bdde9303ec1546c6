// Tuning run for chapter 7 (issue 14): which tiling of 7c and 7d to keep on this GPU.
//
// Also 3c (box mean, thread coarsening) and 4d (moving average from prefix sums)
// against the device-to-device copy ceiling.
//
// One self-contained program, one GPU run of a minute or two. From the repository root:
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo -Icommon -Ichapters/07-register-tiled-gemm \
//        -Ichapters/03-box-mean -Ichapters/04-moving-average gpu/tune-ch7.cu common/cuda_check.cpp \
//        common/validate.cpp -lcublas -o /tmp/tune-ch7 && /tmp/tune-ch7 | tee tune-ch7.txt
//
// It includes the reference solutions' kernels (the templates of 7c, 7d, 3c and 4d), so
// what it times is what the chapters ship, at other template arguments. For 4096³, 4095³,
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
#include "../solutions/03-box-mean/box_mean.cu"
#include "../solutions/04-moving-average/moving_average.cu"

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

// ---- 3c and 4d against the copy ceiling -------------------------------------------------

template <int RADIUS, int ROWS>
void box_mean_coarsened_rows(const unsigned char* input, unsigned char* output, int width, int height) {
    const dim3 block(kBoxBlockX, kBoxBlockY);
    const dim3 grid(tutorial::ceil_div(width, kBoxBlockX * kCoarsenX), tutorial::ceil_div(height, kBoxBlockY * ROWS));
    box_mean_coarsened_kernel<RADIUS, true, ROWS><<<grid, block>>>(input, output, width, height);
    CUDA_CHECK_KERNEL("box_mean_coarsened_kernel");
}

template <int ITEMS>
void moving_average_prefix_items(const float* input, float* output, int size, int window) {
    const int outputs = size - window + 1;
    const int blocks = static_cast<int>(tutorial::ceil_div(outputs, kMovingAverageBlock * ITEMS));
    moving_average_prefix_kernel<ITEMS><<<blocks, kMovingAverageBlock>>>(input, output, size, window, true,
                                                                         window % 4 == 0, true);
    CUDA_CHECK_KERNEL("moving_average_prefix_kernel");
}

bool stencils_and_windows(Timer& timer) {
    bool all_right = true;
    // The copy ceiling: 256 MiB device to device, bytes read plus bytes written.
    const size_t copy_bytes = size_t(256) << 20;
    void *from, *to;
    CUDA_CHECK(cudaMalloc(&from, copy_bytes));
    CUDA_CHECK(cudaMalloc(&to, copy_bytes));
    CUDA_CHECK(cudaMemset(from, 1, copy_bytes));
    const double copy_ms = timer.median_ms([&] { CUDA_CHECK(cudaMemcpyAsync(to, from, copy_bytes, cudaMemcpyDeviceToDevice)); });
    const double copy_gbs = 2.0 * copy_bytes / copy_ms / 1e6;
    std::printf("\ncopy ceiling: %.3f ms for 256 MiB, %.0f GB/s (read + write)\n", copy_ms, copy_gbs);
    CUDA_CHECK(cudaFree(from));
    CUDA_CHECK(cudaFree(to));
    auto report = [&](const std::string& problem, const std::string& variant, double ms, double bytes,
                      const std::string& check) {
        const double gbs = ms > 0 ? bytes / ms / 1e6 : 0;
        std::printf("%-26s %-34s %9.3f ms %7.0f GB/s %6.1f%% of copy  %s\n", problem.c_str(), variant.c_str(), ms, gbs,
                    100.0 * gbs / copy_gbs, check.c_str());
        std::fflush(stdout);
    };

    // 3c: 8000 x 8000, R = 1 and 2; checked byte for byte against 3b.
    {
        const int width = 8000, height = 8000;
        const size_t pixels = size_t(width) * height;
        std::vector<unsigned char> image(pixels);
        std::mt19937 rng(8000);
        for (auto& p : image) p = static_cast<unsigned char>(rng() & 0xFF);
        unsigned char *in, *out, *ref;
        CUDA_CHECK(cudaMalloc(&in, pixels));
        CUDA_CHECK(cudaMalloc(&out, pixels));
        CUDA_CHECK(cudaMalloc(&ref, pixels));
        CUDA_CHECK(cudaMemcpy(in, image.data(), pixels, cudaMemcpyHostToDevice));
        using Box = std::function<void(const unsigned char*, unsigned char*, int, int)>;
        for (int R : {1, 2}) {
            box_mean_shared(in, ref, width, height, R);
            CUDA_CHECK(cudaDeviceSynchronize());
            std::vector<unsigned char> expected(pixels), got(pixels);
            CUDA_CHECK(cudaMemcpy(expected.data(), ref, pixels, cudaMemcpyDeviceToHost));
            std::vector<std::pair<std::string, Box>> variants = {
                {"3b shared (chapter 3)", [R](auto i, auto o, int w, int h) { box_mean_shared(i, o, w, h, R); }},
                {"3a global (chapter 3)", [R](auto i, auto o, int w, int h) { box_mean_global(i, o, w, h, R); }},
            };
            if (R == 1) {
                variants.push_back({"3c rows 4", box_mean_coarsened_rows<1, 4>});
                variants.push_back({"3c rows 8 (shipped)", box_mean_coarsened_rows<1, 8>});
                variants.push_back({"3c rows 16", box_mean_coarsened_rows<1, 16>});
                variants.push_back({"3c rows 32", box_mean_coarsened_rows<1, 32>});
            } else {
                variants.push_back({"3c rows 4", box_mean_coarsened_rows<2, 4>});
                variants.push_back({"3c rows 8 (shipped)", box_mean_coarsened_rows<2, 8>});
                variants.push_back({"3c rows 16", box_mean_coarsened_rows<2, 16>});
                variants.push_back({"3c rows 32", box_mean_coarsened_rows<2, 32>});
            }
            for (const auto& variant : variants) {
                const std::string& name = variant.first;
                const Box& box = variant.second;
                CUDA_CHECK(cudaMemset(out, 0, pixels));
                const double ms = timer.median_ms([&] { box(in, out, width, height); });
                std::string check = "ERROR";
                if (ms > 0) {
                    CUDA_CHECK(cudaMemcpy(got.data(), out, pixels, cudaMemcpyDeviceToHost));
                    size_t wrong = 0;
                    for (size_t i = 0; i < pixels; ++i) wrong += got[i] != expected[i];
                    check = wrong == 0 ? "ok" : "WRONG (" + std::to_string(wrong) + " pixels)";
                }
                all_right = all_right && check == "ok";
                report("8000 x 8000, R=" + std::to_string(R), name, ms, 2.0 * pixels, check);
            }
        }
        CUDA_CHECK(cudaFree(in));
        CUDA_CHECK(cudaFree(out));
        CUDA_CHECK(cudaFree(ref));
    }

    // 4d: 64 Mi floats; checked on every 997th output against a double sum on the host,
    // within 4d's own bound (tests/04-moving-average.cpp derives it).
    {
        const int size = 64 << 20;
        std::vector<float> host(size);
        std::mt19937 rng(64);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        double magnitude = 0;
        for (float& x : host) x = dist(rng), magnitude += std::fabs(double(x));
        float *in, *out;
        CUDA_CHECK(cudaMalloc(&in, size_t(size) * 4));
        CUDA_CHECK(cudaMalloc(&out, size_t(size) * 4));
        CUDA_CHECK(cudaMemcpy(in, host.data(), size_t(size) * 4, cudaMemcpyHostToDevice));
        using Average = std::function<void(const float*, float*, int, int)>;
        const std::vector<std::pair<std::string, Average>> variants = {
            {"4c shared (chapter 4)", moving_average_shared},
            {"4d items 4", moving_average_prefix_items<4>},
            {"4d items 8 (shipped)", moving_average_prefix_items<8>},
            {"4d items 16", moving_average_prefix_items<16>},
        };
        for (int window : {1, 8, 64, 255, 1024, 1025}) {
            const int outputs = size - window + 1;
            for (const auto& variant : variants) {
                const std::string& name = variant.first;
                const Average& average = variant.second;
                if (window >= 1024 && name.rfind("4c", 0) == 0) continue;  // O(window): seconds, and known
                CUDA_CHECK(cudaMemset(out, 0xFF, size_t(outputs) * 4));
                const double ms = timer.median_ms([&] { average(in, out, size, window); });
                std::string check = "ERROR";
                if (ms > 0) {
                    std::vector<float> got(outputs);
                    CUDA_CHECK(cudaMemcpy(got.data(), out, size_t(outputs) * 4, cudaMemcpyDeviceToHost));
                    const double n = 256.0 * 16 + window + 2, u = std::ldexp(1.0, -53);
                    const double loose = name.rfind("4c", 0) == 0 ? (window + 1) * std::ldexp(1.0, -24) : 0.0;
                    size_t wrong = 0;
                    for (int i = 0; i < outputs; i += 997) {
                        double sum = 0, abs_sum = 0;
                        for (int k = 0; k < window; ++k) sum += host[i + k], abs_sum += std::fabs(double(host[i + k]));
                        const double v = sum / window;
                        const double bound = std::ldexp(1.0, -24) * std::fabs(v) + 6 * n * u * magnitude / window +
                                             loose * abs_sum / window;
                        wrong += !(std::fabs(double(got[i]) - v) <= bound);
                    }
                    check = wrong == 0 ? "ok" : "WRONG (" + std::to_string(wrong) + " sampled outputs)";
                }
                all_right = all_right && check == "ok";
                report("64 Mi floats, N=" + std::to_string(window), name, ms, 4.0 * (double(size) + outputs), check);
            }
        }
        CUDA_CHECK(cudaFree(in));
        CUDA_CHECK(cudaFree(out));
    }
    return all_right;
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
    cublasDestroy(handle);
    const bool stencils_right = stencils_and_windows(timer);
    std::printf("\n%s\n", all_right && stencils_right ? "every variant matched its reference"
                                                   : "SOME VARIANTS FAILED (see WRONG/ERROR above)");
    all_right = all_right && stencils_right;
    return all_right ? 0 : 1;
}
