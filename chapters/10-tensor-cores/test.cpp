// Chapter 10 tests: GEMM on the tensor cores.  Run them with `make chapter10 test`.
//
// 10d, going further, has test cases of its own (tagged [extra], not graded): 10c's checks,
// then a persistent grid of fewer blocks than tiles.
//
// Every step gets chapter 2's shapes around its 128 × 128 block tile (1, tile − 1, tile,
// tile + 1 in every combination, primes, very rectangular ones), shapes around its 64-wide
// step along K, matrices that do not start on 16 bytes, and bad arguments. The inputs are seeded random floats rounded to BF16; the
// CPU reference multiplies the same rounded values exactly (in double), so the tolerance is
// the error bound of an FP32 sum of K products (doubled: gemm/gemm_operands.h says why).
// The swizzle is also checked directly: a layout that leaves bank conflicts computes the
// right C too, and only the banks tell it apart.
#include "tensor_core_gemm.h"
#include "tutorial_chapter.h"

#include "catch.h"
#include "device_buffer.h"
#include "expect.h"
#include "random.h"
#include "sweep.h"
#include "gemm/bf16_inputs.h"
#include "gemm/gemm_cases.h"
#include "gemm/gemm_reference.h"

#include <cmath>
#include <cstdint>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using tutorial::GemmShape;
using tutorial::InputPrecision;

namespace {

struct Step {
    std::string name;                // what the reports call it
    const char* function;            // the function's name, as its error messages give it
    tutorial::Bf16GemmFunction gemm;  // the entry point
    bool wgmma;                      // 10c: needs sm_90a (Hopper)
};

// The graded steps, 10a to 10c.
std::vector<Step> steps() {
    return {
        {STEP("a") " mma_gemm, row-major tiles", "mma_gemm", mma_gemm_row_major, false},
        {STEP("a") " mma_gemm, swizzled tiles", "mma_gemm", mma_gemm_swizzled, false},
        {STEP("b") " mma_pipeline_gemm", "mma_pipeline_gemm", mma_pipeline_gemm, false},
        {STEP("c") " wgmma_gemm", "wgmma_gemm", wgmma_gemm, true},
    };
}

// 10d, going further: its tests are apart, tagged [extra].
Step specialized_step() {
    return {STEP("d") " wgmma_specialized_gemm", "wgmma_specialized_gemm", wgmma_specialized_gemm, true};
}

// True, after a warning, when @p step needs wgmma (sm_90a) and the GPU is not a Hopper
// (compute capability 9.0): the step is skipped, and the run says so. The CPU backend is
// 9.0 and runs it.
bool skip_step(const Step& step) {
    if (!step.wgmma) return false;
    int device = 0, major = 0, minor = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
        return false;  // let the step run and report what fails
    }
    if (major == 9 && minor == 0) return false;
    WARN(step.name << " is skipped: wgmma needs sm_90a, a Hopper GPU (compute capability 9.0), and this GPU is "
                   << major << "." << minor << "; the CPU backend runs it (BACKEND=emu).");
    return true;
}

// True, after printing one line, when the GPU is older than compute capability 8.0; the
// tests then pass without running. The CPU backend is 9.0 and runs them all.
bool gpu_too_old() {
    int device = 0, major = 0, minor = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
        return false;  // let the steps run and report what fails
    }
    if (major >= 8) return false;
    std::cout << "Skipped on this GPU: ldmatrix and mma.sync with BF16 need compute capability 8.0, and this GPU is "
              << major << "." << minor << "; the CPU backend runs them (BACKEND=emu).\n";
    return true;
}

// Chapter 2's shapes around the 128 × 128 tile of C, then K around the 64-wide step, with
// 512³ (seconds on the CPU backend, which runs every lane of every mma) replaced there by a
// smaller shape of several tiles.
std::vector<GemmShape> tile_shapes() {
    std::vector<GemmShape> shapes;
    for (const GemmShape& shape : tutorial::gemm_test_shapes(kMmaBlockM)) {
#ifdef TUTORIAL_EMU
        if (static_cast<long long>(shape.M) * shape.N * shape.K > 64LL * 1024 * 1024) {
            shapes.push_back({160, 96, 288});
            continue;
        }
#endif
        shapes.push_back(shape);
    }
    for (int K : {kMmaBlockK - 1, kMmaBlockK, kMmaBlockK + 1, 2 * kMmaBlockK + 1}) shapes.push_back({kMmaBlockM + 1, 72, K});
    return shapes;
}

