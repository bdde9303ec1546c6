// Tests of the harness's sweeps over shapes: what a failing sweep reports, and when
// (tests/common.cpp says how these tests are built).
#include "common_support.h"

using namespace tutorial;
using namespace common_tests;

namespace {
// A GEMM-like shape for the summary tests: M, N, K cut into tiles of `tile`.
std::vector<ShapeParameter> mnk(long long M, long long N, long long K, long long tile) {
    return {{"M", M, tile, "TILE", "tile"}, {"N", N, tile, "TILE", "tile"}, {"K", K, tile, "TILE", "tile"}};
}

// Runs `failing_when` over the GEMM test shapes at tile 16 and sorts them into failing
// and passing.
std::string summary_of(const std::function<bool(long long, long long, long long)>& failing_when) {
    std::vector<std::vector<ShapeParameter>> failing, passing;
    std::vector<std::string> passing_labels;
    const long long t = 16;
    std::vector<std::array<long long, 3>> shapes{{1, 1, 1}, {7, 13, 11}, {127, 131, 137}, {17, 15, 3}, {257, 129, 67}};
    for (long long M : {t - 1, t, t + 1})
        for (long long N : {t - 1, t, t + 1})
            for (long long K : {t - 1, t, t + 1}) shapes.push_back({M, N, K});
    for (const auto& s : shapes) {
        if (failing_when(s[0], s[1], s[2])) {
            failing.push_back(mnk(s[0], s[1], s[2], t));
        } else {
            passing.push_back(mnk(s[0], s[1], s[2], t));
            passing_labels.push_back("M=" + std::to_string(s[0]) + " N=" + std::to_string(s[1]) +
                                     " K=" + std::to_string(s[2]));
        }
    }
    return summarize_failing_shapes(failing, passing, passing_labels);
}

// A fake case: a report with `wrong` of 16 elements wrong, whose output values are `values`.
ComparisonReport fake_report(int wrong, float value) {
    std::vector<float> got(16, 0.0f);
    for (int i = 0; i < wrong; ++i) got[i] = value;
    return compare_with_tolerance(got, zeros(16), layout_of(4, 4, 2));
}
}  // namespace

