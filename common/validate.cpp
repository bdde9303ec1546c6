#include "validate.h"

#include <stdexcept>

namespace tutorial {

void require_positive(const char* function, const char* name, long long value) {
    if (value < 1) {
        throw std::invalid_argument(std::string(function) + ": argument " + name + " must be at least 1, got " +
                                    std::to_string(value));
    }
}

void require_in_range(const char* function, const char* name, long long value, long long lo, long long hi) {
    if (value < lo || value > hi) {
        throw std::invalid_argument(std::string(function) + ": argument " + name + " must be between " +
                                    std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                                    std::to_string(value));
    }
}

void require_not_null(const char* function, const char* name, const void* pointer) {
    if (pointer == nullptr) {
        throw std::invalid_argument(std::string(function) + ": argument " + name + " is a null pointer");
    }
}

void require_shared_memory_fits(const char* function, std::size_t bytes, std::size_t limit) {
    if (bytes > limit) {
        throw std::invalid_argument(std::string(function) + ": a block needs " + std::to_string(bytes) +
                                    " bytes of shared memory, more than this GPU allows one block: " +
                                    std::to_string(limit) + " bytes (cudaDevAttrMaxSharedMemoryPerBlockOptin)");
    }
}

}  // namespace tutorial
