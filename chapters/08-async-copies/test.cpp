// Chapter 8 tests: asynchronous copies into shared memory.  Run them with `make chapter8 test`.
//
// Every step gets chapter 2's shapes (1, tile − 1, tile, tile + 1 in every combination,
// primes, very rectangular ones) and chapter 2's tolerance: the error bound of a float sum
// of K products. 8b runs at 2, 3 and 4 stages. 8c, whose tensor maps need rows that
// start on 16 bytes, gets shapes whose N and K are multiples of 4 (M and the tiles' edges
// still awkward), and its refusal of the others. 8d gets the same kinds of shapes around its
// own 64 x 128 x 16 tiles, with 16-byte copies and 4-byte ones.
//
// When a step fails, a probe runs it once more on inputs whose tiles are numbered (C then
// counts how many times each tile of A and of B was multiplied), and the report names the
// likely pipeline mistake: the last stages never drained, a stage read before its wait (an
// older tile), a stage refilled too early (a later tile), phases skipped, or a race.
#include "async_copy_gemm.h"
#include "tutorial_chapter.h"

#include "catch.h"
#include "device_buffer.h"
#include "expect.h"
#include "sweep.h"
#include "gemm/gemm_cases.h"
#include "gemm/gemm_reference.h"
#include "random.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <functional>
#include <regex>
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

// ---- What a wrong result says about the pipeline ----------------------------------------

// The probe: M = N = 32, K = kProbePhases full tiles along K (32 wide for 8a to 8c, 16 for
// 8d). One matrix holds 8^t / width in tile t (of A's columns or B's rows), the other ones,
// so C(i, j) = Σ 8^t over the tiles the block multiplied, exactly in float (every partial
// sum is a multiple of 2^-5 below 2^19).
// The base-8 digits of C count how many times each tile was multiplied.
constexpr int kProbePhases = 6;

// "tile 0 once, tile 1 never, ..." as counts, or empty when the value is no such sum.
std::vector<int> tile_counts(float value) {
    std::vector<int> counts;
    if (!std::isfinite(value) || value < 0 || value != std::floor(value) || value >= 262144.0f) return counts;
    long long rest = static_cast<long long>(value);
    for (int t = 0; t < kProbePhases; ++t, rest /= 8) counts.push_back(static_cast<int>(rest % 8));
    if (rest != 0) counts.clear();
    return counts;
}

std::string describe_counts(const std::vector<int>& counts, int stages, const char* matrix) {
    std::ostringstream text;
    text << "the tiles of " << matrix << " were multiplied ";
    for (int t = 0; t < kProbePhases; ++t) text << (t ? ", " : "") << counts[t];
    text << " time(s) (tiles 0 to " << kProbePhases - 1 << "; each should be 1): ";
    int total = 0, first_missing = -1, first_extra = -1, missing_at_end = 0;
    for (int t = 0; t < kProbePhases; ++t) {
        total += counts[t];
        if (counts[t] == 0 && first_missing < 0) first_missing = t;
        if (counts[t] > 1 && first_extra < 0) first_extra = t;
    }
    for (int t = kProbePhases - 1; t >= 0 && counts[t] == 0; --t) ++missing_at_end;
    if (total == 0) {
        text << "none was multiplied: the step's loop is not written yet, or never runs.";
    } else if (first_missing < 0 && first_extra < 0) {
        text << "right; the mistake is elsewhere (the bounds of partial tiles, or an index).";
    } else if (first_extra < 0 && missing_at_end > 0 && missing_at_end == kProbePhases - total &&
               missing_at_end <= stages) {
        // An undrained pipeline loses at most the phases still in flight when its loop ends.
        text << "the last " << missing_at_end << " tile(s) were never multiplied. The last stages were never "
             << "drained: the loop must wait for and multiply every phase it copied (" << stages
             << " stage(s) in flight at the end).";
    } else if (first_extra < 0 && missing_at_end > 0 && missing_at_end == kProbePhases - total) {
        // More than the stages in flight: not a loop that stops before draining them.
        text << "only the first " << total << " tile(s) were multiplied, and the last " << missing_at_end
             << " never: more than the " << stages << " stage(s) a loop leaves in flight, so not a pipeline left "
             << "undrained. The later tiles were never copied, or the copies fetched other parts of " << matrix
             << " (the coordinates or offsets each copy asks for along K, or their order), or the loop stops early.";
    } else if (total == kProbePhases && first_extra >= 0 && first_missing >= 0 && first_extra < first_missing) {
        text << "tile " << first_extra << " was multiplied more than once and tile " << first_missing
             << " never: a phase multiplied an older tile that was still in its stage. The stage was "
             << "read before its copies were waited for: a missing or misplaced wait, commits and waits that do not "
                "pair (so a wait covers an older batch), or a stage index that lags.";
    } else if (total == kProbePhases && first_extra >= 0 && first_missing >= 0) {
        text << "tile " << first_extra << " was multiplied more than once and tile " << first_missing
             << " never: a phase multiplied a later tile than its own. The stage index runs ahead, or the stage was refilled before every thread had read it (a stage "
                "reused too early: a __syncthreads() missing between a stage's products and its refill, or the "
                "refill started before that barrier).";
    } else if (total < kProbePhases) {
        text << total << " tile(s) multiplied for " << kProbePhases << " phases: phases were skipped (a stage index "
             << "off by one, or a loop that stops early).";
    } else {
        text << total << " tile(s) multiplied for " << kProbePhases << " phases: a tile was multiplied more than "
             << "once (a stage index off by one, or a loop that runs too long).";
    }
    return text.str();
}

