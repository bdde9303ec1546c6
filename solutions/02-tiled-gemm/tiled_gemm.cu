// Chapter 2: tiled GEMM in shared memory, correct for any M, N, K.
//
// Reference solution.
//
// Every matrix is row-major: element (r, c) of a matrix with `cols` columns is at
// index r * cols + c.
#include "tiled_gemm.h"

#include "cuda_check.h"
#include "gemm/gemm_reference.h"

#include <stdexcept>

// A TILE x TILE block computes one TILE x TILE tile of C. It walks along K one tile at
// a time: each phase stages a tile of A and a tile of B in shared memory, and every
// element staged there is then read TILE times from shared memory instead of TILE
// times from global memory.
template <int TILE>
__global__ void tiled_gemm_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    // BEGIN SOLUTION: declare two TILE x TILE __shared__ float arrays, one for the current
    //   tile of A and one for the current tile of B.
    __shared__ float A_tile[TILE][TILE];
    __shared__ float B_tile[TILE][TILE];
    // END SOLUTION

    // BEGIN SOLUTION: `row` and `col` of this thread's element of C, as in chapter 1, and
    //   a float sum that starts at 0. Do NOT return early for threads outside C: they
    //   still have to load their share of the tiles and reach every __syncthreads().
    // No early return for threads outside C: they must still load their share of the
    // tiles (as zeros) and reach both barriers of every phase.
    const int col = blockIdx.x * TILE + threadIdx.x;
    const int row = blockIdx.y * TILE + threadIdx.y;
    float sum = 0.0f;
    // END SOLUTION

    // BEGIN SOLUTION: loop over the phases, t = 0, TILE, 2*TILE, ... while t < K. In each:
    //   1. load A(row, t + threadIdx.x) and B(t + threadIdx.y, col) into the two tiles,
    //      storing 0.0f instead when the element lies outside A or B (zero padding keeps
    //      the sum right for partial tiles);
    //   2. __syncthreads(), so no thread reads a tile before all of it is loaded;
    //   3. add the TILE products of this phase, reading both tiles from shared memory;
    //   4. __syncthreads(), so no thread overwrites a tile while others still read it.
    for (int t = 0; t < K; t += TILE) {
        // Zero padding: an element outside A or B contributes 0 to the sum, so the
        // last, partial tile needs no special case in the inner loop.
        const int a_col = t + threadIdx.x;
        const int b_row = t + threadIdx.y;
        A_tile[threadIdx.y][threadIdx.x] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        B_tile[threadIdx.y][threadIdx.x] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        // Barrier 1: the tiles are written by every thread of the block and read by
        // others; nobody may read before all the writes are done.
        __syncthreads();

#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            sum += A_tile[threadIdx.y][k] * B_tile[k][threadIdx.x];
        }
        // Barrier 2: the next phase overwrites the tiles; nobody may do so while a
        // slower thread is still reading this phase's values.
        __syncthreads();
    }
    // END SOLUTION

    // BEGIN SOLUTION: store the sum in C(row, col), only if the element is inside C.
    if (row < M && col < N) {
        C[row * N + col] = sum;
    }
    // END SOLUTION
}

tutorial::LaunchConfig tiled_gemm_launch_config(int M, int N, int tile) {
    // BEGIN SOLUTION: one tile x tile block for each tile of C, covering all N columns
    //   (grid.x) and all M rows (grid.y), as in chapter 1.
    //| (void)M;
    //| (void)N;
    //| (void)tile;
    //| return tutorial::LaunchConfig{dim3(1, 1), dim3(1, 1)};
    const dim3 block(tile, tile);
    const dim3 grid(tutorial::ceil_div(N, tile), tutorial::ceil_div(M, tile));
    return tutorial::LaunchConfig{grid, block};
    // END SOLUTION
}

// TILE must be known when the kernel is compiled, because it sizes the __shared__
// arrays; so each supported tile has its own instance of the kernel template.
template <int TILE>
void launch_tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    const tutorial::LaunchConfig launch = tiled_gemm_launch_config(M, N, TILE);
    tiled_gemm_kernel<TILE><<<launch.grid, launch.block>>>(A, B, C, M, N, K);
    CUDA_CHECK_KERNEL("tiled_gemm_kernel");
}

void tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K, int tile) {
    tutorial::require_gemm_arguments("tiled_gemm", A, B, C, M, N, K);
    switch (tile) {
        case 16: launch_tiled_gemm<16>(A, B, C, M, N, K); break;
        case 32: launch_tiled_gemm<32>(A, B, C, M, N, K); break;
        default:
            throw std::invalid_argument("tiled_gemm: argument tile must be 16 or 32, got " + std::to_string(tile));
    }
}
