// Chapter 8 tests: asynchronous copies into shared memory.  Run them with `make chapter8 test`.
//
// Every step gets chapter 2's shapes (1, tile − 1, tile, tile + 1 in every combination,
// primes, very rectangular ones) and chapter 2's tolerance: the error bound of a float sum
// of K products. 8b runs at 1, 2, 3 and 4 stages. 8c, whose tensor maps need rows that
// start on 16 bytes, gets shapes whose N and K are multiples of 4 (M and the tiles' edges
// still awkward), and its refusal of the others.
//
// A wrong result is also compared with what each kind of pipeline mistake would give: the
// products of one phase (one tile of A times one tile of B) missing, counted twice, or
// taken from another phase's tiles. When the errors fit one of them, the report names the
// likely mistake.
#include "async_copy_gemm.h"

#include "catch.h"
#include "device_buffer.h"
#include "expect.h"
#include "sweep.h"
#include "gemm/gemm_cases.h"
#include "gemm/gemm_reference.h"
#include "random.h"

#include <cmath>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using tutorial::GemmShape;

namespace {

constexpr int kTile = kAsyncTile;

// True, after printing one line, when the GPU is older than a step needs; the step's tests
// then pass without running. The CPU backend is compute capability 9.0 and runs them all.
bool gpu_too_old(int major, int minor, const std::string& step, const std::string& feature) {
    int device = 0, have_major = 0, have_minor = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&have_major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&have_minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
        return false;  // let the step run and report what fails
    }
    if (have_major * 10 + have_minor >= major * 10 + minor) return false;
    std::cout << "Skipped on this GPU: " << step << " needs " << feature << " (compute capability " << major << "."
              << minor << "), and this GPU is " << have_major << "." << have_minor
              << "; the CPU backend runs it (BACKEND=emu).\n";
    return true;
}

// ---- What a wrong element says about the pipeline ------------------------------------------

// Σ_k A(row, a_phase·T + k) · B(b_phase·T + k, col) over the tile, in double: the products
// of one phase when a_phase == b_phase, a mix of two phases' tiles otherwise.
double tile_products(const std::vector<float>& A, const std::vector<float>& B, int N, int K, int row, int col,
                     int a_phase, int b_phase, double* magnitude) {
    double sum = 0.0;
    for (int k = 0; k < kTile; ++k) {
        const int a_k = a_phase * kTile + k, b_k = b_phase * kTile + k;
        if (a_k >= K || b_k >= K) continue;  // zero padding
        const double term = static_cast<double>(A[static_cast<std::size_t>(row) * K + a_k]) *
                            B[static_cast<std::size_t>(b_k) * N + col];
        sum += term;
        if (magnitude) *magnitude += std::fabs(term);
    }
    return sum;
}

struct Explanation {
    std::string kind;  // the mistake's class, one sentence; "" when nothing fits
    int phase = -1, other = -1;
};