TEST_CASE("the cross-shape summary names what the failing shapes share, only when true", "[common][sweep]") {
    SECTION("K not a multiple of the tile") {
        const std::string text = summary_of([](long long, long long, long long K) { return K % 16 != 0; });
        check_says(text, {"it fails only when K is not a multiple of 16", "for none of the"});
    }
    SECTION("more than one tile of rows") {
        const std::string text = summary_of([](long long M, long long, long long) { return M > 16; });
        check_says(text, {"it fails only when M > 16 (more than one tile)"});
    }
    SECTION("M or N not a multiple of the tile") {
        const std::string text =
            summary_of([](long long M, long long N, long long) { return M % 16 != 0 || N % 16 != 0; });
        check_says(text, {"it fails only when M or N is not a multiple of 16"});
    }
    SECTION("N different from K: a wrong stride") {
        const std::string text = summary_of([](long long, long long N, long long K) { return N != K; });
        check_says(text, {"it fails only when N != K"});
    }
    SECTION("M and N in different numbers of tiles: rows and columns swapped") {
        const std::string text =
            summary_of([](long long M, long long N, long long) { return (M + 15) / 16 != (N + 15) / 16; });
        check_says(text, {"it fails only when M and N span different numbers of tiles (ceil(M / 16) != ceil(N / 16))"});
    }
    SECTION("no comparison of parameters of different kinds: a length and a misalignment") {
        // Chapter 9: every shape with samples fails, and the one with n = 0 = offset passes.
        std::vector<std::vector<ShapeParameter>> failing, passing;
        for (long long n : {0, 1, 2, 15, 16, 17, 4099}) {
            std::vector<ShapeParameter> p{{"n", n, 16, "", "16-byte vector"}, {"offset", 0, 0, "", ""}};
            (n != 0 ? failing : passing).push_back(p);
        }
        const std::string text = summarize_failing_shapes(failing, passing, {"n = 0"});
        check_says(text, {}, {"n != offset", "offset != n"});
    }
    SECTION("a unit that only divides a parameter: multiples, never 'more than one'") {
        // Chapter 9's bins, shared by the 2 blocks of a cluster: not a count of clusters.
        std::vector<std::vector<ShapeParameter>> failing, passing;
        for (long long bins : {1, 7, 8, 9, 64, 8003, 65536}) {
            std::vector<ShapeParameter> p{{"num_bins", bins, 2, "", "block of a cluster", false}};
            (bins > 2 ? failing : passing).push_back(p);
        }
        const std::string text = summarize_failing_shapes(failing, passing, {"num_bins = 1"});
        check_says(text, {}, {"more than one", "less than one"});
    }
    SECTION("every shape") {
        const std::string text = summary_of([](long long, long long, long long) { return true; });
        check_says(text, {"it fails for every shape (32 of 32)"});
    }
    SECTION("silent: one odd shape shares nothing simple with the failing ones") {
        // K not a multiple of 16, except that M=17 N=17 K=15 passes and M=16 N=16 K=16 fails.
        const std::string text = summary_of([](long long M, long long N, long long K) {
            if (M == 17 && N == 17 && K == 15) return false;
            if (M == 16 && N == 16 && K == 16) return true;
            return K % 16 != 0;
        });
        check_says(text, {}, {"fails only when", "every shape"});
    }
    SECTION("a property that also holds for a few passing shapes says so and names them") {
        const std::string text =
            summary_of([](long long M, long long, long long K) { return K % 16 != 0 && M != 7 && M != 127; });
        check_says(text,
                   {"\"K is not a multiple of 16\" holds for every failing shape, and for 2 of the 11 "
                    "shapes that pass",
                    "M=7 N=13 K=11", "M=127 N=131 K=137"},
                   {"fails only when"});
    }
    SECTION("sizes counted in different pieces are never 'more than one' of one of them") {
        // Chapter 10: M in block tiles of 128, K in steps of 64 along K. Rows 8 to 15 of every
        // fragment wrong: every shape with M > 8 fails, and those that pass have M <= 7 and
        // K <= 11; "M or K is more than one block tile" would separate them too, and be false of K.
        std::vector<std::vector<ShapeParameter>> failing, passing;
        std::vector<std::string> labels;
        for (const auto& [M, K] : std::vector<std::pair<long long, long long>>{
                 {1, 1}, {7, 11}, {1, 1}, {127, 127}, {128, 129}, {129, 3}, {127, 137}, {1000, 1000}}) {
            std::vector<ShapeParameter> p{{"M", M, 128, "", "block tile"}, {"K", K, 64, "", "step along K"}};
            (M > 8 ? failing : passing).push_back(p);
            if (M <= 8) labels.push_back("M=" + std::to_string(M));
        }
        const std::string text = summarize_failing_shapes(failing, passing, labels);
        check_says(text, {"it fails only when M >= 127 (the shapes that pass have M <= 7)"},
                   {"M or K is more than one", "M or K is less than one"});
    }
    SECTION("no simple property, and one shape that passes: named, not 'few of the 1'") {
        // M = 1, 16 and 33 fail, M = 17 passes: no multiple, no count of tiles, no value and no
        // threshold holds for the three and not for 17.
        std::vector<std::vector<ShapeParameter>> failing, passing;
        for (long long M : {1, 16, 17, 33}) {
            std::vector<ShapeParameter> p{{"M", M, 16, "", "tile"}};
            (M != 17 ? failing : passing).push_back(p);
        }
        const std::string text = summarize_failing_shapes(failing, passing, {"M=17"});
        check_says(text, {"no simple property", "holds for every failing shape and not for the one that passes (M=17)."},
                   {"few of the 1"});
    }
    SECTION("two parameters that each separate them: neither is named as the cause") {
        // A race in 10d's stores fails at every shape of the first 12 but M = N = K = 1: M, N
        // and K past one tile each tell them apart, and the shapes cannot say which matters.
        std::vector<std::vector<ShapeParameter>> failing, passing;
        for (const auto& [M, K] : std::vector<std::pair<long long, long long>>{
                 {1, 1}, {127, 127}, {127, 128}, {128, 129}, {1000, 1000}}) {
            std::vector<ShapeParameter> p{{"M", M, 128, "", "block tile"}, {"K", K, 64, "", "step along K"}};
            (M > 1 ? failing : passing).push_back(p);
        }
        const std::string text = summarize_failing_shapes(failing, passing, {"M=1 K=1"});
        check_says(text, {"differ from the failing ones in more than one way", "M >= 127", "K > 64",
                          "cannot say which one matters"},
                   {"fails only when"});
    }
    SECTION("the block of 256 outputs, where the tile differs per parameter") {
        std::vector<std::vector<ShapeParameter>> failing, passing;
        for (long long outputs : {1, 255, 256, 257, 1001}) {
            std::vector<ShapeParameter> p{{"window", 7, 0, "", ""}, {"outputs", outputs, 256, "", "block"}};
            (outputs > 256 ? failing : passing).push_back(p);
        }
        const std::string text = summarize_failing_shapes(failing, passing, {"a", "b", "c"});
        check_says(text, {"it fails only when outputs > 256 (more than one block)"});
    }
}

