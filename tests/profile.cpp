// The profiler's tests: `make test-profile` (BACKEND=emu; the occupancy tests run on both).
//
// Each kernel of tests/profile_kernels/ has an access pattern whose counts can be worked
// out by hand; the comments give the arithmetic. The kernels also compute something,
// checked on the host, so a counting build that changed a result would show.
#include "profile_kernels/traffic_kernels.h"

#include "catch.h"
#include "device_buffer.h"
#include "expect.h"
#include <gpu_model/occupancy.h>
#include "profile/in_flight.h"
#include "random.h"

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(EMU_BACKEND_TRAFFIC)
#include <gpu_model/traffic.h>

#include "profile/profile.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#endif

using tutorial::DeviceBuffer;

#if defined(EMU_BACKEND_TRAFFIC)
namespace {

using emu::traffic::LaunchProfile;

// The one launch that @p run makes, counted.
template <class Run>
LaunchProfile profile_of(Run run) {
    emu::traffic::start();
    run();
    std::vector<LaunchProfile> launches = emu::traffic::take();
    REQUIRE(launches.size() == 1);
    return launches[0];
}

// A count the profiler made, named by the expression that reads it, beside the count the
// test worked out.
struct Count {
    const char* counter;
    std::uint64_t counted;
    std::uint64_t expected;
};
// COUNT(p.global_load.sectors, 32 * 5): the count p.global_load.sectors must be 32 * 5.
#define COUNT(counter, expected) Count{#counter, static_cast<std::uint64_t>(counter), static_cast<std::uint64_t>(expected)}

// Check each of @p counts: a check a count, whose failure names its counter.
void check_counts(std::initializer_list<Count> counts) {
    for (const Count& count : counts) {
        INFO(count.counter);
        CHECK(count.counted == count.expected);
    }
}

// Random floats on the device (in), and an output (out) whose floats hold -7 until written.
struct Floats {
    Floats(std::size_t inputs, std::size_t outputs, std::uint64_t seed)
        : input(tutorial::random_floats(inputs, seed)), in(input), out(std::vector<float>(outputs, -7.0f)) {}
    std::vector<float> input;
    DeviceBuffer<float> in, out;
};

// Random words below 256 on the device (in), and an output (out) whose words hold 7 until written.
struct Words {
    Words(std::size_t inputs, std::size_t outputs, std::uint64_t seed)
        : values([&] {
              const std::vector<std::uint8_t> bytes = tutorial::random_bytes(inputs, seed);
              return std::vector<unsigned>(bytes.begin(), bytes.end());
          }()),
          in(values), out(std::vector<unsigned>(outputs, 7)) {}
    std::vector<unsigned> values;
    DeviceBuffer<unsigned> in, out;
};

// A float gather over n threads: out[i] = in[i * stride + offset].
LaunchProfile gather(int n, int stride, int offset) {
    Floats floats(static_cast<std::size_t>(n) * stride + offset + 1, n, 12);
    const LaunchProfile p =
        profile_of([&] { traffic_kernels::gather_float(floats.in.data(), floats.out.data(), n, stride, offset); });
    const std::vector<float> result = floats.out.download();
    for (int i = 0; i < n; ++i) REQUIRE(result[i] == floats.input[static_cast<std::size_t>(i) * stride + offset]);
    return p;
}

}  // namespace

TEST_CASE("coalesced float loads take 4 sectors per warp, and unique bytes are what was read", "[profile]") {
    // 1024 threads = 32 warps; each warp reads 32 consecutive floats = 128 bytes = 4 sectors.
    const LaunchProfile p = gather(1024, 1, 0);
    check_counts({COUNT(p.global_load.requests, 32), COUNT(p.global_load.sectors, 128), COUNT(p.global_load.ideal_sectors, 128),
                  COUNT(p.global_load.bytes_requested, 4096), COUNT(p.global_load.unique_bytes, 4096),
                  COUNT(p.global_store.requests, 32), COUNT(p.global_store.sectors, 128), COUNT(p.global_store.unique_bytes, 4096),
                  COUNT(p.shared_load.requests, 0), COUNT(p.barriers, 0), COUNT(p.blocks, 4)});
}

TEST_CASE("a partial last warp requests only the sectors of its active lanes", "[profile]") {
    // 1000 threads: 31 full warps (4 sectors each) and one of 8 lanes (32 bytes, 1 sector).
    const LaunchProfile p = gather(1000, 1, 0);
    check_counts({COUNT(p.global_load.requests, 32), COUNT(p.global_load.sectors, 31 * 4 + 1), COUNT(p.global_load.bytes_requested, 4000)});
}

TEST_CASE("strided float loads touch more sectors per request", "[profile]") {
    SECTION("stride 2: 256 bytes per warp, 8 sectors") {
        const LaunchProfile p = gather(1024, 2, 0);
        check_counts({COUNT(p.global_load.requests, 32), COUNT(p.global_load.sectors, 32 * 8),
                      COUNT(p.global_load.ideal_sectors, 32 * 4), COUNT(p.global_load.unique_bytes, 4096)});
    }
    SECTION("stride 32 floats: every lane in its own sector") {
        const LaunchProfile p = gather(1024, 32, 0);
        check_counts({COUNT(p.global_load.sectors, 32 * 32), COUNT(p.global_load.bytes_requested, 4096)});
    }
    SECTION("the stores stay coalesced") {
        CHECK(gather(1024, 32, 0).global_store.sectors == 128);
    }
}

