// The CPU backend's tensor-core instructions: `make test-emu` (BACKEND=emu only).
//
// ldmatrix's and mma.sync's fragments are checked against the PTX ISA's layouts, written
// out here from the ISA's figures independently of the backend's code (emu/src/
// tensor_core.cpp); then a wrong fragment index must give a wrong D, and each planted
// misuse must be reported with the message a student would see, at its file and line.
#include "emu_support.h"

#include <cuda_bf16.h>

#include <cstdint>
#include <limits>

using namespace emu_tests;

namespace {

// Element (r, c) of the 16 × 16 test tile: a distinct small integer, exact in BF16.
float tile_value(int r, int c) { return static_cast<float>(r * 16 + c - 128); }

std::uint32_t bits_of(float value) { return __bfloat16_as_ushort(__float2bfloat16(value)); }

// A register holding elements (r0, c0) (low half) and (r1, c1) (high half) of the tile.
std::uint32_t pair_of(int r0, int c0, int r1, int c1) { return bits_of(tile_value(r0, c0)) | bits_of(tile_value(r1, c1)) << 16; }

}  // namespace

TEST_CASE("the BF16 conversion rounds to nearest, ties to even, and keeps NaN a NaN", "[emu]") {
    // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: to the even one, 1.
    CHECK(__bfloat162float(__float2bfloat16(1.0f + 0x1p-8f)) == 1.0f);
    // 1 + 3 · 2^-8 lies halfway between 1 + 2^-7 and 1 + 2^-6: to the even one, 1 + 2^-6.
    CHECK(__bfloat162float(__float2bfloat16(1.0f + 3 * 0x1p-8f)) == 1.0f + 0x1p-6f);
    // Just above halfway: up.
    CHECK(__bfloat162float(__float2bfloat16(1.0f + 0x1p-8f + 0x1p-20f)) == 1.0f + 0x1p-7f);
    CHECK(__bfloat162float(__float2bfloat16(-2.5f)) == -2.5f);
    const float nan = __bfloat162float(__float2bfloat16(std::numeric_limits<float>::quiet_NaN()));
    CHECK(nan != nan);
}

TEST_CASE("ldmatrix gives each lane the elements of the PTX ISA's layout, transposed with .trans", "[emu]") {
    std::vector<float> tile(16 * 16);
    for (int r = 0; r < 16; ++r) {
        for (int c = 0; c < 16; ++c) tile[r * 16 + c] = tile_value(r, c);
    }
    std::vector<__nv_bfloat16> tile16(tile.size());
    for (std::size_t i = 0; i < tile.size(); ++i) tile16[i] = __float2bfloat16(tile[i]);
    const DeviceBuffer<__nv_bfloat16> in(tile16);
    const struct {
        planted::LdmatrixVariant variant;
        const char* name;
        int matrices;
        bool trans;
    } variants[] = {{planted::LdmatrixVariant::x4, "x4", 4, false},
                    {planted::LdmatrixVariant::x4_trans, "x4.trans", 4, true},
                    {planted::LdmatrixVariant::x2, "x2", 2, false},
                    {planted::LdmatrixVariant::x2_trans, "x2.trans", 2, true}};
    for (const auto& v : variants) {
        DeviceBuffer<std::uint32_t> out(32 * 4);
        planted::ldmatrix_fragments(in.data(), out.data(), v.variant);
        const std::vector<std::uint32_t> got = out.download();
        for (int lane = 0; lane < 32; ++lane) {
            for (int i = 0; i < v.matrices; ++i) {
                // Matrix i: rows 8 (i % 2), columns 8 (i / 2) of the tile (lanes 8i..8i+7 point
                // at its rows). Lane l holds row l / 4, columns 2 (l % 4) and + 1; with .trans,
                // column l / 4, rows 2 (l % 4) and + 1.
                const int top = 8 * (i % 2), left = 8 * (i / 2), g = lane / 4, p = 2 * (lane % 4);
                const std::uint32_t expected = v.trans ? pair_of(top + p, left + g, top + p + 1, left + g)
                                                       : pair_of(top + g, left + p, top + g, left + p + 1);
                INFO("ldmatrix ." << v.name << ", lane " << lane << ", register " << i);
                CHECK(got[4 * lane + i] == expected);
            }
        }
    }
}