TEST_CASE("a sweep reports the first failing shape in full, one line for each other, then the summary",
          "[common][sweep]") {
    SweepOptions options;
    options.chapter = 2;
    options.further_listed = 3;
    ShapeSweep sweep("fake_gemm", options);
    for (int K = 1; K <= 8; ++K) {
        sweep.run("K=" + std::to_string(K), mnk(4, 4, K, 4), [&] { return fake_report(K % 4 != 0 ? K : 0, 9.0f); });
    }
    const std::string text = sweep.text();
    INFO(text);
    CHECK(sweep.failed() == 6);
    CHECK(contains_phrase(text, "fake_gemm fails for 6 of 8 shapes."));
    CHECK(contains_phrase(text, "The first failing shape, K=1:\nC is wrong at 1 of 16 elements"));
    CHECK(contains_phrase(text, "Map of C"));
    // One map only: the other shapes get a line each, three of them, then a count.
    CHECK(text.find("Map of C") == text.rfind("Map of C"));
    CHECK(contains_phrase(text, "  K=2: wrong at 2 of 16 elements (12.5%)\n"));
    CHECK(contains_phrase(text, "  ... and 2 more.\n"));
    CHECK(contains_phrase(text, "it fails only when K is not a multiple of 4"));
    SECTION("a long label's line is wrapped at a space, within the report's width") {
        ShapeSweep long_labels("fake_gemm", options);
        for (int K = 1; K <= 3; ++K) {
            long_labels.run("16-bit, n = 4097, num_bins = 12288, uniform below num_bins, starting 3 samples late, K=" +
                                std::to_string(K),
                            mnk(4, 4, K, 4), [&] { return fake_report(K, 9.0f); });
        }
        const std::string long_text = long_labels.text();
        check_says(long_text, {"K=2:"});
        std::istringstream lines(long_text);
        for (std::string line; std::getline(lines, line);) CHECK(line.size() <= tutorial::kReportWidth);
    }
    // Not on a GPU: no second run, no GPU commands.
    CHECK_FALSE(contains_phrase(text, "run to run"));
    CHECK_FALSE(contains_phrase(text, "sanitize"));

    SECTION("VERBOSE shows every failing shape in full") {
        options.verbose = true;
        ShapeSweep verbose("fake_gemm", options);
        for (int K = 1; K <= 8; ++K) {
            verbose.run("K=" + std::to_string(K), mnk(4, 4, K, 4),
                        [&] { return fake_report(K % 4 != 0 ? K : 0, 9.0f); });
        }
        const std::string all = verbose.text();
        INFO(all);
        std::size_t maps = 0;
        for (std::size_t at = all.find("Map of C"); at != std::string::npos; at = all.find("Map of C", at + 1)) ++maps;
        CHECK(maps == 6);
    }
    SECTION("a passing sweep writes nothing") {
        ShapeSweep passing("fake_gemm", options);
        passing.run("K=4", mnk(4, 4, 4, 4), [] { return fake_report(0, 0.0f); });
        CHECK(passing.ok());
        CHECK(passing.text().empty());
    }
    SECTION("an exception fails its shape and the sweep goes on") {
        ShapeSweep throwing("fake_gemm", options);
        throwing.run("K=1", mnk(4, 4, 1, 4), []() -> ComparisonReport { throw std::runtime_error("boom\nmore"); });
        throwing.run("K=4", mnk(4, 4, 4, 4), [] { return fake_report(0, 0.0f); });
        CHECK(throwing.failed() == 1);
        CHECK(contains_phrase(throwing.text(), "It threw an exception: boom"));
        CHECK(contains_phrase(throwing.text(), "fails for 1 of 2 shapes"));
    }
}