// The explanation of one wrong element, C(row, col) = got, or none.
Explanation explain_element(const std::vector<float>& A, const std::vector<float>& B, int N, int K, int row, int col,
                            double got, double exact, double tolerance, int stages) {
    const int phases = (K + kTile - 1) / kTile;
    const double error = got - exact;
    std::vector<double> own(phases);
    double magnitude = 0.0;
    for (int p = 0; p < phases; ++p) own[p] = tile_products(A, B, N, K, row, col, p, p, &magnitude);
    // The predicted error of a mistake is itself a float sum of at most 2K products: allow
    // the bound of the reference and as much again.
    const double slack = 2.0 * tolerance + 4.0 * tutorial::float_sum_error_factor(2LL * K) * magnitude;
    const auto fits = [&](double predicted) { return std::fabs(error - predicted) <= slack; };
    for (int p = 0; p < phases; ++p) {
        if (std::fabs(own[p]) <= slack) continue;  // too small to tell apart
        if (fits(-own[p])) {
            if (p >= phases - stages && phases > 1) {
                return {"the products of the last phase(s) are missing: the last stages were never drained "
                        "(the loop stops waiting and multiplying before the final stages it copied)",
                        p, -1};
            }
            return {"the products of one phase are missing: a stage index off by one, or a wait that does not "
                    "pair with its commit, skipped a tile",
                    p, -1};
        }
        if (fits(own[p])) {
            return {"the products of one phase are counted twice: a stage index off by one (the same stage read "
                    "in two phases)",
                    p, -1};
        }
    }
    for (int p = 0; p < phases; ++p) {
        for (int q = 0; q < phases; ++q) {
            if (q == p) continue;
            const char* when = q < p ? "still held the tiles of the earlier phase" : "already held the tiles of the later phase";
            const std::string cause =
                q < p ? "read before its copies were waited for (a missing or misplaced wait, or a commit and a wait "
                        "that do not pair, so the wait covers an older batch)"
                      : "refilled before every thread had read it (a stage reused too early: a missing __syncthreads() "
                        "or consumer_release(), or a release before the products)";
            if (fits(own[q] - own[p])) {
                return {std::string("phase p's products used both tiles of phase q: the stage ") + when + ", so it was " +
                            cause,
                        p, q};
            }
            if (fits(tile_products(A, B, N, K, row, col, q, p, nullptr) - own[p])) {
                return {std::string("phase p's products used phase q's tile of A: the stage of A ") + when +
                            ", so it was " + cause,
                        p, q};
            }
            if (fits(tile_products(A, B, N, K, row, col, p, q, nullptr) - own[p])) {
                return {std::string("phase p's products used phase q's tile of B: the stage of B ") + when +
                            ", so it was " + cause,
                        p, q};
            }
        }
    }
    return {};
}

// A paragraph on the likely pipeline mistake, from up to 16 wrong elements, or "".
std::string explain_errors(const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C,
                           const tutorial::ExpectedOutput& expected, int M, int N, int K, int stages) {
    int examined = 0, explained = 0;
    Explanation first;
    int first_row = 0, first_col = 0;
    for (int row = 0; row < M && examined < 16; ++row) {
        for (int col = 0; col < N && examined < 16; ++col) {
            const std::size_t i = static_cast<std::size_t>(row) * N + col;
            const double got = C[i];
            if (!std::isfinite(got) || std::fabs(got - expected.value[i]) <= expected.tolerance[i]) continue;
            ++examined;
            const Explanation why = explain_element(A, B, N, K, row, col, got, expected.value[i], expected.tolerance[i], stages);
            if (why.kind.empty()) continue;
            if (explained == 0) {
                first = why;
                first_row = row;
                first_col = col;
            }
            if (why.kind == first.kind) ++explained;
        }
    }
    if (explained == 0) return "";
    std::ostringstream text;
    const int phases = (K + kTile - 1) / kTile;
    text << "\nWhat the errors say about the pipeline (K = " << K << " is " << phases << " phase(s) of " << kTile
         << "): " << explained << " of the first " << examined << " wrong finite elements fit one mistake. At C("
         << first_row << ", " << first_col << "), ";
    std::string kind = first.kind;
    const auto replace = [&kind](const std::string& from, const std::string& to) {
        for (std::size_t at = kind.find(from); at != std::string::npos; at = kind.find(from, at + to.size())) {
            kind.replace(at, from.size(), to);
        }
    };
    replace("phase p", "phase " + std::to_string(first.phase));
    replace("phase q", "phase " + std::to_string(first.other));
    text << kind;
    if (first.other < 0) text << " (phase " << first.phase << ")";
    text << ".\n";
    return text.str();
}

