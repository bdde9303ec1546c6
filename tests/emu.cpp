// The CPU backend's own tests: `make test-emu` (BACKEND=emu only).
//
// For each bug the backend promises to catch there is a kernel with that bug planted
// (tests/emu_planted/), and the test checks the message a student would get: the
// CudaError that CUDA_CHECK_KERNEL throws, naming the kernel, the block, the thread and
// what went wrong. Each planted kernel has a correct twin that must pass under every
// schedule, so the checks cannot cry wolf.
#include "emu_planted/planted.h"

#include "catch.h"
#include "compare.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "expect.h"
#include "gemm/gemm_cases.h"
#include "random.h"

#include <emu/control.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

using tutorial::CudaError;
using tutorial::DeviceBuffer;
using tutorial::check_says;
using tutorial::place_of;

namespace {

// The message of the CudaError that @p run throws; fails the test if it throws none.
std::string error_text(const std::function<void()>& run, cudaError_t expected_code) {
    try {
        run();
    } catch (const CudaError& error) {
        CHECK(error.code() == expected_code);
        return error.what();
    }
    FAIL("no CudaError was thrown");
    return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Sets the schedules for one test and restores the previous ones after it.
class Schedules {
public:
    explicit Schedules(const std::string& list) : saved_(emu::schedules()) { emu::set_schedules(list); }
    ~Schedules() { emu::set_schedules(saved_); }
    Schedules(const Schedules&) = delete;
    Schedules& operator=(const Schedules&) = delete;

private:
    std::string saved_;
};

const char* const kOrderMessage = "result depends on thread order: missing `__syncthreads()` or a shared-memory race";

tutorial::GemmFunction tiled(planted::GemmBarriers barriers) {
    return [barriers](const float* A, const float* B, float* C, int M, int N, int K) {
        planted::tiled_gemm(A, B, C, M, N, K, barriers);
    };
}

// "at PATH:N", as the messages name a site: see tutorial::place_of().
std::string site_of(const std::string& path, const std::string& text) { return "at " + place_of(path, text); }

std::vector<std::uint8_t> box_mean_reference(const std::vector<std::uint8_t>& in, int width, int height) {
    const int r = planted::kBoxRadius, area = (2 * r + 1) * (2 * r + 1);
    std::vector<std::uint8_t> out(in.size());
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            int sum = 0;
            for (int dy = -r; dy <= r; ++dy) {
                for (int dx = -r; dx <= r; ++dx) {
                    const int cx = std::min(std::max(x + dx, 0), width - 1), cy = std::min(std::max(y + dy, 0), height - 1);
                    sum += in[cy * width + cx];
                }
            }
            out[y * width + x] = static_cast<std::uint8_t>((sum + area / 2) / area);
        }
    }
    return out;
}

tutorial::ComparisonReport run_box_mean(int width, int height, planted::Halo halo) {
    const auto input = tutorial::random_bytes(static_cast<std::size_t>(width) * height, tutorial::derive_seed(tutorial::run_seed(), {width, height}));
    DeviceBuffer<std::uint8_t> in(input), out(input.size());
    out.poison();
    planted::box_mean(in.data(), out.data(), width, height, halo);
    tutorial::OutputLayout layout;
    layout.name = "box mean";
    layout.rows = height;
    layout.cols = width;
    layout.seed = tutorial::run_seed();
    return tutorial::compare_exact(out.download(), box_mean_reference(input, width, height), layout);
}

tutorial::ComparisonReport run_moving_average(int size, int window, bool too_small_buffer, bool opt_in = true) {
    const auto input = tutorial::random_floats(size, tutorial::derive_seed(tutorial::run_seed(), {size, window}));
    const int outputs = size - window + 1;
    DeviceBuffer<float> in(input), out(outputs);
    out.poison();
    planted::moving_average(in.data(), out.data(), size, window, too_small_buffer, opt_in);
    tutorial::ExpectedOutput expected;
    for (int i = 0; i < outputs; ++i) {
        double sum = 0.0, magnitude = 0.0;
        for (int k = 0; k < window; ++k) {
            sum += input[i + k];
            magnitude += std::fabs(input[i + k]);
        }
        // The sum's error bound, plus the rounding of the division.
        expected.value.push_back(sum / window);
        expected.tolerance.push_back(tutorial::float_sum_error_factor(window + 1) * magnitude / window);
    }
    tutorial::OutputLayout layout;
    layout.name = "moving average";
    layout.cols = outputs;
    layout.seed = tutorial::run_seed();
    return tutorial::compare_with_tolerance(out.download(), expected, layout);
}

}  // namespace

// ---- Order dependence --------------------------------------------------------------------------
TEST_CASE("a tiled GEMM with both barriers gives the reference result in every thread order", "[emu]") {
    const std::string schedules = GENERATE("forward,reverse", "reverse,random:1,random:2");
    const tutorial::GemmShape shape = GENERATE(tutorial::GemmShape{1, 1, 1}, tutorial::GemmShape{17, 15, 33},
                                               tutorial::GemmShape{40, 33, 70});
    INFO("schedules " << schedules << ", shape " << shape);
    Schedules order(schedules);
    REQUIRE_MATCH(tutorial::run_gemm_case(tiled(planted::GemmBarriers::both), shape, 16));
}

TEST_CASE("a tiled GEMM without its first barrier is reported as depending on thread order", "[emu]") {
    Schedules order("forward,reverse");
    const tutorial::GemmShape shape{20, 24, 40};
    check_says(error_text([&] { tutorial::run_gemm_case(tiled(planted::GemmBarriers::no_first), shape, 16); },
                          cudaErrorLaunchFailure),
               {kOrderMessage, "tiled_gemm_planted<GemmBarriers::no_first>", "forward order and in reverse order",
                " C[", "of block (", "thread ("});
}

TEST_CASE("a tiled GEMM without its second barrier is reported as depending on thread order", "[emu]") {
    // The second barrier only matters from the second phase on: K spans three tiles.
    Schedules order("forward,reverse");
    const tutorial::GemmShape shape{16, 16, 48};
    check_says(error_text([&] { tutorial::run_gemm_case(tiled(planted::GemmBarriers::no_second), shape, 16); },
                          cudaErrorLaunchFailure),
               {kOrderMessage, "tiled_gemm_planted<GemmBarriers::no_second>", " C[", "of block (0,0,0)"});
}

TEST_CASE("schedules are deterministic and selectable: forward, reverse and seeded random", "[emu]") {
    const unsigned threads = 64;
    DeviceBuffer<unsigned> out(threads);
    auto last_writer = [&](const std::string& schedule) {
        Schedules order(schedule);
        planted::last_writer_wins(out.data(), threads);
        return out.download();
    };
    // Thread 0 runs first in forward order, so the last one writes last; and the reverse.
    CHECK(last_writer("forward") == std::vector<unsigned>(threads, threads - 1));
    CHECK(last_writer("reverse") == std::vector<unsigned>(threads, 0));
    const auto seven = last_writer("random:7");
    CHECK(last_writer("random:7") == seven);
    std::set<unsigned> winners;
    for (int seed = 1; seed <= 8; ++seed) winners.insert(last_writer("random:" + std::to_string(seed))[0]);
    CHECK(winners.size() > 1);
    // Under two schedules the race is reported.
    Schedules both("forward,reverse");
    check_says(error_text([&] { planted::last_writer_wins(out.data(), threads); }, cudaErrorLaunchFailure),
               {kOrderMessage, "out[0] is 63 after the forward order and 0 after the reverse order"});
}

// ---- Out-of-bounds accesses ------------------------------------------------------------------
TEST_CASE("a naive GEMM without its bounds check is stopped at its first access outside a matrix", "[emu]") {
    Schedules order("forward,reverse");  // which thread gets there first depends on the order
    const tutorial::GemmShape shape{17, 17, 17};
    auto gemm = [](bool check) {
        return [check](const float* A, const float* B, float* C, int M, int N, int K) { planted::naive_gemm(A, B, C, M, N, K, check); };
    };
    REQUIRE_MATCH(tutorial::run_gemm_case(gemm(true), shape, 16));
    // Block (1,0,0) covers columns 16..31; its thread (1,0,0), column 17, reads B(16, 17).
    // The access's own line, not the launch's.
    check_says(error_text([&] { tutorial::run_gemm_case(gemm(false), shape, 16); }, cudaErrorIllegalAddress),
               {"out-of-bounds global memory access in naive_gemm_planted<false>", "block (1,0,0), thread (1,0,0)",
                "B[289] is past the end of B, a cudaMalloc buffer of 1156 bytes (289 floats)", "byte offset 1156",
                "block (1,0,0), thread (1,0,0):\n    " +
                    site_of("tests/emu_planted/gemm.cu", "sum += A[row * K + k] * B[k * N + col]") + "\n"});
}

TEST_CASE("a read before the start of a buffer names the buffer and the negative offset", "[emu]") {
    DeviceBuffer<float> in(100), out(100);
    check_says(error_text([&] { planted::read_before_start(in.data(), out.data(), 100); }, cudaErrorIllegalAddress),
               {"block (0,0,0), thread (0,0,0)",
                "in[-1] is before the start of in, a cudaMalloc buffer of 400 bytes (100 floats)",
                site_of("tests/emu_planted/stencils.cu", "out[i] = in[i - 1];"), "byte offset -4"});
}

TEST_CASE("a box mean whose halo is right matches the reference", "[emu]") {
    const int width = GENERATE(1, 2, 17, 33), height = GENERATE(1, 5, 40);
    INFO("width " << width << ", height " << height);
    REQUIRE_MATCH(run_box_mean(width, height, planted::Halo::right));
}

TEST_CASE("a box mean that loads its halo one element too far is stopped at the shared tile's end", "[emu]") {
    check_says(
        error_text([&] { run_box_mean(40, 40, planted::Halo::loop_one_too_far); }, cudaErrorIllegalAddress),
        {"out-of-bounds shared memory access in box_mean_planted<Halo::loop_one_too_far>", "block (0,0,0), thread (",
         "tile[20]: index 20 is outside __shared__ unsigned char tile[20][20] (declared at "
         "tests/emu_planted/stencils.cu:",
         site_of("tests/emu_planted/stencils.cu", "tile[i / kTileSide][i % kTileSide] = in[y * width + x];")});
}

TEST_CASE("a box mean that clamps its halo one pixel too far reads past the end of the image", "[emu]") {
    check_says(error_text([&] { run_box_mean(40, 40, planted::Halo::clamp_one_too_far); }, cudaErrorIllegalAddress),
               {"out-of-bounds global memory access in box_mean_planted<Halo::clamp_one_too_far>",
                "in[1600] is past the end of in, a cudaMalloc buffer of 1600 bytes",
                site_of("tests/emu_planted/stencils.cu", "tile[i / kTileSide][i % kTileSide] = in[y * width + x];")});
}

