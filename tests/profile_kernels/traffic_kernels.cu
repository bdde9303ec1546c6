// Kernels with known memory traffic, for the profiler's tests (tests/profile.cpp). The
// expected counts are worked out in the tests, from these access patterns.
#include "traffic_kernels.h"

#include "cuda_check.h"
#include "tensor_cores.h"

#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>

namespace traffic_kernels {

namespace {
constexpr int kBlock = 256;
int blocks_for(int n) { return (n + kBlock - 1) / kBlock; }
}  // namespace

__global__ void gather_float_kernel(const float* in, float* out, int n, int stride, int offset) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i * stride + offset];
    }
}

void gather_float(const float* in, float* out, int n, int stride, int offset) {
    gather_float_kernel<<<blocks_for(n), kBlock>>>(in, out, n, stride, offset);
    CUDA_CHECK_KERNEL("gather_float_kernel");
}

__global__ void copy_bytes_kernel(const unsigned char* in, unsigned char* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}

void copy_bytes(const unsigned char* in, unsigned char* out, int n) {
    copy_bytes_kernel<<<blocks_for(n), kBlock>>>(in, out, n);
    CUDA_CHECK_KERNEL("copy_bytes_kernel");
}

__global__ void copy_float4_kernel(const Float4* in, Float4* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}

void copy_float4(const Float4* in, Float4* out, int n) {
    copy_float4_kernel<<<blocks_for(n), kBlock>>>(in, out, n);
    CUDA_CHECK_KERNEL("copy_float4_kernel");
}

__global__ void broadcast_float_kernel(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[0];
    }
}

void broadcast_float(const float* in, float* out, int n) {
    broadcast_float_kernel<<<blocks_for(n), kBlock>>>(in, out, n);
    CUDA_CHECK_KERNEL("broadcast_float_kernel");
}

__global__ void shared_words_kernel(float* out, int pattern) {
    __shared__ float words[1024];
    const int t = threadIdx.x;
    for (int i = t; i < 1024; i += blockDim.x) {
        words[i] = static_cast<float>(i);
    }
    __syncthreads();
    int index = t;
    if (pattern == 1) index = 2 * t;
    if (pattern == 2) index = 32 * t;
    if (pattern == 3) index = 0;
    out[t] = words[index];
}

void shared_words(float* out, SharedPattern pattern) {
    shared_words_kernel<<<1, 32>>>(out, static_cast<int>(pattern));
    CUDA_CHECK_KERNEL("shared_words_kernel");
}

template <int PAD>
__global__ void transpose_tile_kernel(const float* in, float* out) {
    __shared__ float tile[32][32 + PAD];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];  // the column read
}

void transpose_tile(const float* in, float* out, int pad) {
    if (pad == 0) {
        transpose_tile_kernel<0><<<1, dim3(32, 32)>>>(in, out);
    } else {
        transpose_tile_kernel<1><<<1, dim3(32, 32)>>>(in, out);
    }
    CUDA_CHECK_KERNEL("transpose_tile_kernel");
}

// ---- Accesses through pointer casts ---------------------------------------------------------
__global__ void copy_cast_float4_kernel(const float* in, float* out, int quads) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < quads) {
        *reinterpret_cast<float4*>(&out[4 * i]) = *reinterpret_cast<const float4*>(&in[4 * i]);
    }
}

void copy_cast_float4(const float* in, float* out, int quads) {
    copy_cast_float4_kernel<<<blocks_for(quads), kBlock>>>(in, out, quads);
    CUDA_CHECK_KERNEL("copy_cast_float4_kernel");
}

__global__ void copy_raw_float4_kernel(const float* in, float* out, int quads) {
    const float4* from = reinterpret_cast<const float4*>(in);  // raw pointers: the CPU backend cannot follow them
    float4* to = reinterpret_cast<float4*>(out);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < quads) to[i] = from[i];
}

void copy_raw_float4(const float* in, float* out, int quads) {
    copy_raw_float4_kernel<<<blocks_for(quads), kBlock>>>(in, out, quads);
    CUDA_CHECK_KERNEL("copy_raw_float4_kernel");
}

namespace {
__device__ float sum_of(float2 v) { return v.x + v.y; }
__device__ float sum_of(float4 v) { return v.x + v.y + v.z + v.w; }
__device__ float2 vector_at(float2*, int i) { return make_float2(float(i), float(i) + 0.5f); }
__device__ float4 vector_at(float4*, int i) { return make_float4(float(i), float(i) + 0.25f, float(i) + 0.5f, float(i) + 0.75f); }
}  // namespace

