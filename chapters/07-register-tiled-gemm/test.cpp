// Chapter 7 tests: register-tiled GEMM.  Run them with `make chapter7 test`.
//
// Every step gets chapter 2's shapes (1, tile − 1, tile, tile + 1 in every combination,
// primes, very rectangular ones) at its own block tile, and 7c and 7d, which load four
// floats at a time, also shapes whose rows are not multiples of four floats and a
// matrix that does not start on 16 bytes. The tolerances are those of chapter 2: the
// error bound of a float sum of K products.
#include "register_tiled_gemm.h"
#include "tutorial_chapter.h"

#include "catch.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "expect.h"
#include "sweep.h"
#include "gemm/gemm_cases.h"
#include "random.h"
#include "gemm/gemm_reference.h"

#include <sstream>
#include <string>
#include <vector>

using tutorial::GemmShape;

namespace {

struct Step {
    std::string name;                  // what the reports call it
    const char* function;              // the function's name, as its error messages give it
    tutorial::GemmFunction gemm;       // the entry point
    int tile;                          // its block tile, for the error map
    bool vectorized;                   // loads four floats at a time where it can
    tutorial::ThreadWork work;         // what one thread computes, for the reports' advice
};

std::vector<Step> steps() {
    // 7d's kernel is tried at each of its two tilings, whichever the launcher would choose
    // for the shape (the test shapes are too small for its large one on a GPU).
    const auto warptiled_with = [](WarptileTiling tiling) {
        return tutorial::GemmFunction([tiling](const float* A, const float* B, float* C, int M, int N, int K) {
            register_tiled_gemm_warptiled_with(tiling, A, B, C, M, N, K);
        });
    };
    return {
        {"register_tiled_gemm_1d", "register_tiled_gemm_1d", register_tiled_gemm_1d, kTile1D_BM, false,
         tutorial::ThreadWork::column_per_thread},
        {"register_tiled_gemm_2d", "register_tiled_gemm_2d", register_tiled_gemm_2d, kTile2D_BM, false,
         tutorial::ThreadWork::tile_per_thread},
        {"register_tiled_gemm_vectorized", "register_tiled_gemm_vectorized", register_tiled_gemm_vectorized, kTile2D_BM,
         true, tutorial::ThreadWork::tile_per_thread},
        {"register_tiled_gemm_warptiled, large tiling", "register_tiled_gemm_warptiled_with",
         warptiled_with(WarptileTiling::large), kWarptile_BM, true, tutorial::ThreadWork::warp_tile_per_warp},
        {"register_tiled_gemm_warptiled, small tiling", "register_tiled_gemm_warptiled_with",
         warptiled_with(WarptileTiling::small), kWarptileSmall, true, tutorial::ThreadWork::warp_tile_per_warp},
    };
}

// Rows whose length is not a multiple of 4 floats (so float4 loads of them would be
// misaligned), or is one while the other matrix's is not, with K crossing phases.
std::vector<GemmShape> vector_width_shapes() {
    return {
        {130, 126, 66},   // every dimension 2 mod 4
        {131, 132, 36},   // rows of B and C are multiples of 4, rows of A too (K = 36), M is not
        {132, 129, 40},   // A's rows aligned, B's and C's not
        {128, 128, 35},   // B's and C's rows aligned, A's not
        {3, 5, 4},        // smaller than a quad in two dimensions
        {4, 4, 1},
    };
}

// A GEMM of @p shape whose matrices start @p offset floats into their buffers: a
// caller may pass a pointer into the middle of an allocation, which is 4-byte but not
// 16-byte aligned; the kernel must fall back to scalar loads, not fault.
tutorial::ComparisonReport run_offset_case(const tutorial::GemmFunction& gemm, GemmShape shape, int offset,
                                           int tile) {
    const auto [M, N, K] = shape;
    const std::uint64_t seed = tutorial::derive_seed(tutorial::run_seed(), {M, N, K, offset});
    const std::vector<float> A = tutorial::random_floats(static_cast<std::size_t>(M) * K, seed);
    const std::vector<float> B = tutorial::random_floats(static_cast<std::size_t>(K) * N, seed + 1);
    std::vector<float> padded_A(offset, 0.0f), padded_B(offset, 0.0f);
    padded_A.insert(padded_A.end(), A.begin(), A.end());
    padded_B.insert(padded_B.end(), B.begin(), B.end());
    tutorial::DeviceBuffer<float> dA(padded_A), dB(padded_B), dC(static_cast<std::size_t>(M) * N + offset);
    dC.poison();
    gemm(dA.data() + offset, dB.data() + offset, dC.data() + offset, M, N, K);
    const std::vector<float> all_C = dC.download();
    const std::vector<float> C(all_C.begin() + offset, all_C.end());
    return tutorial::compare_gemm_output(C, tutorial::gemm_reference(A, B, M, N, K), M, N, tile);
}

}  // namespace