TEST_CASE("a load misaligned by one float straddles one more sector per warp", "[profile]") {
    // Bytes 4..131 of each 128-byte span: 5 sectors instead of 4.
    const LaunchProfile p = gather(1024, 1, 1);
    check_counts({COUNT(p.global_load.requests, 32), COUNT(p.global_load.sectors, 32 * 5), COUNT(p.global_load.unique_bytes, 4096)});
}

TEST_CASE("a broadcast load is one sector per request and 4 unique bytes", "[profile]") {
    Floats floats(1, 1024, 5);
    const LaunchProfile p = profile_of([&] { traffic_kernels::broadcast_float(floats.in.data(), floats.out.data(), 1024); });
    check_counts({COUNT(p.global_load.requests, 32), COUNT(p.global_load.sectors, 32), COUNT(p.global_load.bytes_requested, 4096),
                  COUNT(p.global_load.unique_bytes, 4)});
    CHECK(floats.out.download()[1023] == floats.input[0]);
}

TEST_CASE("1-byte elements: one sector per warp", "[profile]") {
    const std::vector<std::uint8_t> input = tutorial::random_bytes(1024, 3);
    DeviceBuffer<unsigned char> in(std::vector<unsigned char>(input.begin(), input.end()));
    DeviceBuffer<unsigned char> out(std::vector<unsigned char>(1024, 0xAB));
    const LaunchProfile p = profile_of([&] { traffic_kernels::copy_bytes(in.data(), out.data(), 1024); });
    check_counts({COUNT(p.global_load.requests, 32), COUNT(p.global_load.sectors, 32), COUNT(p.global_load.ideal_sectors, 32),
                  COUNT(p.global_store.sectors, 32), COUNT(p.global_load.unique_bytes, 1024)});
    CHECK(out.download() == std::vector<unsigned char>(input.begin(), input.end()));
}

TEST_CASE("16-byte elements: 16 sectors per warp, one request per warp", "[profile]") {
    std::vector<traffic_kernels::Float4> input(1024);
    const std::vector<float> values = tutorial::random_floats(4 * 1024, 8);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = {values[4 * i], values[4 * i + 1], values[4 * i + 2], values[4 * i + 3]};
    DeviceBuffer<traffic_kernels::Float4> in(input);
    DeviceBuffer<traffic_kernels::Float4> out(std::vector<traffic_kernels::Float4>(1024, {-1, -1, -1, -1}));
    const LaunchProfile p = profile_of([&] { traffic_kernels::copy_float4(in.data(), out.data(), 1024); });
    check_counts({COUNT(p.global_load.requests, 32), COUNT(p.global_load.sectors, 32 * 16), COUNT(p.global_load.ideal_sectors, 32 * 16),
                  COUNT(p.global_store.sectors, 32 * 16), COUNT(p.global_load.unique_bytes, 16 * 1024)});
    CHECK(out.download()[777].z == input[777].z);
}

TEST_CASE("shared memory wavefronts follow the bank rule", "[profile]") {
    using traffic_kernels::SharedPattern;
    // One warp loads a word of 1024 by each pattern: its wavefronts and bank conflicts, the
    // worst request's degree (0: not checked), and what lane 31 then holds.
    struct Case {
        const char* what;
        SharedPattern pattern;
        unsigned wavefronts, conflicts, worst_degree;
        float lane_31;
    };
    const Case cases[] = {
        {"consecutive words: one wavefront", SharedPattern::consecutive, 1, 0, 0, 31.0f},
        {"stride 2: a 2-way conflict", SharedPattern::stride_two, 2, 1, 2, 62.0f},
        {"stride 32: a 32-way conflict", SharedPattern::stride_32, 32, 31, 32, 992.0f},
        {"the same word: a broadcast, one wavefront", SharedPattern::same_word, 1, 0, 0, 0.0f},
    };
    DeviceBuffer<float> out(std::vector<float>(32, -7.0f));
    for (const Case& c : cases) {
        INFO(c.what);
        const LaunchProfile p = profile_of([&] { traffic_kernels::shared_words(out.data(), c.pattern); });
        // Every pattern first stores 1024 consecutive words: 32 requests, no conflict.
        check_counts({COUNT(p.shared_store.requests, 32), COUNT(p.shared_store.wavefronts, 32),
                      COUNT(p.shared_store.bank_conflicts(), 0), COUNT(p.shared_load.requests, 1), COUNT(p.barriers, 1),
                      COUNT(p.shared_load.wavefronts, c.wavefronts), COUNT(p.shared_load.bank_conflicts(), c.conflicts)});
        CHECK(p.barriers_per_block() == 1.0);
        if (c.worst_degree != 0) CHECK(p.worst_shared.worst_degree == c.worst_degree);
        if (c.pattern == SharedPattern::stride_32) {
            CHECK(p.worst_shared.location == tutorial::place_of("tests/profile_kernels/traffic_kernels.cu", "out[t] = words[index];"));
        }
        CHECK(out.download()[31] == c.lane_31);
    }
}