TEST_CASE("a finding that the result depends on the threads' order gives way to one that names the read",
          "[common][sweep]") {
    // Chapter 10's 10b without its barrier before a refill: at one shape the CPU backend sees
    // only that two orders of the threads disagree, at a later one the read and its line.
    SweepOptions options;
    options.chapter = 10;
    ShapeSweep sweep("fake_pipeline", options);
    sweep.run("K=1", mnk(4, 4, 1, 4), [] { return fake_report(0, 0.0f); });
    sweep.run("K=643", mnk(4, 4, 643, 4), []() -> ComparisonReport {
        throw std::runtime_error("CUDA error (the CPU backend found:\n  result depends on thread order: missing "
                                 "`__syncthreads()` or a shared-memory race.\n)");
    });
    sweep.run("K=1000", mnk(4, 4, 1000, 4), []() -> ComparisonReport {
        throw std::runtime_error("CUDA error (the CPU backend found:\n  shared memory read at x.cu:142 before the "
                                 "asynchronous copy issued at x.cu:261 was waited for\n)");
    });
    const std::string text = sweep.text();
    INFO(text);
    check_says(text, {"The failing shape whose finding is most specific, K=1000:", "x.cu:142",
                      "The other failing shapes", "K=643: result depends on thread order"},
               {"The first failing shape"});
    CHECK(contains_phrase(sweep.brief(), "the one whose finding is most specific, K=1000"));
    // Order-only everywhere: the first is shown, as the first.
    ShapeSweep only_order("fake_pipeline", options);
    for (const char* label : {"K=3", "K=5"}) {
        only_order.run(label, mnk(4, 4, 3, 4), []() -> ComparisonReport {
            throw std::runtime_error("CUDA error (the CPU backend found:\n  result depends on thread order: x\n)");
        });
    }
    CHECK(contains_phrase(only_order.text(), "The first failing shape, K=3:"));
}

