/// @file libraries.h
/// @brief The library calls a user would make instead of writing a chapter's kernel, timed
/// beside the chapter's kernels in `make chapterN bench` (the column "× the library").
///
/// How a benchmark adds a library row (chapters 3 to 6 do; the GEMM chapters' cuBLAS ceiling is
/// their library too, gemm/gemm_benchmark.cpp):
///  1. wrap the call here, in a class that owns what it needs (a handle, temporary storage), so
///     that the timed run() only enqueues work on the default stream: allocation, handle creation
///     and workspace queries happen in the constructor, outside the timing;
///  2. in bench.cpp, time it with Session::measure_library(work, ceiling), with the same problem
///     string as the kernels and a check against the same CPU reference as theirs;
///  3. a library that may be missing (NPP is a separate package on some systems) is detected at
///     build time (mk/bench.mk defines TUTORIAL_HAVE_<NAME>); without it, the class's available()
///     is false and the benchmark records Session::library_absent(problem, variant, unit,
///     why_absent()) instead, and goes on; `make setup` says how to get it.
/// Libraries are linked into the benchmarks only (mk/bench.mk), never into the tests.
///
/// CUB is a header library that only nvcc compiles: its wrappers live in libraries_cub.cu; the
/// others are host APIs, compiled by the C++ compiler (libraries_cublas.cpp, libraries_npp.cpp).
#pragma once

#include "device_buffer.h"
#include "non_copyable.h"

#include <cstddef>
#include <memory>
#include <string>

namespace tutorial::benchmark {

/// @brief NPP's box filter, nppiFilterBoxBorder_8u_C1R_Ctx: the mean of a (2R+1)² box around
/// each pixel of an 8-bit image, the border replicated (NPP_BORDER_REPLICATE), as chapter 3's
/// box mean clamps its coordinates.
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

/// @brief Chapter 4's moving average the way a user would write it with CUB: the inclusive
/// prefix sums of the input in double (cub::DeviceScan::InclusiveSum, reading the floats through
/// a converting iterator), then one pass of differences, output[i] = (P[i+N-1] − P[i-1]) / N.
/// Double, because float prefix sums over 64 Mi elements would lose the window's digits.
class CubMovingAverage : NonCopyable {
public:
    /// @brief Allocates the prefix sums (8 bytes per element) and CUB's temporary storage for
    /// inputs of up to @p max_size elements.
    explicit CubMovingAverage(int max_size);
    ~CubMovingAverage();

    /// @brief output[i] = mean of input[i … i + window − 1], for i = 0 … size − window.
    /// @throws std::invalid_argument for a size beyond the constructor's or a window outside 1 … size
    void operator()(const float* input, float* output, int size, int window);

private:
    int max_size_;
    DeviceBuffer<double> prefix_;
    DeviceBuffer<unsigned char> temporary_;
};

/// @brief cub::DeviceReduce::Sum of floats, its temporary storage allocated once.
class CubSum : NonCopyable {
public:
    explicit CubSum(int max_count);

    /// @brief *sum = input[0] + … + input[count − 1], on the device.
    void operator()(const float* input, float* sum, int count);

private:
    int max_count_;
    DeviceBuffer<unsigned char> temporary_;
};

/// @brief cuBLAS's out-of-place transpose, cublasSgeam with C = 1·Aᵀ + 0·B, on row-major
/// matrices (cuBLAS is column-major: a row-major rows × cols matrix is its cols × rows transpose).
class CublasTranspose : NonCopyable {
public:
    CublasTranspose();
    ~CublasTranspose();

    /// @brief output (cols × rows, row-major) = the transpose of input (rows × cols, row-major).
    void operator()(const float* input, float* output, int rows, int cols);

private:
    struct Handle;
    std::unique_ptr<Handle> handle_;
};

}  // namespace tutorial::benchmark