TEST_CASE("a 32 x 32 tile read by columns conflicts 32-way; padded by one it does not", "[profile]") {
    Floats floats(32 * 32, 32 * 32, 21);
    const int pad = GENERATE(0, 1);
    const LaunchProfile p = profile_of([&] { traffic_kernels::transpose_tile(floats.in.data(), floats.out.data(), pad); });
    // 32 warps, one row each: the row stores never conflict.
    check_counts({COUNT(p.shared_store.requests, 32), COUNT(p.shared_store.wavefronts, 32), COUNT(p.shared_load.requests, 32)});
    if (pad == 0) {
        // Lane t reads word 32t (+ the row): every lane in the same bank.
        check_counts({COUNT(p.shared_load.wavefronts, 32 * 32), COUNT(p.shared_load.bank_conflicts(), 32 * 31),
                      COUNT(p.worst_shared.worst_degree, 32)});
        CHECK(p.worst_shared.degree() == 32.0);
        CHECK(p.worst_shared.location ==
              tutorial::place_of("tests/profile_kernels/traffic_kernels.cu", "out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];"));
        // The picture: one word per lane, all 32 in bank 0, every one marked as conflicting.
        const std::string path = "build/emu/test-output/transpose-banks.svg";
        std::filesystem::create_directories("build/emu/test-output");
        tutorial::profile::write_bank_svg(path, "transpose_tile_kernel<0>", p.worst_shared);
        std::ifstream in(path);
        std::stringstream text;
        text << in.rdbuf();
        const std::string svg = text.str();
        std::size_t red_words = 0;
        for (std::size_t at = svg.find("fill='#f4c0c0'"); at != std::string::npos; at = svg.find("fill='#f4c0c0'", at + 1)) ++red_words;
        CHECK(red_words == 32);
        CHECK(svg.find("32-way bank conflict") != std::string::npos);
        CHECK(svg.find("transpose_tile_kernel&lt;0&gt;") != std::string::npos);  // XML, not a stray tag
    } else {
        // Lane t reads word 33t: bank t.
        check_counts({COUNT(p.shared_load.wavefronts, 32), COUNT(p.shared_load.bank_conflicts(), 0)});
    }
    CHECK(p.static_shared == 32 * (32 + pad) * sizeof(float));
    const std::vector<float> result = floats.out.download();
    for (int r = 0; r < 32; ++r)
        for (int c = 0; c < 32; ++c) REQUIRE(result[r * 32 + c] == floats.input[c * 32 + r]);
}

TEST_CASE("shared atomics count one instruction per warp and call; remote ones apart", "[profile]") {
    // 2 blocks of 48 threads: warps of 32 and 16 lanes, 3 calls each: 2 x 2 x 3 = 12
    // instructions, 2 x 48 x 3 = 288 atomics.
    Words words(3 * 2 * 48, 64, 21);
    const std::vector<unsigned>& values = words.values;
    const LaunchProfile local = profile_of([&] { traffic_kernels::shared_atomics(words.in.data(), words.out.data(), 2, 48); });
    check_counts({COUNT(local.shared_atomics.requests, 12), COUNT(local.shared_atomics.accesses, 288),
                  COUNT(local.remote_atomics.requests, 0)});
    const std::vector<unsigned> counts = words.out.download();
    for (int block = 0; block < 2; ++block) {
        std::vector<unsigned> expected(32, 0);
        for (int k = 0; k < 3; ++k) {
            for (int t = 0; t < 48; ++t) ++expected[values[(k * 2 + block) * 48 + t] % 32];
        }
        for (int b = 0; b < 32; ++b) REQUIRE(counts[block * 32 + b] == expected[b]);
    }

    CHECK(local.global_atomics.requests == 0);

    // 3 blocks of 40 threads (warps of 32 and 8 lanes), two global calls each: 3 x 2 x 2 =
    // 12 instructions, 3 x 40 x 2 = 240 atomics, and no shared ones.
    DeviceBuffer<unsigned> bins(std::vector<unsigned>(64, 0));
    const LaunchProfile global = profile_of([&] { traffic_kernels::global_atomics(words.in.data(), bins.data(), 3, 40); });
    check_counts({COUNT(global.global_atomics.requests, 12), COUNT(global.global_atomics.accesses, 240),
                  COUNT(global.shared_atomics.requests, 0)});
    std::vector<unsigned> expected_bins(64, 0);
    for (int i = 0; i < 3 * 40; ++i) {
        ++expected_bins[values[i] % 32];
        expected_bins[32 + i % 40 % 32] += values[i];
    }
    REQUIRE(bins.download() == expected_bins);

    // 4 blocks (2 clusters) of 64 threads, one local and one remote call each: 4 x 2 = 8
    // instructions and 256 atomics of each kind.
    DeviceBuffer<unsigned> pair_words(std::vector<unsigned>(256, 7));
    const LaunchProfile pairs = profile_of([&] { traffic_kernels::remote_atomics(words.in.data(), pair_words.data(), 4, 64); });
    check_counts({COUNT(pairs.shared_atomics.requests, 8), COUNT(pairs.shared_atomics.accesses, 256),
                  COUNT(pairs.remote_atomics.requests, 8), COUNT(pairs.remote_atomics.accesses, 256)});
    const std::vector<unsigned> sums = pair_words.download();
    for (int i = 0; i < 256; ++i) {
        const int block = i / 64, partner = block ^ 1, word = i % 32;
        unsigned expected = 0;
        for (int t = word; t < 64; t += 32) expected += values[block * 64 + t] + values[partner * 64 + t];
        REQUIRE(sums[i] == expected);
    }
}

TEST_CASE("loads through map_shared_rank count as DSMEM loads, one per warp, not as shared loads", "[profile]") {
    // 4 blocks (2 clusters) of 64 threads, one load each from the pair's shared memory:
    // 4 x 2 = 8 instructions and 256 accesses.
    Words words(256, 256, 29);
    const LaunchProfile pairs = profile_of([&] { traffic_kernels::remote_loads(words.in.data(), words.out.data(), 4, 64); });
    check_counts({COUNT(pairs.remote_accesses.requests, 8), COUNT(pairs.remote_accesses.accesses, 256),
                  COUNT(pairs.shared_load.requests, 0), COUNT(pairs.shared_store.requests, 8)});
    CHECK_FALSE(pairs.uncounted_casts);
    const std::vector<unsigned> got = words.out.download();
    for (int i = 0; i < 256; ++i) {
        const int block = i / 64, partner = block ^ 1;
        REQUIRE(got[i] == words.values[partner * 64 + i % 64]);
    }
}

