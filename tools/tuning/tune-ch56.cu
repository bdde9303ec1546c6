// Tuning run for chapters 5 (transpose) and 6 (reduction): times candidate kernels and
// launch shapes against a device-to-device cudaMemcpy in the same run, so one GPU run
// says which design reaches the goals (5c >= 90% of copy bandwidth at 8192^2, the
// awkward 8191 x 8193 within 5% of it; 6c's read rate >= 90% of the copy rate at 2^28).
//
// Self-contained: it needs only the CUDA toolkit, not the rest of the repository.
//
//   mkdir -p build && nvcc -std=c++17 -O3 -arch=native -o build/tune-ch56 tools/tuning/tune-ch56.cu && ./build/tune-ch56
//
// Every timing: the L2 cache flushed (a 2 x L2 cudaMemset) before each repetition,
// outside the timed interval, CUDA events around the work, the median of kReps runs.
// Every result is checked after timing: a transpose element by element against the
// input on the GPU, a sum against a double sum on the CPU within γ_depth · Σ|x|.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CHECK(call)                                                                                       \
    do {                                                                                                  \
        cudaError_t status_ = (call);                                                                     \
        if (status_ != cudaSuccess) {                                                                     \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                     \
                         cudaGetErrorString(status_));                                                    \
            std::exit(1);                                                                                 \
        }                                                                                                 \
    } while (0)

