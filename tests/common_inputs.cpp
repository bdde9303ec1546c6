// Tests of the run's inputs and outputs: seeds, test filters, the chapter's sources, image
// files, argument and CUDA error checks, device buffers (tests/common.cpp says how these
// tests are built).
#include "common_support.h"

using namespace tutorial;
using namespace common_tests;

namespace {
// Runs this test binary again with @p environment and @p arguments (its results file
// left alone), returning its exit status and what it printed.
int run_this_binary(const std::string& environment, const std::string& arguments, std::string& output) {
    char self[4096];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    REQUIRE(length > 0);
    self[length] = '\0';
    const std::string command =
        "env -u TUTORIAL_RESULTS_FILE " + environment + " '" + std::string(self) + "' " + arguments + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    output.clear();
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
    const int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
}  // namespace

TEST_CASE("a SEED that is not a whole number from 0 to 4294967295 stops the run with status 2", "[common][input]") {
    const std::string seed = GENERATE(as<std::string>{}, "abc", "1.5", "12abc", "-5", " 7", "4294967296",
                                      "99999999999999999999999");
    std::string output;
    const int status = run_this_binary("TUTORIAL_SEED='" + seed + "'", "'[common][patterns]'", output);
    INFO(output);
    CHECK(status == 2);
    CHECK(contains_phrase(output, "SEED=" + seed + " is not a whole number from 0 to 4294967295"));
    CHECK_FALSE(contains_phrase(output, "Inputs come from seed"));
}

TEST_CASE("a good SEED is printed once, and Catch2's seed is the same number", "[common][input]") {
    const std::string seed = GENERATE(as<std::string>{}, "0", "12", "4294967295");
    std::string output;
    const int status = run_this_binary("TUTORIAL_SEED=" + seed, "'[common][patterns]'", output);
    INFO(output);
    CHECK(status == 0);
    CHECK(contains_phrase(output, "Inputs come from seed " + seed + " "));
    // Every number a line calls a seed is this one.
    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line)) {
        const std::size_t at = line.find("seed");
        if (at == std::string::npos) continue;
        INFO(line);
        const std::size_t digits = line.find_first_of("0123456789", at);
        REQUIRE(digits != std::string::npos);
        CHECK(line.substr(digits, line.find_first_not_of("0123456789", digits) - digits) == seed);
    }
}

TEST_CASE("SEED=n works for the program run by hand, as the line it prints says; make's TUTORIAL_SEED wins", "[common][input]") {
    std::string output;
    CHECK(run_this_binary("env -u TUTORIAL_SEED SEED=77", "'[common][patterns]'", output) == 0);
    check_says(output, {"Inputs come from seed 77 (change it with SEED=n)"});
    CHECK(run_this_binary("TUTORIAL_SEED=5 SEED=77", "'[common][patterns]'", output) == 0);
    CHECK(contains_phrase(output, "Inputs come from seed 5 "));
    // Without either, the default.
    CHECK(run_this_binary("env -u TUTORIAL_SEED -u SEED", "'[common][patterns]'", output) == 0);
    CHECK(contains_phrase(output, "Inputs come from seed " + std::to_string(kDefaultSeed) + " "));
}

TEST_CASE("a chapter's test program knows the files its student edits; others name none", "[common][input]") {
    find_where_to_work("build/emu/chapters/bin/chapter4-tests");
    const std::string chapter4 = where_to_work();
    find_where_to_work("build/cuda/solutions/bin/chapter4-tests");  // the reference solutions: no student
    const std::string solutions = where_to_work();
    find_where_to_work("build/emu/bin/common-tests");
    const std::string library = where_to_work();
    find_where_to_work("");
    check_says(chapter4, {"Your code for chapter 4 is in chapters/04-moving-average/moving_average.cu",
                          "(its TODO(chapter4) markers); make chapter4 hint gives a hint"});
    CHECK(solutions.empty());
    CHECK(library.empty());
}

TEST_CASE("a test filter (ARGS) that selects no test case is status 2 with a message", "[common][input]") {
    std::string output;
    const int status = run_this_binary("", "'[nonexistent]'", output);
    INFO(output);
    CHECK(status == 2);
    CHECK(contains_phrase(output, "No test case ran: the test filter '[nonexistent]' (ARGS) selects none"));
    SECTION("listing the tags is no failure") {
        CHECK(run_this_binary("", "--list-tags", output) == 0);
    }
}

