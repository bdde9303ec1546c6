/// @file in_flight.h
/// @brief Little's law for the profile's "bytes in flight" rows: how many bytes each SM
/// must have on their way from DRAM for a GPU to stream at its copy rate.
///
/// A load takes the DRAM latency to come back, so a GPU that keeps B bytes in flight moves
/// at most B / latency bytes a second (Little's law). To stream at the copy rate it needs
/// copy rate × latency bytes in flight, shared by its SMs. The profile sets this beside what
/// each kernel's blocks keep in flight (emu::traffic::LaunchProfile::loads_before_wait
/// times the blocks resident per SM): docs/profile.md, "Bytes in flight".
///
/// The GPUs' figures are here and nowhere else; each says where it comes from.
#pragma once

#include <algorithm>
#include <string>

namespace tutorial {
namespace profile {

/// @brief What Little's law needs to know of one GPU.
struct GpuMemory {
    const char* gpu;                  ///< "H200 SXM"
    const char* arch;                 ///< the architecture the profile targets: "sm_90"
    int sms;                          ///< streaming multiprocessors
    double copy_bytes_per_second;     ///< what a plain device-to-device copy reaches (make bench's ceiling)
    double dram_latency_seconds;      ///< a load that misses every cache, issue to use
    const char* source;               ///< where the two figures come from
};

/// @brief The GPUs, the one the profile uses for an architecture first.
inline const GpuMemory kGpuMemories[] = {
    // sm_90: the H200, on which docs/results.md is measured.
    {"H200 SXM", "sm_90", 132, 4.11e12, 600e-9,
     "copy rate: make bench's copy ceiling on an H200 (issue 31); DRAM latency: a round figure for "
     "Hopper's HBM, not yet measured by this project"},
    {"H100 SXM", "sm_90", 132, 2.94e12, 600e-9,
     "copy rate: make bench's copy ceiling on an H100 (issue 31); DRAM latency: as for the H200"},
};

/// @brief The GPU whose figures the profile uses for @p arch ("sm_90"); null when there is
/// none for that architecture.
inline const GpuMemory* gpu_memory_for(const std::string& arch) {
    // sm_90a is sm_90 with its arch-specific features (wgmma): the same GPUs.
    const std::string base = arch.size() > 5 && arch.back() == 'a' ? arch.substr(0, arch.size() - 1) : arch;
    for (const GpuMemory& g : kGpuMemories) {
        if (base == g.arch) return &g;
    }
    return nullptr;
}

/// @brief Bytes each SM must keep in flight to stream at the copy rate: copy rate × DRAM
/// latency / SMs (H200: 4.11 TB/s × 600 ns / 132 = 18682 bytes).
inline double bytes_in_flight_needed_per_sm(const GpuMemory& g) {
    return g.copy_bytes_per_second * g.dram_latency_seconds / g.sms;
}

/// @brief The share of the copy rate (0 to 1) that @p bytes_per_sm in flight on every SM
/// allows: (bytes_per_sm × SMs / latency) / copy rate, at most 1.
inline double share_of_copy_rate(double bytes_per_sm, const GpuMemory& g) {
    return std::min(1.0, bytes_per_sm / bytes_in_flight_needed_per_sm(g));
}

}  // namespace profile
}  // namespace tutorial