TEST_CASE("a call site through map_shared_rank counts as DSMEM atomics, its own block's lanes included", "[profile]") {
    // 2 blocks (1 cluster) of 64 threads, one call site through map_shared_rank executed
    // twice, each time half its lanes naming their own block and each lane its own block
    // once: 2 x 2 x 2 = 8 instructions and 256 atomics, all DSMEM, as ncu counts them
    // (l1tex__t_requests_pipe_lsu_mem_dshared_op_atom). A lane's own-block and other-block
    // calls are one count: taken apart, the most of either per lane would give 4.
    Words words(128, 128, 23);
    const LaunchProfile mixed = profile_of([&] { traffic_kernels::mixed_rank_atomics(words.in.data(), words.out.data(), 2, 64); });
    check_counts({COUNT(mixed.remote_atomics.requests, 8), COUNT(mixed.remote_atomics.accesses, 256),
                  COUNT(mixed.shared_atomics.requests, 0)});
    const std::vector<unsigned> sums = words.out.download();
    for (int i = 0; i < 128; ++i) {
        const int word = i % 32;
        unsigned expected = 0;
        for (int b = 0; b < 2; ++b) {
            // Thread t of block b adds to both blocks, once each.
            for (int t = word; t < 64; t += 32) expected += words.values[b * 64 + t];
        }
        REQUIRE(sums[i] == expected);
    }
}

TEST_CASE("launches while counting is off are not recorded", "[profile]") {
    Floats floats(64, 64, 2);
    traffic_kernels::gather_float(floats.in.data(), floats.out.data(), 64, 1, 0);
    emu::traffic::start();
    CHECK(emu::traffic::take().empty());
}

TEST_CASE("cp.async copies are counted as global loads, and as LDGSTS apart, not as shared stores", "[profile]") {
    const int blocks = 3;
    const int copy_bytes = GENERATE(4, 16);
    INFO(copy_bytes << "-byte copies");
    Floats floats(blocks * 2048, blocks * 2048, 21);
    const LaunchProfile p =
        profile_of([&] { traffic_kernels::stage_tile_async(floats.in.data(), floats.out.data(), blocks, copy_bytes); });
    // 2048 floats a block: a warp copies 32 * copy_bytes consecutive bytes per request, so
    // 2048 * 4 / (32 * copy_bytes) requests a block (64 or 16), 8 KiB in 256 sectors.
    check_counts({COUNT(p.global_ldgsts.requests, std::uint64_t(blocks) * 2048 * 4 / (32 * copy_bytes)),
                  COUNT(p.global_ldgsts.sectors, std::uint64_t(blocks) * 256),
                  COUNT(p.global_ldgsts.bytes_requested, std::uint64_t(blocks) * 2048 * 4),
                  COUNT(p.global_ldgsts.unique_bytes, std::uint64_t(blocks) * 2048 * 4)});
    // The kernel has no other global load: ncu's global-load counters are the copies'.
    check_counts({COUNT(p.global_load.requests, p.global_ldgsts.requests), COUNT(p.global_load.sectors, p.global_ldgsts.sectors),
                  COUNT(p.global_load.unique_bytes, p.global_ldgsts.unique_bytes)});
    check_counts({COUNT(p.shared_store.requests, 0),
                  COUNT(p.shared_load.requests, std::uint64_t(blocks) * 8 * 8),  // 8 reads of a row by each of 8 warps
                  COUNT(p.bulk_copies, 0)});
    const std::vector<float> result = floats.out.download();
    for (int b = 0; b < blocks; ++b) {
        for (int i = 0; i < 2048; ++i) REQUIRE(result[b * 2048 + i] == floats.input[b * 2048 + 2047 - i]);
    }
}

TEST_CASE("float4 accesses through reinterpret_cast are counted as 16-byte accesses", "[profile]") {
    // 1024 threads, 32 warps: each warp's float4 load and store is one request of 32 x 16 =
    // 512 bytes, 16 sectors.
    Floats floats(4096, 4096, 21);
    const LaunchProfile p = profile_of([&] { traffic_kernels::copy_cast_float4(floats.in.data(), floats.out.data(), 1024); });
    CHECK_FALSE(p.uncounted_casts);
    check_counts({COUNT(p.global_load.requests, 32), COUNT(p.global_load.sectors, 32 * 16), COUNT(p.global_load.bytes_requested, 16384),
                  COUNT(p.global_store.requests, 32), COUNT(p.global_store.sectors, 32 * 16)});
    CHECK(floats.out.download() == floats.input);
}

