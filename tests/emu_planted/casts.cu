// Planted bugs behind pointer casts to vector types: a float4 read that runs past the end
// of its buffer, float4 accesses at addresses that are not multiples of 16 (global and
// shared), and a crash through a raw pointer the checks cannot follow. Their correct
// twin sums the same quads within bounds.
#include "planted.h"

#include "cuda_check.h"

namespace planted {
namespace {

// out[i] = the sum of the float4 at in + 4 * i + shift, for i < quads: with shift 0 and
// 4 * quads ≤ the buffer's floats, every read is inside and aligned.
__global__ void quad_sums_kernel(const float* in, float* out, int quads, int shift) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= quads) return;
    const float4 q = *reinterpret_cast<const float4*>(&in[4 * i + shift]);
    out[i] = q.x + q.y + q.z + q.w;
}

// The same through a cast pointer kept in a variable and moved by arithmetic.
__global__ void quad_sums_moved_kernel(const float* in, float* out, int quads) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= quads) return;
    const auto first = reinterpret_cast<const float4*>(in);
    const auto mine = first + i;
    out[i] = mine->x + mine->y + mine->z + mine->w;
}

// A block's 32 threads stage 32 floats and 6 zeros in shared memory; thread t then reads
// the float4 at float 4 * (t % 8) + shift of the tile (152 bytes: with shift 8, thread 7's
// quad starts inside it and runs past its end).
__global__ void shared_quads_kernel(const float* in, float* out, int shift) {
    __shared__ float tile[38];
    tile[threadIdx.x] = in[threadIdx.x];
    if (threadIdx.x < 6) tile[32 + threadIdx.x] = 0.0f;
    __syncthreads();
    const float4 q = *reinterpret_cast<const float4*>(&tile[4 * (threadIdx.x % 8) + shift]);
    out[threadIdx.x] = q.x + q.y + q.z + q.w;
}

// A raw float4 pointer (declared as one: the checks stay behind) that thread 0 reads
// @p offset quads past.
__global__ void raw_quad_kernel(const float* in, float* out, long long offset) {
    const float4* raw = reinterpret_cast<const float4*>(in);
    if (threadIdx.x == 0) {
        const float4 q = raw[offset];
        out[0] = q.x + q.y + q.z + q.w;
    }
}

}  // namespace

void quad_sums(const float* in, float* out, int quads, int shift, bool moved) {
    if (moved) {
        quad_sums_moved_kernel<<<(quads + 63) / 64, 64>>>(in, out, quads);
    } else {
        quad_sums_kernel<<<(quads + 63) / 64, 64>>>(in, out, quads, shift);
    }
    CUDA_CHECK_KERNEL("quad_sums_kernel");
}

void shared_quads(const float* in, float* out, int shift) {
    shared_quads_kernel<<<1, 32>>>(in, out, shift);
    CUDA_CHECK_KERNEL("shared_quads_kernel");
}

void raw_quad(const float* in, float* out, long long offset) {
    raw_quad_kernel<<<1, 32>>>(in, out, offset);
    CUDA_CHECK_KERNEL("raw_quad_kernel");
}

namespace {

// Stages in the dynamic shared memory seen as a 2 × 4 × 8 array, as chapter 8's 8d keeps
// its stages: thread t (of 64) writes in[t] at [t / 32][(t / 8) % 4][t % 8], and after a
// barrier reads back [t / 32][(t / 8) % 4][(t + shift) % 8 + column_past] into out[t]: with
// column_past 0 every index is inside, with 1 thread 7's column is 8, past the row's end.
__global__ void dynamic_stages_kernel(const float* in, float* out, int shift, int column_past) {
    extern __shared__ float stage_bytes[];
    auto& stages = *reinterpret_cast<float (*)[2][4][8]>(stage_bytes);
    const int t = threadIdx.x;
    stages[t / 32][t / 8 % 4][t % 8] = in[t];
    __syncthreads();
    const int column = (t + shift) % 8 + (t % 8 == 7 ? column_past : 0);
    out[t] = stages[t / 32][t / 8 % 4][column];
}

}  // namespace

void dynamic_stages(const float* in, float* out, int shift, int column_past) {
    dynamic_stages_kernel<<<1, 64, 2 * 4 * 8 * sizeof(float)>>>(in, out, shift, column_past);
    CUDA_CHECK_KERNEL("dynamic_stages_kernel");
}

namespace {

// The same through a `__shared__ float[64]` seen as 8 × 8: thread t (of 64) writes in[t] at
// [t / 8][t % 8] and reads back [t / 8][t % 8 + column_past] of the last thread of a row.
__global__ void static_view_kernel(const float* in, float* out, int column_past) {
    __shared__ float flat[64];
    auto& rows = *reinterpret_cast<float (*)[8][8]>(flat);
    const int t = threadIdx.x;
    rows[t / 8][t % 8] = in[t];
    __syncthreads();
    out[t] = rows[t / 8][t % 8 + (t % 8 == 7 ? column_past : 0)];
}

}  // namespace

void static_view(const float* in, float* out, int column_past) {
    static_view_kernel<<<1, 64>>>(in, out, column_past);
    CUDA_CHECK_KERNEL("static_view_kernel");
}

}  // namespace planted