TEST_CASE("mma.sync m16n8k16 gives D = A·B + C exactly on small integers, and a wrong fragment index gives a wrong D",
          "[emu]") {
    // Small integers: every product and sum is exact in FP32, so D must equal the reference.
    std::vector<float> A(16 * 16), B(16 * 8), C(16 * 8), expected(16 * 8);
    for (int i = 0; i < 16 * 16; ++i) A[i] = static_cast<float>((i * 7) % 11 - 5);
    for (int i = 0; i < 16 * 8; ++i) B[i] = static_cast<float>((i * 5) % 9 - 4);
    for (int i = 0; i < 16 * 8; ++i) C[i] = static_cast<float>(i % 13);
    for (int r = 0; r < 16; ++r) {
        for (int n = 0; n < 8; ++n) {
            float sum = C[r * 8 + n];
            for (int k = 0; k < 16; ++k) sum += A[r * 16 + k] * B[k * 8 + n];
            expected[r * 8 + n] = sum;
        }
    }
    const auto to_bf16 = [](const std::vector<float>& values) {
        std::vector<__nv_bfloat16> out(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) out[i] = __float2bfloat16(values[i]);
        return out;
    };
    const DeviceBuffer<__nv_bfloat16> dA(to_bf16(A)), dB(to_bf16(B));
    const DeviceBuffer<float> dC(C);
    const auto wrong_elements = [&](planted::FragmentBug bug) {
        DeviceBuffer<float> D(16 * 8);
        D.poison();
        planted::mma_tile(dA.data(), dB.data(), dC.data(), D.data(), bug);
        const std::vector<float> got = D.download();
        int wrong = 0;
        for (int i = 0; i < 16 * 8; ++i) wrong += got[i] != expected[i];
        return wrong;
    };
    CHECK(wrong_elements(planted::FragmentBug::none) == 0);
    // A's matrices in the wrong order swap columns 8-15 of rows 0-7 with columns 0-7 of rows
    // 8-15: every element of D is then wrong.
    CHECK(wrong_elements(planted::FragmentBug::a_matrix_order) > 64);
    // C's rows from lane % 8: lanes 0 and 8 (and others) then write the same elements of D,
    // which the backend reports as two threads storing one word, naming both.
    check_says(error_text([&] { wrong_elements(planted::FragmentBug::c_row); }, cudaErrorLaunchFailure),
               {"race in mma_tile_kernel", "global word D[0]", "Thread (0,0,0) changed it at " +
                    place_of("tests/emu_planted/tensor_cores.cu", "D[row * 8 + pair] = d[0];") + ", then thread (8,0,0)"});
}

