#include "gemm/gemm_cases.h"

#include "catch.h"
#include "device_buffer.h"
#include "expect.h"
#include "random.h"

#include <sstream>
#include <stdexcept>
#include <string>

namespace tutorial {

std::ostream& operator<<(std::ostream& out, const GemmShape& shape) {
    return out << "M=" << shape.M << " N=" << shape.N << " K=" << shape.K;
}

std::vector<GemmShape> gemm_test_shapes(int tile) {
    std::vector<GemmShape> shapes{{1, 1, 1}};
    for (int M : {tile - 1, tile, tile + 1}) {
        for (int N : {tile - 1, tile, tile + 1}) {
            for (int K : {tile - 1, tile, tile + 1}) {
                shapes.push_back({M, N, K});
            }
        }
    }
    shapes.insert(shapes.end(), {
                                    {7, 13, 11},                  // primes below the tile
                                    {127, 131, 137},              // primes above it
                                    {tile + 1, tile - 1, 3},      // K smaller than the tile
                                    {tile, tile + 1, 5 * tile + 3},  // K spanning several tiles
                                    {1, 1000, 1},                 // one row
                                    {1000, 1, 1000},              // one column, long K
                                    {257, 129, 67},
                                    {512, 512, 512},
                                });
    return shapes;
}

ComparisonReport run_gemm_case(const GemmFunction& gemm, GemmShape shape, int tile, int tile_cols,
                               InputPrecision precision) {
    const auto [M, N, K] = shape;
    GemmOperands operands(M, N, K, derive_seed(run_seed(), {M, N, K}), precision);
    return operands.run_checked(gemm, tile, tile_cols);
}

OutputOwnership gemm_ownership(GemmShape shape, int tile, ThreadWork work, bool stages_in_shared) {
    OutputOwnership ownership;
    ownership.output_name = "C";
    ownership.rows = shape.M;
    ownership.cols = shape.N;
    ownership.work = work;
    ownership.stages_in_shared = stages_in_shared;
    ownership.tile_text = std::to_string(tile) + " x " + std::to_string(tile);
    if (work == ThreadWork::one_element) {
        ownership.element_of = [tile](Index3 block, Index3 thread, long long& row, long long& col) {
            row = block.y * tile + thread.y;
            col = block.x * tile + thread.x;
        };
    }
    return ownership;
}

ShapeSweep sweep_gemm_shapes(const std::string& what, int chapter, const std::vector<int>& tiles,
                             const std::string& unit, const std::function<GemmFunction(int tile)>& gemm_at,
                             ThreadWork work, bool stages_in_shared, const std::string& case_prefix) {
    SweepOptions options = default_sweep_options(chapter);
    options.case_prefix = case_prefix;
    ShapeSweep sweep(what, options);
    const bool several_tiles = tiles.size() > 1;
    for (int tile : tiles) {
        const GemmFunction gemm = gemm_at(tile);
        for (const GemmShape& shape : gemm_test_shapes(tile)) {
            std::ostringstream label;
            if (several_tiles) label << "TILE " << tile << ", ";
            label << shape;
            std::vector<ShapeParameter> parameters{{"M", shape.M, tile, "TILE", unit},
                                                   {"N", shape.N, tile, "TILE", unit},
                                                   {"K", shape.K, tile, "TILE", unit}};
            if (several_tiles) parameters.push_back({"TILE", tile, 0, "", ""});
            sweep.run(label.str(), parameters, [&] { return run_gemm_case(gemm, shape, tile); },
                      gemm_ownership(shape, tile, work, stages_in_shared));
        }
    }
    return sweep;
}

void check_gemm_rejects_bad_arguments(const GemmFunction& gemm, const char* function_name) {
    // Any non-null address will do: validation must reject the call before a kernel
    // could dereference it, so no GPU memory is needed.
    float dummy = 0.0f;
    float* p = &dummy;
    const std::string name = function_name;
    SECTION("M < 1") { REQUIRE_THROWS_WITH(gemm(p, p, p, 0, 4, 4), name + ": argument M must be at least 1, got 0"); }
    SECTION("N < 1") { REQUIRE_THROWS_WITH(gemm(p, p, p, 4, -3, 4), name + ": argument N must be at least 1, got -3"); }
    SECTION("K < 1") { REQUIRE_THROWS_WITH(gemm(p, p, p, 4, 4, 0), name + ": argument K must be at least 1, got 0"); }
    SECTION("null A") { REQUIRE_THROWS_WITH(gemm(nullptr, p, p, 4, 4, 4), name + ": argument A is a null pointer"); }
    SECTION("null B") { REQUIRE_THROWS_WITH(gemm(p, nullptr, p, 4, 4, 4), name + ": argument B is a null pointer"); }
    SECTION("null C") { REQUIRE_THROWS_WITH(gemm(p, p, nullptr, 4, 4, 4), name + ": argument C is a null pointer"); }
    SECTION("the exception type is std::invalid_argument") {
        REQUIRE_THROWS_AS(gemm(p, p, p, 0, 4, 4), std::invalid_argument);
    }
}

void check_launch_covers(const std::function<LaunchConfig(int M, int N)>& launch_config, int tile) {
    // One wrong launch configuration is usually wrong for every shape in the same way,
    // so report the first shape in full and only count the others.
    std::string first_problem;
    int wrong_shapes = 0;
    const std::vector<GemmShape> shapes = gemm_test_shapes(tile);
    for (const GemmShape& shape : shapes) {
        const LaunchConfig got = launch_config(shape.M, shape.N);
        // Exactly ceil(N / tile) blocks along x: fewer leaves columns uncomputed, more
        // launches blocks with nothing to do.
        const dim3 grid(ceil_div(shape.N, tile), ceil_div(shape.M, tile)), block(tile, tile);
        const std::string mismatch = launch_config_mismatch(
            got, grid, block, "For M=" + std::to_string(shape.M) + " N=" + std::to_string(shape.N),
            "x covers the " + std::to_string(shape.N) + " columns: ceil(" + std::to_string(shape.N) + " / " +
                std::to_string(tile) + ") = " + std::to_string(grid.x) + "; y covers the " + std::to_string(shape.M) +
                " rows");
        if (!mismatch.empty() && wrong_shapes++ == 0) first_problem = mismatch;
    }
    if (wrong_shapes > 0) {
        FAIL(first_problem << "\nThe launch is wrong for " << wrong_shapes << " of " << shapes.size()
                           << " test shapes." << [] {
                               const std::string where = where_to_work_first_time();
                               return where.empty() ? where : "\n" + where;
                           }());
    }
    SUCCEED();
}

void check_too_many_block_rows_is_a_cuda_error(const GemmFunction& gemm, int block, const char* kernel_name,
                                               const char* source_file) {
    // 65535 is the largest grid.y a GPU accepts; one row of blocks more is too many.
    const int M = 65535 * block + 1;
    DeviceBuffer<float> A(M), B(1), C(M);
    check_launch_refused([&] { gemm(A.data(), B.data(), C.data(), M, 1, 1); }, kernel_name, source_file);
}

}  // namespace tutorial