namespace {

constexpr int kReps = 21;

// ---- Timing --------------------------------------------------------------------------

unsigned char* g_flush = nullptr;
size_t g_flush_bytes = 0;

double median_ms(const std::function<void()>& work) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < 2; ++i) work();  // warm-up
    std::vector<double> times;
    for (int i = 0; i < kReps; ++i) {
        CHECK(cudaMemsetAsync(g_flush, i & 0xFF, g_flush_bytes));
        CHECK(cudaEventRecord(start));
        work();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// ---- Transpose candidates --------------------------------------------------------------
// A block of 32 x BR threads moves a T x T tile (T = 32 or 64): each thread T/32 columns
// by T/BR rows. PAD adds a column to the tile; SWIZZLE stores column c of row r at
// c ^ (r % 32) instead (no extra memory); LDG loads through the read-only path. With
// T = 32, BR = 8, PAD and no LDG it is the chapter's 5c as written (int indices, plain
// pointers).
template <int T, int BR, bool PAD, bool SWIZZLE, bool LDG>
__global__ void transpose_tile(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[T][T + (PAD ? 1 : 0)];
    const int tile_row = blockIdx.y * T, tile_col = blockIdx.x * T;
#pragma unroll
    for (int cx = 0; cx < T; cx += 32) {
        const int tc = cx + threadIdx.x;
        const int c = tile_col + tc;
#pragma unroll
        for (int j = 0; j < T; j += BR) {
            const int tr = threadIdx.y + j;
            const int r = tile_row + tr;
            if (r < rows && c < cols) {
                const float* from = &in[r * cols + c];
                tile[tr][SWIZZLE ? (tc ^ (tr % 32)) : tc] = LDG ? __ldg(from) : *from;
            }
        }
    }
    __syncthreads();
#pragma unroll
    for (int cx = 0; cx < T; cx += 32) {
        const int tr = cx + threadIdx.x;  // tile row = input row = output column
        const int out_col = tile_row + tr;
#pragma unroll
        for (int j = 0; j < T; j += BR) {
            const int tc = threadIdx.y + j;  // tile column = input column = output row
            const int out_row = tile_col + tc;
            if (out_row < cols && out_col < rows)
                out[out_row * rows + out_col] = tile[tr][SWIZZLE ? (tc ^ (tr % 32)) : tc];
        }
    }
}

// Wider accesses: a 64 x 64 tile moved with float2 loads and stores, each warp reading
// and writing 256 contiguous bytes per instruction. Needs even rows and cols (every row
// then starts 8-byte aligned); the tuner runs it only on such shapes.
template <int BR>
__global__ void transpose_float2(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[64][65];
    const int tile_row = blockIdx.y * 64, tile_col = blockIdx.x * 64;
    const int c = tile_col + 2 * threadIdx.x;
#pragma unroll
    for (int j = 0; j < 64; j += BR) {
        const int tr = threadIdx.y + j, r = tile_row + tr;
        if (r < rows && c < cols) {
            const float2 v = *reinterpret_cast<const float2*>(&in[(size_t)r * cols + c]);
            tile[tr][2 * threadIdx.x] = v.x;
            tile[tr][2 * threadIdx.x + 1] = v.y;
        }
    }
    __syncthreads();
    const int out_col = tile_row + 2 * threadIdx.x;
#pragma unroll
    for (int j = 0; j < 64; j += BR) {
        const int tc = threadIdx.y + j, out_row = tile_col + tc;
        if (out_row < cols && out_col < rows) {
            *reinterpret_cast<float2*>(&out[(size_t)out_row * rows + out_col]) =
                make_float2(tile[2 * threadIdx.x][tc], tile[2 * threadIdx.x + 1][tc]);
        }
    }
}

// For shapes whose row strides are no multiple of 8 floats (8191 x 8193): most 32-float
// row segments start inside a 32-byte sector, so a warp's 128 bytes touch 5 sectors, not
// 4, and on the write side the first and last sectors are partial: L2 merges them with
// what another block writes much later, or reads the rest from DRAM. This candidate
// makes every warp's *write* start at a 32-byte boundary: output row c (input column c)
// is cut into 32-float windows shifted back by s_c = (c * rows) % 8 floats, the same
// shift for every block of that output row, so the windows still tile the row. A block
// loads the 40 input rows tile_row - 8 .. tile_row + 31 (8 more than 5c, mostly from
// L2: the block above read them) so that every shifted window is in its tile. The grid
// has one more block row for the last shifted window. Needs the output's base 32-byte
// aligned (cudaMalloc gives 256).
template <int BR>
__global__ void transpose_aligned_writes(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[40][33];
    const int tile_row = blockIdx.y * 32, tile_col = blockIdx.x * 32;
    const int c_load = tile_col + threadIdx.x;
    for (int i = threadIdx.y; i < 40; i += BR) {
        const int r = tile_row - 8 + i;
        if (r >= 0 && r < rows && c_load < cols) tile[i][threadIdx.x] = in[(size_t)r * cols + c_load];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 32; j += BR) {
        const int k = threadIdx.y + j;  // tile column = input column = output row
        const int c = tile_col + k;
        if (c >= cols) continue;
        const int shift = (int)(((long long)c * rows) % 8);  // floats past the last 32-byte boundary
        const int o = tile_row - shift + threadIdx.x;         // output column = input row
        if (o >= 0 && o < rows) out[(size_t)c * rows + o] = tile[8 - shift + threadIdx.x][k];
    }
}

// The chapter's 5a: 32 x 8 threads, 4 elements each, straight in global memory.
__global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
    const int c = blockIdx.x * 32 + threadIdx.x;
    if (c >= cols) return;
    for (int j = 0; j < 32; j += 8) {
        const int r = blockIdx.y * 32 + threadIdx.y + j;
        if (r < rows) out[c * rows + r] = in[r * cols + c];
    }
}

__global__ void count_transpose_errors(const float* in, const float* out, int rows, int cols,
                                       unsigned long long* errors) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols) return;
    const size_t r = i / cols, c = i % cols;
    if (__float_as_uint(out[c * rows + r]) != __float_as_uint(in[i])) atomicAdd(errors, 1ull);
}

struct TransposeCandidate {
    std::string name;
    int tile;
    dim3 block;
    void (*kernel)(const float*, float*, int, int);
    bool even_sides_only = false;
    int extra_block_rows = 0;  // blocks past ceil(rows / tile), for shifted windows
};