TEST_CASE("a barrier missing between the warps' ldmatrix and the next refill of the tiles is reported as order "
          "dependent",
          "[emu]") {
    // Small integers, exact in BF16 and in every FP32 sum.
    const int steps = 3;
    std::vector<__nv_bfloat16> A(steps * 16 * 16), B(steps * 16 * 8);
    std::vector<float> expected(16 * 8, 0.0f);
    for (int s = 0; s < steps; ++s) {
        for (int i = 0; i < 16 * 16; ++i) A[s * 256 + i] = __float2bfloat16(static_cast<float>((i * 3 + s * 5) % 7 - 3));
        for (int i = 0; i < 16 * 8; ++i) B[s * 128 + i] = __float2bfloat16(static_cast<float>((i * 5 + s) % 5 - 2));
        for (int r = 0; r < 16; ++r) {
            for (int n = 0; n < 8; ++n) {
                for (int k = 0; k < 16; ++k) {
                    expected[r * 8 + n] +=
                        __bfloat162float(A[s * 256 + r * 16 + k]) * __bfloat162float(B[s * 128 + k * 8 + n]);
                }
            }
        }
    }
    const DeviceBuffer<__nv_bfloat16> dA(A), dB(B);
    DeviceBuffer<float> D(2 * 16 * 8);
    // The correct twin: both warps' D right, under every schedule.
    planted::mma_steps(dA.data(), dB.data(), D.data(), steps, true);
    const std::vector<float> got = D.download();
    for (int w = 0; w < 2; ++w) {
        for (int i = 0; i < 16 * 8; ++i) {
            INFO("warp " << w << ", D element " << i);
            CHECK(got[w * 128 + i] == expected[i]);
        }
    }
    // Without the barrier, the first warp in the order refills the tiles before the other
    // read them: its D differs between the orders.
    check_says(error_text([&] { planted::mma_steps(dA.data(), dB.data(), D.data(), steps, false); },
                          cudaErrorLaunchFailure),
               {"result depends on thread order", "mma_steps_kernel<false>", "forward order and in reverse order"});
}

TEST_CASE("a misused ldmatrix or mma.sync is reported with what is wrong, at its file and line", "[emu]") {
    const std::string file = "tests/emu_planted/tensor_cores.cu";
    const struct {
        planted::TensorCoreMisuse misuse;
        std::vector<std::string> says;
    } cases[] = {
        {planted::TensorCoreMisuse::misaligned_row,
         {"bad ldmatrix in ldmatrix_misaligned_planted", "(lane 0 of warp 0), " +
              site_of(file, "tutorial::ldmatrix_x4(r, &tile[lane % 16 * 16 + lane / 16 * 8 + 1]);"),
          "this lane's row address is 2 bytes past a 16-byte boundary (byte offset 2 of shared variable tile)",
          "must be 16-byte aligned"}},
        {planted::TensorCoreMisuse::ldmatrix_in_branch,
         {"ldmatrix whose mask names lanes that", "ldmatrix_in_branch_planted",
          "lanes 0-15 wait at ldmatrix " +
              site_of(file, "if (lane < 16) tutorial::ldmatrix_x4(r, &tile[lane % 16 * 16 + lane / 16 * 8]);")}},
        {planted::TensorCoreMisuse::rows_in_global_memory,
         {"bad ldmatrix in ldmatrix_from_global_planted",
          site_of(file, "tutorial::ldmatrix_x4(r, &in[lane % 16 * 16 + lane / 16 * 8]);"),
          "is not in the block's shared memory (it points into a cudaMalloc buffer: global memory)"}},
        {planted::TensorCoreMisuse::mma_in_partial_warp,
         {"bad mma.sync in mma_in_partial_warp_planted", "(lane 0 of warp 1)",
          site_of(file, "tutorial::mma_m16n8k16_bf16(d, a, b, d);"),
          "this warp has only 16 lanes (the block has 48 threads)"}},
    };
    std::vector<__nv_bfloat16> zeros(16 * 16, __float2bfloat16(0.0f));
    const DeviceBuffer<__nv_bfloat16> in(zeros);
    for (const auto& c : cases) {
        DeviceBuffer<std::uint32_t> out(48);
        DeviceBuffer<float> out_floats(48);
        check_says(error_text([&] { planted::tensor_core_misuse(c.misuse, in.data(), out.data(), out_floats.data()); },
                              cudaErrorLaunchFailure),
                   c.says);
    }
}

// ---- Hopper's warpgroup MMA: wgmma.mma_async with shared-memory descriptors ---------------

