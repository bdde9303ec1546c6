// Theoretical occupancy, computed as the toolkit's cuda_occupancy.h computes it (see
// occupancy.h), for the default shared-memory carveout and without clusters.
#include <gpu_model/occupancy.h>

#include <cxxabi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace tutorial {

namespace {

constexpr std::size_t KiB = 1024;

// Per compute capability. Sources: the CUDA C++ Programming Guide, "Technical
// Specifications per Compute Capability" (threads, blocks, registers and shared memory
// per SM and per block); cuda_occupancy.h of CUDA 13.0 (allocation units: registers in
// 256 per warp on all of these; shared memory in 256 bytes on sm_75 and 128 bytes from
// sm_80; 1 KiB of shared memory reserved per block from sm_80; the block limits; 4
// register sub-partitions).
const std::vector<ArchitectureLimits> kArchitectures = {
    // name      example             threads blocks regs/SM regs/blk max  unit  parts 1024  shared/SM  /block  opt-in     unit reserved
    {"sm_75", "Turing, T4",            1024, 16, 65536, 65536, 255, 256, 4, 1024, 64 * KiB,  48 * KiB, 64 * KiB,  256, 0},
    {"sm_80", "Ampere, A100",          2048, 32, 65536, 65536, 255, 256, 4, 1024, 164 * KiB, 48 * KiB, 163 * KiB, 128, 1 * KiB},
    {"sm_86", "Ampere, RTX 30x0",      1536, 16, 65536, 65536, 255, 256, 4, 1024, 100 * KiB, 48 * KiB, 99 * KiB,  128, 1 * KiB},
    {"sm_87", "Ampere, Jetson Orin",   1536, 16, 65536, 65536, 255, 256, 4, 1024, 164 * KiB, 48 * KiB, 163 * KiB, 128, 1 * KiB},
    {"sm_89", "Ada, RTX 40x0 / L4",    1536, 24, 65536, 65536, 255, 256, 4, 1024, 100 * KiB, 48 * KiB, 99 * KiB,  128, 1 * KiB},
    {"sm_90", "Hopper, H100 / H200",   2048, 32, 65536, 65536, 255, 256, 4, 1024, 228 * KiB, 48 * KiB, 227 * KiB, 128, 1 * KiB},
    {"sm_100", "Blackwell, B200",      2048, 32, 65536, 65536, 255, 256, 4, 1024, 228 * KiB, 48 * KiB, 227 * KiB, 128, 1 * KiB},
    {"sm_103", "Blackwell, B300",      2048, 32, 65536, 65536, 255, 256, 4, 1024, 228 * KiB, 48 * KiB, 227 * KiB, 128, 1 * KiB},
    {"sm_120", "Blackwell, RTX 50x0",  1536, 24, 65536, 65536, 255, 256, 4, 1024, 100 * KiB, 48 * KiB, 99 * KiB,  128, 1 * KiB},
};

int round_up(int value, int unit) { return (value + unit - 1) / unit * unit; }
std::size_t round_up(std::size_t value, std::size_t unit) { return (value + unit - 1) / unit * unit; }

}  // namespace

const std::vector<ArchitectureLimits>& known_architectures() { return kArchitectures; }

const ArchitectureLimits& architecture_limits(const std::string& name) {
    std::string wanted = name.rfind("sm_", 0) == 0 ? name : "sm_" + name;
    // sm_90a is sm_90 with its arch-specific features (wgmma): the same limits.
    if (wanted.size() > 5 && wanted.back() == 'a') wanted.pop_back();
    std::string known;
    for (const ArchitectureLimits& arch : kArchitectures) {
        if (wanted == arch.name) return arch;
        known += (known.empty() ? "" : ", ") + std::string(arch.name);
    }
    throw std::invalid_argument("architecture_limits: argument name is '" + name +
                                "', not an architecture the occupancy table knows (" + known + ")");
}

const char* limiter_name(Limiter limiter) {
    switch (limiter) {
        case Limiter::threads: return "threads";
        case Limiter::blocks: return "blocks";
        case Limiter::registers: return "registers";
        case Limiter::shared_memory: return "shared memory";
    }
    return "?";
}

std::string Occupancy::limiting() const {
    std::string out;
    for (std::size_t i = 0; i < limiters.size(); ++i) {
        if (i > 0) out += i + 1 == limiters.size() ? " and " : ", ";
        out += limiter_name(limiters[i]);
    }
    return out;
}