TEST_CASE("a moving average with room for its halo in dynamic shared memory matches the reference", "[emu]") {
    const int size = GENERATE(1, 300, 1000), window = GENERATE(1, 17, 255);
    if (window > size) return;
    INFO("size " << size << ", window " << window);
    REQUIRE_MATCH(run_moving_average(size, window, false));
}

TEST_CASE("a moving average needing more than 48 KiB of dynamic shared memory works after opting in", "[emu]") {
    // 256 + 12500 - 1 floats: 51020 bytes.
    REQUIRE_MATCH(run_moving_average(12800, 12500, false));
    check_says(error_text([&] { run_moving_average(12800, 12500, false, false); }, cudaErrorInvalidValue),
               {"the launch of moving_average_planted",
                "51020 bytes of dynamic shared memory per block, more than the kernel's limit of 49152 bytes",
                "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)"});
}

TEST_CASE("a moving average whose dynamic shared buffer has no room for the halo is stopped at its end", "[emu]") {
    Schedules order("forward,reverse");  // which thread gets there first depends on the order
    check_says(error_text([&] { run_moving_average(1000, 17, true); }, cudaErrorIllegalAddress),
               {"out-of-bounds shared memory access in moving_average_planted", "block (0,0,0), thread (",
                "cache[256] is outside the dynamic shared memory `extern __shared__ float cache[]`: the launch gave "
                "1024 bytes",
                site_of("tests/emu_planted/stencils.cu", "cache[i] = in[first + i];")});
}

// ---- Divergent barriers ----------------------------------------------------------------------------
TEST_CASE("a barrier inside if (threadIdx.x < 16) is a divergent barrier, with its file and line", "[emu]") {
    DeviceBuffer<float> out(64);
    check_says(
        error_text([&] { planted::barrier_in_branch(out.data()); }, cudaErrorLaunchFailure),
        {"divergent __syncthreads() in barrier_in_branch_planted", "block (0,0,0)",
         "16 threads wait " + site_of("tests/emu_planted/barriers.cu", "if (threadIdx.x < 16) __syncthreads();") +
             " (the first is thread (0,0,0))",
         "48 threads have finished the kernel (the first is thread (16,0,0))"});
}

TEST_CASE("threads waiting at two different barriers are a divergent barrier naming both sites", "[emu]") {
    DeviceBuffer<float> out(64);
    check_says(
        error_text([&] { planted::barriers_by_parity(out.data()); }, cudaErrorLaunchFailure),
        {"32 threads wait " + site_of("tests/emu_planted/barriers.cu", "__syncthreads();  // the even threads'") +
             " (the first is thread (0,0,0))",
         "32 threads wait " + site_of("tests/emu_planted/barriers.cu", "__syncthreads();  // the odd threads'") +
             " (the first is thread (1,0,0))"});
}

TEST_CASE("a return before a barrier is a divergent barrier", "[emu]") {
    DeviceBuffer<float> out(64);
    SECTION("when some threads return") {
        check_says(error_text([&] { planted::return_before_barrier(out.data(), 40); }, cudaErrorLaunchFailure),
                   {"40 threads wait at tests/emu_planted/barriers.cu:",
                    "24 threads have finished the kernel (the first is thread (40,0,0))"});
    }
    SECTION("but not when none does") {
        REQUIRE_NOTHROW(planted::return_before_barrier(out.data(), 64));
        const auto got = out.download();
        CHECK(got[0] == 1.0f);
        CHECK(got[63] == 0.0f);
    }
}

// ---- Warps -------------------------------------------------------------------------------------
namespace {

// @p count whole numbers from [@p lo, @p hi], seeded.
std::vector<int> random_ints(std::size_t count, int lo, int hi, std::uint64_t seed) {
    std::vector<int> values;
    for (float f : tutorial::random_floats(count, seed, static_cast<float>(lo), static_cast<float>(hi) + 1.0f)) {
        values.push_back(std::min(hi, static_cast<int>(std::floor(f))));
    }
    return values;
}

// What lane @p lane gets from each shuffle, as CUDA defines them: the source lane, or the
// lane itself when the source lies outside its group of @p width lanes.
int shuffle_source(int mode, int lane, int delta, int width) {
    const int first = lane / width * width, last = first + width - 1;
    switch (mode) {
        case 0: return first + delta % width;
        case 1: return lane - delta >= first ? lane - delta : lane;
        case 2: return lane + delta <= last ? lane + delta : lane;
        default: return (lane ^ delta) <= last ? lane ^ delta : lane;
    }
}

}  // namespace

TEST_CASE("warp shuffles, votes and __activemask give CUDA's results", "[emu]") {
    const int block = 64, n = 3 * block;
    const int delta = GENERATE(1, 5, 16), width = GENERATE(32, 16, 8);
    INFO("delta " << delta << ", width " << width);
    const auto input = random_ints(n, -1000, 1000, tutorial::derive_seed(tutorial::run_seed(), {delta, width}));
    DeviceBuffer<int> in(input), out(n * planted::kWarpResults);
    out.poison();
    Schedules order("forward,reverse,random:3");
    planted::warp_primitives(in.data(), out.data(), n, block, delta, width);
    const auto got = out.download();
    unsigned wrong = 0;
    for (int i = 0; i < n; ++i) {
        const int lane = i % 32, warp_first = i - lane;
        unsigned ballot = 0;
        bool any = false, all = true;
        for (int l = 0; l < 32; ++l) {
            const int v = input[warp_first + l];
            ballot |= (v % 3 == 0 ? 1u : 0u) << l;
            any = any || v % 7 == 0;
            all = all && v % 2 == 0;
        }
        const int* mine = got.data() + planted::kWarpResults * i;
        for (int mode = 0; mode < 4; ++mode) {
            const int expected = input[warp_first + shuffle_source(mode, lane, delta, width)];
            if (mine[mode] != expected) {
                if (++wrong <= 5) UNSCOPED_INFO("thread " << i << ", shuffle " << mode << ": " << mine[mode] << ", expected " << expected);
            }
        }
        wrong += static_cast<unsigned>(mine[4]) != ballot;
        wrong += (mine[5] != 0) != any;
        wrong += (mine[6] != 0) != all;
        wrong += static_cast<unsigned>(mine[7]) != 0xffffffffu;
    }
    CHECK(wrong == 0);
    // Fixed points of the definitions: the first lane of a group keeps its value in an
    // up-shuffle, the last in a down-shuffle.
    CHECK(got[planted::kWarpResults * 0 + 1] == input[0]);
    CHECK(got[planted::kWarpResults * (width - 1) + 2] == input[width - 1]);
}

TEST_CASE("a block sum with __shfl_down_sync is right for full and partial warps, 8-byte values included", "[emu]") {
    const int block = GENERATE(1, 31, 32, 33, 48, 64, 97, 1024), blocks = 3;
    INFO("block " << block);
    Schedules order("forward,reverse,random:1");
    const auto input = random_ints(block * blocks, -1000000, 1000000, tutorial::derive_seed(tutorial::run_seed(), {block}));
    std::vector<double> values(input.begin(), input.end());
    DeviceBuffer<double> in(values), out(blocks);
    out.poison();
    planted::block_sums(in.data(), out.data(), blocks, block);
    const auto got = out.download();
    for (int b = 0; b < blocks; ++b) {
        double expected = 0.0;  // integers far below 2^53: every order of adding them is exact
        for (int t = 0; t < block; ++t) expected += values[b * block + t];
        CHECK(got[b] == expected);
    }
}

TEST_CASE("a warp-synchronous reduction with __syncwarp passes under every schedule", "[emu]") {
    const std::string schedules = GENERATE("forward,reverse", "reverse,random:1,random:2");
    INFO("schedules " << schedules);
    Schedules order(schedules);
    const auto input = random_ints(64, -100, 100, tutorial::derive_seed(tutorial::run_seed(), {64}));
    std::vector<float> values(input.begin(), input.end());
    DeviceBuffer<float> in(values), out(1);
    out.poison();
    planted::warp_tree_sum(in.data(), out.data(), true);
    float expected = 0.0f;  // small integers: exact in any order
    for (float v : values) expected += v;
    CHECK(out.download()[0] == expected);
}

TEST_CASE("a warp-synchronous reduction relying on lockstep without __syncwarp is reported as depending on thread order", "[emu]") {
    Schedules order("forward,reverse");
    const auto input = random_ints(64, 1, 100, tutorial::derive_seed(tutorial::run_seed(), {64}));
    std::vector<float> values(input.begin(), input.end());
    DeviceBuffer<float> in(values), out(1);
    check_says(error_text([&] { planted::warp_tree_sum(in.data(), out.data(), false); }, cudaErrorLaunchFailure),
               {kOrderMessage, "warp_tree_sum_planted<false>", "out[0] is "});
}

TEST_CASE("a misused warp primitive is reported with the lanes it waits for, at its file and line", "[emu]") {
    struct Case {
        planted::WarpMisuse misuse;
        int threads;
        std::vector<std::string> says;  // what the message must say
    };
    const std::string warps = "tests/emu_planted/warps.cu";
    const Case cases[] = {
        // A shuffle whose mask names lanes that have returned.
        {planted::WarpMisuse::shuffle_after_exit, 32,
         {"__shfl_down_sync() whose mask names lanes that have exited in shuffle_after_exit_planted",
          "block (0,0,0), warp 0 (threads (0,0,0) to (31,0,0))",
          "lanes 0-15 wait at __shfl_down_sync() " + site_of(warps, "v += __shfl_down_sync(0xffffffff, v, 1);") +
              " with mask 0xffffffff",
          "lanes 16-31 have finished the kernel"}},
        // A shuffle with the full mask inside a branch half the warp skips: the lanes that do
        // not reach it are named, and where they wait.
        {planted::WarpMisuse::shuffle_in_branch, 64,
         {"__shfl_sync() whose mask names lanes that do not reach the call in shuffle_in_branch_planted",
          "lanes 0-15 wait at __shfl_sync() " + site_of(warps, "v = __shfl_sync(0xffffffff, v, 0);"),
          "lanes 16-31 wait at __syncthreads() " + site_of(warps, "__syncthreads();  // where lanes 16-31 wait") +
              " (the first is thread (16,0,0))"}},
        // Lanes of one warp at different __syncwarp() calls: both sites.
        {planted::WarpMisuse::syncwarp_by_parity, 32,
         {"lanes of one warp wait at different warp primitives in syncwarp_by_parity_planted",
          "lanes 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30 wait at __syncwarp() " +
              site_of(warps, "__syncwarp();  // the even lanes'"),
          "wait at __syncwarp() " + site_of(warps, "__syncwarp();  // the odd lanes'") + " (the first is thread (1,0,0))"}},
        // A full mask in the partial last warp of a block names lanes that do not exist.
        {planted::WarpMisuse::full_mask_in_partial_warp, 48,
         {"__shfl_xor_sync() whose mask names lanes that do not exist", "warp 1 (threads (32,0,0) to (47,0,0))",
          site_of(warps, "out[threadIdx.x] = __shfl_xor_sync(0xffffffff, static_cast<int>(threadIdx.x), 1);"),
          "lanes 16-31 do not exist: the block has 48 threads, so warp 1 has 16 lanes"}},
        // A lane calling a warp primitive with a mask that leaves it out, reported at the call.
        {planted::WarpMisuse::mask_without_caller, 32,
         {"bad __shfl_sync() in mask_without_caller_planted", "(lane 16 of warp 0), " + site_of(warps, "__shfl_sync(0x0000ffff"),
          "its mask 0xffff does not name lane 16"}},
    };
    for (const Case& c : cases) {
        DeviceBuffer<int> out(c.threads);
        check_says(error_text([&] { planted::warp_misuse(c.misuse, out.data()); }, cudaErrorLaunchFailure), c.says);
    }
}