// One warp stores 1024 shared floats as vectors (consecutive, 32 lanes at a time), then
// loads one vector per lane at the word index the pattern gives (see VectorPattern).
template <class Vector>
__global__ void shared_vectors_kernel(float* out, int pattern) {
    constexpr int kWords = sizeof(Vector) / sizeof(float);
    __shared__ __align__(16) float words[1024];
    const int t = threadIdx.x;
    for (int i = t; i < 1024 / kWords; i += blockDim.x) {
        *reinterpret_cast<Vector*>(&words[kWords * i]) = vector_at(static_cast<Vector*>(nullptr), i);
    }
    __syncthreads();
    int index = kWords * t;                          // consecutive
    if (pattern == 1) index = 0;                     // same vector
    if (pattern == 2) index = (t / 16) * 16;         // two vectors, 64 bytes apart: lanes 0-15 and 16-31
    if (pattern == 3) index = kWords * (t % 16);     // lanes 16-31 repeat lanes 0-15
    if (pattern == 4) index = (t / 8) * 32;          // four vectors, all in the same banks: lanes in eights
    if (pattern == 5) index = 2 * kWords * t;        // every other vector
    if (pattern == 6) index = (t % 2) * 32 + kWords * (t / 2) % 32;  // even lanes one row, odd lanes the next, same banks
    out[t] = sum_of(*reinterpret_cast<const Vector*>(&words[index]));
}

void shared_vectors(float* out, int vector_floats, VectorPattern pattern) {
    if (vector_floats == 2) {
        shared_vectors_kernel<float2><<<1, 32>>>(out, static_cast<int>(pattern));
    } else {
        shared_vectors_kernel<float4><<<1, 32>>>(out, static_cast<int>(pattern));
    }
    CUDA_CHECK_KERNEL("shared_vectors_kernel");
}

// Chapter 2's inner loop in small: one block of 16 x 16 threads, a 16 x 16 shared tile;
// thread (x, y) adds tile[y][k] * tile[k][x] over k, a loop the compiler unrolls. Each
// warp holds two rows y: tile[y][k] is the same word for 16 lanes (a broadcast).
__global__ void row_times_column_kernel(float* out) {
    __shared__ float tile[16][16];
    const int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = static_cast<float>(y * 16 + x);
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 16; ++k) {
        sum += tile[y][k] * tile[k][x];
    }
    out[y * 16 + x] = sum;
}

void row_times_column(float* out) {
    row_times_column_kernel<<<1, dim3(16, 16)>>>(out);
    CUDA_CHECK_KERNEL("row_times_column_kernel");
}

// Each block of 256 threads copies 2048 floats into shared memory, 8 consecutive stores per
// thread, as chapter 7's tile loads do, then writes them back out. L2_ONLY loads with
// __ldcg (cached in L2, not in L1): the data then do not pass through the L1's data banks,
// which shared memory shares on the GPU.
template <bool L2_ONLY>
__global__ void stage_tile_kernel(const float* in, float* out) {
    __shared__ float tile[2048];
    const int base = blockIdx.x * 2048;
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) {
        tile[i] = L2_ONLY ? __ldcg(in + base + i) : in[base + i];
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) {
        out[base + i] = tile[2047 - i];
    }
}

void stage_tile(const float* in, float* out, int blocks, bool l2_only) {
    if (l2_only) {
        stage_tile_kernel<true><<<blocks, 256>>>(in, out);
    } else {
        stage_tile_kernel<false><<<blocks, 256>>>(in, out);
    }
    CUDA_CHECK_KERNEL("stage_tile_kernel");
}