TEST_CASE("every form of float4 cast is counted, in the memory it points into", "[profile]") {
    // 4 warps. Shared loads: a and b, 32 consecutive float4s per warp, 4 wavefronts each;
    // c, 8 float4s that every quarter-warp reads: 4 wavefronts too (an H100 shares a
    // quarter-warp's wavefront with the next one's only for 4 float4s or fewer).
    // Global loads: the float load of in (4 sectors a warp) and d (16 sectors).
    Floats floats(128, 128, 23);
    const std::vector<float>& input = floats.input;
    const LaunchProfile p = profile_of([&] { traffic_kernels::cast_forms(floats.in.data(), floats.out.data()); });
    CHECK_FALSE(p.uncounted_casts);
    check_counts({COUNT(p.shared_load.requests, 3 * 4), COUNT(p.shared_load.wavefronts, 4 * (4 + 4 + 4)),
                  COUNT(p.shared_store.requests, 2 * 4), COUNT(p.global_load.requests, 2 * 4),
                  COUNT(p.global_load.sectors, 4 * (4 + 16))});
    const std::vector<float> result = floats.out.download();
    const auto quad = [&](int first) {
        return input[first] + input[first + 1] + input[first + 2] + input[first + 3];
    };
    for (int t = 0; t < 128; ++t) {
        const int a = 4 * (t % 32), c = 32 + 4 * (t % 8);
        CHECK(result[t] == ((quad(a) + quad(a)) + quad(c)) + quad(a));
    }
}

TEST_CASE("a float4 pointer kept in an auto variable is counted, and its elements have components", "[profile]") {
    Floats floats(4096, 1024, 24);
    const LaunchProfile p = profile_of([&] { traffic_kernels::auto_pointer(floats.in.data(), floats.out.data(), 1024); });
    CHECK_FALSE(p.uncounted_casts);
    check_counts({COUNT(p.global_load.requests, 32), COUNT(p.global_load.bytes_requested, 16384)});
    const std::vector<float> result = floats.out.download();
    for (int i = 0; i < 1024; ++i) CHECK(result[i] == floats.input[4 * i]);
}

TEST_CASE("float4 accesses through a raw float4* variable are not counted, and the launch says so", "[profile]") {
    Floats floats(4096, 4096, 22);
    const LaunchProfile p = profile_of([&] { traffic_kernels::copy_raw_float4(floats.in.data(), floats.out.data(), 1024); });
    CHECK(p.uncounted_casts);
    CHECK(p.global_load.requests == 0);
    CHECK(floats.out.download() == floats.input);
}

TEST_CASE("8- and 16-byte shared loads take the wavefronts an H100 takes", "[profile]") {
    // The expected wavefronts are what Nsight Compute measured on an H100 for the same
    // kernels (make profile-probe BACKEND=cuda): one warp, one load of a float2 or float4
    // per lane, by pattern.
    using traffic_kernels::VectorPattern;
    struct Case {
        VectorPattern pattern;
        unsigned float2_wavefronts, float4_wavefronts;
    };
    const Case cases[] = {
        {VectorPattern::consecutive, 2, 4},     // 256 or 512 distinct bytes: 128 a wavefront
        {VectorPattern::same, 1, 2},            // one element: a float2 in one, a float4 in one per half-warp
        {VectorPattern::two_halves, 1, 2},      // one element per half-warp, no conflict
        {VectorPattern::halves_repeat, 2, 4},   // lanes 16-31 reading lanes 0-15's elements share nothing
        {VectorPattern::eights, 4, 4},          // four elements in the same banks
        {VectorPattern::every_other, 4, 8},     // 2-way in each phase
        {VectorPattern::rows_alternate, 4, 8},  // 2-way in each phase
    };
    for (const Case& c : cases) {
        for (int floats : {2, 4}) {
            CAPTURE(static_cast<int>(c.pattern), floats);
            DeviceBuffer<float> out(std::vector<float>(32, -7.0f));
            const LaunchProfile p = profile_of([&] { traffic_kernels::shared_vectors(out.data(), floats, c.pattern); });
            // The stores: 1024 floats, one consecutive vector per lane, 128 bytes a wavefront.
            check_counts({COUNT(p.shared_load.requests, 1),
                          COUNT(p.shared_load.wavefronts, floats == 2 ? c.float2_wavefronts : c.float4_wavefronts),
                          COUNT(p.shared_store.requests, 1024u / floats / 32), COUNT(p.shared_store.wavefronts, 32)});
            CHECK_FALSE(p.uncounted_casts);
            if (c.pattern == VectorPattern::consecutive) {
                // Lane t's vector starts at word floats * t, which holds t.
                const std::vector<float> result = out.download();
                for (int t = 0; t < 32; ++t) {
                    const float first = static_cast<float>(t);
                    CHECK(result[t] == (floats == 2 ? first + (first + 0.5f) : first + (first + 0.25f) + (first + 0.5f) + (first + 0.75f)));
                }
            }
        }
    }
}

TEST_CASE("an unrolled loop along a shared row is counted as the 16-byte loads nvcc makes of it", "[profile]") {
    // Chapter 2's loop in small: 8 warps, each 16 executions of tile[y][k] (a broadcast per
    // half-warp) and of tile[k][x]. nvcc loads tile[y][k..k+3] with one 16-byte load: 4 per
    // warp, 2 wavefronts each (each half-warp's lanes read one element); tile[k][x] stays 16
    // 4-byte loads of one wavefront. So 8 x (4 + 16) requests and 8 x (8 + 16) wavefronts,
    // as an H100 measures.
    DeviceBuffer<float> out(std::vector<float>(256, -7.0f));
    const LaunchProfile p = profile_of([&] { traffic_kernels::row_times_column(out.data()); });
    check_counts({COUNT(p.shared_load.requests, 8 * (4 + 16)), COUNT(p.shared_load.wavefronts, 8 * (8 + 16)),
                  COUNT(p.shared_load.bank_conflicts(), 0)});
    const std::vector<float> result = out.download();
    for (int y = 0; y < 16; ++y) {
        for (int x = 0; x < 16; ++x) {
            float sum = 0.0f;
            for (int k = 0; k < 16; ++k) sum += static_cast<float>(y * 16 + k) * static_cast<float>(k * 16 + x);
            CHECK(result[y * 16 + x] == sum);  // small integers: exact in float
        }
    }
}