// ---- The time limit ------------------------------------------------------------------------------
namespace {

// Sets the time limit for one test and restores the previous one after it.
class TimeLimit {
public:
    explicit TimeLimit(double seconds) : saved_(emu::time_limit()) { emu::set_time_limit(seconds); }
    ~TimeLimit() { emu::set_time_limit(saved_); }
    TimeLimit(const TimeLimit&) = delete;
    TimeLimit& operator=(const TimeLimit&) = delete;

private:
    double saved_;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("a kernel in an endless loop that reads memory is stopped at the time limit; the next launch runs", "[emu]") {
    TimeLimit limit(2);
    DeviceBuffer<float> in(16), out(128);
    const auto start = std::chrono::steady_clock::now();
    const std::string text = error_text([&] { planted::endless_sum(in.data(), out.data(), 16, 2, 64); }, cudaErrorLaunchTimeout);
    const double seconds = seconds_since(start);
    INFO(text);
    CHECK(seconds >= 2.0);
    CHECK(seconds < 4.0);
    CHECK(contains(text, "time limit: endless_sum_planted (launched at tests/emu_planted/endless.cu:"));
    CHECK(contains(text, "was still running after 2 s, so the CPU backend stopped it"));
    CHECK(contains(text, "In block (0,0,0), 64 of its 64 threads had not finished:"));
    CHECK(contains(text, "thread (0,0,0) was " + site_of("tests/emu_planted/endless.cu", "for (int k = 0; k < n; k += 0) sum += in[k];")));
    CHECK(contains(text, "1 other block of the grid's 2 had not finished."));
    CHECK(contains(text, "`k += 0`"));
    DeviceBuffer<unsigned> ids(64);
    CHECK(planted::launch_index_kernel(ids.data(), 1, 64, 0) == cudaSuccess);
}

TEST_CASE("a kernel looping around a barrier is stopped at the time limit, at the barrier's line", "[emu]") {
    TimeLimit limit(1);
    DeviceBuffer<float> out(64);
    const std::string text = error_text([&] { planted::endless_barrier(out.data(), 1); }, cudaErrorLaunchTimeout);
    INFO(text);
    const std::string site = place_of("tests/emu_planted/endless.cu", "__syncthreads();");
    CHECK(contains(text, "time limit: endless_barrier_planted"));
    CHECK(contains(text, "64 of its 64 threads had not finished"));
    // The others wait at the barrier or for their turn, depending on when the time ran out.
    CHECK(contains(text, " was at " + site));
}

// Run by the next test in a process of its own: the kernel cannot be stopped, so the
// program ends.
TEST_CASE("an endless loop without memory accesses (run by the test below)", "[.][endless-without-access]") {
    DeviceBuffer<int> out(32);
    planted::endless_without_access(out.data(), 1);
}

TEST_CASE("a kernel looping without any checked access ends the program with a message naming it", "[emu]") {
    const std::string log = "build/emu/endless-without-access.log";
    char self[4096] = {};
    REQUIRE(readlink("/proc/self/exe", self, sizeof self - 1) > 0);
    const std::string command = "EMU_TIMEOUT=1 '" + std::string(self) + "' '[endless-without-access]' >" + log + " 2>&1";
    const auto start = std::chrono::steady_clock::now();
    const int status = std::system(command.c_str());
    const double seconds = seconds_since(start);
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(text);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 124);
    CHECK(seconds < 10.0);  // 1 s of limit, 1 s of grace, and starting a process on a busy machine
    CHECK(contains(text, "CPU backend: endless_without_access_planted (launched at tests/emu_planted/endless.cu:"));
    CHECK(contains(text, "is still running 1 s after its time limit of 1 s"));
    CHECK(contains(text, "of block (0,0,0)"));
    CHECK(contains(text, "TIMEOUT=seconds sets the time limit"));
    CHECK_FALSE(contains(text, "EMU_TIMEOUT=seconds"));  // make takes TIMEOUT, and so does the program
}

TEST_CASE("rows of a __shared__ array bind to references and decay to pointers, as in CUDA", "[emu]") {
    const auto input = random_ints(32, -50, 50, tutorial::derive_seed(tutorial::run_seed(), {32}));
    const std::vector<float> values(input.begin(), input.end());
    DeviceBuffer<float> in(values), out(4);
    out.poison();
    planted::shared_rows(in.data(), out.data());
    const auto got = out.download();
    for (int r = 0; r < 4; ++r) {
        float expected = 0.0f;  // small integers: exact
        for (int c = 0; c < 8; ++c) expected += values[r * 8 + c];
        CHECK(got[r] == expected);
    }
}

TEST_CASE("an access through a row bound to a reference is checked, and names no line it cannot know", "[emu]") {
    DeviceBuffer<float> in(32), out(4);
    check_says(error_text([&] { planted::shared_rows(in.data(), out.data(), true); }, cudaErrorIllegalAddress),
               {"out-of-bounds shared memory access in shared_rows_kernel",
                "tile[0][8]: index 8 is outside __shared__ float tile[4][8]"},
               {"\n    at tests/emu_planted/rows.cu:"});
}

// ---- Compile errors ------------------------------------------------------------------------------
TEST_CASE("compile errors after the translator's rewrites name the .cu file's line and column", "[emu]") {
    // Each error comes after a rewrite on its line: a shared array and a pointer
    // parameter indexed, a launch.
    const std::vector<std::string> lines = {
        "__global__ void broken(float* out, int n) {",
        "    __shared__ float tile[32];",
        "    tile[threadIdx.x] = out[threadIdx.x];",
        "    __syncthreads();",
        "    if (threadIdx.x < n) out[threadIdx.x] = tile[threadIdx.x] + not_declared;",
        "}",
        "void run(float* out) { broken<<<1, 32>>>(out, 32); int x = also_not_declared; }",
    };
    const std::string dir = "build/emu/compile-error", source = dir + "/broken.cu";
    REQUIRE(std::system(("mkdir -p " + dir).c_str()) == 0);
    {
        std::ofstream out(source);
        for (const std::string& line : lines) out << line << "\n";
    }
    const std::string command = "build/emu/tools/cu2cpp " + source + " " + dir + "/broken.cu.cpp && ${CXX:-g++} -std=c++17 "
                                "-fsyntax-only -Iemu/include " + dir + "/broken.cu.cpp >" + dir + "/log 2>&1";
    CHECK(std::system(command.c_str()) != 0);
    std::ifstream in(dir + "/log");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(text);
    const auto column = [&](int line, const std::string& word) { return std::to_string(lines[line - 1].find(word) + 1); };
    CHECK(contains(text, source + ":5:" + column(5, "not_declared") + ": error:"));
    CHECK(contains(text, source + ":7:" + column(7, "also_not_declared") + ": error:"));
}

// ---- Launch checks, shared memory, built-ins ----------------------------------------------------
TEST_CASE("launch configurations a GPU rejects are rejected, through cudaGetLastError", "[emu]") {
    DeviceBuffer<unsigned> out(4096);
    CHECK(planted::launch_index_kernel(out.data(), 1, 1025, 0) == cudaErrorInvalidConfiguration);
    CHECK(std::string(cudaGetErrorString(cudaErrorInvalidConfiguration)).find("a block of 1025 x 1 x 1 threads") != std::string::npos);
    CHECK(planted::launch_index_kernel(out.data(), 1, dim3(32, 32, 2), 0) == cudaErrorInvalidConfiguration);
    CHECK(planted::launch_index_kernel(out.data(), 1, dim3(1, 1, 65), 0) == cudaErrorInvalidConfiguration);
    CHECK(planted::launch_index_kernel(out.data(), dim3(1, 65536), 1, 0) == cudaErrorInvalidConfiguration);
    CHECK(planted::launch_index_kernel(out.data(), dim3(0), 1, 0) == cudaErrorInvalidConfiguration);
    CHECK(cudaGetLastError() == cudaSuccess);  // a launch error is reported once
    REQUIRE(planted::launch_index_kernel(out.data(), 4, 1024, 0) == cudaSuccess);
    const auto got = out.download();
    for (unsigned i = 0; i < 4096; ++i) REQUIRE(got[i] == i);
}

TEST_CASE("more than 48 KiB of shared memory needs an opt-in, up to 227 KiB", "[emu]") {
    DeviceBuffer<unsigned> out(32);
    const void* kernel = planted::index_kernel();
    CHECK(planted::launch_index_kernel(out.data(), 1, 32, 49152) == cudaSuccess);
    CHECK(planted::launch_index_kernel(out.data(), 1, 32, 49153) == cudaErrorInvalidValue);
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000) == cudaSuccess);
    CHECK(planted::launch_index_kernel(out.data(), 1, 32, 100000) == cudaSuccess);
    CHECK(planted::launch_index_kernel(out.data(), 1, 32, 100001) == cudaErrorInvalidValue);
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 232449) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 49152) == cudaSuccess);
    CHECK(planted::launch_index_kernel(out.data(), 1, 32, 49153) == cudaErrorInvalidValue);
    CHECK(planted::launch_too_much_static_shared() == cudaErrorInvalidValue);
    CHECK(std::string(cudaGetErrorString(cudaErrorInvalidValue)).find("65536 bytes of __shared__ variables") != std::string::npos);
}

