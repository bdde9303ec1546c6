// Tests of the benchmark harness's arithmetic and files (common/benchmark/report.h).
// They need no GPU: `make test-benchmark`, and `make check`, which then feeds the
// example files written here to tools/results.py.
//
// TUTORIAL_BENCH_EXAMPLE_DIR names the folder for the example files (default: the
// system's temporary folder).
#include "catch.h"

#include "benchmark/report.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace tutorial::benchmark;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string read_file(const std::string& path) {
    std::ifstream file(path);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

std::string example_dir() {
    const char* dir = std::getenv("TUTORIAL_BENCH_EXAMPLE_DIR");
    const std::filesystem::path path =
        dir != nullptr && *dir != '\0' ? std::filesystem::path(dir)
                                       : std::filesystem::temp_directory_path() / "tutorial-bench-example";
    std::filesystem::create_directories(path);
    return path.string();
}

Measurement row(RowKind kind, const std::string& problem, const std::string& variant, double median_ms,
                double work) {
    Measurement m;
    m.kind = kind;
    m.problem = problem;
    m.variant = variant;
    m.unit = "GFLOP/s";
    m.work = work;
    m.timing = summarize({median_ms * 1.02, median_ms, median_ms * 0.99});
    m.ok = true;
    m.check = "ok";
    return m;
}

// Rows shaped like chapter 2's, with made-up numbers: the stamp says so.
std::vector<Measurement> example_rows() {
    const std::string problem = "4096 x 4096 x 4096";
    const double flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
    Measurement cublas = row(RowKind::ceiling, problem, "cuBLAS SGEMM (FP32)", 3.0, flops);
    cublas.is_library = true;  // as in the GEMM chapters: the ceiling is also the library
    Measurement naive = row(RowKind::kernel, problem, "naive (chapter 1 solution)", 30.0, flops);
    Measurement tiled = row(RowKind::kernel, problem, "tiled 16", 20.0, flops);
    Measurement wrong = row(RowKind::kernel, problem, "tiled 32", 1.0, flops);
    for (Measurement* kernel : {&naive, &tiled, &wrong}) {
        kernel->ceiling = cublas.variant;
        kernel->ceiling_rate = cublas.rate();
        kernel->baseline = naive.variant;
        kernel->baseline_ms = naive.timing.median_ms;
        kernel->library = cublas.variant;
        kernel->library_ms = cublas.timing.median_ms;
    }
    naive.is_baseline = true;
    wrong.ok = false;
    wrong.check = "WRONG";
    wrong.note = "the output does not match the CPU reference, so this time means nothing; \"C\" is wrong";
    return {cublas, naive, tiled, wrong};
}

RunStamp example_stamp() {
    RunStamp stamp{"2",    "02-tiled-gemm", "solutions", "EXAMPLE GPU, not a measurement", "9.0", "000.00",
                   "13.0", "13.0",          "2026-01-01T00:00:00Z"};
    stamp.peak_fp32_gflops = 67000.0;  // an H100's roof, for the roofline drawn from this file in make check
    stamp.peak_dram_gbs = 3350.0;
    return stamp;
}

}  // namespace

TEST_CASE("summarize gives the median, the quartiles and the extremes of the samples", "[benchmark]") {
    const Timing odd = summarize({5.0, 1.0, 3.0, 2.0, 4.0});
    CHECK(odd.median_ms == 3.0);
    CHECK(odd.min_ms == 1.0);
    CHECK(odd.max_ms == 5.0);
    CHECK(odd.q1_ms == 2.0);
    CHECK(odd.q3_ms == 4.0);
    CHECK(odd.repetitions() == 5);
    CHECK(odd.samples_ms == std::vector<double>{5.0, 1.0, 3.0, 2.0, 4.0});  // kept in the order they ran

    const Timing even = summarize({4.0, 1.0, 3.0, 2.0});
    CHECK(even.median_ms == Approx(2.5));
    CHECK(even.q1_ms == Approx(1.75));
    CHECK(even.q3_ms == Approx(3.25));

    const Timing one = summarize({7.0});
    CHECK(one.median_ms == 7.0);
    CHECK(one.min_ms == 7.0);
    CHECK(one.max_ms == 7.0);

    CHECK_THROWS_AS(summarize({}), std::invalid_argument);
}