Occupancy theoretical_occupancy(const ArchitectureLimits& arch, const BlockResources& block) {
    if (block.threads < 1) {
        throw std::invalid_argument("theoretical_occupancy: argument block.threads must be at least 1, got " +
                                    std::to_string(block.threads));
    }
    if (block.registers_per_thread < 0) {
        throw std::invalid_argument("theoretical_occupancy: argument block.registers_per_thread must not be negative, got " +
                                    std::to_string(block.registers_per_thread));
    }
    Occupancy o;
    const int warp = 32;
    const int warps_per_block = (block.threads + warp - 1) / warp;
    o.max_warps_per_sm = arch.max_threads_per_sm / warp;

    // Thread (warp) slots.
    o.blocks_by_threads = block.threads > arch.max_threads_per_block ? 0 : o.max_warps_per_sm / warps_per_block;
    // Block slots.
    o.blocks_by_block_slots = arch.max_blocks_per_sm;

    // Registers: each warp gets registers × 32 rounded up to the allocation unit, inside
    // one of the SM's sub-partitions.
    const int per_warp = round_up(block.registers_per_thread * warp, arch.register_allocation_unit);
    o.registers_allocated_per_block = per_warp * warps_per_block;
    const int assumed_per_block = per_warp * round_up(warps_per_block, arch.register_sub_partitions);
    if (block.registers_per_thread > arch.max_registers_per_thread || assumed_per_block > arch.registers_per_block ||
        o.registers_allocated_per_block > arch.registers_per_block) {
        o.blocks_by_registers = 0;
    } else if (per_warp == 0) {
        o.blocks_by_registers = INT_MAX;
    } else {
        const int warps_per_part = arch.registers_per_sm / arch.register_sub_partitions / per_warp;
        o.blocks_by_registers = warps_per_part * arch.register_sub_partitions / warps_per_block;
    }

    // Shared memory: static + dynamic + the reserved part, rounded up to the unit. A block
    // above 48 KiB must have opted in (else its launch fails), so its limit is the opt-in one.
    const std::size_t requested = block.static_shared + block.dynamic_shared;
    const std::size_t total = requested + arch.reserved_shared_per_block;
    o.shared_allocated_per_block = round_up(total, arch.shared_allocation_unit);
    const std::size_t per_block_limit =
        (requested > arch.shared_per_block ? arch.shared_per_block_optin : arch.shared_per_block) +
        arch.reserved_shared_per_block;
    if (o.shared_allocated_per_block > per_block_limit) {
        o.blocks_by_shared = 0;
    } else if (o.shared_allocated_per_block == 0) {
        o.blocks_by_shared = INT_MAX;
    } else {
        // The default carveout gives the SM the largest shared memory it can have (the
        // calculator's preference, which always holds one block that passed the check above).
        o.blocks_by_shared = static_cast<int>(arch.shared_per_sm / o.shared_allocated_per_block);
    }

    o.blocks_per_sm = std::min({o.blocks_by_threads, o.blocks_by_block_slots, o.blocks_by_registers, o.blocks_by_shared});
    o.warps_per_sm = o.blocks_per_sm * warps_per_block;
    if (o.blocks_by_threads == o.blocks_per_sm) o.limiters.push_back(Limiter::threads);
    if (o.blocks_by_block_slots == o.blocks_per_sm) o.limiters.push_back(Limiter::blocks);
    if (o.blocks_by_registers == o.blocks_per_sm) o.limiters.push_back(Limiter::registers);
    if (o.blocks_by_shared == o.blocks_per_sm) o.limiters.push_back(Limiter::shared_memory);
    return o;
}

std::string demangle(const std::string& symbol) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && text ? std::string(text.get()) : symbol;
}

std::string kernel_key(std::string demangled) {
    if (demangled.rfind("void ", 0) == 0) demangled.erase(0, 5);
    // The parameter list is the last '(' outside template arguments and other parentheses:
    // "(anonymous namespace)::kernel(float*)" has one before it.
    int angles = 0, parentheses = 0;
    std::size_t parameters = std::string::npos;
    for (std::size_t i = 0; i < demangled.size(); ++i) {
        if (demangled[i] == '<') ++angles;
        else if (demangled[i] == '>') --angles;
        else if (demangled[i] == ')') --parentheses;
        else if (demangled[i] == '(' && parentheses++ == 0 && angles == 0) parameters = i;
    }
    return parameters == std::string::npos ? demangled : demangled.substr(0, parameters);
}

std::vector<PtxasKernel> read_ptxas_report(std::istream& in) {
    std::vector<PtxasKernel> kernels;
    std::string line;
    bool open = false;  // the last entry still waits for its "Used" line
    while (std::getline(in, line)) {
        const std::size_t entry = line.find("Compiling entry function '");
        if (entry != std::string::npos) {
            const std::size_t begin = entry + 26, end = line.find('\'', begin);
            PtxasKernel k;
            k.symbol = line.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
            k.key = kernel_key(demangle(k.symbol));
            const std::size_t arch = end == std::string::npos ? end : line.find(" for '", end);
            if (arch != std::string::npos) k.arch = line.substr(arch + 6, line.find('\'', arch + 6) - (arch + 6));
            kernels.push_back(k);
            open = true;
            continue;
        }
        const std::size_t used = line.find("Used ");
        if (used != std::string::npos && open) {
            PtxasKernel& k = kernels.back();
            k.registers = std::atoi(line.c_str() + used + 5);
            const std::size_t smem = line.find(" bytes smem");
            if (smem != std::string::npos) {
                const std::size_t start = line.rfind(' ', smem - 1);
                k.static_shared = static_cast<std::size_t>(std::atol(line.c_str() + start + 1));
            }
            open = false;
        }
    }
    return kernels;
}

}  // namespace tutorial