TEST_CASE("the device properties state the CPU backend's limits", "[emu]") {
    cudaDeviceProp prop;
    REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
    CHECK(std::string(prop.name) == "CPU backend (emu)");
    CHECK(prop.maxThreadsPerBlock == 1024);
    CHECK(prop.sharedMemPerBlock == 49152);
    CHECK(prop.sharedMemPerBlockOptin == 232448);
    CHECK(prop.maxGridSize[1] == 65535);
    int value = 0;
    REQUIRE(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
    CHECK(value == 232448);
    CHECK(cudaGetDeviceProperties(&prop, 1) == cudaErrorInvalidDevice);
    cudaGetLastError();
}

TEST_CASE("shared memory starts poisoned in every block: NaN floats, 255 bytes", "[emu]") {
    DeviceBuffer<float> f(1);
    DeviceBuffer<unsigned char> b(1);
    f.poison(0);
    b.poison(0);
    planted::read_unwritten_shared(f.data(), b.data());
    CHECK(std::isnan(f.download()[0]));
    CHECK(b.download()[0] == 255);
}

TEST_CASE("threadIdx, blockIdx, blockDim and gridDim are each thread's own", "[emu]") {
    const dim3 grid(3, 2, 2), block(4, 3, 2);
    const unsigned threads = grid.x * grid.y * grid.z * block.x * block.y * block.z;
    DeviceBuffer<unsigned> out(12 * threads);
    planted::copy_builtins(out.data(), grid, block);
    const auto got = out.download();
    unsigned wrong = 0, t = 0;
    for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
            for (unsigned bx = 0; bx < grid.x; ++bx)
                for (unsigned tz = 0; tz < block.z; ++tz)
                    for (unsigned ty = 0; ty < block.y; ++ty)
                        for (unsigned tx = 0; tx < block.x; ++tx, ++t) {
                            const std::vector<unsigned> expected{tx, ty, tz, bx, by, bz, 4, 3, 2, 3, 2, 2};
                            wrong += !std::equal(expected.begin(), expected.end(), got.begin() + 12 * t);
                        }
    CHECK(wrong == 0);
}

TEST_CASE("blocks run in parallel on the machine's cores", "[emu]") {
    if (emu::worker_threads() < 2) {
        WARN("one worker thread on this machine: nothing to run in parallel");
        return;
    }
    DeviceBuffer<unsigned long long> workers(32);
    planted::note_workers(workers.data(), 32);
    const auto got = workers.download();
    CHECK(std::set<unsigned long long>(got.begin(), got.end()).size() >= 2);
}

TEST_CASE("atomics are atomic across blocks running in parallel", "[emu]") {
    DeviceBuffer<int> counter(1);
    DeviceBuffer<float> sum(1);
    counter.poison(0);
    sum.poison(0);
    planted::count_atomically(counter.data(), sum.data(), 64);
    CHECK(counter.download()[0] == 64 * 256);
    CHECK(sum.download()[0] == 64.0f * 256.0f);
}

TEST_CASE("an error of a kernel's execution is reported once; the next launches run", "[emu]") {
    DeviceBuffer<float> in(100), out(100);
    CHECK_THROWS_AS(planted::read_before_start(in.data(), out.data(), 100), CudaError);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(cudaGetLastError() == cudaSuccess);
    DeviceBuffer<unsigned> ids(64);
    CHECK(planted::launch_index_kernel(ids.data(), 1, 64, 0) == cudaSuccess);
}

TEST_CASE("copies are checked against the buffer they touch", "[emu]") {
    DeviceBuffer<float> buffer(10);
    std::vector<float> host(20, 1.0f);
    CHECK(cudaMemcpy(buffer.data(), host.data(), 80, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(std::string(cudaGetErrorString(cudaErrorInvalidValue)).find("runs 40 bytes past its end") != std::string::npos);
    CHECK(cudaMemcpy(host.data(), host.data() + 10, 40, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
    CHECK(cudaMemcpy(buffer.data(), host.data(), 40, cudaMemcpyHostToDevice) == cudaSuccess);
    cudaGetLastError();
}

TEST_CASE("events time the emulator, and say that this is not a GPU's time", "[emu]") {
    cudaEvent_t start, stop;
    REQUIRE(cudaEventCreate(&start) == cudaSuccess);
    REQUIRE(cudaEventCreate(&stop) == cudaSuccess);
    REQUIRE(cudaEventRecord(start) == cudaSuccess);
    REQUIRE(cudaEventRecord(stop) == cudaSuccess);
    REQUIRE(cudaEventSynchronize(stop) == cudaSuccess);
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess);
    CHECK(ms >= 0.0f);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
}

TEST_CASE("two threads writing one output element are named as such, not blamed on a missing barrier", "[emu]") {
    Schedules both("forward,reverse");
    const auto ints = random_ints(64, -100, 100, tutorial::derive_seed(tutorial::run_seed(), {64}));
    std::vector<float> values(ints.begin(), ints.end());
    values[1] = values[0] + 1.0f;  // the two writers of out[0] write different values
    DeviceBuffer<float> in(values), out(64);
    out.poison();
    planted::staged_copy(in.data(), out.data(), false);  // one writer per element: no report
    CHECK(out.download() == values);
    check_says(error_text([&] { planted::staged_copy(in.data(), out.data(), true); }, cudaErrorLaunchFailure),
               {"result depends on thread order: two threads access the same element",
                "thread (0,0,0) of block (0,0,0) and thread (1,0,0) of block (0,0,0) both access it",
                "two threads compute one output element"},
               {kOrderMessage});
}

// ---- Casts to vector types ----------------------------------------------------------------------
namespace {
// Sums of the quads of @p values, in the order the planted kernels add them.
std::vector<float> quad_sums_of(const std::vector<float>& values, int quads, int stride) {
    std::vector<float> sums;
    for (int i = 0; i < quads; ++i) {
        const float* q = &values[static_cast<std::size_t>(stride * i)];
        sums.push_back(q[0] + q[1] + q[2] + q[3]);
    }
    return sums;
}
}  // namespace

TEST_CASE("float4 reads through casts inside their buffer and aligned give the sums, global and shared", "[emu]") {
    const auto ints = random_ints(40, -100, 100, tutorial::derive_seed(tutorial::run_seed(), {40}));
    const std::vector<float> values(ints.begin(), ints.end());  // small integers: sums exact
    DeviceBuffer<float> in(values), out(32);
    for (const bool moved : {false, true}) {
        out.poison();
        planted::quad_sums(in.data(), out.data(), 10, 0, moved);
        const auto got = out.download();
        const auto expected = quad_sums_of(values, 10, 4);
        CHECK(std::vector<float>(got.begin(), got.begin() + 10) == expected);
    }
    out.poison();
    planted::shared_quads(in.data(), out.data(), 0);
    const auto got = out.download();
    for (int t = 0; t < 32; ++t) {
        const float* q = &values[static_cast<std::size_t>(4 * (t % 8))];
        CHECK(got[t] == q[0] + q[1] + q[2] + q[3]);
    }
}

TEST_CASE("a float4 read through a cast past the end of a buffer names the buffer, the offset and the cast's line", "[emu]") {
    const std::string casts = "tests/emu_planted/casts.cu";
    DeviceBuffer<float> in(10), out(3);
    check_says(
        error_text([&] { planted::quad_sums(in.data(), out.data(), 3, 0); }, cudaErrorIllegalAddress),
        {"out-of-bounds global memory access in quad_sums_kernel", "block (0,0,0), thread (2,0,0)",
         "through the pointer cast " + site_of(casts, "*reinterpret_cast<const float4*>(&in[4 * i + shift])"),
         "a 16-byte float4 access at byte offset 32 of in, a cudaMalloc buffer of 40 bytes runs 8 bytes past its end"});
    // Through arithmetic on a cast pointer kept in a variable: the same check, the cast's line.
    check_says(error_text([&] { planted::quad_sums(in.data(), out.data(), 3, 0, true); }, cudaErrorIllegalAddress),
               {"through the pointer cast " + site_of(casts, "const auto first = reinterpret_cast"),
                "byte offset 32 of in, a cudaMalloc buffer of 40 bytes runs 8 bytes past its end"});
    // Shared memory: a quad that starts inside the __shared__ array and runs past its end.
    DeviceBuffer<float> staged(32), sums(32);
    check_says(error_text([&] { planted::shared_quads(staged.data(), sums.data(), 8); }, cudaErrorIllegalAddress),
               {"out-of-bounds shared memory access in shared_quads_kernel", "thread (7,0,0)",
                "byte offset 144 of the block's __shared__ tile (152 bytes) runs 8 bytes past its end"});
}

TEST_CASE("a misaligned float4 access through a cast is reported with the buffer, the offset and the line", "[emu]") {
    DeviceBuffer<float> in(40), out(32);
    check_says(error_text([&] { planted::quad_sums(in.data(), out.data(), 2, 1); }, cudaErrorMisalignedAddress),
               {"misaligned global memory access in quad_sums_kernel", "block (0,0,0), thread (0,0,0)",
                "through the pointer cast " +
                    site_of("tests/emu_planted/casts.cu", "*reinterpret_cast<const float4*>(&in[4 * i + shift])"),
                "a 16-byte float4 access at byte offset 4 of in, a cudaMalloc buffer of 160 bytes is at an "
                "address that is not a multiple of 16"});
    check_says(
        error_text([&] { planted::shared_quads(in.data(), out.data(), 2); }, cudaErrorMisalignedAddress),
        {"misaligned shared memory access in shared_quads_kernel",
         "byte offset 8 of the block's __shared__ tile (152 bytes) is at an address that is not a multiple of 16"});
}

TEST_CASE("bytes past the end of every cudaMalloc buffer are poison: NaN floats, to a read the checks cannot see", "[emu]") {
    for (const int floats : {8, 64}) {  // the end inside cudaMalloc's 256-byte rounding, and at it
        DeviceBuffer<float> in(std::vector<float>(static_cast<std::size_t>(floats), 1.0f)), out(1);
        planted::raw_quad(in.data(), out.data(), floats / 4);  // the quad just past the end
        CHECK(std::isnan(out.download()[0]));
    }
}

TEST_CASE("a crash inside a kernel names the kernel, the thread, the access and the line; the next launches run", "[emu]") {
    DeviceBuffer<float> in(16), out(4);
    check_says(error_text([&] { planted::raw_quad(in.data(), out.data(), 1LL << 40); }, cudaErrorIllegalAddress),
               {"crash in raw_quad_kernel", "block (0,0,0), thread (0,0,0)",
                site_of("tests/emu_planted/casts.cu", "const float4 q = raw[offset];"),
                "a segmentation fault at address", "a pointer the checks did not reach"});
    CHECK(cudaGetLastError() == cudaSuccess);
    const auto ints = random_ints(16, -100, 100, tutorial::derive_seed(tutorial::run_seed(), {16}));
    const std::vector<float> values(ints.begin(), ints.end());
    in.upload(values);
    planted::quad_sums(in.data(), out.data(), 4, 0);
    CHECK(out.download() == quad_sums_of(values, 4, 4));
}

TEST_CASE("crashing kernel (run by the test below)", "[.][crash-then-more]") {
    DeviceBuffer<float> in(16), out(4);
    planted::raw_quad(in.data(), out.data(), 1LL << 40);
}

TEST_CASE("passing kernel after the crash (run by the test below)", "[.][crash-then-more]") {
    DeviceBuffer<float> in(std::vector<float>(16, 2.0f)), out(4);
    planted::quad_sums(in.data(), out.data(), 4, 0);
    CHECK(out.download() == std::vector<float>(4, 8.0f));
}

TEST_CASE("a crash in one test case fails that one, with the backend's report, and the next test cases run", "[emu]") {
    // Catch2 installs its own signal handlers for each test case; the backend's must win
    // inside kernels, and the run go on.
    const std::string log = "build/emu/crash-then-more.log";
    char self[4096] = {};
    REQUIRE(readlink("/proc/self/exe", self, sizeof self - 1) > 0);
    const std::string command = "'" + std::string(self) + "' '[crash-then-more]' >" + log + " 2>&1";
    const int status = std::system(command.c_str());
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(text);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(contains(text, "crash in raw_quad_kernel"));
    CHECK(contains(text, site_of("tests/emu_planted/casts.cu", "const float4 q = raw[offset];")));
    CHECK(contains(text, "test cases: 2 | 1 passed | 1 failed"));
    CHECK_FALSE(contains(text, "SIGSEGV"));
}

// ---- Asynchronous copies ---------------------------------------------------------------------
namespace {

const std::string kPipelines = "tests/emu_planted/async_pipelines.cu";
const std::string kTma = "tests/emu_planted/async_tma.cu";

tutorial::GemmFunction pipelined(planted::PipelineApi api, int stages, planted::PipelineBug bug) {
    return [=](const float* A, const float* B, float* C, int M, int N, int K) {
        planted::pipelined_gemm(A, B, C, M, N, K, api, stages, bug);
    };
}

// The message of a pipelined GEMM with @p bug, on a shape of 5 tiles of K.
std::string pipeline_error(planted::PipelineApi api, int stages, planted::PipelineBug bug, cudaError_t code) {
    Schedules order("forward,reverse");
    return error_text([&] { tutorial::run_gemm_case(pipelined(api, stages, bug), {20, 24, 70}, 16); }, code);
}

// A tensor map of a rows × cols matrix of seeded random floats (rows pitch floats apart,
// the padding poisoned), and the boxes tma_tiles() copies from it, checked exactly:
// elements inside the matrix are its values, those outside are zeros (or NaN).
void check_tma_tiles(int rows, int cols, bool nan_fill) {
    const int pitch = (cols + 3) / 4 * 4;
    std::vector<float> matrix(static_cast<std::size_t>(rows) * pitch, std::nanf(""));
    const auto values = tutorial::random_floats(matrix.size(), tutorial::derive_seed(tutorial::run_seed(), {rows, cols}));
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) matrix[std::size_t(r) * pitch + c] = values[std::size_t(r) * pitch + c];
    }
    DeviceBuffer<float> in(matrix);
    CUtensorMap map;
    REQUIRE(planted::make_tile_map(&map, in.data(), rows, cols, pitch, nan_fill) == cudaSuccess);
    const int across = (cols + planted::kTmaBoxCols - 1) / planted::kTmaBoxCols;
    const int down = (rows + planted::kTmaBoxRows - 1) / planted::kTmaBoxRows;
    const int box = planted::kTmaBoxRows * planted::kTmaBoxCols;
    DeviceBuffer<float> out(static_cast<std::size_t>(across) * down * box);
    out.poison();
    planted::tma_tiles(map, out.data(), rows, cols, planted::TmaBug::none);
    const std::vector<float> got = out.download();
    int wrong = 0;
    for (int by = 0; by < down; ++by) {
        for (int bx = 0; bx < across; ++bx) {
            for (int i = 0; i < box; ++i) {
                const int r = by * planted::kTmaBoxRows + i / planted::kTmaBoxCols;
                const int c = bx * planted::kTmaBoxCols + i % planted::kTmaBoxCols;
                const float value = got[(std::size_t(by) * across + bx) * box + i];
                const bool inside = r < rows && c < cols;
                const bool right = inside ? value == matrix[std::size_t(r) * pitch + c]
                                          : (nan_fill ? std::isnan(value) : value == 0.0f && !std::signbit(value));
                if (!right && wrong++ < 5) {
                    UNSCOPED_INFO("box (" << by << "," << bx << ") element (" << r << "," << c << "): " << value
                                          << (inside ? ", expected the matrix's value" : ", expected the fill"));
                }
            }
        }
    }
    CHECK(wrong == 0);
}

std::string tma_error(planted::TmaBug bug, cudaError_t code) {
    const int rows = 20, cols = 40, pitch = 40;
    DeviceBuffer<float> in(tutorial::random_floats(rows * pitch, 7));
    CUtensorMap map;
    REQUIRE(planted::make_tile_map(&map, in.data(), rows, cols, pitch) == cudaSuccess);
    DeviceBuffer<float> out(6 * planted::kTmaBoxRows * planted::kTmaBoxCols);
    return error_text([&] { planted::tma_tiles(map, out.data(), rows, cols, bug); }, code);
}

std::string rule_error(planted::CopyRuleBug bug, cudaError_t code) {
    DeviceBuffer<float> in(tutorial::random_floats(16, 3)), out(16);
    return error_text([&] { planted::copy_rules(in.data(), out.data(), 16, bug); }, code);
}

}  // namespace

TEST_CASE("tiled GEMMs pipelined with asynchronous copies give the reference result in every thread order", "[emu][async]") {
    const std::string schedules = GENERATE("forward,reverse", "reverse,random:1,random:2");
    const planted::PipelineApi api = GENERATE(planted::PipelineApi::primitives, planted::PipelineApi::pipeline);
    const int stages = GENERATE(2, 3);
    const tutorial::GemmShape shape = GENERATE(tutorial::GemmShape{1, 1, 1}, tutorial::GemmShape{17, 15, 33},
                                               tutorial::GemmShape{40, 33, 70}, tutorial::GemmShape{3, 50, 16});
    INFO("schedules " << schedules << ", " << (api == planted::PipelineApi::primitives ? "primitives" : "cuda::pipeline")
                      << ", " << stages << " stages, shape " << shape);
    Schedules order(schedules);
    REQUIRE_MATCH(tutorial::run_gemm_case(pipelined(api, stages, planted::PipelineBug::none), shape, 16));
}

TEST_CASE("a block's group memcpy_async through a block-scope pipeline lands whole at consumer_wait()", "[emu][async]") {
    const std::string schedules = GENERATE("forward,reverse", "random:4");
    const int stages = GENERATE(2, 3);
    const int chunks = GENERATE(1, 2, 5);
    INFO("schedules " << schedules << ", " << stages << " stages, " << chunks << " chunks");
    Schedules order(schedules);
    const auto input = tutorial::random_floats(std::size_t(chunks) * 256, tutorial::derive_seed(tutorial::run_seed(), {chunks}));
    DeviceBuffer<float> in(input), out(input.size());
    out.poison();
    planted::group_copies(in.data(), out.data(), chunks, stages);
    const auto got = out.download();
    for (int c = 0; c < chunks; ++c) {
        for (int i = 0; i < 256; ++i) REQUIRE(got[c * 256 + i] == 2.0f * input[c * 256 + (i + 5) % 256]);
    }
}

TEST_CASE("a read of a stage before its wait names the read's and the copy's lines", "[emu][async]") {
    const int stages = GENERATE(2, 3);
    check_says(
        pipeline_error(planted::PipelineApi::primitives, stages, planted::PipelineBug::no_wait, cudaErrorLaunchFailure),
        {"shared memory read " + site_of(kPipelines, "sum += a_tiles[s]") + " before the asynchronous copy issued " +
             site_of(kPipelines, "__pipeline_memcpy_async(&a_stage") + " was waited for",
         "primitives_gemm_planted<", "block (0,0,0), thread (0,0,0)"});
}

TEST_CASE("a read of a cuda::pipeline stage other than the one waited for is reported at every stage count", "[emu][async]") {
    // Its copies were committed by every thread, so on the CPU backend they have landed;
    // on a GPU they may land at any time until this thread's wait for them returns.
    const int stages = GENERATE(2, 3);
    check_says(
        pipeline_error(planted::PipelineApi::pipeline, stages, planted::PipelineBug::stage_ahead, cudaErrorLaunchFailure),
        {"shared memory read " + site_of(kPipelines, "sum += b_tiles[s]") +
             " before this thread waited for the asynchronous copy issued " + site_of(kPipelines, "cuda::memcpy_async(&b_tiles[s]"),
         "which this thread has not waited for", "a stage index that is not the one waited for"});
}

TEST_CASE("a read before the wait in a helper that takes the tile by reference names the helper's line", "[emu][async]") {
    const std::string text = pipeline_error(planted::PipelineApi::primitives, 2, planted::PipelineBug::no_wait_read_in_helper,
                                            cudaErrorLaunchFailure);
    check_says(text, {"shared memory read " + site_of(kPipelines, "sum += a_stage[threadIdx.y][k]") +
                      " before the asynchronous copy issued " + site_of(kPipelines, "__pipeline_memcpy_async(&a_stage") +
                      " was waited for"});
    CHECK_FALSE(tutorial::contains_phrase(text, "a line the CPU backend was not told"));
}

TEST_CASE("a read of another thread's copy without __syncthreads() after the wait is reported", "[emu][async]") {
    check_says(pipeline_error(planted::PipelineApi::primitives, 2, planted::PipelineBug::no_sync_after_wait,
                              cudaErrorLaunchFailure),
               {"shared memory read " + site_of(kPipelines, "sum += a_tiles[s]") + " before the asynchronous copy",
                "issued by thread (", "__syncthreads() after the wait"});
}

TEST_CASE("a stage refilled before every thread is done with it is reported, primitives and cuda::pipeline", "[emu][async]") {
    SECTION("primitives: no __syncthreads() before the refill") {
        check_says(pipeline_error(planted::PipelineApi::primitives, 2, planted::PipelineBug::no_sync_before_refill,
                                  cudaErrorLaunchFailure),
                   {"shared memory read " + site_of(kPipelines, "sum += a_tiles[s]"),
                    "a stage refilled before every consumer released it"});
    }
    SECTION("cuda::pipeline: consumer_release() before the stage's last read") {
        const int stages = GENERATE(2, 3);
        check_says(pipeline_error(planted::PipelineApi::pipeline, stages, planted::PipelineBug::release_before_use,
                                  cudaErrorLaunchFailure),
                   {"shared memory read " + site_of(kPipelines, "sum += b_tiles[s]"),
                    "a stage refilled before every consumer released it"});
    }
    SECTION("cuda::pipeline: never released, so producer_acquire() waits forever") {
        check_says(
            pipeline_error(planted::PipelineApi::pipeline, 2, planted::PipelineBug::no_release, cudaErrorLaunchFailure),
            {"a pipeline stage refilled before every consumer released it (a hang on a GPU)",
             "at producer_acquire() " + site_of(kPipelines, "pipe.producer_acquire()"), "consumer_release()"});
    }
    SECTION("cuda::pipeline: a copy without producer_acquire()") {
        check_says(
            pipeline_error(planted::PipelineApi::pipeline, 2, planted::PipelineBug::no_acquire, cudaErrorLaunchFailure),
            {"a pipeline stage refilled before every consumer released it",
             site_of(kPipelines, "cuda::memcpy_async(&a_tiles[s]").substr(3), "without producer_acquire()"});
    }
}

TEST_CASE("a wait for more stages than were committed is reported at the wait", "[emu][async]") {
    SECTION("__pipeline_wait_prior(STAGES) with STAGES groups in flight") {
        const int stages = GENERATE(2, 3);
        check_says(pipeline_error(planted::PipelineApi::primitives, stages, planted::PipelineBug::wait_off_by_one,
                                  cudaErrorLaunchFailure),
                   {"a wait for more stages than were committed",
                    "__pipeline_wait_prior() " + site_of(kPipelines, "__pipeline_wait_prior(STAGES);"),
                    "waits for none of them"});
    }
    SECTION("one consumer_wait() too many on a block-scope cuda::pipeline") {
        check_says(pipeline_error(planted::PipelineApi::pipeline, 3, planted::PipelineBug::extra_consumer_wait,
                                  cudaErrorLaunchFailure),
                   {"a wait for more stages than were committed",
                    "consumer_wait() " + site_of(kPipelines, "pipe.consumer_wait();  // planted")});
    }
}

TEST_CASE("a TMA tile copy fills the box, zeros or NaN past the matrix's edges", "[emu][async]") {
    const std::string schedules = GENERATE("forward,reverse", "random:3");
    Schedules order(schedules);
    check_tma_tiles(37, 45, false);
    check_tma_tiles(8, 32, false);
    check_tma_tiles(1, 1, false);
    check_tma_tiles(17, 70, true);
}

TEST_CASE("TMA and barrier mistakes are reported with their lines", "[emu][async]") {
    SECTION("the tile read before the barrier's wait") {
        check_says(
            tma_error(planted::TmaBug::no_wait, cudaErrorLaunchFailure),
            {"shared memory read " + site_of(kTma, "= tile[i / kTmaBoxCols]") +
             " before the asynchronous copy issued " + site_of(kTma, "cp_async_bulk_tensor_2d_global_to_shared(")});
    }
    SECTION("16 bytes more expected than the box holds") {
        check_says(tma_error(planted::TmaBug::too_many_bytes_expected, cudaErrorLaunchFailure),
                   {"expected transaction bytes that never arrive (a hang on a GPU)", "1040 bytes are expected",
                    "delivered 1024", site_of(kTma, "bar.wait(std::move(token))").substr(3)});
    }
    SECTION("16 bytes fewer expected than the box holds") {
        check_says(tma_error(planted::TmaBug::too_few_bytes_expected, cudaErrorLaunchFailure),
                   {"more transaction bytes than expected (a hang on a GPU)", "delivered 1024 bytes",
                    "only 1008 were expected"});
    }
    SECTION("a destination off its 128-byte alignment") {
        check_says(tma_error(planted::TmaBug::unaligned_destination, cudaErrorMisalignedAddress),
                   {"misaligned asynchronous copy", "128-byte aligned",
                    site_of(kTma, "cp_async_bulk_tensor_2d_global_to_shared(").substr(3)});
    }
    SECTION("init() by every thread") {
        check_says(tma_error(planted::TmaBug::init_by_every_thread, cudaErrorLaunchFailure),
                   {"cuda::barrier initialised by two threads", site_of(kTma, "init(&bar, blockDim.x)").substr(3)});
    }
    SECTION("no __syncthreads() between init() and the barrier's use") {
        check_says(tma_error(planted::TmaBug::no_sync_after_init, cudaErrorLaunchFailure),
                   {"cuda::barrier used before init() was made visible",
                    "initialised " + site_of(kTma, "init(&bar, blockDim.x)")});
    }
}

TEST_CASE("copies that break the rules of cp.async and bulk copies are refused, naming the rule", "[emu][async]") {
    SECTION("correct copies pass") {
        for (planted::CopyRuleBug none : {planted::CopyRuleBug::none, planted::CopyRuleBug::none_bulk}) {
            const auto input = tutorial::random_floats(16, 11);
            DeviceBuffer<float> in(input), out(16);
            out.poison();
            planted::copy_rules(in.data(), out.data(), 16, none);
            const auto got = out.download();
            for (int i = 0; i < 16; ++i) CHECK(got[i] == 2.0f * input[i]);
        }
    }
    SECTION("a cp.async of 12 bytes") {
        check_says(rule_error(planted::CopyRuleBug::size_12, cudaErrorMisalignedAddress),
                   {"a cp.async copies 4, 8 or 16 bytes, not 12",
                    site_of(kTma, "__pipeline_memcpy_async(&staged[4 * i], &in[i], 12)").substr(3)});
    }
    SECTION("a 16-byte cp.async off its alignment") {
        check_says(rule_error(planted::CopyRuleBug::misaligned_16, cudaErrorMisalignedAddress),
                   {"is not aligned to 16 bytes"});
    }
    SECTION("a source past the end of its buffer") {
        check_says(rule_error(planted::CopyRuleBug::source_past_end, cudaErrorIllegalAddress),
                   {"out-of-bounds global memory access", site_of(kTma, "in + 4 * i, 16"),
                    "reads 16 bytes from byte offset 64 of a cudaMalloc buffer of 64 bytes"});
    }
    SECTION("a bulk copy of 20 bytes") {
        check_says(rule_error(planted::CopyRuleBug::bulk_size_not_multiple_of_16, cudaErrorMisalignedAddress),
                   {"a bulk copy's size must be a multiple of 16 bytes, not 20"});
    }
}

TEST_CASE("cuTensorMapEncodeTiled refuses what the driver refuses", "[emu][async]") {
    DeviceBuffer<float> matrix(64 * 64);
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found;
    REQUIRE(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found) ==
            cudaSuccess);
    REQUIRE(found == cudaDriverEntryPointSuccess);
    const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
    CUtensorMap map;
    auto try_encode = [&](const float* address, cuuint64_t stride, cuuint32_t box_cols, cuuint32_t box_rows,
                          cuuint32_t rank = 2) {
        const cuuint64_t dims[2] = {64, 64};
        const cuuint64_t strides[1] = {stride};
        const cuuint32_t box[2] = {box_cols, box_rows};
        const cuuint32_t element_strides[2] = {1, 1};
        return encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, rank, const_cast<float*>(address), dims, strides, box,
                      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    };
    CHECK(try_encode(matrix.data(), 256, 32, 8) == CUDA_SUCCESS);
    CHECK(try_encode(matrix.data() + 1, 256, 32, 8) == CUDA_ERROR_INVALID_VALUE);  // address not 16-byte aligned
    CHECK(try_encode(matrix.data(), 260, 32, 8) == CUDA_ERROR_INVALID_VALUE);      // stride not a multiple of 16
    CHECK(try_encode(matrix.data(), 256, 2, 8) == CUDA_ERROR_INVALID_VALUE);       // inner box of 8 bytes
    CHECK(try_encode(matrix.data(), 256, 32, 257) == CUDA_ERROR_INVALID_VALUE);    // box past 256
    CHECK(try_encode(matrix.data(), 256, 32, 0) == CUDA_ERROR_INVALID_VALUE);      // empty box
    CHECK(try_encode(matrix.data(), 256, 32, 8, 6) == CUDA_ERROR_INVALID_VALUE);   // rank past 5
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 11080, cudaEnableDefault, &found) ==
          cudaSuccess);
    CHECK(found == cudaDriverEntryPointVersionNotSufficent);
    CHECK(function == nullptr);
}

