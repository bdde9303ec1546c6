// The tensor cores' warp-wide matrix instructions on the CPU backend: ldmatrix and
// mma.sync.m16n8k16 (BF16 inputs, FP32 accumulators).
//
// Each is a warp primitive (warp.cpp): every lane checks what it supplies, then meets the
// other 31 at the call with a pointer to its part (a row address and room for its
// registers, or its fragment registers). When all 32 are there, complete_matrix_op() reads
// every lane's part and writes each lane's result, as the PTX ISA's fragment layouts say
// ("Matrix Fragments for mma.m16n8k16 with floating point type" and "Warp-level matrix
// load instruction: ldmatrix"), so the result cannot depend on the order the lanes ran in.
#include "block.h"

#include "emu/tensor_core.h"
#include <gpu_model/traffic.h>

#include <cstring>
#include <sstream>

namespace emu {
namespace detail {
namespace {

constexpr unsigned kWarpSize = 32;

// What one lane gives ldmatrix and gets back.
struct LdmatrixPart {
    const void* row;
    unsigned matrices;
    bool transpose;
    std::uint32_t fragment[4];
};

// What one lane gives mma.sync and gets back.
struct MmaPart {
    std::uint32_t a[4];
    std::uint32_t b[2];
    float c[4];
    float d[4];
};

float bf16_to_float(std::uint16_t bits) {
    const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
    float value;
    std::memcpy(&value, &wide, sizeof value);
    return value;
}

std::uint16_t low_half(std::uint32_t r) { return static_cast<std::uint16_t>(r & 0xffffu); }
std::uint16_t high_half(std::uint32_t r) { return static_cast<std::uint16_t>(r >> 16); }

// Check the row address @p row that the calling lane gives ldmatrix: 16 bytes of one
// __shared__ variable (or of the dynamic shared memory), starting on a 16-byte boundary.
void check_ldmatrix_row(const void* row, const char* what, const char* file, int line) {
    const char* name = nullptr;
    const Bounds bounds = cast_bounds(row, name);
    const auto at = reinterpret_cast<std::uintptr_t>(row);
    std::ostringstream problem;
    if (bounds.shared_name == nullptr) {
        problem << "this lane's row address " << row << " is not in the block's shared memory"
                << (bounds.allocation != nullptr ? " (it points into a cudaMalloc buffer: global memory)" : "")
                << ". ldmatrix reads its 8 x 8 matrices from shared memory only: pass the address of the row's "
                   "first element in a __shared__ tile.";
        throw matrix_lane_fault(what, file, line, problem.str());
    }
    if (at % 16 != 0) {
        problem << "this lane's row address is " << at % 16 << " bytes past a 16-byte boundary (byte offset "
                << at - bounds.begin << " of shared variable " << bounds.shared_name
                << "). Each lane gives the start of one row of 8 16-bit elements, which must be 16-byte aligned: "
                   "check the column of the row (a multiple of 8 elements), the tile's row length (a multiple "
                   "of 8 elements) and its alignment (__align__(16)).";
        throw matrix_lane_fault(what, file, line, problem.str());
    }
    if (at + 16 > bounds.end) {
        problem << "this lane's row, bytes " << at - bounds.begin << " to " << at - bounds.begin + 15
                << " of shared variable " << bounds.shared_name << ", runs past its end (" << bounds.end - bounds.begin
                << " bytes).";
        throw matrix_lane_fault(what, file, line, problem.str());
    }
}

void complete_ldmatrix(ThreadState* lanes) {
    // element[i][r][c]: column c of row r of matrix i, as lane 8i + r pointed at it.
    std::uint16_t element[4][8][8];
    const auto& first = *reinterpret_cast<const LdmatrixPart*>(lanes[0].warp_value);
    for (unsigned i = 0; i < first.matrices; ++i) {
        for (unsigned r = 0; r < 8; ++r) {
            const auto& part = *reinterpret_cast<const LdmatrixPart*>(lanes[8 * i + r].warp_value);
            std::memcpy(element[i][r], part.row, sizeof element[i][r]);
        }
    }
    for (unsigned t = 0; t < kWarpSize; ++t) {
        auto& part = *reinterpret_cast<LdmatrixPart*>(lanes[t].warp_value);
        // Lane t holds two neighbouring elements of each matrix: row t / 4, columns 2 (t % 4)
        // and 2 (t % 4) + 1; with .trans, of the transposed matrix.
        const unsigned r = t / 4, c = 2 * (t % 4);
        for (unsigned i = 0; i < first.matrices; ++i) {
            const std::uint16_t lo = first.transpose ? element[i][c][r] : element[i][r][c];
            const std::uint16_t hi = first.transpose ? element[i][c + 1][r] : element[i][r][c + 1];
            part.fragment[i] = static_cast<std::uint32_t>(lo) | static_cast<std::uint32_t>(hi) << 16;
        }
    }
}

void complete_mma(ThreadState* lanes) {
    float A[16][16], B[16][8], C[16][8];
    for (unsigned t = 0; t < kWarpSize; ++t) {
        const auto& part = *reinterpret_cast<const MmaPart*>(lanes[t].warp_value);
        const unsigned g = t / 4, q = 2 * (t % 4);
        // A, row-major 16 x 16: a[0] rows 0-7 and a[1] rows 8-15 of columns 0-7, a[2] and
        // a[3] the same of columns 8-15; two neighbouring columns per register.
        for (unsigned reg = 0; reg < 4; ++reg) {
            const unsigned row = g + 8 * (reg % 2), col = q + 8 * (reg / 2);
            A[row][col] = bf16_to_float(low_half(part.a[reg]));
            A[row][col + 1] = bf16_to_float(high_half(part.a[reg]));
        }
        // B, 16 x 8 ("col": a register holds two neighbouring rows k of one column n):
        // b[0] rows 0-7, b[1] rows 8-15.
        for (unsigned reg = 0; reg < 2; ++reg) {
            const unsigned k = q + 8 * reg;
            B[k][g] = bf16_to_float(low_half(part.b[reg]));
            B[k + 1][g] = bf16_to_float(high_half(part.b[reg]));
        }
        // C and D, 16 x 8 floats: c[0], c[1] in row g, c[2], c[3] in row g + 8.
        C[g][q] = part.c[0];
        C[g][q + 1] = part.c[1];
        C[g + 8][q] = part.c[2];
        C[g + 8][q + 1] = part.c[3];
    }
    for (unsigned t = 0; t < kWarpSize; ++t) {
        auto& part = *reinterpret_cast<MmaPart*>(lanes[t].warp_value);
        const unsigned g = t / 4, q = 2 * (t % 4);
        for (unsigned reg = 0; reg < 4; ++reg) {
            const unsigned row = g + 8 * (reg / 2), col = q + reg % 2;
            // The products of two BF16 values are exact in FP32 (8 + 8 significant bits);
            // they are added in FP32, in the order of k.
            float sum = C[row][col];
            for (unsigned k = 0; k < 16; ++k) sum += A[row][k] * B[k][col];
            part.d[reg] = sum;
        }
    }
}

}  // namespace

// The fault of the calling lane at the instruction @p what (file:line).
KernelFault matrix_lane_fault(const char* what, const char* file, int line, const std::string& problem) {
    BlockRun& b = *current_block;
    const ThreadState& me = *b.current;
    const auto linear = static_cast<unsigned>(&me - b.threads.data());
    std::ostringstream out;
    out << "bad " << what << " in " << running_kernel() << ", block " << coordinates(blockIdx) << ", thread "
        << coordinates(me.index) << " (lane " << linear % kWarpSize << " of warp " << linear / kWarpSize << "), at "
        << file << ":" << line << ":\n  " << problem;
    return KernelFault{cudaErrorLaunchFailure, out.str()};
}

// A warp-wide matrix instruction needs every lane of a full warp: the PTX ISA makes it
// undefined otherwise (.sync.aligned), so a block whose last warp has fewer lanes is an error.
void require_full_warp(const char* what, const char* file, int line) {
    BlockRun& b = block_or_die(what);
    const auto linear = static_cast<std::size_t>(b.current - b.threads.data());
    const std::size_t first = linear / kWarpSize * kWarpSize;
    if (b.thread_count - first < kWarpSize) {
        throw matrix_lane_fault(what, file, line,
                         "this warp has only " + std::to_string(b.thread_count - first) + " lanes (the block has " +
                             std::to_string(b.thread_count) + " threads). " + what +
                             " is executed by all 32 lanes of a warp together: give the block a multiple of 32 "
                             "threads.");
    }
}

void complete_matrix_op(ThreadState* lanes) {
    if (lanes[0].warp_op == WarpOp::ldmatrix) {
        complete_ldmatrix(lanes);
    } else if (lanes[0].warp_op == WarpOp::wgmma) {
        complete_wgmma(lanes);
    } else {
        complete_mma(lanes);
    }
}

void ldmatrix(std::uint32_t* fragment, unsigned matrices, bool transpose, const void* row, const char* file,
              int line) {
    const char* what = "ldmatrix";
    require_full_warp(what, file, line);
    BlockRun& b = *current_block;
    const auto lane = static_cast<unsigned>(b.current - b.threads.data()) % kWarpSize;
    LdmatrixPart part{row, matrices, transpose, {0, 0, 0, 0}};
    if (lane < 8 * matrices) {
        check_time(file, line);
        check_ldmatrix_row(row, what, file, line);
        if (async_watch != 0) async_shared_access(row, 16, file, line);
        if (race_checked) {
            race_access(row, 8, nullptr, nullptr, file, line);
            race_access(static_cast<const char*>(row) + 8, 8, nullptr, nullptr, file, line);
        }
        // One 16-byte row per lane: the profiler serves them 8 lanes per wavefront, which is
        // how the hardware reads one 8 x 8 matrix a pass.
        if (traffic::detail::recording) {
            traffic::detail::record(traffic::Space::shared, traffic::Direction::load, row, 16,
                                    traffic::detail::line_site(file, line));
        }
    }
    warp_primitive(WarpOp::ldmatrix, 0xffffffffu, reinterpret_cast<std::uintptr_t>(&part),
                   static_cast<int>(matrices), kWarpSize, file, line);
    for (unsigned i = 0; i < matrices; ++i) fragment[i] = part.fragment[i];
}

void mma_m16n8k16_bf16(float* d, const std::uint32_t* a, const std::uint32_t* b, const float* c, const char* file,
                       int line) {
    require_full_warp("mma.sync", file, line);
    MmaPart part{};
    std::memcpy(part.a, a, sizeof part.a);
    std::memcpy(part.b, b, sizeof part.b);
    std::memcpy(part.c, c, sizeof part.c);
    warp_primitive(WarpOp::mma_sync, 0xffffffffu, reinterpret_cast<std::uintptr_t>(&part), 0, kWarpSize, file, line);
    std::memcpy(d, part.d, sizeof part.d);
}

}  // namespace detail
}  // namespace emu