TEST_CASE("8- and 16-byte shared accesses are served in phases of 16 and 8 lanes", "[profile]") {
    using emu::traffic::LaneAccess;
    // Every lane active, lane l at byte stride * l, elements of `bytes` bytes: the wavefronts
    // of one request, and without conflicts (0: not checked).
    struct Case {
        const char* what;
        unsigned stride, bytes, phase_lanes, wavefronts, ideal;
    };
    const Case cases[] = {
        {"consecutive 8-byte elements: 2 phases, no conflict", 8, 8, 16, 2, 2},
        {"consecutive 16-byte elements: 4 phases, no conflict", 16, 16, 8, 4, 4},
        {"16-byte elements 128 bytes apart: each phase of 8 lanes is 8-way", 128, 16, 8, 32, 4},
        {"1-byte elements: four lanes share a word", 1, 1, 32, 1, 0},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        LaneAccess lanes[32];
        for (unsigned l = 0; l < 32; ++l) lanes[l] = LaneAccess{true, std::uint64_t(c.stride) * l, c.bytes};
        unsigned ideal = 0;
        CHECK(emu::traffic::shared_wavefronts(lanes, c.phase_lanes, &ideal) == c.wavefronts);
        if (c.ideal != 0) CHECK(ideal == c.ideal);
    }
    // Only active lanes count: two, in one bank.
    LaneAccess two_lanes[32];
    two_lanes[3] = LaneAccess{true, 0, 4};
    two_lanes[9] = LaneAccess{true, 128, 4};
    unsigned ideal = 0;
    CHECK(emu::traffic::shared_wavefronts(two_lanes, 32, &ideal) == 2);
    CHECK(ideal == 1);
}

// ---- Bytes in flight -----------------------------------------------------------------
// What a block loads between two barriers: the largest such span of any block.

TEST_CASE("bytes loaded before a wait: the sectors of the largest span between barriers, of any block", "[profile]") {
    SECTION("a kernel without barriers is one span: a block of 256 threads loads 1 KiB in 8 requests") {
        // 1000 threads: three blocks of 256 floats, the last of 232 (928 bytes): the largest is 1024.
        const LaunchProfile p = gather(1000, 1, 0);
        check_counts({COUNT(p.loads_before_wait, 256 * 4), COUNT(p.loads_before_wait_requests, 256 / 32)});
    }
    SECTION("two spans of loads: 1 KiB, then 2 KiB; the second is the largest") {
        const int blocks = 3;
        Floats floats(blocks * 768, blocks * 256, 31);
        const LaunchProfile p = profile_of([&] { traffic_kernels::two_spans(floats.in.data(), floats.out.data(), blocks); });
        // The second span: 2 loads of 256 floats, 8 warps each, 16 requests of 128 bytes.
        check_counts({COUNT(p.loads_before_wait, 2 * 256 * 4), COUNT(p.loads_before_wait_requests, 2 * 8), COUNT(p.barriers, blocks * 2),
                      COUNT(p.global_load.bytes_requested, blocks * 768 * 4)});
        const std::vector<float> result = floats.out.download();
        for (int b = 0; b < blocks; ++b) {
            for (int t = 0; t < 256; ++t) {
                const float* in = &floats.input[b * 768];
                REQUIRE(result[b * 256 + t] == in[255 - t] + in[256 + t] + in[512 + t]);
            }
        }
    }
    SECTION("a tile staged before one barrier: the whole tile, 8 KiB, whatever the copies' width") {
        const int blocks = 2;
        Floats floats(blocks * 2048, blocks * 2048, 32);
        const LaunchProfile loads = profile_of([&] { traffic_kernels::stage_tile(floats.in.data(), floats.out.data(), blocks, false); });
        // 2048 floats by 8 warps: 64 requests of 128 bytes.
        check_counts({COUNT(loads.loads_before_wait, 2048 * 4), COUNT(loads.loads_before_wait_requests, 2048 / 32)});
        const int copy_bytes = GENERATE(4, 16);
        INFO(copy_bytes << "-byte cp.async copies");
        const LaunchProfile copies =
            profile_of([&] { traffic_kernels::stage_tile_async(floats.in.data(), floats.out.data(), blocks, copy_bytes); });
        // The copies' global side: 8 KiB in 8192 / (32 * copy_bytes) requests.
        check_counts({COUNT(copies.loads_before_wait, 2048 * 4), COUNT(copies.loads_before_wait_requests, 2048 * 4 / (32 * copy_bytes))});
    }
    SECTION("what the loads fetch, not what the lanes ask for: the distinct sectors") {
        // Stride 2: a warp's 32 floats span 256 bytes, 8 sectors; a block of 8 warps, 64 sectors.
        const LaunchProfile strided = gather(1024, 2, 0);
        check_counts({COUNT(strided.loads_before_wait, 64 * 32), COUNT(strided.global_load.bytes_requested, 4096)});
        // Every lane of every warp reads in[0]: 8 requests a block, one sector.
        Floats floats(1, 512, 33);
        const LaunchProfile broadcast =
            profile_of([&] { traffic_kernels::broadcast_float(floats.in.data(), floats.out.data(), 512); });
        check_counts({COUNT(broadcast.loads_before_wait, 32), COUNT(broadcast.loads_before_wait_requests, 8)});
        for (float value : floats.out.download()) REQUIRE(value == floats.input[0]);
    }
    SECTION("a kernel that loads nothing from global memory has nothing in flight") {
        DeviceBuffer<float> out(std::vector<float>(32, -7.0f));
        const LaunchProfile p = profile_of([&] { traffic_kernels::shared_words(out.data(), traffic_kernels::SharedPattern::consecutive); });
        check_counts({COUNT(p.loads_before_wait, 0), COUNT(p.loads_before_wait_requests, 0)});
    }
}