// The steps run in one test case, each a sweep of its own: a run where every step fails
// (the skeleton) prints the first failing step's report and one line for each other.
TEST_CASE("Each step matches the CPU reference for chapter 2's shapes at its block tile", CHAPTER_TAG "[gpu][graded]") {
    std::vector<tutorial::ShapeSweep> sweeps;
    for (const Step& step : steps()) {
        sweeps.push_back(tutorial::sweep_gemm_shapes(step.name, TUTORIAL_CHAPTER, {step.tile}, "block tile",
                                                     [&step](int) { return step.gemm; }, step.work, true,
                                                     std::string(step.name) + ", "));
    }
    REQUIRE_SWEEPS(sweeps);
}

TEST_CASE("Each step is right when rows are not a multiple of four floats", CHAPTER_TAG "[gpu][graded]") {
    std::vector<tutorial::ShapeSweep> sweeps;
    for (const Step& step : steps()) {
        tutorial::SweepOptions options = tutorial::default_sweep_options(TUTORIAL_CHAPTER);
        options.case_prefix = std::string(step.name) + ", ";
        tutorial::ShapeSweep sweep(std::string(step.name) + " on rows that are not a multiple of 4 floats", options);
        for (const GemmShape& shape : vector_width_shapes()) {
            std::ostringstream label;
            label << shape;
            sweep.run(label.str(),
                      {{"M", shape.M, 4, "4", "floats"}, {"N", shape.N, 4, "4", "floats"}, {"K", shape.K, 4, "4", "floats"}},
                      [&] { return tutorial::run_gemm_case(step.gemm, shape, step.tile); },
                      tutorial::gemm_ownership(shape, step.tile, step.work, true));
        }
        sweeps.push_back(sweep);
    }
    REQUIRE_SWEEPS(sweeps);
}

TEST_CASE("Each step is right when the matrices do not start on 16 bytes", CHAPTER_TAG "[gpu][graded]") {
    const GemmShape shape{136, 132, 40};  // every row a multiple of 4 floats: only the start is off
    std::vector<tutorial::ShapeSweep> sweeps;
    for (const Step& step : steps()) {
        tutorial::SweepOptions options = tutorial::default_sweep_options(TUTORIAL_CHAPTER);
        options.case_prefix = std::string(step.name) + ", ";
        tutorial::ShapeSweep sweep(std::string(step.name) + " on matrices that do not start on 16 bytes", options);
        for (int offset : {1, 2, 3}) {
            sweep.run("matrices starting " + std::to_string(offset) + " floats into their buffers",
                      {{"offset", offset, 0, "", ""}},
                      [&] { return run_offset_case(step.gemm, shape, offset, step.tile); });
        }
        sweeps.push_back(sweep);
    }
    REQUIRE_SWEEPS(sweeps);
}

TEST_CASE("Each step rejects bad sizes and null pointers, naming the argument", CHAPTER_TAG) {
    const Step step = GENERATE(from_range(steps()));
    INFO(step.name);
    tutorial::check_gemm_rejects_bad_arguments(step.gemm, step.function);
}