// ---- Shared-memory atomics and thread block clusters ----------------------------------------
namespace {

// Seeded random values, and the histogram of values % bins they give.
std::vector<unsigned> random_values(std::size_t count, std::uint64_t seed) {
    const std::vector<std::uint8_t> bytes = tutorial::random_bytes(count * 4, seed);
    std::vector<unsigned> values(count);
    for (std::size_t i = 0; i < count; ++i) {
        values[i] = bytes[4 * i] | bytes[4 * i + 1] << 8 | bytes[4 * i + 2] << 16 | static_cast<unsigned>(bytes[4 * i + 3]) << 24;
    }
    return values;
}

template <class Count>
std::vector<Count> reference_histogram(const std::vector<unsigned>& values, int bins) {
    std::vector<Count> counts(bins, 0);
    for (unsigned v : values) ++counts[v % static_cast<unsigned>(bins)];
    return counts;
}

// Run the cluster histogram on @p values; the launch's result, and the counts in @p got.
template <class Count>
cudaError_t run_cluster_histogram(const std::vector<unsigned>& values, int bins, unsigned cluster_size, unsigned clusters,
                                  planted::ClusterBug bug, std::vector<Count>& got, bool non_portable = false) {
    DeviceBuffer<unsigned> in(values);
    DeviceBuffer<Count> histogram(std::vector<Count>(bins, 0));
    const cudaError_t launched = planted::cluster_histogram<Count>(in.data(), static_cast<int>(values.size()), histogram.data(),
                                                                   bins, cluster_size, clusters, bug, non_portable);
    got = histogram.download();
    return launched;
}

// The sites of the cluster histogram's remote atomic, its map_shared_rank() call and its last barrier.
std::string cluster_atomic_site() { return site_of("tests/emu_planted/clusters.cu", "atomicAdd(copy + bin % per_block"); }
std::string cluster_map_site() { return site_of("tests/emu_planted/clusters.cu", "cluster.map_shared_rank(owned"); }
std::string cluster_last_barrier_site() {
    return site_of("tests/emu_planted/clusters.cu", "if (bug == ClusterBug::block_barrier_as_last) __syncthreads();");
}

// Clusters of 2 blocks of 32 threads that stage random values with cp.async
// (planted::staged_pair_sum, staged_pair_read): the values, and run(), what a kernel writes.
struct StagedPairs {
    explicit StagedPairs(unsigned block_count)
        : blocks(block_count),
          input(random_values(blocks * 32, tutorial::derive_seed(tutorial::run_seed(), {int(blocks), 32}))),
          in(input),
          out(blocks * 32) {}
    std::vector<unsigned> run(void (*kernel)(const unsigned*, unsigned*, unsigned, bool), bool wait) {
        out.poison();
        kernel(in.data(), out.data(), blocks, wait);
        return out.download();
    }
    unsigned blocks;
    std::vector<unsigned> input;
    DeviceBuffer<unsigned> in, out;
};

// The message of the cluster histogram's planted @p bug (a CudaError of @p code), run on
// @p count values seeded by @p key, in @p bins bins, by @p clusters clusters of
// @p cluster_size blocks.
std::string cluster_bug_text(planted::ClusterBug bug, std::size_t count, int key, int bins, unsigned cluster_size,
                             unsigned clusters, cudaError_t code) {
    const auto values = random_values(count, tutorial::derive_seed(tutorial::run_seed(), {key}));
    std::vector<unsigned> got;
    return error_text([&] { run_cluster_histogram(values, bins, cluster_size, clusters, bug, got); }, code);
}

}  // namespace