TEST_CASE("a finding thrown by several shapes is shown in full once, then one line names the cases it covers",
          "[common][sweep]") {
    // The same CPU backend finding but for the case it came from (the stage count, the
    // thread, the byte), at 3 stage counts and 2 shapes; one other finding, at another line.
    const auto finding = [](int stages, int K, int line) {
        return "CUDA error (the CPU backend found:\n  read at x.cu:" + std::to_string(line) + " in k [with int STAGES = " +
               std::to_string(stages) + "], thread (" + std::to_string(K) + ",0,0), byte " + std::to_string(4 * K) + ")";
    };
    CHECK(same_finding(finding(1, 1, 88), finding(3, 2, 88)));
    CHECK_FALSE(same_finding(finding(1, 1, 88), finding(1, 1, 90)));  // another line: another finding
    CHECK_FALSE(same_finding("", ""));
    // The order check's finding with other values, signs and exponents: one finding.
    const auto order = [](const std::string& forward, const std::string& reverse) {
        return "CUDA error (the CPU backend found:\n  result depends on thread order: missing `__syncthreads()`.\n  k "
               "(launched at x.cu:91): C[0] is " + forward + " after the forward order and " + reverse +
               " after the reverse order)";
    };
    CHECK(same_finding(order("1.60414243", "-0.606718779"), order("-2.5", "3.0e-05")));
    CHECK_FALSE(same_finding(order("1.5", "2.5"), "CUDA error (the CPU backend found:\n  read at x.cu:91)"));
    // An index before an array and one past it are not one finding.
    CHECK_FALSE(same_finding("the CPU backend found:\n  index -1 is outside A[16]", "the CPU backend found:\n  index 16 is outside A[16]"));
    SweepOptions options;
    options.chapter = 8;
    ShapeSweep sweep("fake_pipeline", options);
    for (int stages = 1; stages <= 3; ++stages) {
        for (int K = 1; K <= 2; ++K) {
            std::vector<ShapeParameter> parameters = mnk(4, 4, K, 4);
            parameters.push_back({"stages", stages, 0, "", ""});
            const int line = stages == 3 && K == 2 ? 90 : 88;
            sweep.run(std::to_string(stages) + " stage(s), K=" + std::to_string(K), parameters,
                      [&]() -> ComparisonReport { throw std::runtime_error(finding(stages, K, line)); });
        }
    }
    const std::string text = sweep.text();
    INFO(text);
    CHECK(sweep.first_error() == finding(1, 1, 88));
    std::size_t shown = 0;
    for (std::size_t at = text.find("x.cu:88"); at != std::string::npos; at = text.find("x.cu:88", at + 1)) ++shown;
    CHECK(shown == 1);
    check_says(text, {"The first failing shape, 1 stage(s), K=1:",
                      "The same finding, but for the thread, block, stage or size it names, at 4 other failing "
                      "shape(s) (stages = 1, 2 and 3): 1 stage(s), K=2; 2 stage(s), K=1; 2 stage(s), K=2; and 1 more.",
                      "The other failing shapes", "3 stage(s), K=2: read at x.cu:90"});
    SECTION("VERBOSE still shows every failing shape in full") {
        options.verbose = true;
        ShapeSweep verbose("fake_pipeline", options);
        for (int stages = 1; stages <= 2; ++stages) {
            verbose.run(std::to_string(stages) + " stage(s)", mnk(4, 4, 1, 4),
                        [&]() -> ComparisonReport { throw std::runtime_error(finding(stages, 1, 88)); });
        }
        CHECK_FALSE(contains_phrase(verbose.text(), "The same finding"));
    }
}

TEST_CASE("several sweeps in one test report the first failing one, then a line for each other", "[common][sweep]") {
    SweepOptions options;
    options.chapter = 7;
    std::vector<ShapeSweep> sweeps;
    for (const char* step : {"step_a", "step_b", "step_c"}) {
        ShapeSweep sweep(step, options);
        const bool passes = std::string(step) == "step_b";
        for (int K = 1; K <= 4; ++K) {
            sweep.run("K=" + std::to_string(K), mnk(4, 4, K, 4), [&] { return fake_report(passes ? 0 : K, 9.0f); });
        }
        sweeps.push_back(sweep);
    }
    // report() is the full text only for a run's first failing report; the second sweep
    // that fails is always a line here, whichever the first was.
    const std::string text = sweeps_report(sweeps);
    check_says(text, {"step_a fails for 4 of 4 shapes", "step_c fails for 4 of 4 shapes; the first, K=1:"}, {"step_b"});
    INFO(text);
    CHECK(text.find("Map of C") == text.rfind("Map of C"));
    const std::size_t step_c_at = text.find("step_c");
    CHECK(text.find("Map of C", step_c_at) == std::string::npos);

    SECTION("the brief names the first failing shape and how to see it in full") {
        CHECK(sweeps[0].brief() ==
              "step_a fails for 4 of 4 shapes; the first, K=1: wrong at 1 of 16 elements (6.25%) (VERBOSE=1 "
              "shows it in full).");
        CHECK(sweeps[1].brief().empty());
    }
    SECTION("every sweep passing is no report") {
        std::vector<ShapeSweep> passing{sweeps[1]};
        CHECK(sweeps_report(passing).empty());
    }
}