TEST_CASE("kernel_parameter_list reads a kernel's declaration, comments and line breaks aside", "[common]") {
    const std::string source =
        "// __global__ void k(int commented_out)\n"
        "__global__ void other(int a) {}\n"
        "__global__ void k(const float* __restrict__ input, /* the output */ float*\n"
        "                  output, int size) {\n}\n";
    CHECK(kernel_parameter_list(source, "k") == "const float* __restrict__ input, float* output, int size");
    CHECK(kernel_parameter_list(source, "other") == "int a");
    CHECK(kernel_parameter_list(source, "missing").empty());
}

TEST_CASE("read_chapter_source finds the file of the tree the binary was built from", "[common]") {
    const std::string text = read_chapter_source("04-moving-average", "moving_average.h");
    CHECK(contains_phrase(text, "moving_average_readonly"));
    try {
        read_chapter_source("99-nothing", "x.cu");
        FAIL("reading a file that does not exist raised no error");
    } catch (const std::runtime_error& error) {
        CHECK(contains_phrase(error.what(), "cannot read the chapter's source"));
        CHECK(contains_phrase(error.what(), "/chapters/99-nothing/x.cu"));
    }
}

TEST_CASE("PGM files decode, binary and plain, with comments and a smaller maximum", "[common]") {
    const char file[] = "P5\n# a comment\n3 2\n255\n\x00\x10\x80\xff\x01\x02";
    const GrayImage binary = parse_pgm(std::string(file, sizeof file - 1), "b.pgm");
    CHECK(binary.width == 3);
    CHECK(binary.height == 2);
    CHECK(binary.pixels == std::vector<std::uint8_t>{0x00, 0x10, 0x80, 0xFF, 0x01, 0x02});
    // A maximum of 15 is stretched to 255: 15 -> 255, 5 -> 85.
    const GrayImage plain = parse_pgm("P2 2 2 # size\n15\n0 5\n10 15\n", "p.pgm");
    CHECK(plain.pixels == std::vector<std::uint8_t>{0, 85, 170, 255});
    // What we write, we read back.
    GrayImage image{4, 3, random_bytes(12, 4)};
    const GrayImage again = parse_pgm(encode_pgm(image), "again.pgm");
    CHECK(again.width == 4);
    CHECK(again.height == 3);
    CHECK(again.pixels == image.pixels);
}

