// The results file: a few lines that a test run leaves for `make status`,
// `make chapterN solution` and `make grade` (tools/workflow.py reads them), so that
// they know how the last run went without running the tests again.
//
// The Makefile's `test` recipe names the file in TUTORIAL_RESULTS_FILE; without it
// nothing is written. The file is rewritten as the run goes, so a run that dies leaves
// "state=running" and the test it was in, never the results of an older run.
//
//   state=finished            running while the tests run; crashed after a signal that
//                             Catch2 caught (the tests after it did not run)
//   passed=3                  test cases, as in Catch2's "test cases: 4 | 3 passed | 1 failed"
//   failed=1
//   extra_passed=1            of those, the test cases tagged [extra]: a chapter's optional
//   extra_failed=0            "going further" steps, which it counts as done without
//   gpu_tests=run             skipped when no CUDA device ran the tests tagged [gpu]
//   selection=all             chosen when the command line picked the tests to run
//   current=<test name>       the test case running, or the one that crashed
//   crash=<what>              Catch2's name for the signal, e.g. "SIGSEGV - Segmentation violation signal"
//   case=<outcome>\t<kind>\t<name>\t<output>
//                             one line per case, in the order they ran: one run of a test
//                             case, i.e. one value of its GENERATEs and one path through its
//                             SECTIONs (one shape, one image). outcome is passed or failed;
//                             kind is graded (a test case tagged [graded], worth a point per
//                             case), reference (tagged [reference]: the CPU reference's own
//                             tests) or check (the rest: argument and launch checks that the
//                             provided code passes, and the shapes of a graded sweep that
//                             need none of the student's code, ShapeSweep::set_scored); name is the test case's name, then its
//                             sections and, for a graded case, its first INFO message when
//                             that is one short line, joined by " / " ("#k" numbers the kth
//                             run of a test case that no INFO names); output is
//                             the first failed assertion's expansion and message, or empty.
//                             `make grade` scores from these lines. Tabs and newlines in the
//                             fields are written as spaces and "\n".
//
// Catch2's listener interface differs between versions 2 and 3 in its base class, its
// headers and what assertionEnded returns; the events and their data are the same.
#if !defined(TUTORIAL_CATCH2_V3)
// Version 2 shows its listener interface only to files that ask for it.
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#endif
#include "catch.h"
#include "expect.h"
#include "grade_channel.h"

#if defined(TUTORIAL_CATCH2_V3)
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>
#endif

#include <algorithm>
#include <cstdio>
#include <fcntl.h>
#include <iostream>
#include <unistd.h>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct RecordedCase {
    std::string label;
    bool passed;
    std::string output;
    bool scored;  // false: a check even in a [graded] test (record_case)
};

const std::string kCheck = "check";

// The cases record_case() noted during the running test's body, not yet written.
std::vector<RecordedCase>& recorded_cases() {
    static std::vector<RecordedCase> cases;
    return cases;
}

std::size_t started_test_cases = 0;

// The names of the failed test cases: [extra] ones (optional) and the others.
std::vector<std::string> failed_optional_names, failed_required_names;

// One screen: once a required test case has failed, a going-further ([extra]) test case's
// report is kept off the screen (its file descriptor 1 goes to /dev/null while it runs),
// unless the run shows everything (VERBOSE=1, ARGS=--success). Counted for the last lines.
bool optional_reports_shown = false;
std::size_t hidden_optional_reports = 0;
int saved_stdout = -1;

void hide_stdout() {
    std::cout.flush();
    std::fflush(stdout);
    const int null = ::open("/dev/null", O_WRONLY);
    if (null < 0) return;
    saved_stdout = ::dup(1);
    if (saved_stdout >= 0) ::dup2(null, 1);
    ::close(null);
}

void restore_stdout() {
    if (saved_stdout < 0) return;
    std::cout.flush();
    std::fflush(stdout);
    ::dup2(saved_stdout, 1);
    ::close(saved_stdout);
    saved_stdout = -1;
}

#if defined(TUTORIAL_CATCH2_V3)
using ListenerBase = Catch::EventListenerBase;
#else
using ListenerBase = Catch::TestEventListenerBase;
#endif

class ResultsFile : public ListenerBase {
public:
#if defined(TUTORIAL_CATCH2_V3)
    // Version 3 tells listeners of passing assertions only when one asks: the INFO that
    // names a case (its shape) comes with its assertions, passing or not. (Version 2
    // tells them of every assertion.) The console still prints only the failures.
    explicit ResultsFile(Catch::IConfig const* config) : ListenerBase(config) {
        m_preferences.shouldReportAllAssertions = true;
    }
#else
    using ListenerBase::ListenerBase;
#endif

    void testRunStarting(Catch::TestRunInfo const& info) override {
        ListenerBase::testRunStarting(info);
        write("running");
    }