// One GEMM of `shape` as run_gemm_case runs it (seeded random A and B, C poisoned), with
// the pipeline paragraph added to a failing report.
tutorial::ComparisonReport run_case(const tutorial::GemmFunction& gemm, GemmShape shape, int stages) {
    const auto [M, N, K] = shape;
    const std::uint64_t seed = tutorial::derive_seed(tutorial::run_seed(), {M, N, K});
    const std::vector<float> A = tutorial::random_floats(static_cast<std::size_t>(M) * K, seed);
    const std::vector<float> B = tutorial::random_floats(static_cast<std::size_t>(K) * N, seed + 1);
    tutorial::DeviceBuffer<float> dA(A), dB(B), dC(static_cast<std::size_t>(M) * N);
    dC.poison();
    gemm(dA.data(), dB.data(), dC.data(), M, N, K);
    const std::vector<float> C = dC.download();

    tutorial::OutputLayout layout;
    layout.name = "C";
    layout.rows = M;
    layout.cols = N;
    layout.tile_rows = kTile;
    layout.tile_cols = kTile;
    layout.seed = tutorial::run_seed();
    const tutorial::ExpectedOutput expected = tutorial::gemm_reference(A, B, M, N, K);
    tutorial::ComparisonReport report = tutorial::compare_with_tolerance(C, expected, layout);
    if (!report.ok()) report.text += explain_errors(A, B, C, expected, M, N, K, stages);
    return report;
}

// Every shape of `shapes` in one sweep of `what`, with the stage count as a parameter.
void sweep_shapes(tutorial::ShapeSweep& sweep, const tutorial::GemmFunction& gemm, const std::vector<GemmShape>& shapes,
                  int stages, bool several_stage_counts) {
    for (const GemmShape& shape : shapes) {
        std::ostringstream label;
        if (several_stage_counts) label << stages << " stage(s), ";
        label << shape;
        std::vector<tutorial::ShapeParameter> parameters{{"M", shape.M, kTile, "TILE", "tile"},
                                                         {"N", shape.N, kTile, "TILE", "tile"},
                                                         {"K", shape.K, kTile, "TILE", "tile"}};
        if (several_stage_counts) parameters.push_back({"stages", stages, 0, "", ""});
        sweep.run(label.str(), parameters, [&] { return run_case(gemm, shape, stages); },
                  tutorial::gemm_ownership(shape, kTile));
    }
}

// Shapes a tensor map takes (N and K multiples of 4), still with M = 1, primes, tile ± 4,
// K below, at and above the tile, several phases and very rectangular ones.
std::vector<GemmShape> tensor_map_shapes() {
    return {
        {1, 4, 4},        {31, 28, 36},   {32, 32, 32},    {33, 36, 28},  {7, 12, 8},
        {127, 132, 136},  {33, 28, 4},    {32, 36, 164},   {1, 1000, 4},  {1000, 4, 1000},
        {257, 128, 68},   {512, 512, 512}, {65, 100, 96},
    };
}

}  // namespace

TEST_CASE("async_gemm_launch_config gives one 32 x 32 block per tile of C", "[chapter8][graded]") {
    tutorial::check_launch_covers(async_gemm_launch_config, kTile);
}

// ---- 8a ---------------------------------------------------------------------------------

TEST_CASE("8a: async_double_buffered_gemm matches the CPU reference for every shape", "[chapter8][gpu][graded]") {
    if (gpu_too_old(8, 0, "8a (async_double_buffered_gemm)", "cp.async")) return;
    tutorial::ShapeSweep sweep("async_double_buffered_gemm", tutorial::default_sweep_options(8));
    sweep_shapes(sweep, async_double_buffered_gemm, tutorial::gemm_test_shapes(kTile), 2, false);
    REQUIRE_SWEEP(sweep);
}

TEST_CASE("8a: async_double_buffered_gemm rejects bad sizes and null pointers, naming the argument", "[chapter8]") {
    tutorial::check_gemm_rejects_bad_arguments(async_double_buffered_gemm, "async_double_buffered_gemm");
}

// ---- 8b ---------------------------------------------------------------------------------