// 10c's and 10d's block tile is 128 × 256: the shapes above, then N around 256 (tile − 1,
// tile, tile + 1).
std::vector<GemmShape> shapes_of(const Step& step) {
    std::vector<GemmShape> shapes = tile_shapes();
    if (step.wgmma) {
        for (int N : {kWgmmaBlockN - 1, kWgmmaBlockN, kWgmmaBlockN + 1}) shapes.push_back({kWgmmaBlockM + 1, N, kWgmmaBlockK + 1});
    }
    return shapes;
}

// A GEMM of @p shape whose matrices start @p offset elements into their buffers (a caller
// may pass a pointer into the middle of an allocation): no row then starts on 16 bytes, and
// the kernel must copy element by element rather than fault.
tutorial::ComparisonReport run_offset_case(const tutorial::Bf16GemmFunction& gemm, GemmShape shape, int offset) {
    const auto [M, N, K] = shape;
    const std::uint64_t seed = tutorial::derive_seed(tutorial::run_seed(), {M, N, K, offset});
    const std::vector<float> A = tutorial::rounded_to_bf16(tutorial::random_floats(static_cast<std::size_t>(M) * K, seed));
    const std::vector<float> B = tutorial::rounded_to_bf16(tutorial::random_floats(static_cast<std::size_t>(K) * N, seed + 1));
    std::vector<float> padded_A(offset, 0.0f), padded_B(offset, 0.0f);
    padded_A.insert(padded_A.end(), A.begin(), A.end());
    padded_B.insert(padded_B.end(), B.begin(), B.end());
    tutorial::DeviceBuffer<__nv_bfloat16> dA(tutorial::to_bf16(padded_A)), dB(tutorial::to_bf16(padded_B));
    tutorial::DeviceBuffer<float> dC(static_cast<std::size_t>(M) * N);
    dC.poison();
    gemm(dA.data() + offset, dB.data() + offset, dC.data(), M, N, K);
    tutorial::ExpectedOutput expected = tutorial::gemm_reference(A, B, M, N, K);
    for (double& tolerance : expected.tolerance) tolerance *= 2.0;  // as GemmOperands does for BF16 inputs
    return tutorial::compare_gemm_output(dC.download(), expected, M, N, kMmaBlockM);
}

// @p step on every shape of shapes_of(step), against the CPU reference.
tutorial::ShapeSweep shape_sweep(const Step& step) {
    const tutorial::GemmFunction gemm = tutorial::with_bf16_inputs(step.gemm);
    tutorial::SweepOptions options = tutorial::default_sweep_options(TUTORIAL_CHAPTER);
    options.case_prefix = step.name + ", ";
    tutorial::ShapeSweep sweep(step.name, options);
    for (const GemmShape& shape : shapes_of(step)) {
        std::ostringstream label;
        label << shape;
        sweep.run(label.str(),
                  {{"M", shape.M, kMmaBlockM, "", "block tile"},
                   {"N", shape.N, kMmaBlockN, "", "block tile"},
                   {"K", shape.K, kMmaBlockK, "", "step along K"}},
                  [&] { return tutorial::run_gemm_case(gemm, shape, kMmaBlockM, 0, InputPrecision::bf16); },
                  tutorial::gemm_ownership(shape, kMmaBlockM, tutorial::ThreadWork::warp_tile_per_warp, true));
    }
    return sweep;
}

// @p step on matrices that start 1, 4 and 7 elements into their buffers.
tutorial::ShapeSweep offset_sweep(const Step& step) {
    const GemmShape shape{72, 80, 136};  // every row a multiple of 8 elements: only the start is off
    tutorial::SweepOptions options = tutorial::default_sweep_options(TUTORIAL_CHAPTER);
    options.case_prefix = step.name + ", ";
    tutorial::ShapeSweep sweep(step.name + " on matrices that do not start on 16 bytes", options);
    for (int offset : {1, 4, 7}) {
        sweep.run("matrices starting " + std::to_string(offset) + (offset == 1 ? " element" : " elements") + " into their buffers",
                  {{"offset", offset, 0, "", ""}}, [&] { return run_offset_case(step.gemm, shape, offset); });
    }
    return sweep;
}

