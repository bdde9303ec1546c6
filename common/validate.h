/// @file validate.h
/// @brief Argument checks for the chapters' host functions.
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

/// @brief The checks every GEMM entry point makes: M, N, K ≥ 1 and no null matrix.
void require_gemm_arguments(const char* function, const float* A, const float* B, const float* C, int M, int N,
                            int K);

/// @brief The checks every box-mean entry point makes: width and height ≥ 1, at most
/// 2³¹ − 1 pixels in all (so that an int indexes any of them), 0 ≤ radius ≤
/// @p max_radius, and no null image.
void require_box_mean_arguments(const char* function, const unsigned char* input, const unsigned char* output,
                                int width, int height, int radius, int max_radius);

/// @brief The checks every moving-average entry point makes: size ≥ 1,
/// 1 ≤ window ≤ size, and no null array.
void require_moving_average_arguments(const char* function, const float* input, const float* output, int size,
                                      int window);

// ---- Chapter 5: transpose -----------------------------------------------------------

/// @brief The checks every transpose entry point makes: rows and cols ≥ 1, rows ≤
/// @p max_rows (what the grid can cover), at most 2³¹ − 1 elements (so that an int
/// indexes any of them), no null matrix, and an output that is not the input (the
/// transpose is out of place: in place, blocks would overwrite what others still read).
void require_transpose_arguments(const char* function, const float* input, const float* output, int rows,
                                 int cols, int max_rows);

// ---- Chapter 6: reduction -------------------------------------------------------------

/// @brief The checks every reduction entry point makes: n ≥ 1 and no null input, sum
/// or workspace.
void require_reduce_arguments(const char* function, const float* input, const float* sum, int n,
                              const float* workspace);

/// @brief Throw std::invalid_argument unless @p bytes of shared memory per block fit
/// within @p limit, the GPU's limit for one block; the message gives both numbers.
void require_shared_memory_fits(const char* function, std::size_t bytes, std::size_t limit);

}  // namespace tutorial