// Runs `gemm` on the two probes (tiles of A numbered, then tiles of B) and says what the
// results tell about the pipeline, or why the probe could not run (it throws): in one line
// when that is the finding `shown_error` the report already showed in full
// (tutorial::same_finding: the same but for the thread, stage or size it names).
// `phase_width` is how far along K one tile reaches.
std::string pipeline_diagnosis(const tutorial::GemmFunction& gemm, int stages, const std::string& shown_error,
                               int phase_width = kTile) {
    const int M = kTile, N = kTile, K = kProbePhases * phase_width;
    std::ostringstream text;
    text << "\nWhat the pipeline did, from a probe (M = N = " << kTile << ", K = " << K << " = " << kProbePhases
         << " tiles of " << phase_width << "; one matrix numbers its tiles, C counts how often each was multiplied):\n";
    bool all_right = true;
    std::vector<std::string> findings;  // A's, then B's, the matrix named "\x01"
    for (const bool number_A : {true, false}) {
        std::vector<float> A(static_cast<std::size_t>(M) * K, 1.0f), B(static_cast<std::size_t>(K) * N, 1.0f);
        for (int k = 0; k < K; ++k) {
            const float tile_value = std::ldexp(1.0f, 3 * (k / phase_width)) / phase_width;  // 8^tile / width
            for (int i = 0; i < M; ++i) {
                if (number_A) A[static_cast<std::size_t>(i) * K + k] = tile_value;
                else B[static_cast<std::size_t>(k) * N + i] = tile_value;
            }
        }
        std::vector<float> C;
        try {
            tutorial::DeviceBuffer<float> dA(A), dB(B), dC(static_cast<std::size_t>(M) * N);
            dC.poison();
            gemm(dA.data(), dB.data(), dC.data(), M, N, K);
            C = dC.download();
        } catch (const std::exception& error) {
            if (tutorial::same_finding(error.what(), shown_error)) {
                return text.str() + "  the probe failed with the finding shown above for the first failing shape.\n";
            }
            return text.str() + "  the probe failed: " + error.what() + "\n";
        }
        // Written with a stand-in for the matrix's name, so that the two probes' findings
        // can be compared, and said once when they agree.
        const char* matrix = "\x01";
        // The first element written (not NaN) stands for the others.
        std::size_t first = 0;
        while (first + 1 < C.size() && std::isnan(C[first])) ++first;
        const std::vector<int> counts = tile_counts(C[first]);
        int disagreeing = 0, unwritten = 0;
        for (float value : C) {
            if (std::isnan(value)) ++unwritten;
            else if (value != C[first]) ++disagreeing;
        }
        std::ostringstream line;
        if (std::isnan(C[first])) {
            line << "no element of C was written.";
        } else if (counts.empty()) {
            line << "C(" << first / N << ", " << first % N << ") = " << C[first] << " is no count of whole tiles: "
                 << "the tiles read held values no copy of this probe wrote (read before the copies landed, or "
                    "never filled).";
        } else {
            line << describe_counts(counts, stages, matrix);
        }
        if (unwritten > 0) {
            line << " " << unwritten << " of " << M * N << " elements of C were never written (they hold the NaN "
                 << "the test wrote before the run).";
        }
        if (disagreeing > 0) {
            line << " " << disagreeing << " of " << M * N << " written elements differ from the first: the threads "
                 << "saw different tiles, a race (a missing wait or barrier).";
        }
        findings.push_back(line.str());
        all_right = all_right && disagreeing == 0 && unwritten == 0 && counts == std::vector<int>(kProbePhases, 1);
    }
    const auto naming = [](std::string finding, const std::string& name) {
        for (std::size_t at; (at = finding.find('\x01')) != std::string::npos;) finding.replace(at, 1, name);
        return finding;
    };
    if (findings.size() == 2 && findings[0] == findings[1]) {
        text << "  A and B: " << naming(findings[0], "A and of B") << "\n";
    } else {
        for (std::size_t i = 0; i < findings.size(); ++i) {
            const std::string name = i == 0 ? "A" : "B";
            text << "  " << name << ": " << naming(findings[i], name) << "\n";
        }
    }
    if (all_right) {
        return "\nA probe with numbered tiles (M = N = " + std::to_string(kTile) + ", K = " + std::to_string(K) +
               ") found every tile of A and of B multiplied once: the pipeline's order is right; the report above "
               "says what failed.\n";
    }
    return text.str();
}

