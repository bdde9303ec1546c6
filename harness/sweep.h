/// @file sweep.h
/// @brief Run one check over many shapes and report the failures short, with what the
/// failing shapes share.
///
/// A test case that checks a kernel on 36 shapes used to print 36 full reports, each with
/// its map: hundreds of lines, the first and most useful one scrolled away. A ShapeSweep
/// runs every shape and then reports:
///  - the first failing shape in full (counts, first wrong elements, seed, pattern, map);
///  - one line for each further failing shape; those that threw the same finding as the
///    first (the same CPU backend report but for the thread, stage or size it names) are
///    one line together, listing the cases it covers;
///  - what the failing shapes have in common, checked against the passing ones ("fails
///    only when K is not a multiple of 16"), or that every shape fails.
///
/// Only the run's first failing sweep is reported so; each later one is a line (how many
/// shapes fail, the first of them), so that a run where everything fails (a skeleton) fits
/// on a screen or two. A test case that checks several steps (REQUIRE_SWEEPS) is one report:
/// its first failing step as above, a line for each other.
///
/// TUTORIAL_VERBOSE=1 (or VERBOSE=1, which `make ... VERBOSE=1` puts in the environment)
/// shows every failing shape, and every failing sweep, in full.
///
/// On a GPU a failing shape is run a second time on the same inputs: a result that
/// changes from run to run is a race, or a read of shared memory no thread wrote. A failure on the GPU ends with the two commands
/// that find its cause. An out-of-bounds fault reported by the CPU backend gets advice
/// that depends on whether the faulting thread's own output element is inside the output.
#pragma once

#include "compare.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tutorial {

/// @brief One parameter of a test shape, as the cross-shape summary names it.
struct ShapeParameter {
    std::string name;        ///< e.g. "K" or "width"
    long long value = 0;     ///< its value in this shape
    long long unit = 0;      ///< the tile or block this parameter is cut into (0: none), e.g. TILE for K
    std::string unit_name;   ///< how to name the unit when it differs between shapes, e.g. "TILE"
    std::string unit_noun;   ///< what one unit is called, e.g. "tile" or "block"
    /// True when the parameter is a size that the unit cuts into pieces (K into tiles), so
    /// that "more than one tile" means something; false when the unit only divides it (a
    /// cluster's blocks share num_bins among them): the summary then tries only whether
    /// it is a multiple of the unit.
    bool counts_units = true;
};

/// @brief A thread's coordinates, or a block's, as the CPU backend writes them: (x,y,z).
struct Index3 {
    long long x = 0;  ///< x
    long long y = 0;  ///< y
    long long z = 0;  ///< z
};

/// @brief What one thread of a kernel computes: the advice on an out-of-bounds fault says
/// only what follows from it.
enum class ThreadWork {
    one_element,         ///< one output element per thread (OutputOwnership::element_of names it)
    column_per_thread,   ///< a column of elements of its block's tile per thread
    tile_per_thread,     ///< a small tile of elements of its block's tile per thread
    warp_tile_per_warp,  ///< a tile of its block's tile per warp, split among the lanes
};

/// @brief Which output elements a thread computes, for advice on out-of-bounds faults.
struct OutputOwnership {
    std::string output_name;  ///< e.g. "C"
    long long rows = 0;       ///< rows of the output
    long long cols = 0;       ///< columns of the output
    /// Sets @p row and @p col to the element thread @p thread of block @p block computes,
    /// with the chapter's mapping (row = blockIdx.y * blockDim.y + threadIdx.y, say).
    /// Only for ThreadWork::one_element.
    std::function<void(Index3 block, Index3 thread, long long& row, long long& col)> element_of;
    ThreadWork work = ThreadWork::one_element;  ///< what one thread computes
    /// True when the kernel's threads load data into shared memory for each other and meet
    /// at __syncthreads(): a thread then also loads elements that are not its own (a tile,
    /// a halo), and must reach every barrier, so it may not simply return early.
    bool stages_in_shared = false;
    /// True for a stencil: each thread reads the elements around its own (a box, a window),
    /// and a neighbour past the input's edge must be clamped into it or left out.
    bool reads_neighbours = false;
    std::string tile_text;  ///< for the tile kinds: the block's tile, e.g. "64 x 64"
};