// The fragment probe, at M = N = K = 128 (one block, two steps along K). First A = I and
// B(k, n) = 2^k: C(r, c) is then the sum of 2^k over the rows k of B that reached it, which
// must be row r alone. Then A(r, k) = 2^k and B = I: C(r, c) names the columns k of A that
// reached it, which must be column c alone. Powers of two are exact in BF16, and sums of a
// few of them in FP32, so a misplaced fragment shows as the rows or columns it brought.
// Each wrong element is given as the accumulator, lane and warp that hold it in the table of
// common/tensor_cores.h. Returns an empty string when every element is right.
std::string fragment_probe(const tutorial::Bf16GemmFunction& gemm, bool wgmma) {
    const int n = kMmaBlockM;
    std::vector<float> identity(static_cast<std::size_t>(n) * n, 0.0f), powers(identity.size());
    for (int i = 0; i < n; ++i) identity[static_cast<std::size_t>(i) * n + i] = 1.0f;
    const auto run = [&](const std::vector<float>& A, const std::vector<float>& B) {
        const tutorial::DeviceBuffer<__nv_bfloat16> dA(tutorial::to_bf16(A)), dB(tutorial::to_bf16(B));
        tutorial::DeviceBuffer<float> dC(identity.size());
        dC.poison();
        gemm(dA.data(), dB.data(), dC.data(), n, n, n);
        return dC.download();
    };
    for (int k = 0; k < n; ++k) {  // B(k, n) = 2^k
        for (int c = 0; c < n; ++c) powers[static_cast<std::size_t>(k) * n + c] = std::ldexp(1.0f, k);
    }
    const std::vector<float> rows_in = run(identity, powers);
    for (int r = 0; r < n; ++r) {  // A(r, k) = 2^k
        for (int k = 0; k < n; ++k) powers[static_cast<std::size_t>(r) * n + k] = std::ldexp(1.0f, k);
    }
    const std::vector<float> columns_in = run(powers, identity);
    // "rows 0 and 8 of B" from 2^0 + 2^8; what no small sum of powers of two explains, as a value.
    const auto which = [](float got, const char* kind, const char* matrix) {
        std::ostringstream out;
        if (got != got) return std::string("NaN (never written)");
        if (got == 0.0f) return "no " + std::string(kind) + " of " + matrix;
        std::vector<int> terms;
        float rest = got;
        while (rest > 0.0f && terms.size() < 5) {
            int exponent = 0;
            std::frexp(rest, &exponent);
            terms.push_back(exponent - 1);
            rest -= std::ldexp(1.0f, exponent - 1);
        }
        if (rest != 0.0f || got < 0.0f) {
            out << got << ", no sum of " << kind << "s of " << matrix;
            return out.str();
        }
        out << kind << (terms.size() > 1 ? "s " : " ");
        for (std::size_t i = terms.size(); i-- > 0;) out << terms[i] << (i == 0 ? "" : i == 1 ? " and " : ", ");
        out << " of " << matrix;
        return out.str();
    };
    std::ostringstream report;
    int wrong = 0;
    for (int r = 0; r < n; ++r) {
        for (int c = 0; c < n; ++c) {
            const std::size_t at = static_cast<std::size_t>(r) * n + c;
            if (rows_in[at] == std::ldexp(1.0f, r) && columns_in[at] == std::ldexp(1.0f, c)) continue;
            if (wrong++ >= 3) continue;
            // Who holds C(r, c). 10a, 10b: warp (r / 64, c / 64) of the 2 × 2, its tile (i, j)
            // of 16 × 8, lane 4 (r % 8) + (c % 8) / 2, register 2 ((r % 16) / 8) + c % 2.
            // 10c: warp r / 16 (warpgroup r / 64), acc[4 (c / 8) + 2 ((r % 16) / 8) + c % 2],
            // the same lane (common/wgmma.h).
            const int lane = r % 8 * 4 + c % 8 / 2, reg = r % 16 / 8 * 2 + c % 2;
            if (wgmma) {
                report << "\n  C(" << r << ", " << c << "), acc[" << 4 * (c / 8) + reg << "] of lane " << lane
                       << " of warp " << r / 16 << " (warpgroup " << r / 64 << "): ";
            } else {
                const int warp = r / kMmaWarpM * kMmaWarpsN + c / kMmaWarpN;
                report << "\n  C(" << r << ", " << c << "), acc[" << r % kMmaWarpM / 16 << "][" << c % kMmaWarpN / 8
                       << "][" << reg << "] of lane " << lane << " of warp " << warp << ": ";
            }
            if (rows_in[at] != rows_in[at] && columns_in[at] != columns_in[at]) {
                report << "never written (still the NaN poison).";
            } else {
                report << "with A = I it holds " << which(rows_in[at], "row", "B") << " (expected row " << r
                       << "); with B = I, " << which(columns_in[at], "column", "A") << " (expected column " << c << ").";
            }
        }
    }
    if (wrong == 0) return "";
    std::ostringstream out;
    out << wrong << " of " << n * n << " elements of C (M = N = K = " << n << ") are not built from the row of A and "
        << "the column of B that the fragments should bring; the first:" << report.str();
    return out.str();
}