// The probes' findings at kMinPipelineStages, kMinPipelineStages + 1, ... stages (one for each,
// in order), each said once: stage counts whose findings
// are the same but for the stage count itself (and, in a CPU backend's finding, the
// thread, byte and stage it names) share one paragraph, headed by the stage counts it
// covers and shown as found at the first of them.
std::string diagnoses_by_stage_count(const std::vector<std::string>& diagnoses) {
    const auto key_of = [](const std::string& text, int stages) {
        std::string key = std::regex_replace(text, std::regex("STAGES = " + std::to_string(stages) + "\\b"), "STAGES = S");
        key = std::regex_replace(key, std::regex("\\b" + std::to_string(stages) + " stage\\(s\\)"), "S stage(s)");
        key = std::regex_replace(key, std::regex(R"(\(\d+,\d+,\d+\))"), "(x,y,z)");
        key = std::regex_replace(key, std::regex(R"(\b(byte|stage|bytes) \d+)"), "$1 N");
        return std::regex_replace(key, std::regex(R"(\s+)"), " ");
    };
    std::vector<std::pair<std::string, std::vector<int>>> groups;  // key, stage counts
    for (std::size_t i = 0; i < diagnoses.size(); ++i) {
        const int stages = static_cast<int>(i) + kMinPipelineStages;
        const std::string key = key_of(diagnoses[i], stages);
        auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
        if (group == groups.end()) groups.push_back({key, {stages}});
        else group->second.push_back(stages);
    }
    std::string out;
    for (const auto& [key, counts] : groups) {
        std::string list;
        for (std::size_t k = 0; k < counts.size(); ++k) {
            list += (k == 0 ? "" : k + 1 == counts.size() ? " and " : ", ") + std::to_string(counts[k]);
        }
        out += "\nWith " + list + (counts.size() == 1 ? " stage(s):" : " stages (the same finding at each; as at " +
                                                                            std::to_string(counts.front()) + "):");
        out += diagnoses[static_cast<std::size_t>(counts.front() - kMinPipelineStages)];
    }
    return out;
}

// The report of a failing `sweep`: in full with what the probes say (`diagnosis`, run only
// then) when it is the run's first full report, else its one line (tutorial::take_full_report).
std::string sweep_report_with_diagnosis(const tutorial::ShapeSweep& sweep, const std::function<std::string()>& diagnosis) {
    if (!tutorial::take_full_report()) return tutorial::wrap_report_text(sweep.brief());
    return sweep.text() + diagnosis();
}

// Passes when every shape of `sweep` passed; otherwise fails with its report and what the
// probe says about `gemm`'s pipeline.
void require_sweep_with_diagnosis(const tutorial::ShapeSweep& sweep, const tutorial::GemmFunction& gemm, int stages,
                                  int phase_width = kTile) {
    if (!sweep.ok()) {
        FAIL(sweep_report_with_diagnosis(
            sweep, [&] { return pipeline_diagnosis(gemm, stages, sweep.first_error(), phase_width); }));
    }
    SUCCEED();
}

// One GEMM of `shape`: seeded random A and B, C poisoned, compared with the CPU reference.
tutorial::ComparisonReport run_case(const tutorial::GemmFunction& gemm, GemmShape shape) {
    return tutorial::run_gemm_case(gemm, shape, kTile);
}

