// What the CPU backend's own tests share (tests/emu.cpp, emu_async.cpp, emu_clusters.cpp): the
// headers, and the helpers that run a planted kernel and read the message it gets.
#pragma once

#include "emu_planted/planted.h"

#include "catch.h"
#include "compare.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "expect.h"
#include "gemm/gemm_cases.h"
#include "random.h"

#include <emu/control.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

using tutorial::CudaError;
using tutorial::DeviceBuffer;
using tutorial::check_says;
using tutorial::place_of;


namespace emu_tests {


// The message of the CudaError that @p run throws; fails the test if it throws none.
inline std::string error_text(const std::function<void()>& run, cudaError_t expected_code) {
    try {
        run();
    } catch (const CudaError& error) {
        CHECK(error.code() == expected_code);
        return error.what();
    }
    FAIL("no CudaError was thrown");
    return "";
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Sets the schedules for one test and restores the previous ones after it.
class Schedules {
public:
    explicit Schedules(const std::string& list) : saved_(emu::schedules()) { emu::set_schedules(list); }
    ~Schedules() { emu::set_schedules(saved_); }
    Schedules(const Schedules&) = delete;
    Schedules& operator=(const Schedules&) = delete;

private:
    std::string saved_;
};

const char* const kOrderMessage = "result depends on thread order: missing `__syncthreads()` or a shared-memory race";

inline tutorial::GemmFunction tiled(planted::GemmBarriers barriers) {
    return [barriers](const float* A, const float* B, float* C, int M, int N, int K) {
        planted::tiled_gemm(A, B, C, M, N, K, barriers);
    };
}

// "at PATH:N", as the messages name a site: see tutorial::place_of().
// A tiled GEMM pipelined with asynchronous copies through @p api, with @p bug planted.
inline tutorial::GemmFunction pipelined(planted::PipelineApi api, int stages, planted::PipelineBug bug) {
    return [=](const float* A, const float* B, float* C, int M, int N, int K) {
        planted::pipelined_gemm(A, B, C, M, N, K, api, stages, bug);
    };
}

inline std::string site_of(const std::string& path, const std::string& text) { return "at " + place_of(path, text); }

inline std::vector<std::uint8_t> box_mean_reference(const std::vector<std::uint8_t>& in, int width, int height) {
    const int r = planted::kBoxRadius, area = (2 * r + 1) * (2 * r + 1);
    std::vector<std::uint8_t> out(in.size());
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            int sum = 0;
            for (int dy = -r; dy <= r; ++dy) {
                for (int dx = -r; dx <= r; ++dx) {
                    const int cx = std::min(std::max(x + dx, 0), width - 1), cy = std::min(std::max(y + dy, 0), height - 1);
                    sum += in[cy * width + cx];
                }
            }
            out[y * width + x] = static_cast<std::uint8_t>((sum + area / 2) / area);
        }
    }
    return out;
}

inline tutorial::ComparisonReport run_box_mean(int width, int height, planted::Halo halo) {
    const auto input = tutorial::random_bytes(static_cast<std::size_t>(width) * height, tutorial::derive_seed(tutorial::run_seed(), {width, height}));
    DeviceBuffer<std::uint8_t> in(input), out(input.size());
    out.poison();
    planted::box_mean(in.data(), out.data(), width, height, halo);
    tutorial::OutputLayout layout;
    layout.name = "box mean";
    layout.rows = height;
    layout.cols = width;
    layout.seed = tutorial::run_seed();
    return tutorial::compare_exact(out.download(), box_mean_reference(input, width, height), layout);
}

inline tutorial::ComparisonReport run_moving_average(int size, int window, bool too_small_buffer, bool opt_in = true) {
    const auto input = tutorial::random_floats(size, tutorial::derive_seed(tutorial::run_seed(), {size, window}));
    const int outputs = size - window + 1;
    DeviceBuffer<float> in(input), out(outputs);
    out.poison();
    planted::moving_average(in.data(), out.data(), size, window, too_small_buffer, opt_in);
    tutorial::ExpectedOutput expected;
    for (int i = 0; i < outputs; ++i) {
        double sum = 0.0, magnitude = 0.0;
        for (int k = 0; k < window; ++k) {
            sum += input[i + k];
            magnitude += std::fabs(input[i + k]);
        }
        // The sum's error bound, plus the rounding of the division.
        expected.value.push_back(sum / window);
        expected.tolerance.push_back(tutorial::float_sum_error_factor(window + 1) * magnitude / window);
    }
    tutorial::OutputLayout layout;
    layout.name = "moving average";
    layout.cols = outputs;
    layout.seed = tutorial::run_seed();
    return tutorial::compare_with_tolerance(out.download(), expected, layout);
}


}  // namespace emu_tests