namespace {

const char* const kWgmmaFile = "tests/emu_planted/wgmma.cu";
const char* const kWgmmaMnCall = "tutorial::wgmma_m64n256k16_bf16<WgmmaMajor::k, WgmmaMajor::mn>(acc, a, b, accumulate);";

// D = A·B for wgmma_tile(): A 64 × K, B K × 256 (or, for none_b_k_major, 256 × K), small
// integers, exact in BF16 and in every FP32 sum.
struct WgmmaOperands {
    int k_tiles;
    std::vector<float> A, B, expected;
    DeviceBuffer<__nv_bfloat16> dA, dB, dBt;

    static std::vector<__nv_bfloat16> bf16(const std::vector<float>& values) {
        std::vector<__nv_bfloat16> out(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) out[i] = __float2bfloat16(values[i]);
        return out;
    }
    static std::vector<float> values(std::size_t count, int seed) {
        std::vector<float> out(count);
        for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<float>((i * 7 + seed * 3 + i / 61) % 9) - 4.0f;
        return out;
    }
    static std::vector<float> transposed(const std::vector<float>& B, int K) {
        std::vector<float> out(B.size());
        for (int k = 0; k < K; ++k) {
            for (int n = 0; n < 256; ++n) out[static_cast<std::size_t>(n) * K + k] = B[static_cast<std::size_t>(k) * 256 + n];
        }
        return out;
    }

    explicit WgmmaOperands(int tiles)
        : k_tiles(tiles), A(values(64 * 64 * static_cast<std::size_t>(tiles), 1)),
          B(values(64 * 256 * static_cast<std::size_t>(tiles), 2)), expected(64 * 256, 0.0f), dA(bf16(A)), dB(bf16(B)),
          dBt(bf16(transposed(B, 64 * tiles))) {
        const int K = 64 * tiles;
        for (int m = 0; m < 64; ++m) {
            for (int n = 0; n < 256; ++n) {
                for (int k = 0; k < K; ++k) expected[m * 256 + n] += A[m * K + k] * B[k * 256 + n];
            }
        }
    }
    void run(planted::WgmmaBug bug, DeviceBuffer<float>& D) const {
        planted::wgmma_tile(dA.data(), bug == planted::WgmmaBug::none_b_k_major ? dBt.data() : dB.data(), D.data(), k_tiles,
                            bug);
    }
    std::string error(planted::WgmmaBug bug) const {
        DeviceBuffer<float> D(64 * 256);
        return error_text([&] { run(bug, D); }, cudaErrorLaunchFailure);
    }
};

}  // namespace

TEST_CASE("wgmma m64n256k16 reads a K-major A and a B either MN-major or K-major through 128-byte swizzled "
          "descriptors of the TMA's tiles: D = A·B exactly",
          "[emu]") {
    const WgmmaOperands operands(2);
    for (const planted::WgmmaBug bug : {planted::WgmmaBug::none, planted::WgmmaBug::none_b_k_major}) {
        DeviceBuffer<float> D(64 * 256);
        D.poison();
        operands.run(bug, D);
        const std::vector<float> got = D.download();
        int wrong = 0, first = -1;
        for (int i = 0; i < 64 * 256; ++i) {
            if (got[i] != operands.expected[i] && wrong++ == 0) first = i;
        }
        INFO((bug == planted::WgmmaBug::none ? "B MN-major" : "B K-major") << ": first wrong D(" << first / 256 << ", "
                                                                           << first % 256 << ")");
        CHECK(wrong == 0);
    }
}

