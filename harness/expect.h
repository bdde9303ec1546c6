/// @file expect.h
/// @brief Test helpers shared by every chapter's tests.
#pragma once

#include "catch.h"
#include "compare.h"
#include "launch_config.h"

#include <cstddef>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace tutorial {

/// @brief True when a CUDA device can run kernels.  Decided once, by the test runner's main.
bool cuda_device_available();

/// @brief True when the command line chose which tests to run, so that the run is not the
/// whole chapter (the results file says so; see results_file.cpp).
bool tests_chosen_on_command_line();

/// @brief Record one case of the running test case: a test that runs many shapes in one
/// body (a sweep) records each, so that `make grade` gives a point per shape and names it.
/// The results file (results_file.cpp) writes them in place of the test run's own line.
/// @param label  the case's name, e.g. "TILE 16, M=17 N=15 K=16"
/// @param passed whether it passed
/// @param output why it failed, in one line (empty when it passed)
/// @param scored false for a case of a [graded] test that earns no point: one whose right
///               answer the provided code already gives (an empty input, say), written as a check
void record_case(const std::string& label, bool passed, const std::string& output, bool scored = true);

/// @brief How many test cases this run has started so far (the results file's listener
/// counts them), so that a filter that selects none can be told from a green run.
std::size_t test_cases_started();

/// @brief The names of the test cases that failed so far in this run, apart: @p optional
/// (tagged [extra], a chapter's going-further steps) or the others. Counted by the results
/// file's listener, so that the runner's last lines can say which failures are optional.
std::vector<std::string> failed_test_cases(bool optional);

/// @brief Whether the reports of failing going-further ([extra]) test cases are printed
/// after a required test case has failed (true: VERBOSE=1, ARGS=--success); by default
/// they are not, so that a skeleton's run fits on a screen. Set by the runner's main.
void show_optional_reports(bool shown);

/// @brief How many failing going-further test cases this run kept off the screen.
std::size_t hidden_optional_failures();

/// @brief The last lines of a failing run: how many of the failing test cases are
/// going-further steps, which (their names' "8c:" prefixes), and that the chapter is done
/// without them. Empty when none of @p optional failed. Pure, for the harness's own tests.
/// @p hidden of them had their reports kept off the screen (see show_optional_reports()).
/// Only a @p whole_run (no test chosen on the command line) may say the required ones pass.
std::string optional_failures_note(const std::vector<std::string>& required, const std::vector<std::string>& optional,
                                   std::size_t hidden = 0, bool whole_run = true);

/// @brief What is wrong with @p text as a seed (TUTORIAL_SEED, set by `make ... SEED=n`),
/// or an empty string when it is a whole number from 0 to 4294967295 or is unset (null or
/// empty). The range is Catch2's: its own seed is ours, so one run names one seed.
std::string seed_error(const char* text);

/// @brief The text of a chapter's source file as this test binary was built from it:
/// chapters/NN-name/@p file_name, or solutions/NN-name/@p file_name for a binary built
/// with SOLUTIONS=1 (chapters/ again for a file only chapters/ has: the lesson, the API).
///
/// @p folder is the chapter's folder, NN-name: pass CHAPTER_FOLDER (tutorial_chapter.h). The
/// tree is read from the binary's own path (build/BACKEND/TREE/bin/...), and the repository
/// is the folder that holds that build/. Throws std::runtime_error saying where it looked
/// when the file cannot be read.
std::string read_chapter_source(const std::string& folder, const std::string& file_name);

/// @brief Whether @p text contains @p phrase. A report wraps its sentences (wrap_report_text),
/// so a phrase of one line is also found across a line break: with every run of spaces and
/// line breaks in both made one space. A phrase that has a line break of its own is found
/// only as written, its layout included.
bool contains_phrase(const std::string& text, const std::string& phrase);

/// @brief Check that @p text says each of @p phrases and none of @p not_phrases
/// (contains_phrase): a check a phrase, whose failure shows the text and names the phrase.
void check_says(const std::string& text, const std::vector<std::string>& phrases,
                const std::vector<std::string>& not_phrases = {});

