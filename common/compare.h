/// @file compare.h
/// @brief Compare a kernel's output with the reference and explain what is wrong.
///
/// A failing test must point at the bug. The report says how many elements are
/// wrong, lists the first few with coordinates, expected value, value got and error,
/// gives the seed, names any pattern the errors share ("only the last, partial tile")
/// and draws a map of where they are.
#pragma once

#include "reference.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace tutorial {

/// @brief How to read and describe an output: its name, shape, tiling and seed.
struct OutputLayout {
    std::string name = "C";    ///< name used in the report, e.g. "C" or "blurred image"
    long long rows = 1;        ///< rows of the output (1 for a 1D output)
    long long cols = 1;        ///< columns (elements, for a 1D output)
    long long tile_rows = 0;   ///< rows per tile or block; 0 when the kernel has no tiles
    long long tile_cols = 0;   ///< columns per tile or block; 0 when the kernel has no tiles
    long long border = 0;      ///< width of a border ring worth singling out (a stencil's radius)
    /// For a kernel that loads a 1D window of N elements into shared memory: N − 1, how far
    /// past its own block a block reads. 0 for a kernel that loads no halo (one that reads
    /// global memory directly), so that no report blames a halo it does not have.
    long long halo = 0;
    double poison = std::numeric_limits<double>::quiet_NaN();  ///< what the output held before the run
    unsigned long long seed = 0;  ///< the seed the inputs were made from
};

/// @brief The layout of a @p rows × @p cols output called @p name, computed in tiles (or
/// blocks) of @p tile_rows × @p tile_cols (0: the kernel has no tiles), from inputs made
/// with run_seed(). Set the other fields on what it returns.
OutputLayout output_layout(const std::string& name, long long rows = 1, long long cols = 1, long long tile_rows = 0,
                           long long tile_cols = 0);

/// @brief One wrong element.
struct Mismatch {
    long long row;    ///< its row
    long long col;    ///< its column
    double expected;  ///< the reference value
    double got;       ///< what the kernel wrote
    double allowed;   ///< the tolerance for this element (0 for exact comparisons)
};

/// @brief The outcome of a comparison, with a report written for a student.
struct ComparisonReport {
    long long total = 0;             ///< elements compared
    long long wrong = 0;             ///< elements outside their tolerance
    std::vector<Mismatch> first;     ///< the first few wrong elements, in row-major order
    double max_error = 0.0;          ///< largest |got − expected| among wrong elements (inf for NaN)
    long long max_error_row = 0;     ///< row of that element
    long long max_error_col = 0;     ///< column of that element
    std::vector<bool> wrong_mask;    ///< wrong_mask[row*cols + col] is true for a wrong element
    std::uint64_t fingerprint = 0;   ///< a hash of every value the output held, to tell two runs' outputs apart
    std::string text;                ///< the full report; empty when everything matches
    std::string cause;               ///< a sentence a chapter's own probe adds (also at the end of text) when it names the mistake
    /// @brief When some element is wrong and every element holds the poison the test wrote
    /// before the run (a few may be right by chance: a byte poison of 0 where 0 is right), what that says ("every element of C holds NaN, the poison the test wrote before
    /// the run (seed 2026). Either no thread wrote C ..."); else empty. Shape sweeps use it
    /// to report a kernel that wrote nothing in a few lines.
    std::string untouched;

    /// @brief True when every element is within tolerance.
    bool ok() const { return wrong == 0; }
};

/// @brief How many wrong elements the report lists one by one.
constexpr int kMismatchesListed = 8;

/// @brief Compare float output with a reference and its per-element tolerances.
///
/// An element is right when |got − expected| ≤ tolerance. NaN is never right, so an
/// element left at the NaN poison always counts as wrong.
ComparisonReport compare_with_tolerance(const std::vector<float>& got, const ExpectedOutput& expected,
                                        const OutputLayout& layout);

/// @brief Compare integer output exactly.
ComparisonReport compare_exact(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& expected,
                               const OutputLayout& layout);

/// @brief The widest line a report writes: Catch2 version 3 wraps at 80 columns and
/// indents messages by 2, and a line it wraps itself may start with a comma.
constexpr std::size_t kReportWidth = 76;

/// @brief @p text broken at spaces into lines of at most @p width characters, each
/// ending in a newline, the first starting with @p first and the others with @p rest.
std::string wrap_report_text(const std::string& text, std::size_t width = kReportWidth, const std::string& first = "",
                             const std::string& rest = "");

/// @brief Sentences that name the pattern the wrong elements share, if any: all of
/// them in the last partial tile, on the border ring, along the seams between tiles,
/// the last N − 1 outputs of each block of a 1D window, never written, and so on. @p exact:
/// the comparison was exact, of integers (every wrong element off by 1 is then a rounding).
std::vector<std::string> describe_error_pattern(const ComparisonReport& report, const OutputLayout& layout,
                                                const std::vector<double>& got, bool exact = false);

/// @brief A character map of where the wrong elements are.
///
/// Outputs up to 64×64 get one character per element, with a gap between tiles.
/// Larger ones get one character per tile (or per block of elements when there are
/// too many tiles): '.' all right, 'x' some wrong, 'X' all wrong. When every element of
/// an output of more than one is wrong, one line says so instead.
std::string draw_error_map(const ComparisonReport& report, const OutputLayout& layout);

}  // namespace tutorial
