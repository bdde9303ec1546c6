/// @file report.h
/// @brief What a benchmark measured (times, their statistics, rates and ratios) and
/// how it is shown: a table on screen, and CSV and JSON files that tools/results.py
/// turns into docs/results.md.
///
/// Plain C++, no CUDA, so tests/benchmark.cpp checks it on any machine. Every
/// benchmark writes through here, so the files of every chapter have the same columns.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tutorial::benchmark {

/// @brief The times of several repetitions of the same work, and their summary.
///
/// The median is the figure to quote: unlike the mean, one run slowed down by
/// something else on the machine does not move it. The spread (min to max, and the
/// quartiles) says how much to trust it.
struct Timing {
    std::vector<double> samples_ms;  ///< one time per repetition, in the order they ran
    double median_ms = 0.0;          ///< the median of the samples
    double min_ms = 0.0;             ///< the fastest repetition
    double max_ms = 0.0;             ///< the slowest repetition
    double q1_ms = 0.0;              ///< first quartile (25th percentile)
    double q3_ms = 0.0;              ///< third quartile (75th percentile)

    /// @brief How many repetitions were timed.
    int repetitions() const { return static_cast<int>(samples_ms.size()); }
};

/// @brief Summarise @p samples_ms (at least one) into a Timing.
///
/// Quartiles are interpolated linearly between the sorted samples.
/// @throws std::invalid_argument for an empty list of samples
Timing summarize(std::vector<double> samples_ms);

/// @brief Whether a row is a kernel of the chapter, a ceiling it is compared with, or the
/// library call a user would make instead of writing the kernel.
enum class RowKind {
    ceiling,  ///< what the GPU can do: a device-to-device copy, cuBLAS SGEMM
    kernel,   ///< one variant of the chapter's kernels
    library,  ///< a library's answer to the same problem (NPP, CUB, cuBLAS), timed and checked like a kernel
};

/// @brief The check of a library row whose library is not installed on this machine: the row
/// says so (its note: how to get it), and the run does not fail because of it.
inline constexpr const char* kLibraryAbsent = "absent";

/// @brief One timed piece of work: a ceiling or a kernel variant, on one problem.
///
/// The rates and ratios are computed from the stored times and amounts of work, so
/// the screen, the CSV and the JSON always agree.
struct Measurement {
    RowKind kind = RowKind::kernel;  ///< ceiling or kernel
    std::string problem;  ///< the problem solved, e.g. "4096 x 4096 x 4096" or "8000 x 8000, R=1"
    std::string variant;  ///< what solved it, e.g. "naive", "tiled 16", "cuBLAS SGEMM (FP32)"
    Timing timing;        ///< its times; empty when it could not be timed
    std::string unit;     ///< "GFLOP/s" (work counts flops) or "GB/s" (work counts bytes)
    double work = 0.0;    ///< flops or compulsory bytes of one run

    std::string ceiling;          ///< for a kernel: the variant name of its ceiling
    double ceiling_rate = 0.0;    ///< for a kernel: the ceiling's rate, in @ref unit (0 if none)
    bool is_baseline = false;     ///< the variant the problem's speed-ups are over
    std::string baseline;         ///< the baseline's variant name (filled in by the session)
    double baseline_ms = 0.0;     ///< the baseline's median time (0 if none or failed)

    /// The row every row of its problem is compared with in the column "× the library": the
    /// call a user would make instead of writing the kernel. Usually a RowKind::library row;
    /// the cuBLAS ceiling of the GEMM chapters is both the ceiling and the library.
    bool is_library = false;
    std::string library;          ///< the library row's variant name (filled in by the session)
    double library_ms = 0.0;      ///< the library row's median time (0 if none, absent or failed)

    bool ok = false;    ///< ran, and its result matched the CPU reference after timing
    std::string check;  ///< "ok", "WRONG", "ERROR", or kLibraryAbsent for a library not installed
    std::string note;   ///< why it is WRONG or an ERROR, or a remark worth reading

    /// @brief Work per second in @ref unit (GFLOP/s or GB/s); 0 if not timed.
    double rate() const;
    /// @brief The rate as a percentage of the ceiling's; 0 without a ceiling.
    double percent_of_ceiling() const;
    /// @brief The baseline's median time over this one's; 0 without a baseline.
    double speedup() const;
    /// @brief The library row's median time over this one's ("× the library"): above 1, this
    /// row is faster than the library; 0 without a library row that ran correctly.
    double times_library() const;
    /// @brief Whether the row failed: WRONG or ERROR (a library that is absent has not failed).
    bool failed() const { return !ok && check != kLibraryAbsent; }
};

/// @brief Where and when a benchmark ran, stamped on every file it writes.
struct RunStamp {
    std::string chapter;       ///< the chapter's number, as the registry gives it
    std::string folder;        ///< its folder, "NN-name"
    std::string tree;          ///< "chapters" (the student's code) or "solutions"
    std::string gpu;           ///< the GPU's name
    std::string compute_capability;  ///< e.g. "9.0"
    std::string driver;        ///< the NVIDIA driver version, e.g. "580.65.06"
    std::string driver_cuda;   ///< the newest CUDA version the driver supports, e.g. "13.0"
    std::string runtime_cuda;  ///< the CUDA runtime the benchmark uses, e.g. "13.0"
    std::string date;          ///< when it ran, UTC, ISO 8601
    /// The GPU's FP32 peak, GFLOP/s: SMs × FP32 lanes per SM × 2 × the boost clock (0: unknown).
    /// The roofline (`make chapterN roofline`) draws its roof from this and the next.
    double peak_fp32_gflops = 0.0;
    /// The GPU's DRAM bandwidth, GB/s: 2 (double data rate) × memory clock × bus width (0: unknown).
    double peak_dram_gbs = 0.0;
};

/// @brief Fill in each row's baseline and library from the other rows of its problem: the
/// speed-up is over the problem's baseline row (is_baseline; ceilings get none), "× the
/// library" over its library row (is_library; the library row itself gets none). A baseline or
/// library that failed, or an absent library, leaves the ratio at 0 (shown as "-").
/// @throws std::logic_error when two rows of one problem are its library
void relate_rows(std::vector<Measurement>& rows);

/// @brief Print the rows as an aligned table, with a heading from @p stamp.
void print_table(std::ostream& out, const RunStamp& stamp, const std::vector<Measurement>& rows);

/// @brief The names of the CSV columns, in order; tools/results.py reads them by name.
const std::vector<std::string>& csv_columns();

/// @brief Write the rows to @p path as CSV: a header line, then one line per row, each
/// carrying the stamp, so that the file stands alone.
/// @throws std::runtime_error if the file cannot be written
void write_csv(const std::string& path, const RunStamp& stamp, const std::vector<Measurement>& rows);

/// @brief Write the stamp, and the rows with every timing sample, to @p path as JSON.
/// @throws std::runtime_error if the file cannot be written
void write_json(const std::string& path, const RunStamp& stamp, const std::vector<Measurement>& rows);

/// @brief @p value printed by std::snprintf with @p format (one double conversion), e.g.
/// printf_string("%.1f%%", 93.26) is "93.3%".
std::string printf_string(const char* format, double value);

}  // namespace tutorial::benchmark