TEST_CASE("an output that holds nothing but the poison is untouched, even where the poison is right", "[common]") {
    // A byte image poisoned with 0 whose right value is 0 at a few pixels: no thread wrote it.
    OutputLayout layout = layout_of(3, 4, 0);
    layout.name = "output";
    layout.poison = 0;
    std::vector<std::uint8_t> expected = random_bytes(12, 11);
    expected[5] = 0;
    expected[0] = 7;
    const auto untouched = compare_exact(std::vector<std::uint8_t>(12, 0), expected, layout);
    INFO(untouched.text);
    CHECK_FALSE(untouched.ok());
    CHECK(contains_phrase(untouched.untouched, "every element of output holds 0, the poison the test wrote before the run"));
    // One pixel written: not untouched.
    std::vector<std::uint8_t> written(12, 0);
    written[3] = expected[3] == 0 ? 1 : expected[3];
    CHECK(compare_exact(written, expected, layout).untouched.empty());
}

TEST_CASE("a sweep whose every shape is still the poison everywhere says so in a few lines", "[common][sweep]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    SweepOptions options;
    options.chapter = 2;
    const auto sweep_of = [&](int wrong_in_last, float last_value, bool verbose) {
        options.verbose = verbose;
        ShapeSweep sweep("fake_gemm", options);
        for (int K = 1; K <= 4; ++K) {
            sweep.run("K=" + std::to_string(K), mnk(4, 4, K, 4),
                      [&] { return K < 4 ? fake_report(16, nan) : fake_report(wrong_in_last, last_value); });
        }
        return sweep.text();
    };
    SECTION("every element of every shape NaN: one paragraph, no per-shape report") {
        const std::string text = sweep_of(16, nan, false);
        check_says(text,
                   {"fake_gemm fails for 4 of 4 shapes.",
                    "In every shape, every element of C holds NaN, the poison the test wrote",
                    "VERBOSE=1 shows each shape in full."},
                   {"First wrong elements"});
        CHECK(std::count(text.begin(), text.end(), '\n') <= 6);
    }
    SECTION("in a chapter's test program, the first such paragraph names the file to edit and make chapterN hint") {
        find_where_to_work("build/emu/chapters/bin/chapter1-tests");
        const std::string text = sweep_of(16, nan, false);
        const std::string second = sweep_of(16, nan, false);
        find_where_to_work("");
        check_says(text, {"Your code for chapter 1 is in chapters/01-naive-gemm/naive_gemm.cu", "make chapter1 hint"});
        CHECK(std::count(text.begin(), text.end(), '\n') <= 9);
        CHECK_FALSE(contains_phrase(second, "Your code for chapter"));  // once a run: the run's last line says it again
    }
    SECTION("on a GPU too, no commands that look for races: nobody wrote the output") {
        options.on_gpu = true;
        const std::string untouched = sweep_of(16, nan, false);
        const std::string written = sweep_of(3, 7.0f, false);  // the last shape written, wrongly
        options.on_gpu = false;
        check_says(untouched, {"In every shape, every element of C holds NaN"}, {"make chapter2 sanitize"});
        // fires when something was written
        check_says(written, {"make chapter2 sanitize"});
    }
    SECTION("VERBOSE shows them in full all the same") {
        const std::string text = sweep_of(16, nan, true);
        check_says(text, {"First wrong elements"}, {"In every shape"});
    }
    SECTION("one shape with a value written: the full report") {
        const std::string text = sweep_of(16, 9.0f, false);
        check_says(text, {"The first failing shape, K=1"}, {"In every shape"});
    }
    SECTION("one shape partly right: the full report") {
        const std::string text = sweep_of(3, nan, false);
        check_says(text, {}, {"In every shape"});
    }
    SECTION("one shape passing: the full report") {
        const std::string text = sweep_of(0, 0.0f, false);
        check_says(text, {"fails for 3 of 4 shapes"}, {"In every shape"});
    }
}

