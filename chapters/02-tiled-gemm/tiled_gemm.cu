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
#include <string>

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
    //   1. load this thread's element of the phase's tile of A, and of B, into its own
    //      place (threadIdx.y, threadIdx.x) of each shared tile (which element of A and of B
    //      is that, in phase t?), storing 0.0f instead when the element lies outside A or B
    //      (zero padding keeps the sum right for partial tiles);
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

void tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K, int tile) {
    tutorial::require_gemm_arguments("tiled_gemm", A, B, C, M, N, K);
    // TILE must be known when the kernel is compiled, because it sizes the __shared__
    // arrays; so each supported tile has its own instance of the kernel template.
    const bool launched = tutorial::launch_instance_for<16, 32>(tile, [&](auto TILE) {
        const tutorial::LaunchConfig launch = tiled_gemm_launch_config(M, N, decltype(TILE)::value);
        tiled_gemm_kernel<decltype(TILE)::value><<<launch.grid, launch.block>>>(A, B, C, M, N, K);
        CUDA_CHECK_KERNEL("tiled_gemm_kernel");
    });
    if (!launched) {
        throw std::invalid_argument("tiled_gemm: argument tile must be 16 or 32, got " + std::to_string(tile));
    }
}

// ---- 2c: the CUDA Programming Guide's version, on matrix views ------------------------------
// The same tiles, loads and barriers as tiled_gemm_kernel, written as the Programming Guide
// writes them: on `Matrix` views (tiled_gemm.h) that carry a stride. A sub-matrix of a view is
// then just another view, a pointer and the same stride, so a block names its tiles without
// any index arithmetic in the kernel, and the caller can multiply parts of larger matrices
// in place. The Guide's version works only for multiples of the block; this one clips the
// last sub-matrices and pads with zeros, so it is right for any size.

// Element (row, col) of the view A.
__device__ float GetElement(const Matrix A, int row, int col) {
    // TODO(chapter2): return element (row, col) of A: rows are A.stride floats apart, not
    //   A.width.
    (void)row;
    (void)col;
    return A.elements[0];
}

// Set element (row, col) of the view A to value.
__device__ void SetElement(Matrix A, int row, int col, float value) {
    // TODO(chapter2): store value in element (row, col) of A, as GetElement reads it.
    (void)A;
    (void)row;
    (void)col;
    (void)value;
}

// The kMatrixViewBlock x kMatrixViewBlock sub-matrix of A that is `col` sub-matrices to the
// right of A's top-left corner and `row` sub-matrices below it: a view into A, not a copy.
// At A's right and bottom edges it is clipped to what is left of A, so its width and height
// say which of its elements exist.
__device__ Matrix GetSubMatrix(Matrix A, int row, int col) {
    // TODO(chapter2): the view that starts at element (row * kMatrixViewBlock,
    //   col * kMatrixViewBlock) of A, with A's stride, kMatrixViewBlock wide and high but
    //   never reaching past A's last column or row.
    (void)row;
    (void)col;
    return A;
}

// Block (blockIdx.y, blockIdx.x) computes the sub-matrix Csub of C at that place; each thread
// one element of it.
__global__ void matrix_view_gemm_kernel(Matrix A, Matrix B, Matrix C) {
    // TODO(chapter2): as tiled_gemm_kernel, on views. Take this block's Csub with
    //   GetSubMatrix. For each m over the sub-matrices along A's width (rounded up): load
    //   element (threadIdx.y, threadIdx.x) of GetSubMatrix(A, blockIdx.y, m) and of
    //   GetSubMatrix(B, m, blockIdx.x) into two __shared__ tiles with GetElement (0.0f where
    //   the sub-matrix has no such element), __syncthreads(), add the kMatrixViewBlock
    //   products, __syncthreads(). Then SetElement the sum into Csub if the element is in it.
}

tutorial::LaunchConfig matrix_view_gemm_launch_config(Matrix C) {
    // TODO(chapter2): one kMatrixViewBlock x kMatrixViewBlock block per sub-matrix of C:
    //   grid.x covers C.width, grid.y covers C.height.
    (void)C;
    return tutorial::LaunchConfig{dim3(1, 1), dim3(1, 1)};
}

namespace {

// A view's own checks; `name` is the argument's name, "A", "B" or "C".
void require_matrix_view(const char* name, const Matrix& view) {
    const std::string where = std::string("matrix_view_gemm: argument ") + name;
    if (view.elements == nullptr) {
        throw std::invalid_argument(where + ".elements is a null pointer");
    }
    if (view.width < 1) {
        throw std::invalid_argument(where + ".width must be at least 1, got " + std::to_string(view.width));
    }
    if (view.height < 1) {
        throw std::invalid_argument(where + ".height must be at least 1, got " + std::to_string(view.height));
    }
    if (view.stride < view.width) {
        throw std::invalid_argument(where + ".stride must be at least its width (" + std::to_string(view.width) +
                                    "), got " + std::to_string(view.stride));
    }
}

void require_equal(const char* what, int got, const char* other, int expected) {
    if (got != expected) {
        throw std::invalid_argument(std::string("matrix_view_gemm: argument ") + what + " (" + std::to_string(got) +
                                    ") must equal " + other + " (" + std::to_string(expected) + ")");
    }
}

}  // namespace

void matrix_view_gemm(Matrix A, Matrix B, Matrix C) {
    require_matrix_view("A", A);
    require_matrix_view("B", B);
    require_matrix_view("C", C);
    require_equal("B.height", B.height, "A.width", A.width);
    require_equal("C.height", C.height, "A.height", A.height);
    require_equal("C.width", C.width, "B.width", B.width);
    const tutorial::LaunchConfig launch = matrix_view_gemm_launch_config(C);
    matrix_view_gemm_kernel<<<launch.grid, launch.block>>>(A, B, C);
    CUDA_CHECK_KERNEL("matrix_view_gemm_kernel");
}