TEST_CASE("8b: async_pipeline_gemm matches the CPU reference for every shape at 1, 2, 3 and 4 stages",
          "[chapter8][gpu][graded]") {
    if (gpu_too_old(8, 0, "8b (async_pipeline_gemm)", "cp.async")) return;
    // One sweep over all stage counts, so the summary can say "fails only when stages is ...".
    tutorial::ShapeSweep sweep("async_pipeline_gemm", tutorial::default_sweep_options(8));
    for (int stages = 1; stages <= kMaxPipelineStages; ++stages) {
        const tutorial::GemmFunction gemm = [stages](const float* A, const float* B, float* C, int M, int N, int K) {
            async_pipeline_gemm(A, B, C, M, N, K, stages);
        };
        sweep_shapes(sweep, gemm, tutorial::gemm_test_shapes(kTile), stages, true);
    }
    REQUIRE_SWEEP(sweep);
}

TEST_CASE("8b: async_pipeline_gemm rejects bad sizes, null pointers and stage counts outside 1..4", "[chapter8]") {
    const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) {
        async_pipeline_gemm(A, B, C, M, N, K, 2);
    };
    tutorial::check_gemm_rejects_bad_arguments(gemm, "async_pipeline_gemm");
    float dummy = 0.0f;
    REQUIRE_THROWS_WITH(async_pipeline_gemm(&dummy, &dummy, &dummy, 4, 4, 4, 0),
                        "async_pipeline_gemm: argument stages must be 1 to 4, got 0");
    REQUIRE_THROWS_WITH(async_pipeline_gemm(&dummy, &dummy, &dummy, 4, 4, 4, 5),
                        "async_pipeline_gemm: argument stages must be 1 to 4, got 5");
}

// ---- 8c (going further): the Tensor Memory Accelerator. Tagged [extra]. --------------------

TEST_CASE("8c: tma_gemm matches the CPU reference for shapes whose N and K are multiples of 4",
          "[chapter8][extra][gpu]") {
    if (gpu_too_old(9, 0, "8c (tma_gemm)", "the Tensor Memory Accelerator")) return;
    tutorial::ShapeSweep sweep("tma_gemm", tutorial::default_sweep_options(8));
    sweep_shapes(sweep, tma_gemm, tensor_map_shapes(), kTmaStages, false);
    REQUIRE_SWEEP(sweep);
}

TEST_CASE("8c: tma_gemm refuses N or K not a multiple of 4 and matrices not on 16 bytes, naming the argument",
          "[chapter8][extra]") {
    // Refused before any GPU work: no GPU memory is needed.
    alignas(16) float storage[8] = {};
    float* aligned = storage;
    tutorial::check_gemm_rejects_bad_arguments(tma_gemm, "tma_gemm");
    REQUIRE_THROWS_WITH(tma_gemm(aligned, aligned, aligned, 4, 4, 6),
                        "tma_gemm: argument K must be a multiple of 4, got 6: a tensor map needs every row of A "
                        "to start on 16 bytes (K floats of 4 bytes); async_pipeline_gemm takes any size");
    REQUIRE_THROWS_WITH(tma_gemm(aligned, aligned, aligned, 4, 37, 8),
                        "tma_gemm: argument N must be a multiple of 4, got 37: a tensor map needs every row of B "
                        "to start on 16 bytes (N floats of 4 bytes); async_pipeline_gemm takes any size");
    REQUIRE_THROWS_WITH(tma_gemm(aligned + 1, aligned, aligned, 4, 4, 4),
                        "tma_gemm: argument A must start on 16 bytes for a tensor map, got an address 4 bytes past "
                        "a 16-byte boundary");
    REQUIRE_THROWS_WITH(tma_gemm(aligned, aligned + 2, aligned, 4, 4, 4),
                        "tma_gemm: argument B must start on 16 bytes for a tensor map, got an address 8 bytes past "
                        "a 16-byte boundary");
    REQUIRE_THROWS_AS(tma_gemm(aligned, aligned, aligned, 4, 4, 6), std::invalid_argument);
}
