/// @file validate.h
/// @brief Argument checks that every chapter's host functions build on.
///
/// A bad size or pointer must never reach a kernel: it would either compute garbage
/// silently or crash far from the mistake. These checks throw std::invalid_argument
/// with a message that names the function and the argument.
#pragma once

#include <cstddef>
#include <string>

namespace tutorial {

/// @brief Throw std::invalid_argument unless @p value ≥ 1.
/// @param function the public function being called, e.g. "naive_gemm"
/// @param name     the argument's name, e.g. "M"
/// @param value    the argument's value
void require_positive(const char* function, const char* name, long long value);

/// @brief Throw std::invalid_argument unless lo ≤ @p value ≤ hi.
void require_in_range(const char* function, const char* name, long long value, long long lo, long long hi);

/// @brief Throw std::invalid_argument if @p pointer is null.
void require_not_null(const char* function, const char* name, const void* pointer);

/// @brief Throw std::invalid_argument unless @p bytes of shared memory per block fit
/// within @p limit, the GPU's limit for one block; the message gives both numbers.
void require_shared_memory_fits(const char* function, std::size_t bytes, std::size_t limit);

}  // namespace tutorial