// Loads in two spans between barriers: one float a thread, then two; nothing after the
// second barrier but a store. Block b reads floats 768 b .. 768 b + 767.
__global__ void two_spans_kernel(const float* in, float* out) {
    __shared__ float first[kBlock];
    const int base = blockIdx.x * 3 * kBlock;
    first[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    const float a = in[base + kBlock + threadIdx.x];
    const float b = in[base + 2 * kBlock + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * kBlock + threadIdx.x] = first[kBlock - 1 - threadIdx.x] + a + b;
}

void two_spans(const float* in, float* out, int blocks) {
    two_spans_kernel<<<blocks, kBlock>>>(in, out);
    CUDA_CHECK_KERNEL("two_spans_kernel");
}

template <int BYTES>
__global__ void stage_tile_async_kernel(const float* in, float* out) {
    __shared__ __align__(16) float tile[2048];
    const int base = blockIdx.x * 2048;
    constexpr int kFloats = BYTES / 4;
    for (int i = threadIdx.x * kFloats; i < 2048; i += blockDim.x * kFloats) {
        __pipeline_memcpy_async(&tile[i], in + base + i, BYTES);
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) {
        out[base + i] = tile[2047 - i];
    }
}

void stage_tile_async(const float* in, float* out, int blocks, int copy_bytes) {
    if (copy_bytes == 16) {
        stage_tile_async_kernel<16><<<blocks, 256>>>(in, out);
    } else {
        stage_tile_async_kernel<4><<<blocks, 256>>>(in, out);
    }
    CUDA_CHECK_KERNEL("stage_tile_async_kernel");
}

// The ways a kernel may reach a float4: a cast __shared__ array, cast extern __shared__
// memory, a C-style cast of an element's address, a C-style cast of a pointer parameter.
__global__ void cast_forms_kernel(const float* in, float* out) {
    __shared__ __align__(16) float tile[4][32];
    extern __shared__ float dynamic_words[];
    const float value = in[threadIdx.x];
    tile[threadIdx.x / 32][threadIdx.x % 32] = value;
    dynamic_words[threadIdx.x] = value;
    __syncthreads();
    const float4 a = reinterpret_cast<const float4*>(tile)[threadIdx.x % 32];
    const float4 b = reinterpret_cast<const float4*>(dynamic_words)[threadIdx.x % 32];
    const float4 c = *(const float4*)&tile[1][4 * (threadIdx.x % 8)];
    const float4 d = ((const float4*)(in))[threadIdx.x % 32];
    // Every component is used: nvcc loads only the components a kernel uses.
    out[threadIdx.x] = (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w) + (c.x + c.y + c.z + c.w) + (d.x + d.y + d.z + d.w);
}

void cast_forms(const float* in, float* out) {
    cast_forms_kernel<<<1, 128, 128 * sizeof(float)>>>(in, out);
    CUDA_CHECK_KERNEL("cast_forms_kernel");
}

// A float4 pointer kept in an auto variable, its elements' components read directly.
__global__ void auto_pointer_kernel(const float* in, float* out, int quads) {
    const auto from = reinterpret_cast<const float4*>(in);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < quads) {
        out[i] = from[i].x;
    }
}

void auto_pointer(const float* in, float* out, int quads) {
    auto_pointer_kernel<<<blocks_for(quads), kBlock>>>(in, out, quads);
    CUDA_CHECK_KERNEL("auto_pointer_kernel");
}

// A histogram of in[t] % 32, in[t + threads] % 32 and in[t + 2 threads] % 32 per block,
// in shared memory: three atomicAdd calls per thread; bins copied to out[block * 32 + b].
__global__ void shared_atomics_kernel(const unsigned* in, unsigned* out) {
    __shared__ unsigned bins[32];
    for (int b = threadIdx.x; b < 32; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    for (int k = 0; k < 3; ++k) atomicAdd(&bins[in[(k * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x] % 32], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 32; b += blockDim.x) out[blockIdx.x * 32 + b] = bins[b];
}

void shared_atomics(const unsigned* in, unsigned* out, int blocks, int threads) {
    shared_atomics_kernel<<<blocks, threads>>>(in, out);
    CUDA_CHECK_KERNEL("shared_atomics_kernel");
}

// Clusters need sm_90: for older architectures (a build for several) the bodies are empty.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
namespace cg = cooperative_groups;

// What the kernels that add to the words of both blocks of a cluster of 2 share: each
// block's 32 shared @p words are zeroed, across the cluster, before thread i calls
// add(cluster, i); after the cluster's last barrier out[i] = word threadIdx.x % 32 of the
// thread's own block. Words and Out are what the kernel has (a __shared__ array, a pointer
// parameter), so that the CPU backend checks and counts the accesses as the kernel's.
template <class Words, class Out, class Add>
__device__ void add_to_cluster_words(Words& words, Out out, Add add) {
    cg::cluster_group cluster = cg::this_cluster();
    for (int b = threadIdx.x; b < 32; b += blockDim.x) words[b] = 0;
    cluster.sync();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    add(cluster, i);
    cluster.sync();
    out[i] = words[threadIdx.x % 32];
}
#endif

// Pairs of blocks: each thread adds in[i] to word threadIdx.x % 32 of its own block's
// shared memory and to the same word of the other block's; out[i] = its block's word.
__global__ void remote_atomics_kernel(const unsigned* in, unsigned* out) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    __shared__ unsigned words[32];
    add_to_cluster_words(words, out, [&](cg::cluster_group& cluster, int i) {
        // One load of in[i]: read twice, nvcc keeps one load and the CPU backend counts two
        // (it counts the loads the source makes; docs/profile.md).
        const unsigned value = in[i];
        atomicAdd(&words[threadIdx.x % 32], value);
        unsigned* other = cluster.map_shared_rank(&words[0], cluster.block_rank() ^ 1);
        atomicAdd(other + threadIdx.x % 32, value);
    });
#endif
}

// One call site through map_shared_rank, executed twice, whose lanes name both ranks of a
// cluster of 2: the first time even lanes their own block and odd lanes the other, the
// second time the other way round. On the GPU each execution is one
// distributed-shared-memory atomic instruction, the own-rank lanes included.
__global__ void mixed_rank_atomics_kernel(const unsigned* in, unsigned* out) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    __shared__ unsigned words[32];
    add_to_cluster_words(words, out, [&](cg::cluster_group& cluster, int i) {
        for (unsigned turn = 0; turn < 2; ++turn) {
            const unsigned rank = cluster.block_rank() ^ ((threadIdx.x + turn) % 2);
            atomicAdd(cluster.map_shared_rank(&words[0], rank) + threadIdx.x % 32, in[i]);
        }
    });
#endif
}

