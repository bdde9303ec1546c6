#include "gemm/gemm_cases.h"

#include "catch.h"
#include "device_buffer.h"
#include "expect.h"
#include "random.h"

#include <algorithm>
#include <cmath>
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

namespace {

// "15", "15 and 16", "15 to 20": the values of k in @p ks, sorted.
[[maybe_unused]] std::string k_values(const std::vector<int>& ks) {
    if (ks.size() == 1) return std::to_string(ks.front());
    const bool run = ks.back() - ks.front() + 1 == static_cast<int>(ks.size());
    if (run) return std::to_string(ks.front()) + (ks.size() == 2 ? " and " : " to ") + std::to_string(ks.back());
    std::string out;
    for (std::size_t i = 0; i < ks.size() && i < 6; ++i) out += (i == 0 ? "" : ", ") + std::to_string(ks[i]);
    return out + (ks.size() > 6 ? ", …" : "");
}

// Which products A(r, k)·B(k, c) the kernel adds into C, for a wrong result on the CPU
// backend: runs it with A(r, k) = 2^(k - k0) for the 24 values of k from k0, 0 for the
// others, and B = 1, so that each element of C is the sum of the powers of the k it
// added (exact in FP32 and BF16). A sentence when every element of C adds each product
// at most once and some never add some k, or every element adds every product twice;
// empty otherwise, for shapes too large to run K / 24 more times, and on a GPU (a second
// run of a kernel that goes out of bounds there could leave the GPU unusable, which the
// next shape would report as its own; a failing GPU run is followed by the CPU backend's
// checks, which include this).
std::string added_products_finding([[maybe_unused]] const GemmFunction& gemm, [[maybe_unused]] GemmShape shape,
                                   [[maybe_unused]] InputPrecision precision) {
#ifndef TUTORIAL_EMU
    return "";
#else
    const auto [M, N, K] = shape;
    constexpr int kSpan = 24;
    if (static_cast<long long>(M) * N * K > 300'000 || K > 4 * kSpan) return "";
    // A few failing shapes a program: enough for the one a report shows, and a failing run
    // on the CPU backend stays about as long as without it.
    static int probes_left = 4;
    if (probes_left <= 0) return "";
    --probes_left;
    const std::size_t cells = static_cast<std::size_t>(M) * N;
    std::vector<long long> missing(static_cast<std::size_t>(K), 0);  // elements that never add product k
    bool doubled_everywhere = true;
    try {
        DeviceBuffer<float> A(static_cast<std::size_t>(M) * K), B(std::vector<float>(static_cast<std::size_t>(K) * N, 1.0f)),
            C(cells);
        for (int k0 = 0; k0 < K; k0 += kSpan) {
            const int span = std::min(kSpan, K - k0);
            std::vector<float> a(static_cast<std::size_t>(M) * K, 0.0f);
            for (int r = 0; r < M; ++r) {
                for (int k = k0; k < k0 + span; ++k) a[static_cast<std::size_t>(r) * K + k] = std::ldexp(1.0f, k - k0);
            }
            A.upload(a);
            C.poison();
            gemm(A.data(), B.data(), C.data(), M, N, K);
            const std::vector<float> c = C.download();
            const long long full = (1LL << span) - 1;
            for (float value : c) {
                const double v = value;
                if (!(v >= 0.0) || v != std::floor(v) || v > static_cast<double>(2 * full)) return "";
                const long long bits = static_cast<long long>(v);
                doubled_everywhere = doubled_everywhere && bits == 2 * full;
                if (bits == 2 * full) continue;
                if ((bits & ~full) != 0) return "";  // some product added more than once, or something else
                for (int k = 0; k < span; ++k) missing[static_cast<std::size_t>(k0 + k)] += (bits >> k & 1) == 0;
            }
        }
    } catch (const std::exception&) {
        return "";  // the kernel failed on these inputs too: the report already says how
    }
    const std::string how = "Which products A(r, k)·B(k, c) each element of C adds, found with B = 1 and A(r, k) = "
                            "2^(k mod 24), 24 values of k a run and the others 0: ";
    if (doubled_everywhere) {
        return how + "every element of C adds every product twice (a loop over K that runs twice, or a sum that is "
                     "added to C where it should be stored).";
    }
    std::vector<int> never, sometimes;
    for (int k = 0; k < K; ++k) {
        if (missing[static_cast<std::size_t>(k)] == static_cast<long long>(cells)) never.push_back(k);
        else if (missing[static_cast<std::size_t>(k)] > 0) sometimes.push_back(k);
    }
    if (never.empty() || !sometimes.empty()) return "";  // only the clear case: the same k missing everywhere
    std::ostringstream text;
    text << how << "no element of C ever adds the product" << (never.size() == 1 ? "" : "s") << " with k = "
         << k_values(never) << " (K = " << K << ").";
    const bool suffix = never.back() == K - 1 && never.back() - never.front() + 1 == static_cast<int>(never.size());
    if (suffix) {
        const int stop = never.front();
        // A tile read with its row and column swapped stops at the same place: past N (or M)
        // its zero padding stands in for the rows of B (or the columns of A).
        if (stop == N && N != K) {
            text << " k stops at " << stop << ", which is N: a bound on k, or on the columns of A, that uses N where "
                                               "K belongs would do this, and so would, in a kernel that stages B in "
                                               "shared memory, B's tile read with its row and column swapped "
                                               "(B_tile[threadIdx.x][k] for B_tile[k][threadIdx.x]).";
        } else if (stop == M && M != K) {
            text << " k stops at " << stop << ", which is M: a bound on k that uses M where K belongs would do this, "
                                               "and so would, in a kernel that stages A in shared memory, A's tile read "
                                               "with its row and column swapped.";
        } else {
            // The products from k = stop on are all missing: what C shows cannot tell a loop
            // that stops from tiles of those k that never arrive, or that were fetched from
            // outside the matrices (where bounds checks and the TMA give zeros).
            text << " k stops at " << stop << ", " << K - stop << " short of K: a loop over K that ends too early "
                 << "would do this, and so would tiles of k = " << stop << " on that are never loaded, or are "
                 << "fetched from the wrong place (a load's or copy's offsets or coordinates along K: outside the "
                 << "matrix, bounds checks and the TMA give zeros)"
                 << (precision == InputPrecision::bf16
                         ? ", or tensor-core operands taken from the wrong rows or columns of a tile (each lane's "
                           "ldmatrix address, a wgmma descriptor, or the swizzle of the addresses they read)."
                         : ".");
        }
    }
    return text.str();
#endif
}

}  // namespace

ComparisonReport run_gemm_case(const GemmFunction& gemm, GemmShape shape, int tile, int tile_cols,
                               InputPrecision precision) {
    const auto [M, N, K] = shape;
    GemmOperands operands(M, N, K, derive_seed(run_seed(), {M, N, K}), precision);
    ComparisonReport report = operands.run_checked(gemm, tile, tile_cols);
    if (!report.ok()) {
        const std::string finding = added_products_finding(gemm, shape, precision);
        if (!finding.empty()) {
            report.text += wrap_report_text(finding);
            report.cause = finding;
        }
    }
    return report;
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
