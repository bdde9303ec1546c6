#include "expect.h"

#include "cuda_check.h"

namespace tutorial {

void check_launch_refused(const std::function<void()>& call, const std::string& kernel_name,
                          const std::string& source_file) {
    try {
        call();
        FAIL("the launch succeeded; it should have been refused");
    } catch (const CudaError& error) {
        const std::string text = error.what();
        INFO(text);
        // CUDA 13 on an H200 answers cudaErrorInvalidValue; the documentation's name
        // for a bad launch shape is cudaErrorInvalidConfiguration. Either is right.
        const bool launch_refused =
            error.code() == cudaErrorInvalidValue || error.code() == cudaErrorInvalidConfiguration;
        CHECK(launch_refused);
        CHECK(text.find(kernel_name) != std::string::npos);
        CHECK(text.find(source_file + ":") != std::string::npos);
    }
}

}  // namespace tutorial