TEST_CASE("a histogram spread over a cluster's shared memory counts exactly, for every cluster size and schedule", "[emu]") {
    Schedules order("forward,reverse,random:7");
    // Bins not a multiple of the cluster, fewer bins than blocks, and several clusters.
    for (const unsigned cluster_size : {2u, 4u, 8u}) {
        for (const int bins : {1, 7, 257, 1000}) {
            for (const unsigned clusters : {1u, 3u}) {
                const std::size_t n = 1 + (tutorial::derive_seed(tutorial::run_seed(), {bins, cluster_size, clusters}) % 3000);
                const auto values = random_values(n, tutorial::derive_seed(tutorial::run_seed(), {bins, cluster_size}));
                std::vector<unsigned> got;
                INFO("cluster of " << cluster_size << ", " << clusters << " clusters, " << bins << " bins, " << n << " values");
                REQUIRE(run_cluster_histogram(values, bins, cluster_size, clusters, planted::ClusterBug::none, got) == cudaSuccess);
                REQUIRE(got == reference_histogram<unsigned>(values, bins));
            }
        }
    }
}

TEST_CASE("64-bit shared atomics, __cluster_dims__ and a 16-block non-portable cluster count exactly", "[emu]") {
    const auto values = random_values(5000, tutorial::derive_seed(tutorial::run_seed(), {64}));
    std::vector<unsigned long long> wide;
    REQUIRE(run_cluster_histogram(values, 999, 4, 2, planted::ClusterBug::none, wide) == cudaSuccess);
    CHECK(wide == reference_histogram<unsigned long long>(values, 999));

    std::vector<unsigned> got;
    REQUIRE(run_cluster_histogram(values, 333, 16, 2, planted::ClusterBug::none, got, true) == cudaSuccess);
    CHECK(got == reference_histogram<unsigned>(values, 333));

    DeviceBuffer<unsigned> in(values);
    DeviceBuffer<unsigned> pair(std::vector<unsigned>(101, 0));
    planted::pair_histogram(in.data(), static_cast<int>(values.size()), pair.data(), 101, 6);
    CHECK(pair.download() == reference_histogram<unsigned>(values, 101));

    DeviceBuffer<unsigned long long> private_counts(std::vector<unsigned long long>(64, 0));
    planted::private_histogram(in.data(), static_cast<int>(values.size()), private_counts.data(), false);
    CHECK(private_counts.download() == reference_histogram<unsigned long long>(values, 64));
}

