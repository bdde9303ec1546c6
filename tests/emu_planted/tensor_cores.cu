// The tensor cores' ldmatrix and mma.sync (common/tensor_cores.h) on the CPU backend:
// kernels that use them right, to check their fragments against the PTX ISA's layouts, and
// planted misuses that the backend must report with the call's file and line.
#include "planted.h"

#include "cuda_check.h"
#include "tensor_cores.h"

#include <cstdint>

namespace planted {
namespace {

// One warp stages the 16 × 16 row-major @p in in shared memory and loads it with the
// ldmatrix of @p variant; lane l writes its registers to out[4 l ..].
__global__ void ldmatrix_fragments_kernel(const __nv_bfloat16* in, std::uint32_t* out, int variant) {
    __shared__ __align__(16) __nv_bfloat16 tile[16 * 16];
    const int lane = threadIdx.x;
    for (int i = lane; i < 16 * 16; i += 32) tile[i] = in[i];
    __syncwarp();
    // Lane l points at row l % 16, columns 8 (l / 16): matrices (rows 0-7, cols 0-7),
    // (rows 8-15, cols 0-7), (rows 0-7, cols 8-15), (rows 8-15, cols 8-15).
    const __nv_bfloat16* row = &tile[lane % 16 * 16 + lane / 16 * 8];
    std::uint32_t r[4] = {0, 0, 0, 0};
    switch (static_cast<LdmatrixVariant>(variant)) {
        case LdmatrixVariant::x4: tutorial::ldmatrix_x4(r, row); break;
        case LdmatrixVariant::x4_trans: tutorial::ldmatrix_x4_trans(r, row); break;
        case LdmatrixVariant::x2: {
            std::uint32_t two[2];
            tutorial::ldmatrix_x2(two, row);
            r[0] = two[0], r[1] = two[1];
            break;
        }
        case LdmatrixVariant::x2_trans: {
            std::uint32_t two[2];
            tutorial::ldmatrix_x2_trans(two, row);
            r[0] = two[0], r[1] = two[1];
            break;
        }
    }
    for (int i = 0; i < 4; ++i) out[4 * lane + i] = r[i];
}

// D = A·B + C for one 16 × 16 A, 16 × 8 B (row-major, k × n) and 16 × 8 C, by one warp:
// A's fragments by ldmatrix_x4, B's by ldmatrix_x2_trans, C's and D's by the table of
// common/tensor_cores.h, or with the index @p bug plants.
__global__ void mma_tile_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, const float* C, float* D, int bug) {
    __shared__ __align__(16) __nv_bfloat16 A_tile[16 * 16];
    __shared__ __align__(16) __nv_bfloat16 B_tile[16 * 8];
    const int lane = threadIdx.x;
    for (int i = lane; i < 16 * 16; i += 32) A_tile[i] = A[i];
    for (int i = lane; i < 16 * 8; i += 32) B_tile[i] = B[i];
    __syncwarp();
    const FragmentBug planted_bug = static_cast<FragmentBug>(bug);
    std::uint32_t a[4], b[2];
    // The right column is 8 (lane / 16); the planted one takes the matrices' order for
    // columns-then-rows, 8 ((lane / 8) % 2).
    const int a_col = planted_bug == FragmentBug::a_matrix_order ? lane / 8 % 2 * 8 : lane / 16 * 8;
    tutorial::ldmatrix_x4(a, &A_tile[lane % 16 * 16 + a_col]);
    tutorial::ldmatrix_x2_trans(b, &B_tile[lane % 16 * 8]);
    const int group = lane / 4, pair = 2 * (lane % 4);
    // The right row of c[0], c[1] is lane / 4; the planted one lane % 8.
    const int row = planted_bug == FragmentBug::c_row ? lane % 8 : group;
    float c[4] = {C[row * 8 + pair], C[row * 8 + pair + 1], C[(row + 8) * 8 + pair], C[(row + 8) * 8 + pair + 1]};
    float d[4];
    tutorial::mma_m16n8k16_bf16(d, a, b, c);
    D[row * 8 + pair] = d[0];
    D[row * 8 + pair + 1] = d[1];
    D[(row + 8) * 8 + pair] = d[2];
    D[(row + 8) * 8 + pair + 1] = d[3];
}

// Two warps, each D = Σ over the steps of A_s·B_s (16 × 16 by 16 × 8), both from the same
// shared tiles, which all 64 threads refill at every step. With kBarrierAtEnd false the
// barrier after the warps' ldmatrix is missing: a warp that runs ahead refills the tiles
// while the other still has to read them.
template <bool kBarrierAtEnd>
__global__ void mma_steps_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, float* D, int steps) {
    __shared__ __align__(16) __nv_bfloat16 A_tile[16 * 16];
    __shared__ __align__(16) __nv_bfloat16 B_tile[16 * 8];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float acc[4] = {0, 0, 0, 0};
    for (int s = 0; s < steps; ++s) {
        for (int i = threadIdx.x; i < 16 * 16; i += 64) A_tile[i] = A[s * 16 * 16 + i];
        for (int i = threadIdx.x; i < 16 * 8; i += 64) B_tile[i] = B[s * 16 * 8 + i];
        __syncthreads();
        std::uint32_t a[4], b[2];
        tutorial::ldmatrix_x4(a, &A_tile[lane % 16 * 16 + lane / 16 * 8]);
        tutorial::ldmatrix_x2_trans(b, &B_tile[lane % 16 * 8]);
        tutorial::mma_m16n8k16_bf16(acc, a, b, acc);
        if (kBarrierAtEnd) __syncthreads();
    }
    const int group = lane / 4, pair = 2 * (lane % 4);
    float* mine = D + warp * 16 * 8;
    mine[group * 8 + pair] = acc[0];
    mine[group * 8 + pair + 1] = acc[1];
    mine[(group + 8) * 8 + pair] = acc[2];
    mine[(group + 8) * 8 + pair + 1] = acc[3];
}

