// Chapter 2: tiled GEMM in shared memory, correct for any M, N, K.
//
// Read README.md in this folder first. Then work through the TODO(chapter2) markers
// below, top to bottom, and run `make chapter2 test` after each one.
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
    // TODO(chapter2): declare two TILE x TILE __shared__ float arrays, one for the current
    //   tile of A and one for the current tile of B.

    // TODO(chapter2): `row` and `col` of this thread's element of C, as in chapter 1, and
    //   a float sum that starts at 0. Do NOT return early for threads outside C: they
    //   still have to load their share of the tiles and reach every __syncthreads().

    // TODO(chapter2): loop over the phases, t = 0, TILE, 2*TILE, ... while t < K. In each:
    //   1. load A(row, t + threadIdx.x) and B(t + threadIdx.y, col) into the two tiles,
    //      storing 0.0f instead when the element lies outside A or B (zero padding keeps
    //      the sum right for partial tiles);
    //   2. __syncthreads(), so no thread reads a tile before all of it is loaded;
    //   3. add the TILE products of this phase, reading both tiles from shared memory;
    //   4. __syncthreads(), so no thread overwrites a tile while others still read it.

    // TODO(chapter2): store the sum in C(row, col), only if the element is inside C.
}

tutorial::LaunchConfig tiled_gemm_launch_config(int M, int N, int tile) {
    // TODO(chapter2): one tile x tile block for each tile of C, covering all N columns
    //   (grid.x) and all M rows (grid.y), as in chapter 1.
    (void)M;
    (void)N;
    (void)tile;
    return tutorial::LaunchConfig{dim3(1, 1), dim3(1, 1)};
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