// Pairs of blocks: each thread stores in[i] in word threadIdx.x of its block's shared
// memory; after cluster.sync() it reads word threadIdx.x of the other block's through
// map_shared_rank (one distributed-shared-memory load per warp) into out[i].
__global__ void remote_loads_kernel(const unsigned* in, unsigned* out) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    __shared__ unsigned words[1024];
    cg::cluster_group cluster = cg::this_cluster();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    words[threadIdx.x] = in[i];
    cluster.sync();
    const unsigned* other = cluster.map_shared_rank(&words[0], cluster.block_rank() ^ 1);
    out[i] = other[threadIdx.x];
    cluster.sync();  // the other block reads this block's words too: neither may exit before
#endif
}

// Two global atomics per thread: a count whose old value is unused (a GPU may issue it as a
// reduction, RED) and a sum whose old value is used (ATOM).
__global__ void global_atomics_kernel(const unsigned* in, unsigned* out) {
    const unsigned v = in[blockIdx.x * blockDim.x + threadIdx.x];
    atomicAdd(&out[v % 32], 1u);
    const unsigned before = atomicAdd(&out[32 + threadIdx.x % 32], v);
    if (before == 0xffffffffu) out[0] = 0;  // uses the old value; never true for the test's inputs
}

void global_atomics(const unsigned* in, unsigned* out, int blocks, int threads) {
    global_atomics_kernel<<<blocks, threads>>>(in, out);
    CUDA_CHECK_KERNEL("global_atomics_kernel");
}

namespace {

// A launch in clusters of 2 blocks (cudaLaunchKernelEx with the cluster-dimension attribute).
void launch_in_pairs(void (*kernel)(const unsigned*, unsigned*), const char* name, const unsigned* in, unsigned* out,
                     int blocks, int threads) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    cudaLaunchAttribute cluster;
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 2;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, in, out));
    CUDA_CHECK_KERNEL(name);
}

}  // namespace

void remote_atomics(const unsigned* in, unsigned* out, int blocks, int threads) {
    launch_in_pairs(remote_atomics_kernel, "remote_atomics_kernel", in, out, blocks, threads);
}

void mixed_rank_atomics(const unsigned* in, unsigned* out, int blocks, int threads) {
    launch_in_pairs(mixed_rank_atomics_kernel, "mixed_rank_atomics_kernel", in, out, blocks, threads);
}

void remote_loads(const unsigned* in, unsigned* out, int blocks, int threads) {
    launch_in_pairs(remote_loads_kernel, "remote_loads_kernel", in, out, blocks, threads);
}

template <bool SWIZZLED>
__global__ void ldmatrix_tile_kernel(std::uint32_t* out) {
    __shared__ __align__(128) __nv_bfloat16 tile[16 * 64];
    const int lane = threadIdx.x;
    // Where element (r, c) lies: chunk c / 8 of row r moves to chunk (c / 8) ^ (r % 8) when swizzled.
    const auto at = [](int r, int c) { return r * 64 + (SWIZZLED ? ((c / 8) ^ (r % 8)) * 8 + c % 8 : c); };
    for (int i = lane; i < 16 * 64; i += 32) tile[at(i / 64, i % 64)] = __float2bfloat16(static_cast<float>(i));
    __syncthreads();
    std::uint32_t r[4];
    tutorial::ldmatrix_x4(r, &tile[at(lane % 16, lane / 16 * 8)]);
    for (int i = 0; i < 4; ++i) out[4 * lane + i] = r[i];
}

void ldmatrix_tile(std::uint32_t* out, bool swizzled) {
    if (swizzled) {
        ldmatrix_tile_kernel<true><<<1, 32>>>(out);
    } else {
        ldmatrix_tile_kernel<false><<<1, 32>>>(out);
    }
    CUDA_CHECK_KERNEL("ldmatrix_tile_kernel");
}

}  // namespace traffic_kernels