    void testCaseStarting(Catch::TestCaseInfo const& info) override {
        ListenerBase::testCaseStarting(info);
        ++started_test_cases;
        current_ = info.name;
        // Both Catch2 versions spell a test's tags "[chapter3][extra][gpu]" here.
        current_is_extra_ = info.tagsAsString().find("[extra]") != std::string::npos;
        if (current_is_extra_ && !optional_reports_shown && !failed_required_names.empty()) hide_stdout();
        kind_ = current_is_extra_ ? "extra" : has_tag(info, "graded") ? "graded" : has_tag(info, "reference") ? "reference" : "check";
        runs_ = 0;
        write("running");
    }

    // Each run of a test case's body (one GENERATE value, one path through its SECTIONs)
    // opens and closes the test case's own section, the outermost one; its counts are
    // that run's assertions, an unexpected exception included.
    void sectionStarting(Catch::SectionInfo const& info) override {
        ListenerBase::sectionStarting(info);
        if (depth_++ == 0) {
            recorded_cases().clear();
            run_sections_.clear();
            run_info_.clear();
            run_output_.clear();
        } else if (std::find(run_sections_.begin(), run_sections_.end(), info.name) == run_sections_.end()) {
            run_sections_.push_back(info.name);
        }
    }

    void sectionEnded(Catch::SectionStats const& stats) override {
        // A run that asserted nothing is not a case: Catch2 makes one such run after the
        // last SECTION of each GENERATE value, entering no section.
        if (depth_ == 1 && !recorded_cases().empty()) {
            // A body that recorded its cases (a sweep of shapes) is those cases.
            --depth_;
            std::string name = current_;
            for (const std::string& section : run_sections_) {
                name += " / " + section;
            }
            for (const RecordedCase& recorded : recorded_cases()) {
                ++runs_;
                const std::string& kind = recorded.scored || kind_ != "graded" ? kind_ : kCheck;
                cases_.push_back(std::string(recorded.passed ? "passed" : "failed") + '\t' + kind + '\t' +
                                 field(name + " / " + recorded.label) + '\t' +
                                 field(recorded.passed ? std::string() : recorded.output));
            }
            recorded_cases().clear();
        } else if (--depth_ == 0 && stats.assertions.total() > 0) {
            const bool passed = stats.assertions.failed == 0;
            ++runs_;
            std::string name = current_;
            for (const std::string& section : run_sections_) {
                name += " / " + section;
            }
            // A graded case is named by its INFO (its shape, its image) when that is a
            // short line; an INFO that holds what the code under test returned would
            // give the same case different names in different submissions.
            const bool info_names_case = kind_ == "graded" && !run_info_.empty() && run_info_.size() <= 80 &&
                                         run_info_.find('\n') == std::string::npos;
            if (info_names_case) {
                name += " / " + run_info_;
            } else if (runs_ > 1) {
                name += " #" + std::to_string(runs_);
            }
            cases_.push_back(std::string(passed ? "passed" : "failed") + '\t' + kind_ + '\t' + field(name) + '\t' +
                             field(passed ? std::string() : run_output_));
        }
        ListenerBase::sectionEnded(stats);
    }

    void testCaseEnded(Catch::TestCaseStats const& stats) override {
        // A test case marked [!mayfail] that failed counts as passed, as Catch2 counts it.
        passed_ += stats.totals.testCases.passed + stats.totals.testCases.failedButOk;
        failed_ += stats.totals.testCases.failed;
        if (stats.totals.testCases.failed > 0) {
            (current_is_extra_ ? failed_optional_names : failed_required_names).push_back(current_);
            if (saved_stdout >= 0) ++hidden_optional_reports;
        }
        restore_stdout();  // before the reporter's own testCaseEnded: listeners are told first
        if (current_is_extra_) {
            extra_passed_ += stats.totals.testCases.passed + stats.totals.testCases.failedButOk;
            extra_failed_ += stats.totals.testCases.failed;
        }
        if (crash_.empty()) {
            current_.clear();
        }
        write("running");
        ListenerBase::testCaseEnded(stats);
    }

    // A signal that Catch2 caught shows up as a failed assertion of its own kind; Catch2
    // then ends the test case and the run, and the process dies of the signal.
    // (Version 2's listeners never see fatalErrorEncountered, so it is caught here.)
#if defined(TUTORIAL_CATCH2_V3)
    void assertionEnded(Catch::AssertionStats const& stats) override {
        note_crash(stats);
        ListenerBase::assertionEnded(stats);
    }
#else
    bool assertionEnded(Catch::AssertionStats const& stats) override {
        note_crash(stats);
        return ListenerBase::assertionEnded(stats);
    }
#endif