void tune_transpose(int rows, int cols, double& best_share_out, std::string& best_name_out) {
    const size_t elements = (size_t)rows * cols, bytes = elements * sizeof(float);
    float *in, *out, *copy;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMalloc(&copy, bytes));
    std::vector<float> host(elements);
    uint64_t state = 0x9E3779B97F4A7C15ull ^ elements;
    for (float& x : host) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        x = (float)((state >> 40) & 0xFFFFFF) / 16777216.0f - 0.5f;
    }
    CHECK(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
    unsigned long long* errors;
    CHECK(cudaMalloc(&errors, sizeof *errors));

    const double copy_ms = median_ms([&] { CHECK(cudaMemcpyAsync(copy, in, bytes, cudaMemcpyDeviceToDevice)); });
    const double copy_rate = 2.0 * bytes / copy_ms / 1e6;
    std::printf("\ntranspose %d x %d: cudaMemcpy D2D %.3f ms, %.1f GB/s (read + write)\n", rows, cols, copy_ms,
                copy_rate);
    std::printf("  %-34s %9s %9s %7s  %s\n", "variant", "ms", "GB/s", "% copy", "check");

    const TransposeCandidate candidates[] = {
        {"naive 32x8 (5a)", 32, dim3(32, 8), transpose_naive},
        {"tile 32, no pad, 32x8 (5b)", 32, dim3(32, 8), transpose_tile<32, 8, false, false, false>},
        {"tile 32, pad, 32x8 (5c as written)", 32, dim3(32, 8), transpose_tile<32, 8, true, false, false>},
        {"tile 32, pad, 32x8, __ldg", 32, dim3(32, 8), transpose_tile<32, 8, true, false, true>},
        {"tile 32, pad, 32x4", 32, dim3(32, 4), transpose_tile<32, 4, true, false, false>},
        {"tile 32, pad, 32x16", 32, dim3(32, 16), transpose_tile<32, 16, true, false, false>},
        {"tile 32, pad, 32x32", 32, dim3(32, 32), transpose_tile<32, 32, true, false, false>},
        {"tile 32, swizzle, 32x8", 32, dim3(32, 8), transpose_tile<32, 8, false, true, false>},
        {"tile 64, pad, 32x8", 64, dim3(32, 8), transpose_tile<64, 8, true, false, false>},
        {"tile 64, pad, 32x8, __ldg", 64, dim3(32, 8), transpose_tile<64, 8, true, false, true>},
        {"tile 64, pad, 32x16", 64, dim3(32, 16), transpose_tile<64, 16, true, false, false>},
        {"tile 64, pad, 32x32", 64, dim3(32, 32), transpose_tile<64, 32, true, false, false>},
        {"tile 64, swizzle, 32x8", 64, dim3(32, 8), transpose_tile<64, 8, false, true, false>},
        {"tile 64, swizzle, 32x16", 64, dim3(32, 16), transpose_tile<64, 16, false, true, false>},
        {"tile 64, pad, float2, 32x8", 64, dim3(32, 8), transpose_float2<8>, true},
        {"tile 64, pad, float2, 32x16", 64, dim3(32, 16), transpose_float2<16>, true},
        {"tile 32, pad, aligned writes, 32x8", 32, dim3(32, 8), transpose_aligned_writes<8>, false, 1},
        {"tile 32, pad, aligned writes, 32x16", 32, dim3(32, 16), transpose_aligned_writes<16>, false, 1},
    };
    best_share_out = 0.0;
    for (const TransposeCandidate& k : candidates) {
        if (k.even_sides_only && (rows % 2 != 0 || cols % 2 != 0)) continue;
        const dim3 grid((cols + k.tile - 1) / k.tile, (rows + k.tile - 1) / k.tile + k.extra_block_rows);
        CHECK(cudaMemset(out, 0xFF, bytes));
        const double ms = median_ms([&] { k.kernel<<<grid, k.block>>>(in, out, rows, cols); });
        CHECK(cudaMemset(errors, 0, sizeof *errors));
        count_transpose_errors<<<(unsigned)((elements + 255) / 256), 256>>>(in, out, rows, cols, errors);
        unsigned long long wrong = 0;
        CHECK(cudaMemcpy(&wrong, errors, sizeof wrong, cudaMemcpyDeviceToHost));
        const double rate = 2.0 * bytes / ms / 1e6, share = 100.0 * rate / copy_rate;
        std::printf("  %-34s %9.4f %9.1f %6.1f%%  %s\n", k.name.c_str(), ms, rate, share,
                    wrong ? ("WRONG (" + std::to_string(wrong) + " elements)").c_str() : "ok");
        if (!wrong && share > best_share_out) {
            best_share_out = share;
            best_name_out = k.name;
        }
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(copy));
    CHECK(cudaFree(errors));
}

