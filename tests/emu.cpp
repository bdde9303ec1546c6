// The CPU backend's own tests: `make test-emu` (BACKEND=emu only).
//
// For each bug the backend promises to catch there is a kernel with that bug planted
// (tests/emu_planted/), and the test checks the message a student would get: the
// CudaError that CUDA_CHECK_KERNEL throws, naming the kernel, the block, the thread and
// what went wrong. Each planted kernel has a correct twin that must pass under every
// schedule, so the checks cannot cry wolf.
//
// This file: thread orders, bounds, barriers, warps, time limits, compile errors, launches,
// casts and crashes; tests/emu_async.cpp: asynchronous copies and the TMA;
// tests/emu_clusters.cpp: shared atomics, clusters and read-modify-writes.
#include "emu_support.h"

using namespace emu_tests;

// ---- Order dependence --------------------------------------------------------------------------
TEST_CASE("a tiled GEMM with both barriers gives the reference result in every thread order", "[emu]") {
    const std::string schedules = GENERATE("forward,reverse", "reverse,random:1,random:2");
    const tutorial::GemmShape shape = GENERATE(tutorial::GemmShape{1, 1, 1}, tutorial::GemmShape{17, 15, 33},
                                               tutorial::GemmShape{40, 33, 70});
    INFO("schedules " << schedules << ", shape " << shape);
    Schedules order(schedules);
    REQUIRE_MATCH(tutorial::run_gemm_case(tiled(planted::GemmBarriers::both), shape, 16));
}