TEST_CASE("the profile's bytes-in-flight rows: a block's bytes times its blocks per SM, against Little's law", "[profile]") {
    // gather_float over 2 blocks of 256 threads: each block loads 256 floats, 1 KiB, before
    // it ends. With the 32 registers the report below gives, sm_90 holds 8 blocks per SM
    // (64 warps of 8, and 8 x 256 x 32 registers = all 65536): 8 KiB per SM, against the
    // 2466000 / 132 = 18681.8 bytes an H200 needs, 43.85%, printed to a tenth: 43.9.
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tutorial-profile-in-flight";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string ptxas = (dir / "ptxas.txt").string();
    std::ofstream(ptxas) << "ptxas info    : Compiling entry function '_ZN15traffic_kernels19gather_float_kernelEPKfPfiii' for 'sm_90'\n"
                            "ptxas info    : Used 32 registers, used 0 barriers\n";
    Floats floats(512, 512, 42);
    tutorial::profile::Chapter chapter{0, "in-flight", "512 floats", {}};
    chapter.variants.push_back({"gather", "traffic_kernels::gather_float_kernel", 0,
                                [&] { traffic_kernels::gather_float(floats.in.data(), floats.out.data(), 512, 1, 0); }});
    const std::string out = dir.string();
    const char* argv[] = {"profile", "--arch", "sm_90", "--ptxas", ptxas.c_str(), "--out", out.c_str()};
    std::fflush(stdout);  // the report goes to the terminal: sent to the file, out of the test's output
    const int terminal = dup(1);
    REQUIRE(std::freopen((dir / "report.txt").string().c_str(), "w", stdout) != nullptr);
    const int status = tutorial::profile::run(7, const_cast<char**>(argv), chapter);
    std::fflush(stdout);
    dup2(terminal, 1);
    close(terminal);
    REQUIRE(status == 0);
    std::map<std::string, double> rows;  // counter -> predicted, of the group "bytes in flight"
    std::ifstream csv(dir / "in-flight-predicted.csv");
    for (std::string line; std::getline(csv, line);) {
        const std::string group = ",\"bytes in flight\",\"";
        const std::size_t at = line.find(group);
        if (at == std::string::npos) continue;
        const std::size_t name_end = line.find('"', at + group.size());
        rows[line.substr(at + group.size(), name_end - at - group.size())] = std::stod(line.substr(name_end + 2));
    }
    CHECK(rows["loaded before a wait"] == 1024);
    CHECK(rows["per SM"] == 8 * 1024);
    CHECK(rows["Little's law needs"] == 18682);
    CHECK(rows["share of copy rate %"] == Approx(43.9));
    CHECK(rows.size() == 4);
}
#endif

TEST_CASE("Little's law: the bytes in flight an SM needs, and the share of the copy rate they allow", "[profile]") {
    const tutorial::profile::GpuMemory* h200 = tutorial::profile::gpu_memory_for("sm_90");
    REQUIRE(h200 != nullptr);
    CHECK(std::string(h200->gpu) == "H200 SXM");
    // 4.11e12 B/s x 600e-9 s = 2,466,000 bytes across 132 SMs: 18681.8 bytes each.
    CHECK(tutorial::profile::bytes_in_flight_needed_per_sm(*h200) == Approx(2466000.0 / 132).epsilon(1e-12));
    // Half of it allows half the copy rate; twice as much, no more than all of it.
    CHECK(tutorial::profile::share_of_copy_rate(2466000.0 / 132 / 2, *h200) == Approx(0.5).epsilon(1e-12));
    CHECK(tutorial::profile::share_of_copy_rate(2 * 2466000.0 / 132, *h200) == 1.0);
    // 3 blocks of a 3.5 KiB tile each (10752 bytes per SM): 10752 / 18681.8 = 57.6%.
    CHECK(tutorial::profile::share_of_copy_rate(3 * 3584.0, *h200) == Approx(10752.0 * 132 / 2466000.0).epsilon(1e-12));
    CHECK(tutorial::profile::gpu_memory_for("sm_75") == nullptr);
}

// ---- Occupancy -----------------------------------------------------------------------
// Hand-computed from each architecture's limits (gpu_model/src/occupancy.cpp); the arithmetic is
// in the comments.