// Chapter 2's shapes. On the CPU backend 512³ (every copy tracked until its wait) would take
// minutes, so there a 160 x 96 x 288 product stands in for it: 15 blocks of 9 phases each,
// the last ones partial; 512³ runs there when named ([.large]) and on a GPU always.
std::vector<GemmShape> chapter2_shapes() {
    std::vector<GemmShape> shapes;
    for (const GemmShape& shape : tutorial::gemm_test_shapes(kTile)) {
#ifdef TUTORIAL_EMU
        if (static_cast<long long>(shape.M) * shape.N * shape.K > 64LL * 1024 * 1024) {
            shapes.push_back({160, 96, 288});
            continue;
        }
#endif
        shapes.push_back(shape);
    }
    return shapes;
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
        // 8a and 8b copy 16 bytes at a time when every row of A and B starts on 16 bytes.
        parameters.push_back({"copy bytes", shape.N % 4 == 0 && shape.K % 4 == 0 ? 16 : 4, 0, "", ""});
        sweep.run(label.str(), parameters, [&] { return run_case(gemm, shape); },
                  tutorial::gemm_ownership(shape, kTile));
    }
}

// Shapes a tensor map takes (N and K multiples of 4), still with M = 1, primes, tile ± 4,
// K below, at and above the tile, several phases and very rectangular ones.
std::vector<GemmShape> tensor_map_shapes() {
    return {
        {1, 4, 4},        {31, 28, 36},   {32, 32, 32},    {33, 36, 28},  {7, 12, 8},
        {127, 132, 136},  {33, 28, 4},    {32, 36, 164},   {1, 1000, 4},  {1000, 4, 1000},
        {257, 128, 68},   {65, 100, 96},
#ifdef TUTORIAL_EMU
        {160, 96, 288},   // in place of 512³, as chapter2_shapes() does
#else
        {512, 512, 512},
#endif
    };
}

// 8a's and 8b's shapes: chapter 2's (of which only those with N = K = 32 have rows that start
// on 16 bytes), then shapes whose N and K are multiples of 4, so that the 16-byte copies also
// meet partial tiles (N and K of 4, 28 and 36), several phases and a ring of stages that
// turns (K = 164: six phases, the last one 4 wide).
std::vector<GemmShape> copy_width_shapes() {
    std::vector<GemmShape> shapes = chapter2_shapes();
    shapes.insert(shapes.end(), {{1, 4, 4}, {7, 12, 8}, {31, 28, 36}, {33, 36, 28}, {32, 36, 164}, {65, 100, 96}});
    return shapes;
}

// 8d's shapes: M around its block tile's 64 rows, N around its 128 columns and K around its
// 16-wide tiles in every combination (the kernel multiplies padded copies of A and B, but for
// N = 128 with K = 16, both multiples of 4); then shapes whose rows start on 16 bytes, with
// K from one tile to many more than the stages, so the ring of stages turns; then primes,
// a single element, one row, one column and very rectangular ones.
std::vector<GemmShape> warptile_shapes() {
    std::vector<GemmShape> shapes{{1, 1, 1}};
    for (int M : {kWarpPipeBM - 1, kWarpPipeBM, kWarpPipeBM + 1}) {
        for (int N : {kWarpPipeBN - 1, kWarpPipeBN, kWarpPipeBN + 1}) {
            for (int K : {kWarpPipeBK - 1, kWarpPipeBK, kWarpPipeBK + 1}) shapes.push_back({M, N, K});
        }
    }
    shapes.insert(shapes.end(), {
                                    {1, 4, 4},       {64, 128, 16},  {65, 132, 52},   {63, 124, 100},
                                    {128, 256, 160}, {4, 1000, 8},   {1000, 4, 1000}, {7, 13, 11},
                                    {127, 131, 137}, {1, 1000, 1},   {1000, 1, 1000}, {257, 129, 67},
                                    {64, 128, 5 * kWarpPipeBK + 3},
#ifdef TUTORIAL_EMU
                                    {160, 96, 288},  // in place of 512³, as chapter2_shapes() does
#else
                                    {512, 512, 512},
#endif
                                });
    return shapes;
}

}  // namespace

TEST_CASE("async_gemm_launch_config gives one 32 x 32 block per tile of C", CHAPTER_TAG "[graded]") {
    tutorial::check_launch_covers(async_gemm_launch_config, kTile);
}