TEST_CASE("a wgmma descriptor that does not read the tile as the TMA wrote it is named: its swizzle mode, stride "
          "byte offset or leading byte offset",
          "[emu]") {
    const WgmmaOperands operands(1);
    const std::string at = site_of(kWgmmaFile, kWgmmaMnCall);
    check_says(operands.error(planted::WgmmaBug::b_no_swizzle),
               {"bad wgmma.mma_async in wgmma_tile_planted<WgmmaBug::b_no_swizzle>", at,
                "B's descriptor (start address byte", "does not match how its tile was written: the TMA copy at " +
                    place_of(kWgmmaFile, "B's boxes"),
                "CU_TENSOR_MAP_SWIZZLE_128B", "reads it with no swizzle (bits 62-63)"});
    check_says(operands.error(planted::WgmmaBug::b_stride_512),
               {"bad wgmma.mma_async", at, "stride byte offset 512", "does not read the tile as the TMA wrote it",
                "Rows 8 and on (k = 8 and on for an MN-major operand) disagree: check the stride byte offset"});
    check_says(operands.error(planted::WgmmaBug::b_leading_4096),
               {"bad wgmma.mma_async", at, "leading byte offset 4096", "its element (n = 64, k = 0)",
                "Elements 64 and on along N disagree: check the leading byte offset"});
}

TEST_CASE("a wgmma descriptor whose start address is off the 128-byte swizzle's 1024-byte boundary is reported",
          "[emu]") {
    const WgmmaOperands operands(1);
    check_says(operands.error(planted::WgmmaBug::a_start_off_1024),
               {"bad wgmma.mma_async", site_of(kWgmmaFile, kWgmmaMnCall), "A's descriptor",
                "is 128 bytes past a 1024-byte boundary, which is not aligned as the 128-byte swizzle needs",
                "Start every tile (each stage's A and B) on a 1024-byte boundary"});
}

TEST_CASE("a wgmma that reads a stage before its barrier's phase completed is reported", "[emu]") {
    const WgmmaOperands operands(1);
    check_says(operands.error(planted::WgmmaBug::no_barrier_wait),
               {"wgmma.mma_async " + site_of(kWgmmaFile, kWgmmaMnCall) + " reads its operand from shared memory",
                "cp_async_bulk_tensor_2d_global_to_shared()", "wait for the stage's barrier"});
}

TEST_CASE("a missing wgmma.fence, commit or wait before the accumulators are read is reported", "[emu]") {
    const WgmmaOperands operands(1);
    check_says(operands.error(planted::WgmmaBug::no_fence),
               {"bad wgmma.mma_async", site_of(kWgmmaFile, kWgmmaMnCall), "no wgmma.fence since this thread could last "
                                                                          "access these accumulator registers"});
    check_says(operands.error(planted::WgmmaBug::no_commit),
               {"wgmma.mma_async never committed", "the wgmma issued " + site_of(kWgmmaFile, kWgmmaMnCall),
                "wgmma.commit_group()"});
    check_says(operands.error(planted::WgmmaBug::no_wait),
               {"wgmma accumulators read while still in flight", "the wgmma group committed " +
                    site_of(kWgmmaFile, "if (BUG != WgmmaBug::no_commit) tutorial::wgmma_commit_group();"),
                "wgmma.wait_group(0)"});
}

TEST_CASE("a TMA copy that refills a stage a wgmma in flight still reads is reported", "[emu]") {
    const WgmmaOperands operands(2);
    check_says(operands.error(planted::WgmmaBug::refill_before_wait),
               {"a TMA copy refills shared memory that a wgmma still reads",
                "cp_async_bulk_tensor_2d_global_to_shared() " +
                    site_of(kWgmmaFile, "cp_async_bulk_tensor_2d_global_to_shared(A_at, &A_map, t * kWgmmaTileK, 0, full);"),
                "which the wgmma.mma_async issued " + site_of(kWgmmaFile, kWgmmaMnCall), "wgmma.wait_group"});
}

// ---- A persistent, warp-specialized block: a producer warpgroup, two consumers, setmaxnreg --

namespace {

// D = A·B for wgmma_specialized(): A (128 tiles × 128), B (128 × 256), small integers, exact.
struct SpecializedOperands {
    int tiles;
    std::vector<float> A, B, expected;
    DeviceBuffer<__nv_bfloat16> dA, dB;