// ---- Reduction candidates --------------------------------------------------------------

template <int BLOCK>
__device__ float block_sum(float v) {
    __shared__ float warp_sums[BLOCK / 32];
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.0f;
        for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    }
    return v;
}

// The chapter's 6c with UNROLL float4 loads in flight per thread and iteration
// (UNROLL = 1 is the kernel as written). Input assumed 16-byte aligned here.
template <int BLOCK, int UNROLL>
__global__ void reduce_warp(const float* __restrict__ in, float* __restrict__ partial, int n) {
    const long long thread = (long long)blockIdx.x * BLOCK + threadIdx.x;
    const long long threads = (long long)gridDim.x * BLOCK;
    const long long vectors = n / 4;
    const float4* v4 = reinterpret_cast<const float4*>(in);
    float sum = 0.0f;
    long long v = thread;
    for (; v + (UNROLL - 1) * threads < vectors; v += UNROLL * threads) {
        float4 q[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) q[u] = v4[v + u * threads];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) sum += (q[u].x + q[u].y) + (q[u].z + q[u].w);
    }
    for (; v < vectors; v += threads) {
        const float4 q = v4[v];
        sum += (q.x + q.y) + (q.z + q.w);
    }
    if (thread < n - 4 * vectors) sum += in[4 * vectors + thread];
    sum = block_sum<BLOCK>(sum);
    if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

