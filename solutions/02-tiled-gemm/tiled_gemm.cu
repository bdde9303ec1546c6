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
#include <string>

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
    //   1. load this thread's element of the phase's tile of A, and of B, into its own
    //      place (threadIdx.y, threadIdx.x) of each shared tile (which element of A and of B
    //      is that, in phase t?), storing 0.0f instead when the element lies outside A or B
    //      (zero padding keeps the sum right for partial tiles);
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
    // BEGIN SOLUTION: return element (row, col) of A: rows are A.stride floats apart, not
    //   A.width.
    //| (void)row;
    //| (void)col;
    //| return A.elements[0];
    // size_t, so that row * stride cannot overflow int in a large matrix.
    return A.elements[static_cast<size_t>(row) * A.stride + col];
    // END SOLUTION
}

// Set element (row, col) of the view A to value.
__device__ void SetElement(Matrix A, int row, int col, float value) {
    // BEGIN SOLUTION: store value in element (row, col) of A, as GetElement reads it.
    //| (void)A;
    //| (void)row;
    //| (void)col;
    //| (void)value;
    A.elements[static_cast<size_t>(row) * A.stride + col] = value;
    // END SOLUTION
}

// The kMatrixViewBlock x kMatrixViewBlock sub-matrix of A that is `col` sub-matrices to the
// right of A's top-left corner and `row` sub-matrices below it: a view into A, not a copy.
// At A's right and bottom edges it is clipped to what is left of A, so its width and height
// say which of its elements exist.
__device__ Matrix GetSubMatrix(Matrix A, int row, int col) {
    // BEGIN SOLUTION: the view that starts at element (row * kMatrixViewBlock,
    //   col * kMatrixViewBlock) of A, with A's stride, kMatrixViewBlock wide and high but
    //   never reaching past A's last column or row.
    //| (void)row;
    //| (void)col;
    //| return A;
    const int first_row = row * kMatrixViewBlock;
    const int first_col = col * kMatrixViewBlock;
    Matrix sub;
    sub.width = A.width - first_col < kMatrixViewBlock ? A.width - first_col : kMatrixViewBlock;
    sub.height = A.height - first_row < kMatrixViewBlock ? A.height - first_row : kMatrixViewBlock;
    sub.stride = A.stride;
    sub.elements = &A.elements[static_cast<size_t>(first_row) * A.stride + first_col];
    return sub;
    // END SOLUTION
}

// Block (blockIdx.y, blockIdx.x) computes the sub-matrix Csub of C at that place; each thread
// one element of it.
__global__ void matrix_view_gemm_kernel(Matrix A, Matrix B, Matrix C) {
    // BEGIN SOLUTION: as tiled_gemm_kernel, on views. Take this block's Csub with
    //   GetSubMatrix. For each m over the sub-matrices along A's width (rounded up): load
    //   element (threadIdx.y, threadIdx.x) of GetSubMatrix(A, blockIdx.y, m) and of
    //   GetSubMatrix(B, m, blockIdx.x) into two __shared__ tiles with GetElement (0.0f where
    //   the sub-matrix has no such element), __syncthreads(), add the kMatrixViewBlock
    //   products, __syncthreads(). Then SetElement the sum into Csub if the element is in it.
    __shared__ float As[kMatrixViewBlock][kMatrixViewBlock];
    __shared__ float Bs[kMatrixViewBlock][kMatrixViewBlock];
    const Matrix Csub = GetSubMatrix(C, blockIdx.y, blockIdx.x);
    const int row = threadIdx.y;
    const int col = threadIdx.x;
    float sum = 0.0f;
    const int phases = (A.width + kMatrixViewBlock - 1) / kMatrixViewBlock;
    for (int m = 0; m < phases; ++m) {
        const Matrix Asub = GetSubMatrix(A, blockIdx.y, m);
        const Matrix Bsub = GetSubMatrix(B, m, blockIdx.x);
        // Zero padding, as in tiled_gemm_kernel: a clipped sub-matrix has no element here.
        As[row][col] = (row < Asub.height && col < Asub.width) ? GetElement(Asub, row, col) : 0.0f;
        Bs[row][col] = (row < Bsub.height && col < Bsub.width) ? GetElement(Bsub, row, col) : 0.0f;
        __syncthreads();  // the tiles are complete before anyone reads them
#pragma unroll
        for (int e = 0; e < kMatrixViewBlock; ++e) {
            sum += As[row][e] * Bs[e][col];
        }
        __syncthreads();  // nobody overwrites the tiles while others still read them
    }
    // Only inside Csub: outside it lie C's neighbours in the larger matrix, not C.
    if (row < Csub.height && col < Csub.width) {
        SetElement(Csub, row, col, sum);
    }
    // END SOLUTION
}

tutorial::LaunchConfig matrix_view_gemm_launch_config(Matrix C) {
    // BEGIN SOLUTION: one kMatrixViewBlock x kMatrixViewBlock block per sub-matrix of C:
    //   grid.x covers C.width, grid.y covers C.height.
    //| (void)C;
    //| return tutorial::LaunchConfig{dim3(1, 1), dim3(1, 1)};
    const dim3 block(kMatrixViewBlock, kMatrixViewBlock);
    const dim3 grid(tutorial::ceil_div(C.width, kMatrixViewBlock), tutorial::ceil_div(C.height, kMatrixViewBlock));
    return tutorial::LaunchConfig{grid, block};
    // END SOLUTION
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
