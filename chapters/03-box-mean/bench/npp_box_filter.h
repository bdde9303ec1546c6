/// @file npp_box_filter.h
/// @brief The library row of the benchmark (the project's code, not the student's): NPP's box
/// filter, the call a user would make instead of writing the box mean.
///
/// NPP is a separate package on some systems: mk/bench.mk defines TUTORIAL_HAVE_NPP for the
/// benchmark's own files when its header and libraries are there, and links -lnppif -lnppc
/// only then. Without it, available() is false and bench.cpp records
/// Session::library_absent(problem, variant, unit, why_absent()) instead, and goes on.
#pragma once

#include "non_copyable.h"

#include <memory>
#include <string>

namespace tutorial::benchmark {

/// @brief NPP's box filter, nppiFilterBoxBorder_8u_C1R_Ctx: the mean of a (2R+1)² box around
/// each pixel of an 8-bit image, the border replicated (NPP_BORDER_REPLICATE), as the box mean
/// clamps its coordinates.
class NppBoxFilter : NonCopyable {
public:
    /// @brief Fills the NPP stream context (the default stream, the current device's figures).
    /// @throws std::runtime_error without NPP (see available()), or if CUDA fails
    NppBoxFilter();
    ~NppBoxFilter();

    /// @brief Whether NPP was found when the benchmark was built.
    static bool available();
    /// @brief Why it is absent, and how to get it: the library row's note.
    static std::string why_absent();

    /// @brief output = the box mean of input, both width × height with rows of width bytes.
    void operator()(const unsigned char* input, unsigned char* output, int width, int height, int radius);

private:
    struct Context;
    std::unique_ptr<Context> context_;
};

}  // namespace tutorial::benchmark
