// The CPU backend's own tests of shared-memory atomics, thread block clusters and
// read-modify-writes (`make test-emu`; tests/emu.cpp says how these tests are built).
#include "emu_support.h"

using namespace emu_tests;

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

TEST_CASE("a dynamic shared index that wraps around is called negative, and the launch named as written", "[emu]") {
    // A negative offset in unsigned arithmetic: more shared memory would not help, and the
    // launch is cudaLaunchKernelEx's, not <<<...>>>.
    const auto values = random_values(300, tutorial::derive_seed(tutorial::run_seed(), {2}));
    DeviceBuffer<unsigned> in(values);
    DeviceBuffer<unsigned> histogram(std::vector<unsigned>(64, 0));
    const std::string text = error_text(
        [&] { planted::slice_offset(in.data(), static_cast<int>(values.size()), histogram.data()); }, cudaErrorIllegalAddress);
    check_says(text, {"out-of-bounds shared memory access in", "slice_offset_planted", "block (1,0,0)",
                      "config.dynamicSmemBytes of cudaLaunchKernelEx()", "The index is negative as a 32-bit int, -"});
    CHECK(text.find("<<<grid, block, bytes>>>") == std::string::npos);
    CHECK(text.find("halo") == std::string::npos);
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
        CHECK(contains(text, "two threads of block (0,0,0) changed shared word s_bins["));
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
        {"two threads of block (0,0,0) changed global word histogram[",
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
    planted::raw_quad(in.data(), out.data(), -(1LL << 36));
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
