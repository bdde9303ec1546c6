/// @file session.h
/// @brief One benchmark run: it refuses to run without a GPU, measures the copy
/// ceiling, times each variant and checks its result after timing, then prints the
/// table and writes the CSV and JSON files.
///
/// A chapter's benchmark (bench/NN-folder.cpp) is a main() that hands run() a
/// function describing its problems and variants; everything else happens here.
#pragma once

#ifdef TUTORIAL_CHAPTER
#include "tutorial_chapter.h"
#endif

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
    double peak_fp32_gflops = 0.0;      ///< FP32 peak at the boost clock (0 for an architecture not in our table)
    double peak_dram_gbs = 0.0;         ///< DRAM bandwidth from the memory clock and bus width (0: not reported)
};

/// @brief FP32 lanes per SM of compute capability @p major.@p minor (64 on 6.0, 7.x and 8.0;
/// 128 on 6.1/6.2, 8.6 to 12.x), or 0 for one not in the table.
int fp32_lanes_per_sm(int major, int minor);

/// @brief Look for a usable CUDA GPU.
/// @param info filled in when one is found
/// @param why  filled in with the reason when none is found
/// @return whether a GPU was found
bool find_gpu(GpuInfo& info, std::string& why);

/// @brief What a run is labelled with: the chapter from the build (tutorial_chapter.h), the
/// rest from the command line `make bench` writes.
struct RunLabels {
    std::string chapter = "?";           ///< the chapter number (TUTORIAL_CHAPTER)
    std::string folder = "?";            ///< the chapter's folder (TUTORIAL_CHAPTER_FOLDER)
    std::string tree = "?";              ///< --tree: "chapters" or "solutions"
    std::string output_dir = "build/bench";  ///< --output-dir: where the CSV and JSON go
};

/// @brief One piece of work to time, and how to check its result.
struct WorkToTime {
    std::string problem;   ///< the problem, e.g. "8000 x 8000, R=1"; variants of one problem share it
    std::string variant;   ///< the variant, e.g. "shared"
    std::string unit;      ///< "GFLOP/s" or "GB/s"
    double work = 0.0;     ///< flops, or compulsory bytes, of one run
    /// The bytes one run writes to global memory (its output): the L2 flush before each run
    /// leaves that many, up to the size of L2, dirty for the run to write back (L2Flush).
    /// Every GPU row sets it; measure() refuses one that does not.
    double bytes_written = -1.0;
    bool is_baseline = false;  ///< the variant the problem's speed-ups are over
    /// The library call a user would make for this problem: every row of the problem gets its
    /// time ratio to this one (the column "× the library"). Session::measure_library sets it;
    /// set it by hand for a ceiling that is also the library (cuBLAS SGEMM in the GEMM chapters).
    bool is_library = false;
    /// @brief Called once before the warm-up, e.g. to poison the output so that an
    /// element never written shows up in the check. May be empty.
    std::function<void()> prepare;
    /// @brief One run: enqueue the kernel(s) on the default stream.
    std::function<void()> run;
    /// @brief Called after timing, on the last run's output: an empty string when it
    /// matches the CPU reference, else a report of what is wrong. May be empty for
    /// a ceiling that needs no check.
    std::function<std::string()> check;
    /// @brief Called after a check that passed: a remark for the row's note (how a library's
    /// result differs from the reference within what the check allows, say), or empty. May be empty.
    std::function<std::string()> remark;
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

    /// @brief Time a library's answer to the problem (NPP, CUB, cuBLAS: what a user would call
    /// instead of writing the kernel), check it against the CPU reference like a kernel, and
    /// record it as the library row of its problem, with its percentage of @p ceiling.
    ///
    /// Every row of the same problem (work.problem, spelled identically) then shows its time
    /// ratio to this one in the column "× the library". One library row per problem: a second
    /// one is an error (std::logic_error), since the column could only be over one of them.
    /// Libraries are linked into the benchmarks only (mk/bench.mk), never into the tests.
    Measurement measure_library(WorkToTime work, const Measurement& ceiling);

    /// @brief Record the library row of @p problem for a library that is not installed here:
    /// its check says kLibraryAbsent and its note @p why (e.g. "NPP not installed: ..., how to
    /// get it"); the run goes on and does not fail for it, and the problem's rows have no ratio.
    Measurement library_absent(const std::string& problem, const std::string& variant, const std::string& unit,
                               const std::string& why);

    /// @brief Print the table and write CSV and JSON to the output folder.
    /// @return 0 when every row ran and matched the reference, 1 otherwise
    int finish();

private:
    Measurement measure(RowKind kind, const WorkToTime& work, const Measurement* ceiling);
    RunStamp stamp() const;
    void require_one_library(const Measurement& library) const;

    GpuInfo gpu_;
    RunLabels labels_;
    std::string date_;
    L2Flush flush_;
    std::vector<Measurement> rows_;
    Measurement copy_ceiling_;
};

/// @brief The whole of a benchmark's main(): parse the labels from @p argv, refuse
/// in one line (exit status 1) without a GPU, run @p body, finish.
/// @param chapter the chapter's number, @param folder its folder: run() below passes the build's
/// @return the process exit status: 0 when every variant matched its reference
int run_chapter(int argc, char* argv[], const char* chapter, const char* folder,
                const std::function<void(Session&)>& body);

#ifdef TUTORIAL_CHAPTER
/// @brief A chapter's benchmark (its bench.cpp, compiled as the chapter's own): run_chapter()
/// with the chapter's number and folder from the build (common/tutorial_chapter.h). A program
/// holds one chapter's benchmark, so every definition of this inline function is the same.
inline int run(int argc, char* argv[], const std::function<void(Session&)>& body) {
    return run_chapter(argc, argv, TUTORIAL_CHAPTER_STRING(TUTORIAL_CHAPTER), CHAPTER_FOLDER, body);
}
#endif

}  // namespace tutorial::benchmark