TEST_CASE("a malformed or unsupported PGM gets an error saying what is wrong", "[common]") {
    const auto error_of = [](const std::string& bytes) {
        try {
            parse_pgm(bytes, "photo.pgm");
        } catch (const std::runtime_error& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    CHECK(contains_phrase(error_of(""), "photo.pgm: not a PGM image: the file is empty"));
    CHECK(contains_phrase(error_of("P6\n2 2\n255\n"), "colour PPM (P6)"));
    CHECK(contains_phrase(error_of("\x89PNG\r\n"), "it is a PNG file"));
    CHECK(contains_phrase(error_of("P5\n2 2\n65535\n"), "16-bit"));
    CHECK(contains_phrase(error_of("P5\n2 x\n255\n"), "expected the height, found 'x'"));
    CHECK(contains_phrase(error_of("P5\n2 2\n"), "expected the maximum value, found the end of the file"));
    CHECK(contains_phrase(error_of("P5\n0 2\n255\n"), "0 x 2 pixels"));
    CHECK(contains_phrase(error_of("P5\n2 2\n255\nabc"), "truncated PGM: the header says 2 x 2 = 4 pixels, the file holds 3"));
    CHECK(contains_phrase(error_of("P2\n2 1\n100\n5 101\n"), "pixel 1 is 101, above the maximum value 100"));
    CHECK(contains_phrase(error_of("P2\n2 1\n100\n5\n"), "expected the value of pixel 1 of 2"));
    CHECK(contains_phrase(error_of("P5\n99999999999 2\n255\n"), "too large"));
}

TEST_CASE("PGM and PNG files are written and read back from disk", "[common]") {
    const GrayImage image{5, 2, random_bytes(10, 12)};
    const std::string path = "build/test-image-file.pgm";
    write_file(path, encode_pgm(image));
    CHECK(read_pgm(path).pixels == image.pixels);
    std::remove(path.c_str());
    REQUIRE_THROWS_WITH(read_pgm("build/no-such-file.pgm"),
                        "build/no-such-file.pgm: cannot open it: No such file or directory");
    REQUIRE_THROWS_WITH(read_pgm("build"), "build: is a folder, not an image file");
    REQUIRE_THROWS_AS(write_file("build/no-such-folder/x.png", "x"), std::runtime_error);
}

namespace {
std::uint32_t read_u32(const std::string& bytes, std::size_t at) {
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value = (value << 8) | static_cast<std::uint8_t>(bytes[at + i]);
    return value;
}
}  // namespace

TEST_CASE("a PNG holds the image's rows in stored deflate blocks, with the right checksums", "[common]") {
    // 300 x 250 is 75250 bytes of rows with their filter bytes: two stored blocks.
    GrayImage image{300, 250, random_bytes(300 * 250, 13)};
    const std::string png = encode_png(image);
    REQUIRE(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
    REQUIRE(read_u32(png, 8) == 13);
    CHECK(png.substr(12, 4) == "IHDR");
    CHECK(read_u32(png, 16) == 300);
    CHECK(read_u32(png, 20) == 250);
    CHECK(png.substr(24, 5) == std::string("\x08\x00\x00\x00\x00", 5));
    CHECK(read_u32(png, 29) == 0x3E06252F);  // CRC-32 of this IHDR, as zlib's crc32 computes it
    // The last chunk is IEND, whose CRC everyone knows.
    CHECK(png.substr(png.size() - 12) == std::string("\x00\x00\x00\x00IEND\xae\x42\x60\x82", 12));

    // Undo the stored blocks and compare the rows.
    const std::size_t idat = 33;
    const std::uint32_t length = read_u32(png, idat);
    REQUIRE(png.substr(idat + 4, 4) == "IDAT");
    const std::string zlib = png.substr(idat + 8, length);
    CHECK((static_cast<std::uint8_t>(zlib[0]) * 256 + static_cast<std::uint8_t>(zlib[1])) % 31 == 0);
    std::string rows;
    std::size_t at = 2;
    bool last = false;
    while (!last) {
        last = zlib[at] & 1;
        const unsigned len = static_cast<std::uint8_t>(zlib[at + 1]) | static_cast<std::uint8_t>(zlib[at + 2]) << 8;
        const unsigned nlen = static_cast<std::uint8_t>(zlib[at + 3]) | static_cast<std::uint8_t>(zlib[at + 4]) << 8;
        REQUIRE((len ^ nlen) == 0xFFFF);
        rows += zlib.substr(at + 5, len);
        at += 5 + len;
    }
    REQUIRE(rows.size() == 301u * 250u);
    for (int y = 0; y < 250; ++y) {
        REQUIRE(rows[y * 301] == '\0');
        REQUIRE(rows.compare(y * 301 + 1, 300, reinterpret_cast<const char*>(&image.pixels[y * 300]), 300) == 0);
    }
    std::uint32_t a = 1, b = 0;
    for (unsigned char byte : rows) {
        a = (a + byte) % 65521;
        b = (b + a) % 65521;
    }
    CHECK(read_u32(zlib, at) == ((b << 16) | a));
}

TEST_CASE("argument checks name the function and the argument", "[common]") {
    REQUIRE_THROWS_WITH(require_positive("f", "width", 0), "f: argument width must be at least 1, got 0");
    REQUIRE_THROWS_WITH(require_in_range("f", "radius", 9, 0, 8), "f: argument radius must be between 0 and 8, got 9");
    REQUIRE_THROWS_WITH(require_not_null("f", "input", nullptr), "f: argument input is a null pointer");
    REQUIRE_NOTHROW(require_in_range("f", "radius", 8, 0, 8));
    REQUIRE_THROWS_WITH(require_shared_memory_fits("f", 232452, 232448),
                        "f: a block needs 232452 bytes of shared memory, more than this GPU allows one block: "
                        "232448 bytes (cudaDevAttrMaxSharedMemoryPerBlockOptin)");
    REQUIRE_NOTHROW(require_shared_memory_fits("f", 232448, 232448));
}

TEST_CASE("a CudaError carries the CUDA error text, the call and the place", "[common]") {
    const CudaError error(cudaErrorInvalidValue, "cudaMemcpy(a, b, n, kind)", "file.cu", 12);
    const std::string text = error.what();
    CHECK(contains_phrase(text, "cudaErrorInvalidValue"));
    CHECK(contains_phrase(text, "invalid argument"));
    CHECK(contains_phrase(text, "cudaMemcpy(a, b, n, kind)"));
    CHECK(contains_phrase(text, "file.cu:12"));
    CHECK(error.code() == cudaErrorInvalidValue);
}

TEST_CASE("after the run's one full report, a failed REQUIRE_MATCH gives its report's first sentence", "[common]") {
    std::vector<std::uint8_t> expected = tutorial::random_bytes(6, 11), got = expected;
    got[4] ^= 0x5a;
    tutorial::OutputLayout layout;
    layout.name = "image";
    layout.rows = 2;
    layout.cols = 3;
    const tutorial::ComparisonReport report = tutorial::compare_exact(got, expected, layout);
    REQUIRE_FALSE(report.ok());
    tutorial::take_full_report();  // the run's one full report is used up now, whoever had it
    const std::string text = tutorial::match_failure_text(report);
    if (tutorial::take_full_report()) {
        WARN("TUTORIAL_VERBOSE is set: every report is whole, so the brief is not checked");
        CHECK(text == report.text);
        return;
    }
    INFO(text);
    CHECK(text.rfind("image is wrong at 1 of 6 elements", 0) == 0);
    CHECK(text.find("VERBOSE=1 shows it in full") != std::string::npos);
    CHECK(std::count(text.begin(), text.end(), '\n') <= 2);
    CHECK(report.text.size() > text.size());
}

TEST_CASE("ceil_div rounds up", "[common]") {
    CHECK(ceil_div(1, 16) == 1);
    CHECK(ceil_div(16, 16) == 1);
    CHECK(ceil_div(17, 16) == 2);
    CHECK(ceil_div(8000, 32) == 250);
}

TEST_CASE("a DeviceBuffer round-trips data, poisons to NaN and reports a failed allocation", "[common][gpu]") {
    const auto data = random_floats(1000, 1);
    DeviceBuffer<float> buffer(data);
    CHECK(buffer.download() == data);
    buffer.poison();
    for (float x : buffer.download()) {
        REQUIRE(std::isnan(x));
    }
    try {
        DeviceBuffer<float> too_big(std::size_t{1} << 50);  // 4 PiB
        FAIL("allocating 4 PiB succeeded");
    } catch (const CudaError& error) {
        const std::string text = error.what();
        INFO(text);
        CHECK(error.code() == cudaErrorMemoryAllocation);
        CHECK(contains_phrase(text, "cudaMalloc"));
        CHECK(contains_phrase(text, "device_buffer.h:"));
    }
}

TEST_CASE("a run's last lines say which failing test cases are optional going-further steps", "[common]") {
    using tutorial::optional_failures_note;
    SECTION("no optional failure: nothing to say") {
        CHECK(optional_failures_note({"8a: async_double_buffered_gemm matches"}, {}).empty());
        CHECK(optional_failures_note({}, {}).empty());
    }
    SECTION("only optional failures: the required ones all pass") {
        CHECK(optional_failures_note({}, {"8c: tma_gemm matches", "8c: tma_gemm refuses", "8d: async_warptile_gemm matches"}) ==
              "The chapter's required test cases all pass. Of the 3 test cases that fail, 3 are the going-further steps 8c "
              "and 8d (tagged [extra]): optional, the chapter is done without them.");
    }
    SECTION("both kinds: how many of each") {
        CHECK(optional_failures_note({"8a: x", "8b: y"}, {"9d: histogram_exchange counts"}) ==
              "Of the 3 test cases that fail, 1 is the going-further step 9d (tagged [extra]): optional, the "
              "chapter is done without it; the other 2 are required.");
    }
    SECTION("a run of chosen tests never says the required ones pass: it did not run them") {
        CHECK(optional_failures_note({}, {"8c: tma_gemm matches"}, 0, false) ==
              "The one test case that fails is the going-further step 8c (tagged [extra]): optional, the chapter is "
              "done without it.");
        CHECK(optional_failures_note({}, {"8c: x", "8d: y"}, 0, false).find("required") == std::string::npos);
    }
    SECTION("reports kept off the screen are said to be, with how to see them") {
        CHECK(optional_failures_note({"8a: x"}, {"8c: y", "8d: z"}, 2) ==
              "Of the 3 test cases that fail, 2 are the going-further steps 8c and 8d (tagged [extra]): optional, "
              "the chapter is done without them; the other 1 is required. Their reports are left out while a "
              "required one fails (VERBOSE=1 shows them).");
    }
    SECTION("a test case of several steps counts each of them, once") {
        // Chapter 3's skeleton: 3c's and 3d's own cases, and the case of both.
        CHECK(optional_failures_note({"3a: x"},
                                     {"3c: box_mean_coarsened equals the CPU reference",
                                      "3d: box_mean_ring equals the CPU reference",
                                      "3c and 3d: box_mean_coarsened and box_mean_ring are right on images that do not "
                                      "start on a 16-byte boundary, and keep an all-255 image all 255"}) ==
              "Of the 4 test cases that fail, 3 are the going-further steps 3c and 3d (tagged [extra]): optional, the "
              "chapter is done without them; the other 1 is required.");
        CHECK(optional_failures_note({}, {"8c, 8d: x", "9d: y"}, 0, false) ==
              "Of the 2 test cases that fail, 2 are the going-further steps 8c, 8d and 9d (tagged [extra]): optional, "
              "the chapter is done without them.");
    }
    SECTION("a test case that names no step is quoted whole") {
        CHECK(optional_failures_note({}, {"box_mean_coarsened keeps 255"}).find("\"box_mean_coarsened keeps 255\"") !=
              std::string::npos);
    }
}
