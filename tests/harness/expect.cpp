#include "expect.h"

#include "cuda_check.h"
#include "random.h"

#include <algorithm>
#include <string>

namespace tutorial {

std::string seed_error(const char* text) {
    if (text == nullptr || *text == '\0') return "";
    const std::string seed = text;
    const std::string why = "SEED=" + seed + " (TUTORIAL_SEED) is not a whole number from 0 to 4294967295";
    if (seed.find_first_not_of("0123456789") != std::string::npos) {
        return why + ": it has a character other than the digits 0-9. Leave SEED out for the default, " +
               std::to_string(kDefaultSeed) + ".";
    }
    // At most 10 digits after leading zeros, then compare: no overflow on the way.
    const std::size_t first = std::min(seed.find_first_not_of('0'), seed.size());
    if (seed.size() - first > 10 || std::stoull(seed.substr(first).empty() ? "0" : seed.substr(first)) > 4294967295ull) {
        return why + ": it is too large.";
    }
    return "";
}

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