    explicit SpecializedOperands(int tile_count)
        : tiles(tile_count), A(WgmmaOperands::values(128 * 128 * static_cast<std::size_t>(tile_count), 3)),
          B(WgmmaOperands::values(128 * 256, 4)), expected(128 * 256 * static_cast<std::size_t>(tile_count), 0.0f),
          dA(WgmmaOperands::bf16(A)), dB(WgmmaOperands::bf16(B)) {
        for (int m = 0; m < 128 * tiles; ++m) {
            for (int n = 0; n < 256; ++n) {
                for (int k = 0; k < 128; ++k) expected[m * 256 + n] += A[m * 128 + k] * B[k * 256 + n];
            }
        }
    }
    std::string error(planted::SpecializedBug bug) const {
        DeviceBuffer<float> D(expected.size());
        return error_text([&] { planted::wgmma_specialized(dA.data(), dB.data(), D.data(), tiles, bug); },
                          cudaErrorLaunchFailure);
    }
};

}  // namespace

TEST_CASE("a persistent block of a producer warpgroup and two consumers, which trade registers by setmaxnreg, "
          "computes D = A·B exactly over several tiles, its ring of stages running on from tile to tile",
          "[emu]") {
    const SpecializedOperands operands(3);
    DeviceBuffer<float> D(operands.expected.size());
    D.poison();
    planted::wgmma_specialized(operands.dA.data(), operands.dB.data(), D.data(), operands.tiles,
                               planted::SpecializedBug::none);
    const std::vector<float> got = D.download();
    int wrong = 0, first = -1;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i] != operands.expected[i] && wrong++ == 0) first = static_cast<int>(i);
    }
    INFO("first wrong D(" << first / 256 << ", " << first % 256 << ")");
    CHECK(wrong == 0);
}

TEST_CASE("a producer that refills a stage before the consumers released it is reported where it refills", "[emu]") {
    const SpecializedOperands operands(2);
    check_says(operands.error(planted::SpecializedBug::refill_without_empty_wait),
               {"a stage refilled before anybody waited for its last fill",
                "cuda::device::barrier_arrive_tx() " +
                    site_of(kWgmmaFile, "(void)cuda::device::barrier_arrive_tx(full[s], 1, kStageBytes);"),
                "no thread has waited for its phase 0", "wait on the stage's `empty` barrier"});
}

TEST_CASE("a consumer whose count of steps restarts at each tile is reported: its wait returns for a phase it had "
          "already waited for",
          "[emu]") {
    const SpecializedOperands operands(2);
    check_says(operands.error(planted::SpecializedBug::count_restarts_per_tile),
               {"a wait for a barrier phase this thread has already waited for",
                "wait_parity() " + site_of(kWgmmaFile, "full[s].wait_parity(step / kSpecializedStages % 2);"),
                "returns at once, for phase 0", "runs on from one tile to the next"});
}

TEST_CASE("a setmaxnreg that part of a warpgroup skips is reported: one warp, or one thread", "[emu]") {
    const SpecializedOperands operands(1);
    check_says(operands.error(planted::SpecializedBug::setmaxnreg_in_one_warp),
               {"setmaxnreg executed by part of a warpgroup", "warp 0 of warpgroup 0 (threads 0 to 127) executed "
                "setmaxnreg.dec 40 " + site_of(kWgmmaFile, "if (threadIdx.x < 32) tutorial::setmaxnreg_dec<40>();"),
                "warps 1, 2, 3 of the same warpgroup ended without it"});
    // Thread 0 waits at the setmaxnreg for its warp's 31 other lanes, which have ended; the
    // consumers wait for the stages it never fills. The hang names both.
    check_says(operands.error(planted::SpecializedBug::setmaxnreg_in_one_thread),
               {"a barrier phase that can never complete", "1 thread waits at setmaxnreg " +
                site_of(kWgmmaFile, "if (BUG == SpecializedBug::setmaxnreg_in_one_thread) tutorial::setmaxnreg_dec<40>();")});
}