TEST_CASE("the pipeline probe says 'never drained' only on its evidence, and each finding once", CHAPTER_TAG "[reference]") {
    // The last stages in flight missing: a loop that stops before draining them.
    CHECK(describe_counts({1, 1, 1, 1, 0, 0}, 2, "A").find("The last stages were never drained") != std::string::npos);
    // More tiles missing than stages in flight (8c with a tile's coordinates swapped reads
    // zeros past the first): not a pipeline left undrained.
    const std::string five_missing = describe_counts({1, 0, 0, 0, 0, 0}, 2, "A");
    CHECK(five_missing.find("never drained") == std::string::npos);
    CHECK(five_missing.find("more than the 2 stage(s) a loop leaves in flight") != std::string::npos);
    // The same finding at several stage counts, but for the count itself: said once.
    const std::string grouped = diagnoses_by_stage_count(
        {"right", "read at x.cu:88 in k [with int STAGES = 3], block (0,0,0), byte 12", "read at x.cu:88 in k [with int STAGES = 4], block (1,0,0), byte 40",
         "other"});
    CHECK(grouped.find("With 2 stage(s):right") != std::string::npos);
    CHECK(grouped.find("With 3 and 4 stages (the same finding at each; as at 3):read at x.cu:88") != std::string::npos);
    CHECK(grouped.find("STAGES = 4") == std::string::npos);
    CHECK(grouped.find("With 5 stage(s):other") != std::string::npos);
}

// ---- 8a ---------------------------------------------------------------------------------