// The bank group (4 banks, 16 bytes) of element offset @p offset of a 16-bit tile that
// starts on 128 bytes.
int bank_group(int offset) { return offset * 2 / 16 % 8; }

}  // namespace

TEST_CASE("The swizzle moves whole 16-byte chunks within their row, and ldmatrix's 8 rows land in 8 bank groups",
          CHAPTER_TAG "[graded]") {
    // A's tiles have rows of kMmaBlockK elements, B's of kMmaBlockN.
    for (const int row_elements : {kMmaBlockK, kMmaBlockN}) {
        const int rows = row_elements == kMmaBlockK ? kMmaBlockM : kMmaBlockK;
        INFO("a tile of " << rows << " rows of " << row_elements << " elements");
        // Every element: in its own row, at its place inside its chunk, no two at one offset.
        std::set<int> taken;
        std::string first_problem;
        for (int row = 0; row < rows && first_problem.empty(); ++row) {
            for (int col = 0; col < row_elements && first_problem.empty(); ++col) {
                const int offset = swizzled_offset(row, col, row_elements);
                std::ostringstream problem;
                if (offset < row * row_elements || offset >= (row + 1) * row_elements) {
                    problem << "swizzled_offset(" << row << ", " << col << ", " << row_elements << ") = " << offset
                            << " lies outside row " << row << " (elements " << row * row_elements << " to "
                            << (row + 1) * row_elements - 1 << "): a swizzle keeps every element in its row.";
                } else if (offset % 8 != col % 8) {
                    problem << "swizzled_offset(" << row << ", " << col << ", " << row_elements << ") = " << offset
                            << " is element " << offset % 8 << " of its 16-byte chunk; column " << col << " is element "
                            << col % 8 << ": the swizzle moves whole chunks of 8 elements (ldmatrix reads a row's 8 "
                            << "elements at once).";
                } else if (!taken.insert(offset).second) {
                    problem << "swizzled_offset(" << row << ", " << col << ", " << row_elements << ") = " << offset
                            << ", an offset another element of the row already has.";
                }
                first_problem = problem.str();
            }
        }
        if (!first_problem.empty()) {
            FAIL(first_problem << "\nEdit swizzled_offset in chapters/10-tensor-cores/tensor_core_gemm.cu.");
        }
        // One ldmatrix matrix is 8 consecutive rows at one chunk column, read in one pass of
        // shared memory: without conflicts only when the 8 rows lie in 8 different bank groups.
        for (int first_row = 0; first_row < rows; first_row += 8) {
            for (int chunk = 0; chunk < row_elements / 8; ++chunk) {
                std::set<int> groups;
                std::ostringstream where;
                for (int r = first_row; r < first_row + 8; ++r) {
                    const int group = bank_group(swizzled_offset(r, chunk * 8, row_elements));
                    groups.insert(group);
                    where << (r == first_row ? "" : ", ") << group;
                }
                if (groups.size() != 8) {
                    FAIL("Rows " << first_row << " to " << first_row + 7 << " of chunk column " << chunk << " (columns "
                                 << chunk * 8 << " to " << chunk * 8 + 7 << ") lie in bank groups " << where.str()
                                 << ": ldmatrix reads them in one pass, "
                                 << 8 / static_cast<int>(groups.size())
                                 << "-way conflicted. XOR the chunk with the row (row % 8) so that they spread over "
                                 << "all 8.\nEdit swizzled_offset in chapters/10-tensor-cores/tensor_core_gemm.cu.");
                }
            }
        }
    }
    SUCCEED();
}