// Each lane's row starts one element (2 bytes) past where it should.
__global__ void ldmatrix_misaligned_planted(std::uint32_t* out) {
    __shared__ __align__(16) __nv_bfloat16 tile[16 * 16 + 8];
    const int lane = threadIdx.x;
    for (int i = lane; i < 16 * 16 + 8; i += 32) tile[i] = __float2bfloat16(static_cast<float>(i));
    __syncwarp();
    std::uint32_t r[4];
    tutorial::ldmatrix_x4(r, &tile[lane % 16 * 16 + lane / 16 * 8 + 1]);  // one element too far
    out[lane] = r[0];
}

// ldmatrix inside a branch that half the warp skips.
__global__ void ldmatrix_in_branch_planted(std::uint32_t* out) {
    __shared__ __align__(16) __nv_bfloat16 tile[16 * 16];
    const int lane = threadIdx.x;
    for (int i = lane; i < 16 * 16; i += 32) tile[i] = __float2bfloat16(1.0f);
    __syncwarp();
    std::uint32_t r[4] = {0, 0, 0, 0};
    if (lane < 16) tutorial::ldmatrix_x4(r, &tile[lane % 16 * 16 + lane / 16 * 8]);  // half the warp
    out[lane] = r[0];
}

// ldmatrix given rows in global memory.
__global__ void ldmatrix_from_global_planted(const __nv_bfloat16* in, std::uint32_t* out) {
    const int lane = threadIdx.x;
    std::uint32_t r[4];
    tutorial::ldmatrix_x4(r, &in[lane % 16 * 16 + lane / 16 * 8]);  // global, not shared
    out[lane] = r[0];
}

// mma.sync in a block of 48 threads: its second warp has 16 lanes.
__global__ void mma_in_partial_warp_planted(float* out) {
    const std::uint32_t a[4] = {0, 0, 0, 0}, b[2] = {0, 0};
    float d[4] = {0, 0, 0, 0};
    tutorial::mma_m16n8k16_bf16(d, a, b, d);  // every lane of a 48-thread block
    out[threadIdx.x] = d[0];
}

}  // namespace

void ldmatrix_fragments(const __nv_bfloat16* in, std::uint32_t* out, LdmatrixVariant variant) {
    ldmatrix_fragments_kernel<<<1, 32>>>(in, out, static_cast<int>(variant));
    CUDA_CHECK_KERNEL("ldmatrix_fragments_kernel");
}

void mma_tile(const __nv_bfloat16* A, const __nv_bfloat16* B, const float* C, float* D, FragmentBug bug) {
    mma_tile_kernel<<<1, 32>>>(A, B, C, D, static_cast<int>(bug));
    CUDA_CHECK_KERNEL("mma_tile_kernel");
}

void mma_steps(const __nv_bfloat16* A, const __nv_bfloat16* B, float* D, int steps, bool barrier_at_end) {
    if (barrier_at_end) {
        mma_steps_kernel<true><<<1, 64>>>(A, B, D, steps);
    } else {
        mma_steps_kernel<false><<<1, 64>>>(A, B, D, steps);
    }
    CUDA_CHECK_KERNEL("mma_steps_kernel");
}

void tensor_core_misuse(TensorCoreMisuse misuse, const __nv_bfloat16* in, std::uint32_t* out, float* out_floats) {
    const char* const kernels[] = {"ldmatrix_misaligned_planted", "ldmatrix_in_branch_planted",
                                   "ldmatrix_from_global_planted", "mma_in_partial_warp_planted"};
    switch (misuse) {
        case TensorCoreMisuse::misaligned_row: ldmatrix_misaligned_planted<<<1, 32>>>(out); break;
        case TensorCoreMisuse::ldmatrix_in_branch: ldmatrix_in_branch_planted<<<1, 32>>>(out); break;
        case TensorCoreMisuse::rows_in_global_memory: ldmatrix_from_global_planted<<<1, 32>>>(in, out); break;
        case TensorCoreMisuse::mma_in_partial_warp: mma_in_partial_warp_planted<<<1, 48>>>(out_floats); break;
    }
    CUDA_CHECK_KERNEL(kernels[static_cast<int>(misuse)]);
}

}  // namespace planted