template <int BLOCK>
__global__ void reduce_tree(const float* __restrict__ in, float* __restrict__ partial, int n, bool interleaved) {
    __shared__ float cache[BLOCK];
    const unsigned t = threadIdx.x;
    const long long i = (long long)blockIdx.x * BLOCK + t;
    cache[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (interleaved) {
        for (unsigned s = 1; s < BLOCK; s *= 2) {
            if (t % (2 * s) == 0) cache[t] += cache[t + s];
            __syncthreads();
        }
    } else {
        for (unsigned s = BLOCK / 2; s > 0; s /= 2) {
            if (t < s) cache[t] += cache[t + s];
            __syncthreads();
        }
    }
    if (t == 0) partial[blockIdx.x] = cache[0];
}

void tune_reduction(int n, int sms) {
    const size_t bytes = (size_t)n * sizeof(float);
    float *in, *copy, *work, *sum;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&copy, bytes));
    CHECK(cudaMalloc(&work, (n / 256 + 1024) * sizeof(float) * 2));
    CHECK(cudaMalloc(&sum, sizeof(float)));
    std::vector<float> host(n);
    uint64_t state = 12345;
    double exact = 0.0, magnitude = 0.0;
    for (float& x : host) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        x = (float)((state >> 40) & 0xFFFFFF) / 8388608.0f - 1.0f;
        exact += x;
        magnitude += std::fabs(x);
    }
    CHECK(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
    const double copy_ms = median_ms([&] { CHECK(cudaMemcpyAsync(copy, in, bytes, cudaMemcpyDeviceToDevice)); });
    const double copy_rate = 2.0 * bytes / copy_ms / 1e6;
    std::printf("\nreduction of %d floats: cudaMemcpy D2D %.3f ms, %.1f GB/s (read + write)\n", n, copy_ms, copy_rate);
    std::printf("  %-40s %9s %9s %7s  %s\n", "variant", "ms", "GB/s read", "% copy", "check");
    // A generous bound for every order here (depth 300): a wrong sum is off by far more.
    const double bound = 300 * std::ldexp(1.0, -24) * magnitude;

    auto report = [&](const std::string& name, double ms) {
        float got = 0.0f;
        CHECK(cudaMemcpy(&got, sum, sizeof got, cudaMemcpyDeviceToHost));
        const double rate = bytes / ms / 1e6;
        std::printf("  %-40s %9.4f %9.1f %6.1f%%  %s\n", name.c_str(), ms, rate, 100.0 * rate / copy_rate,
                    std::fabs(got - exact) <= bound ? "ok" : "WRONG");
    };

    for (bool interleaved : {true, false}) {
        CHECK(cudaMemset(sum, 0xFF, sizeof(float)));
        const double ms = median_ms([&] {
            const float* values = in;
            int count = n;
            float* next = work;
            for (;;) {
                const int blocks = (count + 255) / 256;
                float* o = blocks == 1 ? sum : next;
                reduce_tree<256><<<blocks, 256>>>(values, o, count, interleaved);
                if (blocks == 1) break;
                values = o;
                count = blocks;
                next = o + blocks;
            }
        });
        report(interleaved ? "tree, interleaved (6a)" : "tree, sequential (6b)", ms);
    }

    struct WarpCandidate {
        int block, unroll;
        void (*kernel)(const float*, float*, int);
        void (*final_kernel)(const float*, float*, int);
    };
    const WarpCandidate kernels[] = {
        {256, 1, reduce_warp<256, 1>, reduce_warp<256, 1>}, {256, 2, reduce_warp<256, 2>, reduce_warp<256, 1>},
        {256, 4, reduce_warp<256, 4>, reduce_warp<256, 1>}, {512, 1, reduce_warp<512, 1>, reduce_warp<256, 1>},
        {512, 2, reduce_warp<512, 2>, reduce_warp<256, 1>}, {1024, 1, reduce_warp<1024, 1>, reduce_warp<256, 1>},
    };
    for (const WarpCandidate& k : kernels) {
        for (int grid : {sms, 2 * sms, 4 * sms, 8 * sms, 1024, 2048, 4096}) {
            CHECK(cudaMemset(sum, 0xFF, sizeof(float)));
            const double ms = median_ms([&] {
                k.kernel<<<grid, k.block>>>(in, work, n);
                k.final_kernel<<<1, 256>>>(work, sum, grid);
            });
            report("float4+shuffle, block " + std::to_string(k.block) + ", unroll " + std::to_string(k.unroll) +
                       ", grid " + std::to_string(grid) + (grid == 2048 && k.block == 256 && k.unroll == 1 ? " (6c)" : ""),
                   ms);
        }
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(copy));
    CHECK(cudaFree(work));
    CHECK(cudaFree(sum));
}

}  // namespace

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0;
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    std::printf("%s, %d SMs, L2 %d MiB, driver CUDA %d, runtime %d; median of %d, L2 flushed before each\n",
                prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, driver, runtime, kReps);
    g_flush_bytes = std::max<size_t>(2 * (size_t)prop.l2CacheSize, 64u << 20);
    CHECK(cudaMalloc(&g_flush, g_flush_bytes));

    double square_share = 0, awkward_share = 0;
    std::string square_best, awkward_best;
    tune_transpose(8192, 8192, square_share, square_best);
    tune_transpose(8191, 8193, awkward_share, awkward_best);
    tune_reduction(1 << 28, prop.multiProcessorCount);
    std::printf("\nbest transpose: 8192^2 %s (%.1f%%), 8191 x 8193 %s (%.1f%%)\n", square_best.c_str(), square_share,
                awkward_best.c_str(), awkward_share);
    CHECK(cudaFree(g_flush));
    return 0;
}