/// @brief The advice for a CPU backend's out-of-bounds message, from where the faulting
/// thread's own element lies: outside the output, a missing bounds check; inside, index
/// arithmetic such as a wrong stride. Empty when @p error_text is no global out-of-bounds
/// message or names no thread.
std::string out_of_bounds_advice(const std::string& error_text, const OutputOwnership& ownership);

/// @brief What the failing shapes share, checked against the passing ones.
///
/// Each entry of @p failing and @p passing is one shape's parameters, in the same order
/// for every shape. The sentence is true of the data: a property is said to separate the
/// shapes only when every failing shape has it and no passing one does; one that also
/// holds for a few passing shapes is said so, naming them. Only properties the parameters
/// explain are tried: a parameter against its own unit, and two parameters compared with
/// each other ("N != K", a wrong stride) only when they are sizes in the same unit.
/// @param failing           the failing shapes' parameters
/// @param passing           the passing shapes' parameters
/// @param labels_of_passing the passing shapes' labels, in the order of @p passing
std::string summarize_failing_shapes(const std::vector<std::vector<ShapeParameter>>& failing,
                                     const std::vector<std::vector<ShapeParameter>>& passing,
                                     const std::vector<std::string>& labels_of_passing);

/// @brief Whether two errors are the same finding but for the case they came from: the
/// same text once every number is set aside (a thread's or block's coordinates, a byte, a
/// stage, a size, `STAGES = 3`) except the line numbers of source locations (`file.cu:88`).
/// Empty texts are no finding.
bool same_finding(const std::string& a, const std::string& b);

/// @brief Options of a sweep; the defaults come from the backend and the environment.
struct SweepOptions {
    int chapter = 0;                 ///< the chapter number, for the commands a GPU failure ends with
    bool on_gpu = false;             ///< run a failing shape twice and name the diagnosing commands
    bool verbose = false;            ///< every failing shape in full (TUTORIAL_VERBOSE=1 or VERBOSE=1)
    std::size_t further_listed = 6;  ///< the most one-line entries for further failing shapes
    /// The most shapes the sweep runs; the others are left out, unreported. 0: all. Under
    /// compute-sanitizer (TUTORIAL_SANITIZER_PASS=1, tools/tutorial/sanitizer.py) it is
    /// kSanitizerShapes: the first shapes, which every chapter lists smallest first. A shape
    /// named in TUTORIAL_SHAPES (one case label a line: the shapes that failed on a GPU,
    /// which the CPU backend's diagnosis runs, tools/tutorial/further_checks.py) runs too.
    std::size_t most_shapes = 0;
    /// Put before each shape's label in the cases the run records (make grade), for a test
    /// case that runs several sweeps whose shapes have the same labels: "7b, ".
    std::string case_prefix;
};

/// @brief The shapes each sweep runs under compute-sanitizer, which slows kernels down
/// a hundredfold: enough for a race or an access out of bounds to show (the smallest shapes,
/// the tile's edges), few enough to take seconds.
constexpr std::size_t kSanitizerShapes = 12;

/// @brief SweepOptions for chapter @p chapter on this build's backend and environment.
SweepOptions default_sweep_options(int chapter);

/// @brief Whether the failure about to be reported may print in full: true for the run's
/// first failing sweep, and for every one with TUTORIAL_VERBOSE=1 (or VERBOSE=1); false for
/// the later ones, which print a line each, so that a run that fails everywhere (a skeleton)
/// fits on one screen with its first report whole. Each call that returns true uses up the
/// run's one full report.
bool take_full_report();

/// @brief Runs a check over many shapes and writes one short report of the failures.
class ShapeSweep {
public:
    /// @param what    what is checked, e.g. "tiled_gemm", for the report's first line
    /// @param options see SweepOptions
    ShapeSweep(std::string what, SweepOptions options);

    /// @brief Run one shape: @p run computes and compares, and may throw (a CudaError,
    /// say), which counts as a failure of this shape; the sweep goes on.
    /// @param label      the shape as the report names it, e.g. "TILE 16, M=17 N=15 K=16"
    /// @param parameters the shape's parameters, for the summary
    /// @param run        computes the output and compares it with the reference
    /// @param ownership  which element each thread computes, for out-of-bounds advice
    void run(const std::string& label, std::vector<ShapeParameter> parameters,
             const std::function<ComparisonReport()>& run, const OutputOwnership& ownership = {});