TEST_CASE("occupancy on sm_90 names the resource that limits it", "[profile][occupancy]") {
    const tutorial::ArchitectureLimits h100 = tutorial::architecture_limits("sm_90");
    SECTION("256 threads, 32 registers, no shared memory: 8 blocks fill the 64 warps") {
        // warps: 64 / 8 = 8; registers: 32 x 32 = 1024 per warp, 16 warps per sub-partition
        // of 16384, 64 warps / 8 = 8 blocks; shared: the reserved 1 KiB, 228 blocks.
        const tutorial::Occupancy o = tutorial::theoretical_occupancy(h100, {256, 32, 0, 0});
        CHECK(o.blocks_per_sm == 8);
        CHECK(o.fraction() == 1.0);
        CHECK(o.limiting() == "threads and registers");
        CHECK(o.blocks_by_shared == 228);
    }
    SECTION("1024 threads, 64 registers: registers allow one block") {
        // 64 x 32 = 2048 per warp, 8 warps per sub-partition, 32 per SM: 1 block of 32 warps.
        const tutorial::Occupancy o = tutorial::theoretical_occupancy(h100, {1024, 64, 0, 0});
        CHECK(o.blocks_per_sm == 1);
        CHECK(o.warps_per_sm == 32);
        CHECK(o.limiting() == "registers");
        CHECK(o.fraction() == 0.5);
    }
    SECTION("256 threads, 40 KiB of dynamic shared memory: 5 blocks") {
        // 40 KiB + 1 KiB reserved = 41984 bytes; 233472 / 41984 = 5.56.
        const tutorial::Occupancy o = tutorial::theoretical_occupancy(h100, {256, 32, 0, 40 * 1024});
        CHECK(o.blocks_per_sm == 5);
        CHECK(o.shared_allocated_per_block == 41984);
        CHECK(o.limiting() == "shared memory");
    }
    SECTION("past 48 KiB, opted in: 100 KiB gives 2 blocks") {
        // 101 KiB allocated; 228 / 101 = 2.
        const tutorial::Occupancy o = tutorial::theoretical_occupancy(h100, {256, 32, 0, 100 * 1024});
        CHECK(o.blocks_per_sm == 2);
    }
    SECTION("more than the opt-in limit: no block fits") {
        const tutorial::Occupancy o = tutorial::theoretical_occupancy(h100, {256, 32, 0, 228 * 1024});
        CHECK(o.blocks_per_sm == 0);
        CHECK(o.limiting() == "shared memory");
    }
    SECTION("small blocks: 32 threads hit the block limit of 32") {
        const tutorial::Occupancy o = tutorial::theoretical_occupancy(h100, {32, 16, 0, 0});
        CHECK(o.blocks_per_sm == 32);
        CHECK(o.limiting() == "blocks");
        CHECK(o.fraction() == 0.5);
    }
    SECTION("register rounding: 33 registers round up to 1280 per warp") {
        // 33 x 32 = 1056 -> 1280; 16384 / 1280 = 12 warps per sub-partition, 48 per SM: 6 blocks of 8.
        const tutorial::Occupancy o = tutorial::theoretical_occupancy(h100, {256, 33, 0, 0});
        CHECK(o.blocks_per_sm == 6);
        CHECK(o.limiting() == "registers");
    }
}

TEST_CASE("occupancy follows each architecture's limits", "[profile][occupancy]") {
    SECTION("sm_75: 1024 threads per SM, 256-byte shared units, nothing reserved") {
        const tutorial::ArchitectureLimits t4 = tutorial::architecture_limits("sm_75");
        CHECK(tutorial::theoretical_occupancy(t4, {256, 32, 0, 0}).blocks_per_sm == 4);
        // 2049 bytes round up to 2304; 65536 / 2304 = 28, but 16 block slots.
        const tutorial::Occupancy o = tutorial::theoretical_occupancy(t4, {64, 32, 2049, 0});
        CHECK(o.shared_allocated_per_block == 2304);
        CHECK(o.blocks_by_shared == 28);
        CHECK(o.blocks_per_sm == 16);
        CHECK(o.limiting() == "threads and blocks");
    }
    SECTION("sm_80: 2048 threads and 164 KiB") {
        const tutorial::ArchitectureLimits a100 = tutorial::architecture_limits("80");
        // 16 KiB + 1 KiB = 17408; 167936 / 17408 = 9.6.
        const tutorial::Occupancy o = tutorial::theoretical_occupancy(a100, {128, 32, 16 * 1024, 0});
        CHECK(o.blocks_per_sm == 9);
        CHECK(o.limiting() == "shared memory");
    }
    SECTION("sm_86: 1536 threads, 16 blocks") {
        const tutorial::ArchitectureLimits ga102 = tutorial::architecture_limits("sm_86");
        // 48 warps / 8 = 6 blocks of 256.
        CHECK(tutorial::theoretical_occupancy(ga102, {256, 32, 0, 0}).blocks_per_sm == 6);
        // 100 KiB / (8 KiB + 1 KiB) = 11.
        CHECK(tutorial::theoretical_occupancy(ga102, {64, 32, 8 * 1024, 0}).blocks_per_sm == 11);
    }
    SECTION("sm_89 and sm_120: 24 blocks") {
        for (const char* name : {"sm_89", "sm_120"}) {
            const tutorial::Occupancy o = tutorial::theoretical_occupancy(tutorial::architecture_limits(name), {32, 16, 0, 0});
            CHECK(o.blocks_per_sm == 24);
            CHECK(o.limiting() == "blocks");
        }
    }
    SECTION("sm_100: as sm_90") {
        CHECK(tutorial::theoretical_occupancy(tutorial::architecture_limits("sm_100"), {1024, 64, 0, 0}).blocks_per_sm == 1);
    }
    SECTION("an unknown architecture is refused by name") {
        std::string message;
        try {
            tutorial::architecture_limits("sm_61");
        } catch (const std::invalid_argument& error) {
            message = error.what();
        }
        CHECK(message.find("'sm_61'") != std::string::npos);
        CHECK(message.find("sm_75") != std::string::npos);
    }
    SECTION("a block of more than 1024 threads never fits") {
        const tutorial::Occupancy o = tutorial::theoretical_occupancy(tutorial::architecture_limits("sm_90"), {1056, 16, 0, 0});
        CHECK(o.blocks_per_sm == 0);
        CHECK(o.limiting() == "threads");
    }
}