TEST_CASE("a measurement's rate, share of its ceiling and speed-up follow from its times", "[benchmark]") {
    Measurement m;
    m.work = 2e9;  // flops
    m.timing = summarize({1.0});
    CHECK(m.rate() == Approx(2000.0));  // 2e9 flops in 1 ms: 2000 GFLOP/s
    CHECK(m.percent_of_ceiling() == 0.0);  // no ceiling
    CHECK(m.speedup() == 0.0);             // no baseline
    m.ceiling_rate = 8000.0;
    m.baseline_ms = 3.0;
    CHECK(m.percent_of_ceiling() == Approx(25.0));
    CHECK(m.speedup() == Approx(3.0));

    Measurement untimed;
    untimed.work = 2e9;
    untimed.ceiling_rate = 8000.0;
    untimed.baseline_ms = 3.0;
    CHECK(untimed.rate() == 0.0);
    CHECK(untimed.percent_of_ceiling() == 0.0);
    CHECK(untimed.speedup() == 0.0);
}

TEST_CASE("the CSV has one header and one line per row, stamped and quoted where needed", "[benchmark]") {
    const std::string path = example_dir() + "/chapter2-solutions.csv";
    write_csv(path, example_stamp(), example_rows());
    const std::string text = read_file(path);
    std::istringstream lines(text);
    std::string header, line;
    std::getline(lines, header);

    std::string expected_header;
    for (const std::string& column : csv_columns()) expected_header += (expected_header.empty() ? "" : ",") + column;
    CHECK(header == expected_header);
    for (const char* column : {"problem", "variant", "median_ms", "rate", "percent_of_ceiling", "speedup", "check",
                               "gpu", "driver", "runtime_cuda", "date"}) {
        CHECK(contains(header, column));
    }
    int count = 0;
    while (std::getline(lines, line)) {
        ++count;
        CHECK(contains(line, "EXAMPLE GPU, not a measurement"));  // a comma inside: quoted
        CHECK(contains(line, "\"EXAMPLE GPU, not a measurement\""));
    }
    CHECK(count == 4);
    // The note holds a comma and quotes: CSV doubles the quotes inside a quoted field.
    CHECK(contains(text, "\"the output does not match the CPU reference, so this time means nothing; \"\"C\"\" is wrong\""));
    // The tiled kernel: 20 ms, against 3 ms for cuBLAS and 30 ms for the naive one.
    CHECK(contains(text, ",tiled 16,20,"));
    CHECK(contains(text, ",15,"));   // percent of ceiling: 3 / 20
    CHECK(contains(text, ",1.5,"));  // speed-up: 30 / 20
    CHECK(contains(text, ",1.5,cuBLAS SGEMM (FP32),0.15,0,ok,"));  // x the library: 3 / 20; not the library
    CHECK(contains(text, "cuBLAS SGEMM (FP32),3,"));
    CHECK(contains(text, ",1,ok,"));  // the ceiling row is the library
    for (const char* column : {"library", "times_library", "is_library", "peak_fp32_gflops", "peak_dram_gbs"}) {
        CHECK(contains(header, column));
    }
    CHECK(contains(text, ",67000,3350\n"));  // the roof, on every line
}

TEST_CASE("the JSON holds the stamp, every row and every sample", "[benchmark]") {
    const std::string path = example_dir() + "/chapter2-solutions.json";
    write_json(path, example_stamp(), example_rows());
    const std::string text = read_file(path);
    CHECK(contains(text, "\"stamp\": {\"chapter\": \"2\""));
    CHECK(contains(text, "\"variant\": \"tiled 16\""));
    CHECK(contains(text, "\"samples_ms\": [20.4, 20, 19.8]"));
    CHECK(contains(text, "\\\"C\\\" is wrong"));  // quotes escaped
    CHECK(contains(text, "\"speedup\": null"));   // the ceiling has no speed-up
}

TEST_CASE("the table on screen shows each variant's rate, share, speed-up and check", "[benchmark]") {
    std::ostringstream out;
    print_table(out, example_stamp(), example_rows());
    const std::string text = out.str();
    CHECK(contains(text, "chapter2 (02-tiled-gemm, solutions) on EXAMPLE GPU, not a measurement"));
    CHECK(contains(text, "(ceiling)"));
    CHECK(contains(text, "6872 GFLOP/s"));  // 2·4096³ flops in 20 ms
    CHECK(contains(text, "15.0%"));
    CHECK(contains(text, "1.50x"));
    CHECK(contains(text, "x the library"));
    CHECK(contains(text, "(library)"));
    CHECK(contains(text, "0.15x"));  // tiled 16: cuBLAS's 3 ms over its 20 ms
    CHECK(contains(text, "WRONG"));
    CHECK(contains(text, "note, 4096 x 4096 x 4096, tiled 32: the output does not match"));
}

TEST_CASE("writing to a folder that does not exist is a clear error", "[benchmark]") {
    std::string message;
    try {
        write_csv("/nonexistent-folder/x.csv", example_stamp(), example_rows());
    } catch (const std::runtime_error& error) {
        message = error.what();
    }
    CHECK(message == "cannot write /nonexistent-folder/x.csv");
}