TEST_CASE("a GEMM that never adds some products is told which k, and what its bound equals", "[emu]") {
    const auto stops_at = [](int stop) {
        return [stop](const float* A, const float* B, float* C, int M, int N, int K) {
            planted::gemm_k_stops_at(A, B, C, M, N, K, stop);
        };
    };
    // k stops at N (7) where K (12) belongs.
    check_says(tutorial::run_gemm_case(stops_at(7), {9, 7, 12}, 16).text,
               {"no element of C ever adds the products with k = 7 to 11 (K = 12)", "k stops at 7, which is N"});
    // Short of K at no other parameter's value: a loop that ends too early.
    check_says(tutorial::run_gemm_case(stops_at(11), {9, 7, 12}, 16).text,
               {"the product with k = 11 (K = 12).", "k stops at 11, 1 short of K: a loop over K that ends too early",
                "tiles of k = 11 on that are never loaded, or are fetched from the wrong place"},
               {"which is N", "which is M"});
    check_says(tutorial::run_gemm_case(stops_at(8), {9, 5, 10}, 4).text,
               {"the products with k = 8 and 9 (K = 10)", "k stops at 8, 2 short of K"});
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

TEST_CASE("stream-ordered memory (cudaMallocAsync) is checked like cudaMalloc's, and its messages name its call", "[emu]") {
    tutorial::ScratchBuffer<float> in(100), out(100);
    check_says(error_text([&] { planted::read_before_start(in.data(), out.data(), 100); }, cudaErrorIllegalAddress),
               {"in[-1] is before the start of in, a cudaMallocAsync buffer of 400 bytes (100 floats)"});
    int not_device_memory = 0;
    check_says(error_text([&] { CUDA_CHECK(cudaFreeAsync(&not_device_memory, cudaStream_t{})); }, cudaErrorInvalidValue),
               {"cudaFreeAsync: the pointer was not returned by cudaMalloc or cudaMallocAsync"});
    cudaGetLastError();  // the error stays the last one until read, as in CUDA
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
                "the third parameter of <<<grid, block, bytes>>>", "a halo too, where there is one",
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
                                "-fsyntax-only -Iemu/include -Igpu_model/include " + dir + "/broken.cu.cpp >" + dir + "/log 2>&1";
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

TEST_CASE("the dynamic shared memory seen as a multi-dimensional array is read back, and each index is checked", "[emu]") {
    const auto ints = random_ints(64, -100, 100, tutorial::derive_seed(tutorial::run_seed(), {64}));
    const std::vector<float> values(ints.begin(), ints.end());
    DeviceBuffer<float> in(values), out(64);
    out.poison();
    planted::dynamic_stages(in.data(), out.data(), 3, 0);
    const auto got = out.download();
    for (int t = 0; t < 64; ++t) CHECK(got[t] == values[static_cast<std::size_t>(t / 8 * 8 + (t + 3) % 8)]);
    check_says(error_text([&] { planted::dynamic_stages(in.data(), out.data(), 0, 1); }, cudaErrorIllegalAddress),
               {"out-of-bounds shared memory access in dynamic_stages_kernel",
                "index 8 is outside a dimension of 8 elements of the dynamic shared memory (extern __shared__) seen as "
                "an array",
                site_of("tests/emu_planted/casts.cu", "out[t] = stages[t / 32][t / 8 % 4][column];")});
}

TEST_CASE("a __shared__ array seen as an array of another shape is checked by that shape", "[emu]") {
    const auto ints = random_ints(64, -100, 100, tutorial::derive_seed(tutorial::run_seed(), {65}));
    const std::vector<float> values(ints.begin(), ints.end());
    DeviceBuffer<float> in(values), out(64);
    out.poison();
    planted::static_view(in.data(), out.data(), 0);
    CHECK(out.download() == values);
    check_says(error_text([&] { planted::static_view(in.data(), out.data(), 1); }, cudaErrorIllegalAddress),
               {"out-of-bounds shared memory access in static_view_kernel",
                "index 8 is outside a dimension of 8 elements of __shared__ float flat[64]", "seen as an array",
                site_of("tests/emu_planted/casts.cu", "out[t] = rows[t / 8][t % 8 + (t % 8 == 7 ? column_past : 0)];")});
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
    // 1 TiB before the buffer: device buffers have pages of their own near the top of the
    // address space, and as far past them lies outside it (a general-protection fault).
    check_says(error_text([&] { planted::raw_quad(in.data(), out.data(), -(1LL << 36)); }, cudaErrorIllegalAddress),
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
    planted::raw_quad(in.data(), out.data(), -(1LL << 36));
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

TEST_CASE("host code writing device memory (run by the test below)", "[.][host-writes-device]") {
    DeviceBuffer<float> out(4);
    out.data()[2] = 1.0f;  // host code, through a device pointer: a GPU's memory is out of its reach
}

TEST_CASE("host code that reads or writes device memory crashes, and the backend names the access", "[emu]") {
    // Device memory is closed to host code outside the backend's own operations (a launch,
    // cudaMemcpy, cudaMemset), as a GPU's is: copies and launches still work (every test
    // here), and a host access through a device pointer ends the run with its address.
    const std::string log = "build/emu/host-writes-device.log";
    char self[4096] = {};
    REQUIRE(readlink("/proc/self/exe", self, sizeof self - 1) > 0);
    const std::string command = "'" + std::string(self) + "' '[host-writes-device]' >" + log + " 2>&1";
    const int status = std::system(command.c_str());
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(text);
    CHECK(status != 0);
    CHECK(contains(text, "host code wrote device memory at"));
    CHECK(contains(text, "8 bytes into a cudaMalloc buffer of 16 bytes: on a GPU, host code cannot touch device memory "
                         "either; copy it with cudaMemcpy, or compute it in a kernel"));
    CHECK(contains(text, "SIGSEGV"));
}

// ---- Integer intrinsics ------------------------------------------------------------------------
TEST_CASE("the integer intrinsics give CUDA's results, bit for bit", "[emu]") {
    // __byte_perm: bytes of y:x by the selector's nibbles, of which only 3 bits count
    CHECK(__byte_perm(0x03020100u, 0x07060504u, 0x7531u) == 0x07050301u);
    CHECK(__byte_perm(0x44332211u, 0u, 0x4140u) == 0x00220011u);
    CHECK(__byte_perm(0x03020100u, 0x07060504u, 0xFu) == 0x00000007u);
    CHECK(__byte_perm(0x03020100u, 0x07060504u, 0xFFFF0000u) == 0x00000000u);
    // funnel shifts: the shift taken mod 32, or clamped to 32 by the c forms
    CHECK(__funnelshift_l(0x89ABCDEFu, 0x01234567u, 8) == 0x23456789u);
    CHECK(__funnelshift_l(0x89ABCDEFu, 0x01234567u, 40) == 0x23456789u);
    CHECK(__funnelshift_lc(0x89ABCDEFu, 0x01234567u, 40) == 0x89ABCDEFu);
    CHECK(__funnelshift_r(0x89ABCDEFu, 0x01234567u, 8) == 0x6789ABCDu);
    CHECK(__funnelshift_r(0x89ABCDEFu, 0x01234567u, 0) == 0x89ABCDEFu);
    CHECK(__funnelshift_rc(0x89ABCDEFu, 0x01234567u, 33) == 0x01234567u);
    // high halves of products
    CHECK(__umulhi(0xFFFFFFFFu, 0xFFFFFFFFu) == 0xFFFFFFFEu);
    CHECK(__mulhi(-1, 1) == -1);
    CHECK(__mulhi(0x40000000, 8) == 2);
    CHECK(__umul64hi(0xFFFFFFFFFFFFFFFFull, 2ull) == 1ull);
    for (unsigned int x = 0; x <= 9 * 255 + 4; ++x) {  // a division by 9 as one multiply-high
        REQUIRE(__umulhi(x, 7282u << 16) == x / 9);
    }
    // bit counts
    CHECK(__popc(0xF0F0u) == 8);
    CHECK(__popcll(0xFFFFFFFFFFFFFFFFull) == 64);
    CHECK(__clz(1) == 31);
    CHECK(__clz(0) == 32);
    CHECK(__clz(-1) == 0);
    CHECK(__clzll(1) == 63);
    CHECK(__ffs(0x8) == 4);
    CHECK(__ffs(0) == 0);
    CHECK(__ffsll(1ll << 40) == 41);
    CHECK(__brev(1u) == 0x80000000u);
    CHECK(__brev(0x0000FFFFu) == 0xFFFF0000u);
}