TEST_CASE(STEP("c") ": wgmma_descriptor puts each field where the PTX ISA says", CHAPTER_TAG "[graded]") {
    // The fields of the PTX ISA's "Matrix Descriptor Format": bits, and what they hold.
    struct Field {
        const char* name;
        int low, bits;
    };
    const Field fields[] = {{"start address (bits 0-13)", 0, 14},           {"bits 14-15 (reserved, 0)", 14, 2},
                            {"leading byte offset (bits 16-29)", 16, 14},    {"bits 30-31 (reserved, 0)", 30, 2},
                            {"stride byte offset (bits 32-45)", 32, 14},     {"bits 46-48 (reserved, 0)", 46, 3},
                            {"base offset (bits 49-51)", 49, 3},             {"bits 52-61 (reserved, 0)", 52, 10},
                            {"swizzle mode (bits 62-63)", 62, 2}};
    // (start, leading, stride): 10c's own, then values that need the mask (x & 0x3FFFF) and
    // the shift (>> 4): the encoding keeps bits 4 to 17 of each.
    const std::uint32_t cases[][3] = {{0, 16, 1024},         {16384 + 8192, 8192, 1024}, {1024 + 96, 16, 1024},
                                      {0x3FFF0, 0x3FFF0, 0x3FFF0}, {0x40400, 0x1C0000 + 2048, 0x50010}};
    for (const auto& c : cases) {
        const std::uint64_t got = wgmma_descriptor(c[0], c[1], c[2]);
        const auto encode = [](std::uint32_t x) { return static_cast<std::uint64_t>((x & 0x3FFFF) >> 4); };
        const std::uint64_t expected = encode(c[0]) | encode(c[1]) << 16 | encode(c[2]) << 32 | 1ull << 62;
        for (const Field& f : fields) {
            const std::uint64_t mask = (1ull << f.bits) - 1;
            const std::uint64_t g = got >> f.low & mask, e = expected >> f.low & mask;
            if (g == e) continue;
            FAIL("wgmma_descriptor(" << c[0] << ", " << c[1] << ", " << c[2] << ") = 0x" << std::hex << got
                                     << ": its " << f.name << " holds 0x" << g << ", expected 0x" << e << std::dec
                                     << ".\nEdit wgmma_descriptor in chapters/10-tensor-cores/tensor_core_gemm.cu "
                                        "(common/wgmma.h: the table).");
        }
    }
    SUCCEED();
}

// The steps run in one test case, each a sweep of its own: a run where every step fails
// (the skeleton) prints the first failing step's report and one line for each other.
TEST_CASE("Each step matches the CPU reference on BF16 inputs for chapter 2's shapes at its 128 x 128 tile",
          CHAPTER_TAG "[gpu][graded]") {
    if (gpu_too_old()) return;
    std::vector<tutorial::ShapeSweep> sweeps;
    for (const Step& step : steps()) {
        if (!skip_step(step)) sweeps.push_back(shape_sweep(step));
    }
    REQUIRE_SWEEPS(sweeps);
}

TEST_CASE("Each step's fragments build C(r, c) from row r of A and column c of B", CHAPTER_TAG "[gpu][graded]") {
    if (gpu_too_old()) return;
    std::string first, others;
    // Which steps bring every element where it belongs: where to look follows from them.
    // 10a's two layouts and 10b share the fragments (multiply_tiles, store_accumulators).
    // Indexed as steps() lists them: 10a row-major, 10a swizzled, 10b, 10c.
    bool wrong[4] = {}, ran[4] = {};
    const std::vector<Step> all = steps();
    for (std::size_t s = 0; s < all.size(); ++s) {
        const Step& step = all[s];
        if (skip_step(step)) continue;
        ran[s] = true;
        const std::string problem = fragment_probe(step.gemm, step.wgmma);
        if (problem.empty()) continue;
        wrong[s] = true;
        if (first.empty()) {
            first = step.name + ": " + problem;
        } else {
            others += "\n" + step.name + ": " + problem.substr(0, problem.find(" elements")) + " elements wrong too.";
        }
    }
    if (!first.empty()) {
        const bool row_major_right = ran[0] && !wrong[0], swizzled_right = ran[1] && !wrong[1];
        std::string where;
        if (wrong[0] || (wrong[1] && !row_major_right) || (wrong[2] && !row_major_right && !swizzled_right)) {
            where = "Compare your row and column for that lane with the table in common/tensor_cores.h "
                    "(make chapter10 hint).";
        } else if (wrong[1]) {
            where = "10a with row-major tiles brings every element where it belongs with the same fragments, so the "
                    "swizzle misplaces them: swizzled_offset, which the stores into the tile and ldmatrix's "
                    "addresses both use.";
        } else if (wrong[2]) {
            where = "10a with swizzled tiles brings every element where it belongs with the same fragments and "
                    "swizzle, so 10b's own code misplaces them: where start_chunk_copy puts each chunk (the swizzled "
                    "offset the synchronous load uses), or which stage a tile is copied to and read from.";
        }
        if (wrong[3]) {
            where += std::string(where.empty() ? "" : "\n") +
                     "10c's accumulators are laid out as common/wgmma.h's table says, not as mma.sync's: compare "
                     "store_wgmma_accumulators with it, and the descriptors with the tiles the TMA writes.";
        }
        FAIL(first << others << "\n" << where);
    }
    SUCCEED();
}

