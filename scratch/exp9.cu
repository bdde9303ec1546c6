// Throwaway: 9b with its bytes brought by bulk copies into a ring of shared chunks.
#include "histogram.h"
#include "bench/histogram_copy.h"
#include "benchmark/timing.h"
#include "cuda_check.h"
#include <cuda/barrier>
#include <cstdio>
#include <cstring>
#include <vector>
#include <random>
namespace {
using Bar = cuda::barrier<cuda::thread_scope_block>;
constexpr int kReplicas = 32;
template <int THREADS, int VECS, int STAGES, bool COUNT>
__global__ void __launch_bounds__(THREADS) bulk_hist(const uint4* in, long long chunks, unsigned* bins, unsigned* folds) {
    constexpr int kChunkVecs = THREADS * VECS;  // uint4 per chunk
    extern __shared__ __align__(16) uint4 smem[];
    uint4 (*ring)[kChunkVecs] = reinterpret_cast<uint4 (*)[kChunkVecs]>(smem);
    unsigned* block_bins = reinterpret_cast<unsigned*>(smem + STAGES * kChunkVecs);
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ Bar full[STAGES];
    const long long per = (chunks + gridDim.x - 1) / gridDim.x;
    const long long c0 = blockIdx.x * per, c1 = min(chunks, c0 + per);
    if (COUNT) for (int b = threadIdx.x; b < 256 * kReplicas; b += THREADS) block_bins[b] = 0;
    if (threadIdx.x == 0) for (int s = 0; s < STAGES; ++s) init(&full[s], THREADS);
    __syncthreads();
    auto issue = [&](long long c) {
        cuda::memcpy_async(ring[c % STAGES], in + c * kChunkVecs, cuda::aligned_size_t<16>(kChunkVecs * 16), full[c % STAGES]);
    };
    if (threadIdx.x == 0) for (long long c = c0; c < c0 + STAGES && c < c1; ++c) issue(c);
    const unsigned copy = threadIdx.x % kReplicas;
    unsigned fold = 0;
    for (long long c = c0; c < c1; ++c) {
        full[c % STAGES].arrive_and_wait();
#pragma unroll
        for (int v = 0; v < VECS; ++v) {
            const uint4 q = ring[c % STAGES][threadIdx.x + v * THREADS];
            if (COUNT) {
                const unsigned w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
                for (int i = 0; i < 4; ++i)
#pragma unroll
                    for (int s = 0; s < 32; s += 8) atomicAdd(&block_bins[((w[i] >> s) & 0xFF) * kReplicas + copy], 1u);
            } else {
                fold ^= q.x ^ q.y ^ q.z ^ q.w;
            }
        }
        if (!COUNT) asm volatile("" ::"r"(fold));
        __syncthreads();
        if (threadIdx.x == 0 && c + STAGES < c1) issue(c + STAGES);
    }
    if (COUNT) {
        __syncthreads();
        for (int b = threadIdx.x; b < 256; b += THREADS) {
            unsigned total = 0;
            for (int r = 0; r < kReplicas; ++r) total += block_bins[b * kReplicas + (b + r) % kReplicas];
            if (total) atomicAdd(&bins[b], total);
        }
    } else {
        folds[blockIdx.x * THREADS + threadIdx.x] = fold;
    }
}
template <int THREADS, int VECS, int STAGES, bool COUNT, int PER_SM>
void run(const uint8_t* in, size_t n, unsigned* bins, unsigned* folds) {
    const int bytes = STAGES * THREADS * VECS * 16 + (COUNT ? 256 * kReplicas * 4 : 0);
    auto k = bulk_hist<THREADS, VECS, STAGES, COUNT>;
    CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    if (COUNT) cudaMemsetAsync(bins, 0, 256 * 4);
    k<<<132 * PER_SM, THREADS, bytes>>>(reinterpret_cast<const uint4*>(in), n / (THREADS * VECS * 16), bins, folds);
}
}  // namespace
int main() {
    const size_t n = size_t(1) << 28;
    std::vector<uint8_t> h(n);
    std::mt19937 rng(3);
    for (auto& v : h) v = uint8_t(rng());
    std::vector<unsigned> want(256, 0);
    for (auto v : h) ++want[v];
    uint8_t *in, *out; unsigned *bins, *folds;
    CUDA_CHECK(cudaMalloc(&in, n)); CUDA_CHECK(cudaMalloc(&out, n)); CUDA_CHECK(cudaMalloc(&bins, 256 * 4));
    CUDA_CHECK(cudaMalloc(&folds, 64 << 20));
    CUDA_CHECK(cudaMemcpy(in, h.data(), n, cudaMemcpyHostToDevice));
    cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0);
    tutorial::benchmark::L2Flush flush(prop.l2CacheSize);
    tutorial::set_synchronous_kernel_checks(false);
    auto t = [&](auto&& f) { return tutorial::benchmark::time_gpu_work([&] { f(); }, flush).median_ms; };
    const double copy = t([&] { cudaMemcpyAsync(out, in, 256 << 20, cudaMemcpyDeviceToDevice); });
    auto report = [&](const char* name, double ms, bool count) {
        std::vector<unsigned> got(256);
        cudaMemcpy(got.data(), bins, 1024, cudaMemcpyDeviceToHost);
        printf("%-28s %.4f ms %.1f%% of copy %s\n", name, ms, 100.0 * (n / ms) / (2.0 * (256 << 20) / copy),
               !count ? "" : got == want ? "right" : "WRONG");
    };
    for (int rep = 0; rep < 2; ++rep) {
        report("tree 9b", t([&] { cudaMemsetAsync(bins, 0, 1024); histogram_shared(in, n, bins, 256); }), true);
        report("tree loads only", t([&] { histogram_copy(in, n, folds); }), false);
        report("bulk 512x1 S4 count 3/SM", t([&] { run<512, 1, 4, true, 3>(in, n, bins, folds); }), true);
        report("bulk 512x1 S6 count 3/SM", t([&] { run<512, 1, 6, true, 3>(in, n, bins, folds); }), true);
        report("bulk 512x2 S3 count 2/SM", t([&] { run<512, 2, 3, true, 2>(in, n, bins, folds); }), true);
        report("bulk 256x2 S4 count 4/SM", t([&] { run<256, 2, 4, true, 4>(in, n, bins, folds); }), true);
        report("bulk 1024x1 S4 count 2/SM", t([&] { run<1024, 1, 4, true, 2>(in, n, bins, folds); }), true);
        report("bulk 512x1 S4 loads 3/SM", t([&] { run<512, 1, 4, false, 3>(in, n, bins, folds); }), false);
        report("bulk 512x1 S8 loads 3/SM", t([&] { run<512, 1, 8, false, 3>(in, n, bins, folds); }), false);
        report("bulk 256x2 S4 loads 4/SM", t([&] { run<256, 2, 4, false, 4>(in, n, bins, folds); }), false);
    }
}