// Rows of one problem as a benchmark of chapter 3 records them: a library, a baseline, two
// kernels, one of them wrong; and a second problem whose library is not installed.
std::vector<Measurement> rows_with_a_library() {
    const double bytes = 2.0 * 8000 * 8000;
    Measurement npp = row(RowKind::library, "8000 x 8000, R=1", "NPP box filter", 2.0, bytes);
    npp.is_library = true;
    Measurement global = row(RowKind::kernel, "8000 x 8000, R=1", "global", 4.0, bytes);
    global.is_baseline = true;
    Measurement shared = row(RowKind::kernel, "8000 x 8000, R=1", "shared", 0.5, bytes);
    Measurement wrong = row(RowKind::kernel, "8000 x 8000, R=1", "coarsened", 0.1, bytes);
    wrong.ok = false;
    wrong.check = "WRONG";
    Measurement absent;
    absent.kind = RowKind::library;
    absent.problem = "8000 x 8000, R=2";
    absent.variant = "NPP box filter";
    absent.is_library = true;
    absent.check = kLibraryAbsent;
    absent.note = "NPP not installed: how to get it";
    Measurement global2 = row(RowKind::kernel, "8000 x 8000, R=2", "global", 5.0, bytes);
    return {npp, global, shared, wrong, absent, global2};
}

TEST_CASE("every row of a problem gets its time ratio to the problem's library row", "[benchmark]") {
    std::vector<Measurement> rows = rows_with_a_library();
    relate_rows(rows);
    const Measurement &npp = rows[0], &global = rows[1], &shared = rows[2], &wrong = rows[3], &global2 = rows[5];
    CHECK(npp.times_library() == 0.0);  // not over itself
    CHECK(npp.library.empty());
    CHECK(npp.speedup() == Approx(2.0));  // a library row has a speed-up over the baseline like a kernel
    CHECK(global.library == "NPP box filter");
    CHECK(global.times_library() == Approx(0.5));  // 2 ms over 4 ms: half the library's speed
    CHECK(shared.times_library() == Approx(4.0));  // 2 ms over 0.5 ms: four times faster
    CHECK(shared.speedup() == Approx(8.0));
    CHECK(wrong.times_library() == Approx(20.0));  // computed, but the table shows "-" for a wrong row
    // The absent library of the second problem gives its rows no ratio, and no other problem's.
    CHECK(global2.library == "NPP box filter");
    CHECK(global2.library_ms == 0.0);
    CHECK(global2.times_library() == 0.0);
    CHECK(global2.baseline.empty());
}

TEST_CASE("an absent library is not a failure, a wrong library is", "[benchmark]") {
    std::vector<Measurement> rows = rows_with_a_library();
    CHECK_FALSE(rows[4].failed());  // absent
    CHECK(rows[3].failed());        // WRONG
    CHECK_FALSE(rows[0].failed());  // ok
    Measurement wrong_library = rows[0];
    wrong_library.ok = false;
    wrong_library.check = "WRONG";
    CHECK(wrong_library.failed());
}

TEST_CASE("the table shows the library, its absence and its ratio", "[benchmark]") {
    std::vector<Measurement> rows = rows_with_a_library();
    relate_rows(rows);
    std::ostringstream out;
    print_table(out, example_stamp(), rows);
    const std::string text = out.str();
    CHECK(contains(text, "(library)"));
    CHECK(contains(text, "4.00x"));  // shared over the library
    CHECK(contains(text, "0.50x"));  // global
    CHECK_FALSE(contains(text, "20.00x"));  // a WRONG row's time means nothing
    CHECK(contains(text, "absent"));
    CHECK(contains(text, "note, 8000 x 8000, R=2, NPP box filter: NPP not installed: how to get it"));
    RunStamp stamp = example_stamp();
    stamp.chapter = "3";
    stamp.folder = "03-box-mean";
    const std::string path = example_dir() + "/chapter3-solutions.csv";
    write_csv(path, stamp, rows);
    const std::string csv = read_file(path);
    CHECK(contains(csv, ",library,\"8000 x 8000, R=1\",NPP box filter,2,"));  // a comma inside: quoted
    CHECK(contains(csv, ",shared,0.5,"));
    CHECK(contains(csv, ",NPP box filter,4,0,ok,"));  // shared: 4x the library, and not the library itself
    CHECK(contains(csv, ",absent,NPP not installed: how to get it,"));
}

TEST_CASE("two library rows for one problem are refused, naming both", "[benchmark]") {
    std::vector<Measurement> rows = rows_with_a_library();
    Measurement second = rows[0];
    second.variant = "another library";
    rows.push_back(second);
    std::string message;
    try {
        relate_rows(rows);
    } catch (const std::logic_error& error) {
        message = error.what();
    }
    CHECK(message == "two library rows for \"8000 x 8000, R=1\" (NPP box filter and another library): \"x the library\" "
                     "can be over one only");
}