TEST_CASE("a remote atomic before the first cluster.sync() is reported at its line", "[emu]") {
    check_says(cluster_bug_text(planted::ClusterBug::no_first_barrier, 777, 1, 100, 4, 2, cudaErrorLaunchFailure),
               {"distributed shared memory used before the cluster barrier in cluster_histogram_planted<Count>",
                cluster_atomic_site(), "before the cluster's first cluster.sync()"});
}

TEST_CASE("a kernel launched through a function pointer is named as written, not as the pointer", "[emu]") {
    // Chapter 9's host code passes its kernel to a helper that calls
    // cudaLaunchKernelEx(&config, kernel, ...): the messages name the kernel, not "kernel".
    const auto values = random_values(777, tutorial::derive_seed(tutorial::run_seed(), {1}));
    DeviceBuffer<unsigned> in(values);
    DeviceBuffer<unsigned> histogram(std::vector<unsigned>(100, 0));
    const std::string text = error_text(
        [&] {
            planted::cluster_histogram_through_pointer(in.data(), static_cast<int>(values.size()), histogram.data(), 100, 2,
                                                       planted::ClusterBug::no_first_barrier);
        },
        cudaErrorLaunchFailure);
    check_says(text, {"distributed shared memory used before the cluster barrier in planted::cluster_histogram_planted [with "
                      "Count = unsigned int] (launched at tests/emu_planted/clusters.cu:"});
    CHECK(text.find(" in kernel ") == std::string::npos);
    CHECK(text.find("kernel (launched") == std::string::npos);
}

TEST_CASE("a remote atomic to a block that has exited (no final cluster.sync()) names both blocks", "[emu]") {
    Schedules order("forward");
    check_says(
        cluster_bug_text(planted::ClusterBug::no_last_barrier, 777, 2, 100, 4, 1, cudaErrorIllegalAddress),
        {"shared memory of a block that has exited, in cluster_histogram_planted<Count>", "block (1,0,0), thread",
         "reaches the shared memory of block (0,0,0) (rank 0 of its cluster), whose threads have all returned",
         cluster_atomic_site()});
}

TEST_CASE("a __syncthreads() in place of the final cluster.sync() is reported when one block runs ahead", "[emu]") {
    for (const unsigned cluster_size : {2u, 4u}) {
        // Forward, the blocks take turns and all count before any merges: no access after
        // an exit. Reverse, a block runs ahead to its end while the others have yet to count.
        Schedules order("forward,reverse");
        INFO("clusters of " << cluster_size);
        check_says(cluster_bug_text(planted::ClusterBug::block_barrier_as_last, 777, 3, 100, cluster_size, 2,
                                    cudaErrorIllegalAddress),
                   {"shared memory of a block that has exited, in cluster_histogram_planted<Count>",
                    "whose threads have all returned", cluster_atomic_site(),
                    "This happens in the reverse thread order only"});
    }
}

TEST_CASE("a plain load from a pair block's shared memory needs the final cluster.sync(), or is reported", "[emu]") {
    DeviceBuffer<unsigned> out(6 * 32);
    out.poison();
    planted::neighbour_read(out.data(), 6, true);
    const std::vector<unsigned> got = out.download();
    for (unsigned i = 0; i < 6 * 32; ++i) REQUIRE(got[i] == ((i / 32) ^ 1) * 32 + i % 32);

    Schedules order("forward");
    check_says(error_text([&] { planted::neighbour_read(out.data(), 6, false); }, cudaErrorIllegalAddress),
               {"shared memory of a block that has exited, in neighbour_read_planted",
                "block (1,0,0), thread (0,0,0) (rank 1 of its cluster)",
                "an access through the pointer that cluster.map_shared_rank() gave at " +
                    site_of("tests/emu_planted/clusters.cu", "map_shared_rank(word").substr(3) +
                    " reaches the shared memory of block (0,0,0) (rank 0 of its cluster)"});
}

TEST_CASE("asynchronous copies in a cluster's blocks are waited for, or the read before the wait is reported", "[emu]") {
    StagedPairs pairs(6);
    const std::vector<unsigned> got = pairs.run(planted::staged_pair_sum, true);
    const std::vector<unsigned>& input = pairs.input;
    for (unsigned i = 0; i < 6 * 32; ++i) REQUIRE(got[i] == input[i] + 2 * input[((i / 32) ^ 1) * 32 + i % 32]);

    const std::string clusters = "tests/emu_planted/clusters.cu";
    // Its own copy and its pair's are both read before the wait: the pair's read, through
    // map_shared_rank, is reported at once; the own read at the thread's next barrier.
    check_says(error_text([&] { pairs.run(planted::staged_pair_sum, false); }, cudaErrorLaunchFailure),
               {"before the asynchronous copy", "issued " + site_of(clusters, "__pipeline_memcpy_async(&staged"),
                site_of(clusters, "const unsigned* pair = cluster.map_shared_rank(staged"), "staged_pair_sum_planted"});
}

TEST_CASE("another block's shared memory read before its asynchronous copies landed is reported, with both lines", "[emu]") {
    StagedPairs pairs(4);
    const std::vector<unsigned> got = pairs.run(planted::staged_pair_read, true);
    for (unsigned i = 0; i < 4 * 32; ++i) REQUIRE(got[i] == pairs.input[((i / 32) ^ 1) * 32 + i % 32]);

    const std::string clusters = "tests/emu_planted/clusters.cu";
    check_says(error_text([&] { pairs.run(planted::staged_pair_read, false); }, cudaErrorLaunchFailure),
               {"distributed shared memory used before the asynchronous copy into it was waited for",
                "an access through the pointer that cluster.map_shared_rank() gave " +
                    site_of(clusters, "pair_copy = cluster.map_shared_rank(staged"),
                "__pipeline_memcpy_async() issued " + site_of(clusters, "sizeof(unsigned));  // for the pair"),
                "staged_pair_read_planted"});
}

TEST_CASE("a block owner past the cluster is a map_shared_rank() rank outside the cluster, at its line", "[emu]") {
    check_says(cluster_bug_text(planted::ClusterBug::owner_rounded_down, 2000, 3, 103, 4, 2, cudaErrorIllegalAddress),
               {"cluster.map_shared_rank() with a rank outside the cluster in cluster_histogram_planted<Count>",
                cluster_map_site(), "rank 4, but the cluster has 4 blocks (ranks 0 to 3)"});
}

TEST_CASE("threads that return before the last cluster.sync() are a divergent cluster barrier", "[emu]") {
    check_says(
        cluster_bug_text(planted::ClusterBug::half_block_skips_last_barrier, 500, 4, 50, 2, 1, cudaErrorLaunchFailure),
        {"divergent cluster.sync() in cluster_histogram_planted<Count>",
         "32 threads wait at cluster.sync() " + cluster_last_barrier_site() + " (the first is thread (0,0,0))",
         "96 threads have finished the kernel (the first is thread (32,0,0))"});
}

TEST_CASE("bins zeroed after the cluster barrier while other blocks count into them depend on block order", "[emu]") {
    Schedules order("forward,reverse");
    check_says(
        cluster_bug_text(planted::ClusterBug::no_barrier_after_zeroing, 3000, 5, 64, 2, 1, cudaErrorLaunchFailure),
        {kOrderMessage, "the blocks of each cluster also ran in another order"});
}

TEST_CASE("a shared atomic through a decayed __shared__ array one bin past its end is stopped at its line", "[emu]") {
    const auto values = random_values(3000, tutorial::derive_seed(tutorial::run_seed(), {6}));
    DeviceBuffer<unsigned> in(values);
    DeviceBuffer<unsigned long long> counts(std::vector<unsigned long long>(64, 0));
    check_says(
        error_text([&] { planted::private_histogram(in.data(), static_cast<int>(values.size()), counts.data(), true); },
                   cudaErrorIllegalAddress),
        {"out-of-bounds shared memory access in private_histogram_planted",
         site_of("tests/emu_planted/clusters.cu", "atomicAdd(counts + values[i] % bins")});
}

