/// @file gemm_cases.h
/// @brief The test cases the GEMM chapters share: shapes, a checked run, bad input.
#pragma once

#include "compare.h"
#include "gemm/gemm_operands.h"  // GemmFunction, and the checked run of run_gemm_case
#include "launch_config.h"
#include "sweep.h"

#include <functional>
#include <string>
#include <ostream>
#include <vector>

namespace tutorial {

/// @brief The sizes of one GEMM: C(M×N) = A(M×K)·B(K×N).
struct GemmShape {
    int M;  ///< rows of A and C
    int N;  ///< columns of B and C
    int K;  ///< columns of A, rows of B
};

/// @brief Print a shape as "M=17 N=15 K=16" in test output.
std::ostream& operator<<(std::ostream& out, const GemmShape& shape);

/// @brief The shapes every GEMM kernel must get right, for a kernel whose tile or
/// block side is @p tile.
///
/// 1×1×1; tile−1, tile and tile+1 in every combination of M, N and K; primes; K below
/// and above the tile; the very rectangular 1×1000×1 and 1000×1×1000; 257×129×67; 512³.
std::vector<GemmShape> gemm_test_shapes(int tile);

/// @brief Run @p gemm once on fresh random A and B in GPU memory, with C poisoned to NaN
/// beforehand, and compare C with the CPU reference.
/// @param gemm  the entry point under test
/// @param shape the sizes of the product
/// @param tile the kernel's tile or block side, for the error map's gaps and patterns
/// @param tile_cols the columns of the kernel's tile when they differ from its rows (0: @p tile)
/// @param precision what the reference multiplies: A and B, or them rounded to BF16
ComparisonReport run_gemm_case(const GemmFunction& gemm, GemmShape shape, int tile, int tile_cols = 0,
                               InputPrecision precision = InputPrecision::fp32);

/// @brief Run a GEMM on every test shape at each tile of @p tiles, in one ShapeSweep.
/// @param what     the entry point's name for the report, e.g. "tiled_gemm"
/// @param chapter  the chapter number, for the commands a GPU failure ends with
/// @param tiles    the tiles (or block sides) to run; "TILE" is a parameter of the
///                 shapes when there are several
/// @param unit     what one tile is called in the summary: "tile" or "block"
/// @param gemm_at  the entry point at one tile
/// @param work     what one thread of the kernel computes (see gemm_ownership())
/// @param stages_in_shared whether its threads load tiles into shared memory for each other
/// @param case_prefix put before each shape's label in the recorded cases (SweepOptions)
ShapeSweep sweep_gemm_shapes(const std::string& what, int chapter, const std::vector<int>& tiles,
                             const std::string& unit, const std::function<GemmFunction(int tile)>& gemm_at,
                             ThreadWork work = ThreadWork::one_element, bool stages_in_shared = false,
                             const std::string& case_prefix = "");

/// @brief Which elements of C each thread computes. For ThreadWork::one_element, with
/// tile × tile blocks, x along the columns: row = blockIdx.y·tile + threadIdx.y, col =
/// blockIdx.x·tile + threadIdx.x. For the other kinds, each block computes one tile × tile
/// tile of C, which its threads share as @p work says.
OutputOwnership gemm_ownership(GemmShape shape, int tile, ThreadWork work = ThreadWork::one_element,
                               bool stages_in_shared = false);

/// @brief Check that @p gemm rejects sizes below 1 and null pointers with
/// std::invalid_argument naming the argument, before touching the GPU.
/// @param gemm          the entry point under test
/// @param function_name the name the messages must start with, e.g. "naive_gemm"
void check_gemm_rejects_bad_arguments(const GemmFunction& gemm, const char* function_name);

/// @brief Check that @p launch_config gives @p tile × @p tile blocks and a grid that
/// covers an M×N output, x along the N columns, rounded up, for every test shape.
void check_launch_covers(const std::function<LaunchConfig(int M, int N)>& launch_config, int tile);

/// @brief Check that a launch with one block row more than a GPU allows (grid.y =
/// 65536) makes @p gemm throw CudaError (cudaErrorInvalidValue or
/// cudaErrorInvalidConfiguration), naming
/// @p kernel_name and @p source_file in its message.
void check_too_many_block_rows_is_a_cuda_error(const GemmFunction& gemm, int block, const char* kernel_name,
                                               const char* source_file);

}  // namespace tutorial