    /// @brief Whether the shapes run from now on earn a point in a [graded] test (true at
    /// first). A shape whose right answer needs none of the student's code (an empty input,
    /// or one whose samples all fall outside the bins) is still run and reported, but
    /// `make grade` counts it as a check: the unsolved exercise must score 0.
    void set_scored(bool scored) { scored_ = scored; }

    /// @brief True when every shape run so far passed.
    bool ok() const { return failed_ == 0; }

    /// @brief How many shapes failed.
    std::size_t failed() const { return failed_; }

    /// @brief The exception the failing shape that the report shows in full threw (the CPU
    /// backend's finding, say), as it was thrown; empty when it threw none or every shape
    /// passed. A later report of the same finding (tutorial::same_finding) can then point
    /// to it instead of repeating it.
    std::string first_error() const;

    /// @brief The index of the failing shape a report shows in full: the first, unless its
    /// finding is only that the result depends on the threads' order and a later one's says
    /// more (shapes' size when every shape passed).
    std::size_t shown_shape() const;

    /// @brief Whether the shape at @p shown is the first failing one.
    bool shown_is_first(std::size_t shown) const;

    /// @brief The report: empty when every shape passed.
    std::string text() const;

    /// @brief The report in one line: how many shapes fail, and the first with its line.
    /// Empty when every shape passed.
    std::string brief() const;
    /// @brief " (21 more not run: why)", said after the count of failing shapes; empty when
    /// every shape ran.
    std::string not_run_note() const;

    /// @brief What a failing test prints: text() for the run's first failing report (see
    /// take_full_report()), brief() for the later ones. Empty when every shape passed.
    std::string report() const;

/// @cond SWEEP_INTERNALS
private:
    struct Shape {
        std::string label;
        std::vector<ShapeParameter> parameters;
        bool passed = true;
        std::string full;  // the whole report of this shape, when it failed
        std::string line;  // one line on it, when it failed
        std::string untouched;  // ComparisonReport::untouched, when it failed so
        std::string error;      // the exception it threw, when it failed so
        std::string advice;     // out_of_bounds_advice() on it: said once only with the same
        bool scored = true;     // false: its right answer needs none of the student's code
        bool names_cause = false;  // its report has a chapter probe's sentence on the mistake
    };
    std::string what_;
    SweepOptions options_;
    std::vector<Shape> shapes_;
    std::size_t failed_ = 0;
    bool scored_ = true;
    bool stopped_ = false;  // after a CUDA error that leaves the GPU unusable
    std::string stop_reason_;  // why the shapes after it were not run, for the headline
    std::size_t skipped_ = 0;
/// @endcond
};

/// @brief The report of a test case that runs several sweeps (one per step of a chapter,
/// say): the first failing sweep's report() in full or brief (see take_full_report()), then
/// one line for each further failing sweep. Empty when every sweep passed.
std::string sweeps_report(const std::vector<ShapeSweep>& sweeps);

}  // namespace tutorial

/// @brief Pass when every shape of @p sweep passed; otherwise fail with its report.
#define REQUIRE_SWEEP(sweep)                  \
    do {                                      \
        const auto& tutorial_sweep_ = (sweep); \
        if (!tutorial_sweep_.ok()) {          \
            FAIL(tutorial_sweep_.report());   \
        }                                     \
        SUCCEED();                            \
    } while (false)

/// @brief Pass when every shape of every sweep in @p sweeps (a std::vector<ShapeSweep>)
/// passed; otherwise fail with tutorial::sweeps_report(): one report, then a line a sweep.
#define REQUIRE_SWEEPS(sweeps)                                              \
    do {                                                                    \
        const std::string tutorial_sweeps_report_ = tutorial::sweeps_report(sweeps); \
        if (!tutorial_sweeps_report_.empty()) {                             \
            FAIL(tutorial_sweeps_report_);                                  \
        }                                                                   \
        SUCCEED();                                                          \
    } while (false)