TEST_CASE("VERBOSE=1 or TUTORIAL_VERBOSE=1 in the environment makes sweeps verbose", "[common][sweep]") {
    const auto verbose_with = [](const char* tutorial_verbose, const char* verbose) {
        tutorial_verbose ? setenv("TUTORIAL_VERBOSE", tutorial_verbose, 1) : unsetenv("TUTORIAL_VERBOSE");
        verbose ? setenv("VERBOSE", verbose, 1) : unsetenv("VERBOSE");
        const bool on = default_sweep_options(3).verbose;
        unsetenv("TUTORIAL_VERBOSE");
        unsetenv("VERBOSE");
        return on;
    };
    CHECK_FALSE(verbose_with(nullptr, nullptr));
    CHECK(verbose_with("1", nullptr));
    CHECK(verbose_with(nullptr, "1"));
    CHECK_FALSE(verbose_with("0", "1"));
    CHECK_FALSE(verbose_with(nullptr, "0"));
    CHECK(default_sweep_options(3).chapter == 3);
#if defined(TUTORIAL_EMU)
    CHECK_FALSE(default_sweep_options(3).on_gpu);  // the CPU backend finds races itself
#endif
}

TEST_CASE("on a GPU a wrong result is run again: a changing result names both its causes", "[common][sweep]") {
    SweepOptions options;
    options.chapter = 2;
    options.on_gpu = true;  // the GPU path, tested on any machine with fake kernels
    SECTION("a result that changes from run to run") {
        int runs = 0;
        ShapeSweep sweep("fake_gemm", options);
        // Like a missing __syncthreads(): the wrong values differ between runs.
        sweep.run("K=5", mnk(4, 4, 5, 4), [&] { return fake_report(3, static_cast<float>(++runs)); });
        const std::string text = sweep.text();
        INFO(text);
        CHECK(runs == 2);
        CHECK(contains_phrase(text, "The result changes from run to run"));
        // Both causes: a race, and a read of shared memory nobody wrote.
        CHECK(contains_phrase(text, "a race, such as a missing __syncthreads() or two threads writing one element"));
        CHECK(contains_phrase(text, "a read of shared memory that no thread wrote"));
        CHECK(contains_phrase(text, "make chapter2 test BACKEND=emu"));
        CHECK(contains_phrase(text, "make chapter2 sanitize"));
    }
    SECTION("a result that is the same twice is no race, and still ends with both commands") {
        ShapeSweep sweep("fake_gemm", options);
        sweep.run("K=5", mnk(4, 4, 5, 4), [&] { return fake_report(3, 7.0f); });
        const std::string text = sweep.text();
        check_says(text,
                   {"the output was the same: no sign of a race, no proof of none", "make chapter2 test BACKEND=emu",
                    "make chapter2 sanitize"},
                   {"changes from run to run"});
    }
    SECTION("a passing shape runs once") {
        int runs = 0;
        ShapeSweep sweep("fake_gemm", options);
        sweep.run("K=4", mnk(4, 4, 4, 4), [&] {
            ++runs;
            return fake_report(0, 0.0f);
        });
        CHECK(runs == 1);
        CHECK(sweep.ok());
    }
}

