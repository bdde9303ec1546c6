// NPP's box filter (npp_box_filter.h). NPP is a separate package on some systems: mk/bench.mk defines
// TUTORIAL_HAVE_NPP when its header and libraries are there, and links -lnppif -lnppc only then.
// Without it this file still compiles, and NppBoxFilter says it is absent and how to get it.
#include "bench/npp_box_filter.h"

#include "cuda_check.h"

#if defined(TUTORIAL_HAVE_NPP)
#include <nppi_filtering_functions.h>
#endif

#include <stdexcept>
#include <string>

#ifndef TUTORIAL_NPP_PACKAGE
#define TUTORIAL_NPP_PACKAGE "libnpp-dev"
#endif

namespace tutorial::benchmark {

bool NppBoxFilter::available() {
#if defined(TUTORIAL_HAVE_NPP)
    return true;
#else
    return false;
#endif
}

std::string NppBoxFilter::why_absent() {
    return "NPP not installed: install the CUDA Toolkit's NPP (" TUTORIAL_NPP_PACKAGE
           " from NVIDIA's CUDA repository, or the NPP component of the runfile installer; `make setup` "
           "says what it finds), then rebuild the benchmark";
}

#if defined(TUTORIAL_HAVE_NPP)

struct NppBoxFilter::Context {
    NppStreamContext stream{};
};

namespace {

void check_npp(NppStatus status, const char* call) {
    // Negative statuses are errors; positive ones are warnings, and NPP still wrote the output.
    if (status < 0) {
        throw std::runtime_error(std::string("NPP error ") + std::to_string(static_cast<int>(status)) + " in " + call);
    }
}

}  // namespace

NppBoxFilter::NppBoxFilter() : context_(std::make_unique<Context>()) {
    // Every _Ctx call takes the stream and the device's figures from this structure, which the
    // application fills, field by field as NPP's documentation names their sources.
    NppStreamContext& c = context_->stream;
    c.hStream = 0;  // the default stream, where the harness times everything
    CUDA_CHECK(cudaGetDevice(&c.nCudaDeviceId));
    CUDA_CHECK(cudaDeviceGetAttribute(&c.nMultiProcessorCount, cudaDevAttrMultiProcessorCount, c.nCudaDeviceId));
    CUDA_CHECK(cudaDeviceGetAttribute(&c.nMaxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor,
                                      c.nCudaDeviceId));
    CUDA_CHECK(cudaDeviceGetAttribute(&c.nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, c.nCudaDeviceId));
    int shared_per_block = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&shared_per_block, cudaDevAttrMaxSharedMemoryPerBlock, c.nCudaDeviceId));
    c.nSharedMemPerBlock = static_cast<size_t>(shared_per_block);
    CUDA_CHECK(cudaDeviceGetAttribute(&c.nCudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMajor,
                                      c.nCudaDeviceId));
    CUDA_CHECK(cudaDeviceGetAttribute(&c.nCudaDevAttrComputeCapabilityMinor, cudaDevAttrComputeCapabilityMinor,
                                      c.nCudaDeviceId));
    CUDA_CHECK(cudaStreamGetFlags(c.hStream, &c.nStreamFlags));
}

NppBoxFilter::~NppBoxFilter() = default;

void NppBoxFilter::operator()(const unsigned char* input, unsigned char* output, int width, int height, int radius) {
    const NppiSize size{width, height};
    const NppiSize mask{2 * radius + 1, 2 * radius + 1};
    const NppiPoint origin{0, 0};
    const NppiPoint anchor{radius, radius};  // the mask's centre sits on the output pixel
    check_npp(nppiFilterBoxBorder_8u_C1R_Ctx(input, width, size, origin, output, width, size, mask, anchor,
                                             NPP_BORDER_REPLICATE, context_->stream),
              "nppiFilterBoxBorder_8u_C1R_Ctx");
}

#else

struct NppBoxFilter::Context {};

NppBoxFilter::NppBoxFilter() { throw std::runtime_error(why_absent()); }
NppBoxFilter::~NppBoxFilter() = default;
void NppBoxFilter::operator()(const unsigned char*, unsigned char*, int, int, int) {
    throw std::runtime_error(why_absent());
}

#endif

}  // namespace tutorial::benchmark