    void testRunEnded(Catch::TestRunStats const& stats) override {
        write(crash_.empty() ? "finished" : "crashed");
        ListenerBase::testRunEnded(stats);
    }

private:
    void note_crash(Catch::AssertionStats const& stats) {
        const Catch::AssertionResult& result = stats.assertionResult;
        if (result.getResultType() == Catch::ResultWas::FatalErrorCondition) {
            restore_stdout();  // a crash is always shown: the reporter hears of it after us
            crash_ = std::string(result.getMessage());
        }
        // The first INFO in scope names the case (the shape, the image); the first
        // failure is what a grader shows the student.
        if (run_info_.empty() && !stats.infoMessages.empty()) {
            run_info_ = std::string(stats.infoMessages.front().message);
        }
        if (!result.succeeded() && run_output_.empty()) {
            std::ostringstream out;
            out << result.getSourceInfo().file << ':' << result.getSourceInfo().line << ": ";
            if (result.hasExpression()) {
                out << result.getExpressionInMacro() << " with expansion " << result.getExpandedExpression();
            }
            if (result.hasMessage()) {
                out << (result.hasExpression() ? "; " : "") << result.getMessage();
            }
            for (const auto& info : stats.infoMessages) {
                out << "\nwith " << info.message;
            }
            run_output_ = out.str();
        }
    }

    static bool has_tag(Catch::TestCaseInfo const& info, const std::string& wanted) {
        for (const auto& tag : info.tags) {
#if defined(TUTORIAL_CATCH2_V3)
            std::string text(tag.original.data(), tag.original.size());
#else
            std::string text = tag;
#endif
            std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
            if (text == wanted || text == "[" + wanted + "]") {
                return true;
            }
        }
        return false;
    }

    /// One field of a case line: tabs become spaces and newlines "\n", so that a line
    /// stays a line and its fields stay apart; long outputs are cut.
    static std::string field(const std::string& text) {
        constexpr std::size_t kLongest = 2000;
        std::string out;
        for (char c : text.substr(0, kLongest)) {
            if (c == '\t') {
                out += ' ';
            } else if (c == '\n') {
                out += "\\n";
            } else if (c != '\r') {
                out += c;
            }
        }
        return text.size() > kLongest ? out + " [...]" : out;
    }

    void write(const char* state) const {
        std::ostringstream out;
        out << "state=" << state << '\n'
            << "passed=" << passed_ << '\n'
            << "failed=" << failed_ << '\n'
            << "extra_passed=" << extra_passed_ << '\n'
            << "extra_failed=" << extra_failed_ << '\n'
            << "gpu_tests=" << (tutorial::cuda_device_available() ? "run" : "skipped") << '\n'
            << "selection=" << (tutorial::tests_chosen_on_command_line() ? "chosen" : "all") << '\n';
        if (!current_.empty()) {
            out << "current=" << current_ << '\n';
        }
        if (!crash_.empty()) {
            out << "crash=" << crash_ << '\n';
        }
        for (const std::string& line : cases_) {
            out << "case=" << line << '\n';
        }
        // Under `make grade` the same snapshot goes to the grader (grade_channel.h).
        tutorial::grade_channel_send_snapshot(out.str());
        const char* path = std::getenv("TUTORIAL_RESULTS_FILE");
        if (path == nullptr || *path == '\0') {
            return;
        }
        std::ofstream(path, std::ios::trunc) << out.str();
    }

    std::size_t passed_ = 0;
    std::size_t failed_ = 0;
    std::size_t extra_passed_ = 0;  // the [extra] test cases among passed_ and failed_
    std::size_t extra_failed_ = 0;
    bool current_is_extra_ = false;
    std::string current_;
    std::string crash_;
    std::string kind_;  // of the running test case: graded, reference or check
    int depth_ = 0;     // of sections open: 1 inside the test case's own
    int runs_ = 0;      // of the running test case that were cases
    std::vector<std::string> run_sections_;  // this run's sections, outermost first
    std::string run_info_;                   // its first INFO message
    std::string run_output_;                 // its first failure
    std::vector<std::string> cases_;         // the lines case=..., one per finished run
};

}  // namespace

CATCH_REGISTER_LISTENER(ResultsFile)

namespace tutorial {

void record_case(const std::string& label, bool passed, const std::string& output, bool scored) {
    recorded_cases().push_back({label, passed, output, scored});
}

}  // namespace tutorial

std::size_t tutorial::test_cases_started() { return started_test_cases; }

std::vector<std::string> tutorial::failed_test_cases(bool optional) {
    return optional ? failed_optional_names : failed_required_names;
}

void tutorial::show_optional_reports(bool shown) { optional_reports_shown = shown; }

std::size_t tutorial::hidden_optional_failures() { return hidden_optional_reports; }