TEST_CASE("out-of-bounds advice depends on where the faulting thread's own element is", "[common][sweep]") {
    // The CPU backend's message, as it reads for a GEMM with 16 x 16 blocks on a 20 x 20 C.
    const auto message = [](const std::string& block, const std::string& thread) {
        return "CUDA error cudaErrorIllegalAddress (an illegal memory access was encountered; the CPU backend "
               "found:\n  out-of-bounds global memory access in naive_gemm_kernel (launched at naive_gemm.cu:40), "
               "block " + block + ", thread " + thread + ":\n  B[400] is past the end of B) in the execution of "
               "naive_gemm_kernel at naive_gemm.cu:41";
    };
    OutputOwnership ownership;
    ownership.output_name = "C";
    ownership.rows = 20;
    ownership.cols = 20;
    ownership.element_of = [](Index3 block, Index3 thread, long long& row, long long& col) {
        row = block.y * 16 + thread.y;
        col = block.x * 16 + thread.x;
    };
    SECTION("inside: index arithmetic, such as a wrong stride") {
        const std::string advice = out_of_bounds_advice(message("(0,0,0)", "(3,2,0)"), ownership);
        check_says(advice, {"That thread computes C(2, 3), which is inside", "a wrong stride"},
                   {"missing bounds check"});
    }
    SECTION("outside: a missing bounds check") {
        const std::string advice = out_of_bounds_advice(message("(1,0,0)", "(5,2,0)"), ownership);
        check_says(advice, {"That thread computes C(2, 21), which is outside", "a missing bounds check"});
    }
    SECTION("a kernel staging tiles in shared memory: no advice to return early") {
        OutputOwnership staged = ownership;
        staged.stages_in_shared = true;
        const std::string outside = out_of_bounds_advice(message("(1,0,0)", "(5,2,0)"), staged);
        check_says(outside,
                   {"That thread computes C(2, 21), which is outside", "must reach every __syncthreads()",
                    "rather than returning early"},
                   {"must not read or write anything"});
        const std::string inside = out_of_bounds_advice(message("(0,0,0)", "(3,2,0)"), staged);
        check_says(inside, {"which is inside", "the access may be one of those loads"}, {"would hide this bug"});
    }
    SECTION("a tile per thread: no element is named, and a check per element is the advice") {
        for (const ThreadWork work : {ThreadWork::column_per_thread, ThreadWork::tile_per_thread, ThreadWork::warp_tile_per_warp}) {
            OutputOwnership tiles;
            tiles.output_name = "C";
            tiles.rows = 20;
            tiles.cols = 20;
            tiles.work = work;
            tiles.stages_in_shared = true;
            tiles.tile_text = "64 x 64";
            const std::string advice = out_of_bounds_advice(message("(0,0,0)", "(0,0,0)"), tiles);
            check_says(advice,
                       {"each block computes one 64 x 64 tile of C", "needs its own bounds check",
                        "no thread may return early"},
                       {"That thread computes", "would hide this bug"});
        }
    }
    SECTION("no advice for other errors, or without a mapping") {
        CHECK(out_of_bounds_advice("CUDA error cudaErrorInvalidValue (invalid argument)", ownership).empty());
        CHECK(out_of_bounds_advice(message("(0,0,0)", "(3,2,0)"), OutputOwnership{}).empty());
    }
    SECTION("a sweep adds the advice to the exception's text") {
        ShapeSweep sweep("naive_gemm", SweepOptions{});
        sweep.run("M=20 N=20 K=20", mnk(20, 20, 20, 16),
                  [&]() -> ComparisonReport { throw std::runtime_error(message("(0,0,0)", "(3,2,0)")); }, ownership);
        INFO(sweep.text());
        CHECK(contains_phrase(sweep.text(), "a wrong stride"));
        // The one-line form quotes the CPU backend's finding, not the generic first line (of
        // a finding other than the first shape's, which would be said once with it).
        ShapeSweep two("naive_gemm", SweepOptions{});
        for (int i = 0; i < 2; ++i) {
            two.run("M=20 N=20 K=" + std::to_string(20 + i), mnk(20, 20, 20 + i, 16),
                    [&]() -> ComparisonReport {
                        throw std::runtime_error(message("(0,0,0)", "(3,2,0)") + (i == 0 ? "" : " Another finding."));
                    },
                    ownership);
        }
        INFO(two.text());
        CHECK(contains_phrase(two.text(), "  M=20 N=20 K=21: out-of-bounds global memory access"));
    }
}
