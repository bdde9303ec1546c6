/// @file session.h
/// @brief One benchmark run: it refuses to run without a GPU, measures the copy
/// ceiling, times each variant and checks its result after timing, then prints the
/// table and writes the CSV and JSON files.
///
/// A chapter's benchmark (bench/NN-folder.cpp) is a main() that hands run() a
/// function describing its problems and variants; everything else happens here.
#pragma once

#include "report.h"
#include "timing.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tutorial::benchmark {

/// @brief The GPU a benchmark runs on.
struct GpuInfo {
    int device = 0;                     ///< the CUDA device number
    std::string name;                   ///< e.g. "NVIDIA H100 80GB HBM3"
    std::string compute_capability;    ///< e.g. "9.0"
    int multiprocessors = 0;            ///< SM count
    std::size_t memory_bytes = 0;       ///< global memory
    std::size_t l2_bytes = 0;           ///< L2 cache size
    std::string driver;                 ///< NVIDIA driver version, from nvidia-smi ("unknown" without it)
    std::string driver_cuda;            ///< newest CUDA version the driver supports, e.g. "13.0"
    std::string runtime_cuda;           ///< the CUDA runtime's version, e.g. "13.0"
};

/// @brief Look for a usable CUDA GPU.
/// @param info filled in when one is found
/// @param why  filled in with the reason when none is found
/// @return whether a GPU was found
bool find_gpu(GpuInfo& info, std::string& why);

/// @brief What a run is labelled with; `make bench` passes them on the command line.
struct RunLabels {
    std::string chapter = "?";           ///< --chapter: the chapter number
    std::string folder = "?";            ///< --folder: the chapter's folder
    std::string tree = "?";              ///< --tree: "chapters" or "solutions"
    std::string output_dir = "build/bench";  ///< --output-dir: where the CSV and JSON go
};

/// @brief One piece of work to time, and how to check its result.
struct WorkToTime {
    std::string problem;   ///< the problem, e.g. "8000 x 8000, R=1"; variants of one problem share it
    std::string variant;   ///< the variant, e.g. "shared"
    std::string unit;      ///< "GFLOP/s" or "GB/s"
    double work = 0.0;     ///< flops, or compulsory bytes, of one run
    bool is_baseline = false;  ///< the variant the problem's speed-ups are over
    /// @brief Called once before the warm-up, e.g. to poison the output so that an
    /// element never written shows up in the check. May be empty.
    std::function<void()> prepare;
    /// @brief One run: enqueue the kernel(s) on the default stream.
    std::function<void()> run;
    /// @brief Called after timing, on the last run's output: an empty string when it
    /// matches the CPU reference, else a report of what is wrong. May be empty for
    /// a ceiling that needs no check.
    std::function<std::string()> check;
    /// @brief Whether run() is host code (a CPU baseline): then it is timed with a host
    /// clock, @ref cpu_warmups and @ref cpu_repetitions times, without the L2 flush.
    bool on_cpu = false;
    int cpu_warmups = 0;      ///< untimed runs of CPU work first
    int cpu_repetitions = 3;  ///< timed runs of CPU work; their median is quoted
};

/// @brief A benchmark run on one GPU: its ceilings, its rows, its output files.
class Session {
public:
    /// @brief Start a run on @p gpu; measures the device-to-device copy ceiling.
    Session(const GpuInfo& gpu, RunLabels labels);

    /// @brief The GPU this run is on.
    const GpuInfo& gpu() const { return gpu_; }

    /// @brief The copy ceiling: cudaMemcpy device to device over buffers far larger
    /// than L2, counting the bytes read plus the bytes written.
    const Measurement& copy_ceiling() const { return copy_ceiling_; }

    /// @brief Time a ceiling (cuBLAS, say), check it, record it and return its row.
    Measurement measure_ceiling(const WorkToTime& work);

    /// @brief Time a kernel variant, check its result after timing, record it with
    /// its percentage of @p ceiling, and return its row.
    ///
    /// An exception from the variant (a rejected argument, a failed launch) is
    /// recorded as an ERROR row and the run goes on; an error that leaves the GPU
    /// unusable stops it.
    Measurement measure_kernel(const WorkToTime& work, const Measurement& ceiling);

    /// @brief Print the table and write CSV and JSON to the output folder.
    /// @return 0 when every row ran and matched the reference, 1 otherwise
    int finish();

private:
    Measurement measure(RowKind kind, const WorkToTime& work, const Measurement* ceiling);
    RunStamp stamp() const;

    GpuInfo gpu_;
    RunLabels labels_;
    std::string date_;
    L2Flush flush_;
    std::vector<Measurement> rows_;
    Measurement copy_ceiling_;
};

/// @brief The whole of a benchmark's main(): parse the labels from @p argv, refuse
/// in one line (exit status 1) without a GPU, run @p body, finish.
/// @return the process exit status: 0 when every variant matched its reference
int run(int argc, char* argv[], const std::function<void(Session&)>& body);

}  // namespace tutorial::benchmark