TEST_CASE("Each step is right when the matrices do not start on 16 bytes", CHAPTER_TAG "[gpu][graded]") {
    if (gpu_too_old()) return;
    std::vector<tutorial::ShapeSweep> sweeps;
    for (const Step& step : steps()) {
        if (!skip_step(step)) sweeps.push_back(offset_sweep(step));
    }
    REQUIRE_SWEEPS(sweeps);
}

TEST_CASE("Each step rejects bad sizes and null pointers, naming the argument", CHAPTER_TAG) {
    const Step step = GENERATE(from_range(steps()));
    INFO(step.name);
    tutorial::check_gemm_rejects_bad_arguments(tutorial::with_bf16_inputs(step.gemm), step.function);
}

// ---- 10d (going further): warp specialization and a persistent grid ------------------------

TEST_CASE(STEP("d") ": wgmma_specialized_gemm matches the CPU reference at " STEP("c") "'s shapes, its fragments and on matrices "
          "that do not start on 16 bytes", CHAPTER_TAG "[gpu][extra]") {
    const Step step = specialized_step();
    if (skip_step(step)) return;
    const std::vector<tutorial::ShapeSweep> sweeps = {shape_sweep(step), offset_sweep(step)};
    REQUIRE_SWEEPS(sweeps);
    const std::string problem = fragment_probe(step.gemm, step.wgmma);
    if (!problem.empty()) {
        FAIL(step.name << ": " << problem << "\nCompare your consumer's rows with " STEP("c") "'s (common/wgmma.h: the "
                       << "accumulators).");
    }
}

// A grid smaller than C's tiles, down to one block, so that a block walks several tiles and
// its ring of stages wraps around within a tile and across tiles: 3 × 3 tiles of 128 × 256,
// those of the last row and column partial, and 4 or 5 steps along K each (the last one
// partial). With 4 stages a tile of 4 steps starts on stage 0 again, a phase later, and one
// of 5 steps on the next stage.
TEST_CASE(STEP("d") ": a persistent block walks several tiles, its stages' phases running on from one tile to the next",
          CHAPTER_TAG "[gpu][extra]") {
    const Step step = specialized_step();
    if (skip_step(step)) return;
    tutorial::SweepOptions options = tutorial::default_sweep_options(TUTORIAL_CHAPTER);
    options.case_prefix = step.name + ", persistent, ";
    tutorial::ShapeSweep sweep(step.name + " on fewer blocks than tiles", options);
    for (const int blocks : {1, 2, 4}) {
        for (const GemmShape shape : {GemmShape{300, 600, 200}, GemmShape{257, 513, 257}}) {
            std::ostringstream label;
            label << blocks << (blocks == 1 ? " block, " : " blocks, ") << shape;
            const tutorial::GemmFunction gemm = tutorial::with_bf16_inputs(
                [blocks](const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K) {
                    wgmma_specialized_gemm_on(A, B, C, M, N, K, blocks);
                });
            sweep.run(label.str(),
                      {{"blocks", blocks, 0, "", ""},
                       {"M", shape.M, kWgmmaBlockM, "", "block tile"},
                       {"N", shape.N, kWgmmaBlockN, "", "block tile"},
                       {"K", shape.K, kWgmmaBlockK, "", "step along K"}},
                      [&] { return tutorial::run_gemm_case(gemm, shape, kMmaBlockM, 0, InputPrecision::bf16); });
        }
    }
    REQUIRE_SWEEP(sweep);
}

TEST_CASE(STEP("d") ": wgmma_specialized_gemm rejects bad sizes and null pointers, naming the argument", CHAPTER_TAG "[extra]") {
    const Step step = specialized_step();
    tutorial::check_gemm_rejects_bad_arguments(tutorial::with_bf16_inputs(step.gemm), step.function);
}