/// @brief "PATH:N" for the first line of @p path (relative to the repository, where the
/// tests run) that contains @p text: where a kernel's call or access is written, found by
/// its text so that a test keeps no line numbers. Fails the running test when no line does.
std::string place_of(const std::string& path, const std::string& text);

/// @brief The parameter list of `__global__ void @p kernel_name(...)` in @p source, with
/// comments removed and each run of white space made one space: "const float* __restrict__
/// input, float* output, int size". Empty when the kernel is not defined in @p source.
std::string kernel_parameter_list(const std::string& source, const std::string& kernel_name);

/// @brief Where a student of the chapter this program tests works, for its reports: "Your
/// code for chapter 1 is in chapters/01-naive-gemm/naive_gemm.cu (its TODO(chapter1)
/// markers); make chapter1 hint gives a hint." Empty when the program does not test a
/// chapter of chapters/ (the solutions, the library's own tests) or was not started from
/// the repository's root, as make starts it.
std::string where_to_work();
/// @brief where_to_work() the first time a report asks in this run, then "": the first
/// report names the files, the run's last line names them again, and no report between.
std::string where_to_work_first_time();
/// @brief Work out where_to_work() from the program's path @p program (argv[0]), which
/// is build/BACKEND/chapters/bin/chapterN-tests for a chapter's tests.
void find_where_to_work(const std::string& program);

/// @brief Check that @p call throws CudaError for a launch the GPU refuses, naming
/// @p kernel_name and @p source_file in its message. @p call must launch with one row of
/// blocks more than a GPU allows (grid.y = 65536), as the failure message says.
void check_launch_refused(const std::function<void()>& call, const std::string& kernel_name,
                          const std::string& source_file);

/// @brief What is wrong with a launch configuration: empty when @p got's grid and block are
/// @p grid and @p block; else "<input> the launch is grid 4 x 1 x 1, block 128 x 1 x 1.\n
/// Expected grid 8 x 1 x 1 (<why>), block 256 x 1 x 1." @p input names the input ("For a
/// 17 x 9 image"), @p why says how @p grid follows from it ("ceil(1000 / 256) = 4").
std::string launch_config_mismatch(const LaunchConfig& got, dim3 grid, dim3 block, const std::string& input,
                                   const std::string& why);

/// @brief What a failed REQUIRE_MATCH prints: @p report's whole text when the run's one
/// full report is still to give (take_full_report(), sweep.h), else its first line, so that
/// a run failing everywhere stays on a screen or two.
std::string match_failure_text(const ComparisonReport& report);

}  // namespace tutorial

/// @brief Pass when @p report found no wrong element; otherwise fail with its text (in full
/// for the run's first failure, so the failure explains itself without opening the test file).
#define REQUIRE_MATCH(report)                                      \
    do {                                                           \
        const auto& tutorial_report_ = (report);                   \
        if (!tutorial_report_.ok()) {                              \
            FAIL(tutorial::match_failure_text(tutorial_report_));  \
        }                                                          \
        SUCCEED();                                 \
    } while (false)

/// @brief Pass when the launch configuration @p got has grid @p grid and block @p block;
/// otherwise fail with launch_config_mismatch()'s text. @p input and @p why are written to a
/// stream (`"For " << shape`), so they may be chains of `<<`.
#define REQUIRE_LAUNCH_CONFIG(got, grid, block, input, why)                                          \
    do {                                                                                            \
        std::ostringstream tutorial_input_, tutorial_why_;                                          \
        tutorial_input_ << input;                                                                   \
        tutorial_why_ << why;                                                                       \
        const std::string tutorial_mismatch_ =                                                      \
            tutorial::launch_config_mismatch(got, grid, block, tutorial_input_.str(), tutorial_why_.str()); \
        if (!tutorial_mismatch_.empty()) {                                                          \
            FAIL(tutorial_mismatch_);                                                               \
        }                                                                                           \
        SUCCEED();                                                                                  \
    } while (false)