TEST_CASE("cluster launches a GPU refuses are refused with cudaErrorInvalidClusterSize and a message", "[emu]") {
    const auto values = random_values(100, 1);
    std::vector<unsigned> got;
    DeviceBuffer<unsigned> in(values);
    DeviceBuffer<unsigned> histogram(10);
    // 9 blocks per cluster without the non-portable attribute; 32 blocks in any case.
    CHECK(planted::cluster_histogram<unsigned>(in.data(), 100, histogram.data(), 10, 9, 1, planted::ClusterBug::none) ==
          cudaErrorInvalidClusterSize);
    CHECK(contains(cudaGetErrorString(cudaErrorInvalidClusterSize), "a cluster of 9 x 1 x 1 = 9 blocks; a cluster may have at most 8"));
    CHECK(planted::cluster_histogram<unsigned>(in.data(), 100, histogram.data(), 10, 32, 1, planted::ClusterBug::none, true) ==
          cudaErrorInvalidClusterSize);
    // __cluster_dims__(2, 1, 1) with a grid of 5 blocks: refused at the launch.
    CHECK_THROWS_AS(planted::pair_histogram(in.data(), 100, histogram.data(), 10, 5), CudaError);
    CHECK(contains(cudaGetErrorString(cudaErrorInvalidClusterSize), "a grid of 5 x 1 x 1 blocks and clusters of 2 x 1 x 1 blocks"));
    CHECK(planted::max_active_clusters(4) >= 1);
    cudaDeviceProp prop;
    REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
    CHECK(prop.clusterLaunch == 1);
    CHECK(prop.sharedMemPerBlockOptin == 232448);
}

// ---- Non-atomic read-modify-writes ----------------------------------------------------------
namespace {

// Run the block histogram; the counts in @p histogram, and whether it saw a value in bin 0.
void run_block_histogram(const std::vector<unsigned>& values, int bins, unsigned blocks, unsigned threads,
                         planted::HistogramBug bug, std::vector<unsigned>& histogram, unsigned& saw_zero) {
    DeviceBuffer<unsigned> in(values);
    DeviceBuffer<unsigned> counts(std::vector<unsigned>(bins, 0));
    DeviceBuffer<unsigned> flag(std::vector<unsigned>{0});
    planted::block_histogram(in.data(), static_cast<int>(values.size()), counts.data(), bins, flag.data(), blocks, threads, bug);
    histogram = counts.download();
    saw_zero = flag.download()[0];
}

}  // namespace

TEST_CASE("a histogram with shared atomics and a flag all its writers set to 1 passes the race detector", "[emu]") {
    Schedules order("forward,reverse,random:3");
    for (const unsigned threads : {1u, 32u, 33u, 128u}) {
        for (const int bins : {1, 7, 37, 128}) {
            for (const unsigned blocks : {1u, 3u}) {
                const std::size_t n = 1 + tutorial::derive_seed(tutorial::run_seed(), {bins, int(threads), int(blocks)}) % 2000;
                const auto values = random_values(n, tutorial::derive_seed(tutorial::run_seed(), {bins, int(threads)}));
                INFO(blocks << " blocks of " << threads << " threads, " << bins << " bins, " << n << " values");
                std::vector<unsigned> got;
                unsigned saw_zero = 7;
                run_block_histogram(values, bins, blocks, threads, planted::HistogramBug::none, got, saw_zero);
                const std::vector<unsigned> expected = reference_histogram<unsigned>(values, bins);
                REQUIRE(got == expected);
                REQUIRE(saw_zero == (expected[0] > 0 ? 1u : 0u));
            }
        }
    }
}

TEST_CASE("a non-atomic increment of a __shared__ bin is reported at its line, in every schedule", "[emu]") {
    const auto values = random_values(1000, tutorial::derive_seed(tutorial::run_seed(), {21}));
    for (const char* order_name : {"forward", "reverse", "random:5"}) {
        Schedules order(order_name);
        std::vector<unsigned> got;
        unsigned saw_zero = 0;
        const std::string text = error_text(
            [&] { run_block_histogram(values, 37, 2, 64, planted::HistogramBug::shared_plain_increment, got, saw_zero); },
            cudaErrorLaunchFailure);
        INFO(order_name << ": " << text);
        CHECK(contains(text, "race in block_histogram_planted"));
        CHECK(contains(text, "two threads of block (0,0,0) updated shared word s_bins["));
        CHECK(contains(text, site_of("tests/emu_planted/histograms.cu", "s_bins[v]++;") + " without an atomic"));
        CHECK(contains(text, "a read-modify-write that is not atomic loses updates"));
    }
}

TEST_CASE("a non-atomic add to a global bin is reported at its line", "[emu]") {
    const auto values = random_values(500, tutorial::derive_seed(tutorial::run_seed(), {22}));
    std::vector<unsigned> got;
    unsigned saw_zero = 0;
    check_says(
        error_text(
            [&] { run_block_histogram(values, 10, 1, 96, planted::HistogramBug::global_plain_add, got, saw_zero); },
            cudaErrorLaunchFailure),
        {"two threads of block (0,0,0) updated global word histogram[",
         site_of("tests/emu_planted/histograms.cu", "histogram[v] += 1;") + " without an atomic"});
}

TEST_CASE("a bad number of bins for the block histogram is refused by name", "[emu]") {
    DeviceBuffer<unsigned> in(std::vector<unsigned>{1, 2}), counts(std::vector<unsigned>(1, 0)), flag(std::vector<unsigned>{0});
    try {
        planted::block_histogram(in.data(), 2, counts.data(), 0, flag.data(), 1, 32, planted::HistogramBug::none);
        FAIL("0 bins were accepted");
    } catch (const std::invalid_argument& error) {
        CHECK(contains(error.what(), "bins must be in [1, 128]"));
    }
}

// ---- What a student sees -------------------------------------------------------------------
// Each planted bug in a test written like a chapter's. These tests FAIL, as a student's
// would, so they are hidden ([.]): `make check` runs them with "[planted]" and checks
// that every one fails, without crashing, with the backend's diagnostic in its output.
// A test of several bugs runs each in a section of its own, which fails on its own.
// The order-dependent ones fix the default schedules, whatever SCHEDULE says.
TEST_CASE("planted: a tiled GEMM without one of its barriers", "[.][planted]") {
    Schedules order("forward,reverse");
    for (const planted::GemmBarriers missing : {planted::GemmBarriers::no_first, planted::GemmBarriers::no_second}) {
        DYNAMIC_SECTION("planted: a tiled GEMM without its "
                        << (missing == planted::GemmBarriers::no_first ? "first" : "second") << " barrier") {
            REQUIRE_MATCH(tutorial::run_gemm_case(tiled(missing), {33, 35, 37}, 16));
        }
    }
}

TEST_CASE("planted: a naive GEMM without its bounds check", "[.][planted]") {
    const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) {
        planted::naive_gemm(A, B, C, M, N, K, false);
    };
    REQUIRE_MATCH(tutorial::run_gemm_case(gemm, {33, 35, 37}, 16));
}

TEST_CASE("planted: a box mean whose halo is off by one", "[.][planted]") {
    REQUIRE_MATCH(run_box_mean(40, 30, planted::Halo::loop_one_too_far));
}

TEST_CASE("planted: a moving average with too small a dynamic shared buffer", "[.][planted]") {
    REQUIRE_MATCH(run_moving_average(1000, 17, true));
}

TEST_CASE("planted: float4 reads through casts, past a buffer's end or off its alignment", "[.][planted]") {
    // quad_sums(in, out, quads, shift): out[i] is the sum of the float4 at in + 4 i + shift.
    struct Case {
        const char* what;
        int inputs, quads, shift;
    };
    const Case cases[] = {
        {"a float4 read through a cast past the end of a buffer", 10, 3, 0},
        {"a float4 read at an address that is not a multiple of 16", 40, 2, 1},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION("planted: " << c.what) {
            DeviceBuffer<float> in(c.inputs), out(c.quads);
            planted::quad_sums(in.data(), out.data(), c.quads, c.shift);
            SUCCEED();
        }
    }
}

TEST_CASE("planted: a read far outside a buffer through a raw float4 pointer", "[.][planted]") {
    DeviceBuffer<float> in(16), out(4);
    planted::raw_quad(in.data(), out.data(), 1LL << 40);
    SUCCEED();
}

TEST_CASE("planted: a barrier inside if (threadIdx.x < 16)", "[.][planted]") {
    DeviceBuffer<float> out(64);
    planted::barrier_in_branch(out.data());
    SUCCEED();
}

TEST_CASE("planted: a pipelined GEMM that reads a stage before its wait", "[.][planted]") {
    Schedules order("forward,reverse");
    REQUIRE_MATCH(tutorial::run_gemm_case(
        pipelined(planted::PipelineApi::primitives, 3, planted::PipelineBug::no_wait), {33, 35, 37}, 16));
}

TEST_CASE("planted: a TMA tile copy that expects more bytes than its box holds", "[.][planted]") {
    const int rows = 20, cols = 40;
    DeviceBuffer<float> in(tutorial::random_floats(rows * cols, 5));
    CUtensorMap map;
    REQUIRE(planted::make_tile_map(&map, in.data(), rows, cols, cols) == cudaSuccess);
    DeviceBuffer<float> out(6 * planted::kTmaBoxRows * planted::kTmaBoxCols);
    planted::tma_tiles(map, out.data(), rows, cols, planted::TmaBug::too_many_bytes_expected);
    SUCCEED();
}

TEST_CASE("planted: a histogram whose __shared__ bins are incremented without an atomic", "[.][planted]") {
    const auto values = random_values(1000, tutorial::derive_seed(tutorial::run_seed(), {15}));
    std::vector<unsigned> got;
    unsigned saw_zero = 0;
    run_block_histogram(values, 37, 2, 64, planted::HistogramBug::shared_plain_increment, got, saw_zero);
    REQUIRE(got == reference_histogram<unsigned>(values, 37));
}

TEST_CASE("planted: a cluster histogram without one of its barriers, or with a wrong owner", "[.][planted]") {
    using planted::ClusterBug;
    // The histogram of `count` values seeded by `key`, in `bins` bins, by `clusters`
    // clusters of `cluster_size` blocks.
    struct Case {
        const char* what;
        ClusterBug bug;
        std::size_t count;
        int key, bins;
        unsigned cluster_size, clusters;
    };
    const Case cases[] = {
        {"without the cluster.sync() after zeroing its bins", ClusterBug::no_first_barrier, 777, 11, 100, 4, 2},
        {"without its final cluster.sync()", ClusterBug::no_last_barrier, 777, 12, 100, 4, 2},
        {"with __syncthreads() in place of its final cluster.sync()", ClusterBug::block_barrier_as_last, 777, 16, 100, 4, 2},
        {"whose bin owner is rounded down", ClusterBug::owner_rounded_down, 2000, 13, 103, 4, 2},
        {"whose threads return before the last cluster.sync()", ClusterBug::half_block_skips_last_barrier, 500, 14, 50, 2, 1},
    };
    Schedules order("forward,reverse");
    for (const Case& c : cases) {
        DYNAMIC_SECTION("planted: a cluster histogram " << c.what) {
            const auto values = random_values(c.count, tutorial::derive_seed(tutorial::run_seed(), {c.key}));
            std::vector<unsigned> got;
            run_cluster_histogram(values, c.bins, c.cluster_size, c.clusters, c.bug, got);
            REQUIRE(got == reference_histogram<unsigned>(values, c.bins));
        }
    }
}
