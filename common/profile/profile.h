/// @file profile.h
/// @brief The driver of the chapters' profile programs (`make chapterN profile`).
///
/// A chapter's profile program (chapters/NN-name/profile.cpp) makes its inputs at one fixed size
/// and lists its kernel variants, each with a function that launches it once. The driver
/// runs them:
///  - on the CPU backend, counting every access (gpu_model/include/gpu_model/traffic.h), and prints
///    the predicted traffic per variant, with the theoretical occupancy for the registers
///    ptxas gives the kernel; with `--measured FILE` (what Nsight Compute measured on a
///    GPU, as `ncu --csv` writes it), each prediction stands beside its measurement;
///  - on the GPU, it only launches the variants, once each, for ncu to measure.
/// It writes the table as CSV, and a picture of the worst shared-memory access as SVG.
#pragma once

#include <functional>
#include <string>
#include <vector>

#if defined(EMU_BACKEND_TRAFFIC)
#include <gpu_model/traffic.h>
#endif

namespace tutorial {
namespace profile {

/// @brief One kernel variant of a chapter.
struct Variant {
    std::string name;             ///< for people: "tiled, 16 x 16 tiles"
    std::string kernel;           ///< the kernel as ptxas and ncu name it, up to its parameters: "tiled_gemm_kernel<16>"
    double flops = 0;             ///< floating-point operations of one run; 0 when not meaningful
    std::function<void()> run;    ///< launches the variant once
};

/// @brief What a chapter's profile program profiles.
struct Chapter {
    int number = 0;               ///< 1, 2, ...: TUTORIAL_CHAPTER, from the registry (0: a program of no chapter)
    std::string slug;             ///< the chapter's folder, "NN-name"; a program of no chapter (number 0) names its output files by it
    std::string size;             ///< the problem size, for people: "M = N = K = 128"
    std::vector<Variant> variants;  ///< in the lesson's order
};

/// @brief Run the chapter's variants and report, by the command line (see --help).
/// @return the process's exit status
int run(int argc, char** argv, const Chapter& chapter);

#if defined(EMU_BACKEND_TRAFFIC)
/// @brief Draw one warp's request at a shared-memory site as SVG into @p path: its 32
/// threads above the 32 banks, each distinct 4-byte word the request touches stacked in its
/// bank, banks with more than one word (a conflict) in red.
/// @throws std::runtime_error when @p path cannot be written
void write_bank_svg(const std::string& path, const std::string& title, const emu::traffic::WorstSharedSite& site);
#endif

}  // namespace profile
}  // namespace tutorial