TEST_CASE(STEP("a") ": async_double_buffered_gemm matches the CPU reference for every shape", CHAPTER_TAG "[gpu][graded]") {
    if (gpu_too_old(8, 0, STEP("a") " (async_double_buffered_gemm)", "cp.async")) return;
    tutorial::ShapeSweep sweep("async_double_buffered_gemm", tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    sweep_shapes(sweep, async_double_buffered_gemm, copy_width_shapes(), 2, false);
    require_sweep_with_diagnosis(sweep, async_double_buffered_gemm, 2);
}

TEST_CASE(STEP("a") ": async_double_buffered_gemm rejects bad sizes and null pointers, naming the argument", CHAPTER_TAG) {
    tutorial::check_gemm_rejects_bad_arguments(async_double_buffered_gemm, "async_double_buffered_gemm");
}

// ---- 8b ---------------------------------------------------------------------------------

TEST_CASE(STEP("b") ": async_pipeline_gemm matches the CPU reference for every shape at 2, 3 and 4 stages",
          CHAPTER_TAG "[gpu][graded]") {
    if (gpu_too_old(8, 0, STEP("b") " (async_pipeline_gemm)", "cp.async")) return;
    // One sweep over all stage counts, so the summary can say "fails only when stages is ...".
    tutorial::ShapeSweep sweep("async_pipeline_gemm", tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    const auto gemm_at = [](int stages) {
        return tutorial::GemmFunction([stages](const float* A, const float* B, float* C, int M, int N, int K) {
            async_pipeline_gemm(A, B, C, M, N, K, stages);
        });
    };
    for (int stages = kMinPipelineStages; stages <= kMaxPipelineStages; ++stages) {
        sweep_shapes(sweep, gemm_at(stages), copy_width_shapes(), stages, true);
    }
    if (!sweep.ok()) {
        FAIL(sweep_report_with_diagnosis(sweep, [&] {
            std::vector<std::string> diagnoses;
            for (int stages = kMinPipelineStages; stages <= kMaxPipelineStages; ++stages) {
                diagnoses.push_back(pipeline_diagnosis(gemm_at(stages), stages, sweep.first_error()));
            }
            return diagnoses_by_stage_count(diagnoses);
        }));
    }
    SUCCEED();
}

TEST_CASE(STEP("b") ": async_pipeline_gemm rejects bad sizes, null pointers and stage counts outside 2..4", CHAPTER_TAG) {
    const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) {
        async_pipeline_gemm(A, B, C, M, N, K, 2);
    };
    tutorial::check_gemm_rejects_bad_arguments(gemm, "async_pipeline_gemm");
    float dummy = 0.0f;
    REQUIRE_THROWS_WITH(async_pipeline_gemm(&dummy, &dummy, &dummy, 4, 4, 4, 1),
                        "async_pipeline_gemm: argument stages must be 2 to 4, got 1");
    REQUIRE_THROWS_WITH(async_pipeline_gemm(&dummy, &dummy, &dummy, 4, 4, 4, 5),
                        "async_pipeline_gemm: argument stages must be 2 to 4, got 5");
}

// ---- 8c and 8d (going further). Tagged [extra]. -------------------------------------------

TEST_CASE(STEP("c") ": tma_gemm matches the CPU reference for shapes whose N and K are multiples of 4",
          CHAPTER_TAG "[extra][gpu]") {
    if (gpu_too_old(9, 0, STEP("c") " (tma_gemm)", "the Tensor Memory Accelerator")) return;
    tutorial::ShapeSweep sweep("tma_gemm", tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    sweep_shapes(sweep, tma_gemm, tensor_map_shapes(), kTmaStages, false);
    require_sweep_with_diagnosis(sweep, tma_gemm, kTmaStages);
}

TEST_CASE(STEP("c") ": tma_gemm refuses N or K not a multiple of 4 and matrices not on 16 bytes, naming the argument",
          CHAPTER_TAG "[extra]") {
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

TEST_CASE(STEP("d") ": async_warptile_gemm matches the CPU reference for every shape, from padded copies where rows are not on 16 bytes",
          CHAPTER_TAG "[extra][gpu]") {
    if (gpu_too_old(8, 0, STEP("d") " (async_warptile_gemm)", "cp.async")) return;
    tutorial::ShapeSweep sweep("async_warptile_gemm", tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    for (const GemmShape& shape : warptile_shapes()) {
        std::ostringstream label;
        label << shape;
        const bool padded = shape.N % 4 != 0 || shape.K % 4 != 0;  // B (and A) copied, rows padded
        tutorial::OutputOwnership ownership =
            tutorial::gemm_ownership(shape, kWarpPipeBM, tutorial::ThreadWork::warp_tile_per_warp, true);
        ownership.tile_text = std::to_string(kWarpPipeBM) + " x " + std::to_string(kWarpPipeBN);
        sweep.run(label.str(),
                  {{"M", shape.M, kWarpPipeBM, "BM", "block tile"},
                   {"N", shape.N, kWarpPipeBN, "BN", "block tile"},
                   {"K", shape.K, kWarpPipeBK, "BK", "tile along K"},
                   {"padded copies", padded ? 1 : 0, 0, "", ""}},
                  [&] { return tutorial::run_gemm_case(async_warptile_gemm, shape, kWarpPipeBM, kWarpPipeBN); }, ownership);
    }
    require_sweep_with_diagnosis(sweep, async_warptile_gemm, kWarpPipeStages, kWarpPipeBK);
}

TEST_CASE(STEP("d") ": async_warptile_gemm rejects bad sizes and null pointers, naming the argument", CHAPTER_TAG "[extra]") {
    tutorial::check_gemm_rejects_bad_arguments(async_warptile_gemm, "async_warptile_gemm");
}

// 512³ and a large awkward shape: on a GPU always; on the CPU backend only when named
// ([.large]), where every copy is tracked until its wait. 8d's case is its own, tagged
// [extra] like its other cases, so that a chapter done with 8a and 8b has no required
// failure from it.
#ifdef TUTORIAL_EMU
#define LARGE_GEMM_TAGS "[gpu][.large]"
#else
#define LARGE_GEMM_TAGS "[gpu][large]"
#endif
TEST_CASE(STEP("a") " and " STEP("b") " are right at 512³ and on a large awkward shape", CHAPTER_TAG LARGE_GEMM_TAGS) {
    if (gpu_too_old(8, 0, STEP("a") " and " STEP("b"), "cp.async")) return;
    const GemmShape shape = GENERATE(GemmShape{512, 512, 512}, GemmShape{1025, 513, 515});
    INFO("shape " << shape);
    REQUIRE_MATCH(run_case(async_double_buffered_gemm, shape));
    for (int stages = kMinPipelineStages; stages <= kMaxPipelineStages; ++stages) {
        INFO(stages << " stage(s)");
        REQUIRE_MATCH(run_case(
            [stages](const float* A, const float* B, float* C, int M, int N, int K) {
                async_pipeline_gemm(A, B, C, M, N, K, stages);
            },
            shape));
    }
}

TEST_CASE(STEP("d") ": async_warptile_gemm is right at 512³ and on a large awkward shape",
          CHAPTER_TAG "[extra]" LARGE_GEMM_TAGS) {
    if (gpu_too_old(8, 0, STEP("d") " (async_warptile_gemm)", "cp.async")) return;
    const GemmShape shape = GENERATE(GemmShape{512, 512, 512}, GemmShape{1025, 513, 515});
    INFO("shape " << shape);
    REQUIRE_MATCH(tutorial::run_gemm_case(async_warptile_gemm, shape, kWarpPipeBM, kWarpPipeBN));
}
