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
    Measurement naive = row(RowKind::kernel, problem, "naive (chapter 1 solution)", 30.0, flops);
    Measurement tiled = row(RowKind::kernel, problem, "tiled 16", 20.0, flops);
    Measurement wrong = row(RowKind::kernel, problem, "tiled 32", 1.0, flops);
    for (Measurement* kernel : {&naive, &tiled, &wrong}) {
        kernel->ceiling = cublas.variant;
        kernel->ceiling_rate = cublas.rate();
        kernel->baseline = naive.variant;
        kernel->baseline_ms = naive.timing.median_ms;
    }
    naive.is_baseline = true;
    wrong.ok = false;
    wrong.check = "WRONG";
    wrong.note = "the output does not match the CPU reference, so this time means nothing; \"C\" is wrong";
    return {cublas, naive, tiled, wrong};
}

RunStamp example_stamp() {
    return RunStamp{"2",    "02-tiled-gemm", "solutions", "EXAMPLE GPU, not a measurement", "9.0", "000.00",
                    "13.0", "13.0",          "2026-01-01T00:00:00Z"};
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