TEST_CASE(STEP("d") "'s launcher rejects bad arguments and takes the small tiling below half a wave of large tiles",
          CHAPTER_TAG) {
    tutorial::check_gemm_rejects_bad_arguments(register_tiled_gemm_warptiled, "register_tiled_gemm_warptiled");
    // A wave: the blocks of the large tiling's kernel the GPU holds at once, from the
    // occupancy API (on the CPU backend: an H100's answer for the registers ptxas gives it).
    int wave = 0;
    try {
        wave = warptile_blocks_per_wave(WarptileTiling::large);
    } catch (const tutorial::CudaError& error) {
        // Only ptxas knows a kernel's registers: without nvcc the CPU backend cannot answer.
        if (std::string(error.what()).find("nvcc was not found") == std::string::npos) throw;
        WARN("the occupancy API cannot answer without nvcc, so this test cannot run:\n" << error.what());
        return;
    }
    INFO("a wave of the large tiling is " << wave << " blocks");
    REQUIRE(wave > 0);
    const int half = (wave + 1) / 2;
    // Half a wave of large tiles in one row of them: large; one tile fewer: small.
    CHECK(warptile_tiling_for(kWarptile_BM, half * kWarptile_BN) == WarptileTiling::large);
    CHECK(warptile_tiling_for(kWarptile_BM, half * kWarptile_BN - kWarptile_BN) == WarptileTiling::small);
    CHECK(warptile_tiling_for(1, 1) == WarptileTiling::small);
    CHECK(warptile_tiling_for(half * kWarptile_BM, kWarptile_BN + 1) == WarptileTiling::large);
    int device = 0;
    cudaDeviceProp properties;
    REQUIRE(cudaGetDevice(&device) == cudaSuccess);
    REQUIRE(cudaGetDeviceProperties(&properties, device) == cudaSuccess);
    if (properties.multiProcessorCount == 132 && wave == 2 * 132) {
        // An H100 (as the CPU backend is) and a kernel that fits 2 blocks per SM, as the
        // solution's does: the benchmark's sizes get the tilings measured fastest there.
        for (const int n : {2048, 4095, 4096, 4097, 8192}) {
            INFO(n << " x " << n);
            CHECK(warptile_tiling_for(n, n) == WarptileTiling::large);
        }
        CHECK(warptile_tiling_for(1024, 1024) == WarptileTiling::small);
    }
    const float* p = reinterpret_cast<const float*>(16);
    REQUIRE_THROWS_WITH(
        register_tiled_gemm_warptiled_with(static_cast<WarptileTiling>(7), p, p, const_cast<float*>(p), 4, 4, 4),
        "register_tiled_gemm_warptiled_with: argument tiling must be WarptileTiling::large or WarptileTiling::small, got 7");
    REQUIRE_THROWS_WITH(warptile_blocks_per_wave(static_cast<WarptileTiling>(7)),
                        "warptile_blocks_per_wave: argument tiling must be WarptileTiling::large or "
                        "WarptileTiling::small, got 7");
}

// Shapes with many full tiles (the fast path, in every block but the last row and
// column of blocks) and edges in all three dimensions. Computing them on the CPU backend
// would take minutes, so there the test is hidden ([.large]: it runs only when named);
// on a GPU it runs with the others.
#ifdef TUTORIAL_EMU
#define LARGE_GEMM_TAGS CHAPTER_TAG "[gpu][.large]"
#else
#define LARGE_GEMM_TAGS CHAPTER_TAG "[gpu][large]"
#endif
TEST_CASE(STEP("c") " and " STEP("d") " are right on large shapes, full tiles and partial ones", LARGE_GEMM_TAGS) {
    const std::vector<Step> all = steps();
    std::vector<tutorial::ShapeSweep> sweeps;
    for (auto step = all.begin() + 2; step != all.end(); ++step) {
        tutorial::SweepOptions options = tutorial::default_sweep_options(TUTORIAL_CHAPTER);
        options.case_prefix = std::string(step->name) + ", ";
        tutorial::ShapeSweep sweep(std::string(step->name) + " on large shapes", options);
        for (const GemmShape& shape : {GemmShape{1536, 1536, 1536}, GemmShape{1025, 2049, 515}, GemmShape{1000, 1000, 1000}}) {
            std::ostringstream label;
            label << shape;
            sweep.run(label.str(), {{"M", shape.M, step->tile, "", "tile"}, {"N", shape.N, step->tile, "", "tile"}, {"K", shape.K, 0, "", ""}},
                      [&] { return tutorial::run_gemm_case(step->gemm, shape, step->tile); },
                      tutorial::gemm_ownership(shape, step->tile, step->work, true));
        }
        sweeps.push_back(sweep);
    }
    REQUIRE_SWEEPS(sweeps);
}
