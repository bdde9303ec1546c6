// Chapter 1 tests: naive GEMM.  Run them with `make chapter1 test`.
#include "naive_gemm.h"

#include "catch.h"
#include "expect.h"
#include "gemm_cases.h"

#include <regex>
#include <string>

using tutorial::GemmShape;

TEST_CASE("naive_gemm_launch_config covers C with 16x16 blocks, x along the columns", "[chapter1]") {
    tutorial::check_launch_covers(naive_gemm_launch_config, kNaiveGemmBlock);
}

TEST_CASE("naive_gemm matches the CPU reference for every shape", "[chapter1][gpu]") {
    // One report for all the shapes: the first failing one in full, then a line each.
    REQUIRE_SWEEP(tutorial::sweep_gemm_shapes("naive_gemm", 1, {kNaiveGemmBlock}, "block",
                                              [](int) { return tutorial::GemmFunction(naive_gemm); }));
}

TEST_CASE("naive_gemm rejects bad sizes and null pointers, naming the argument", "[chapter1]") {
    tutorial::check_gemm_rejects_bad_arguments(naive_gemm, "naive_gemm");
}

TEST_CASE("naive_gemm reports a failed launch as a CudaError naming the kernel", "[chapter1][gpu]") {
    const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) { naive_gemm(A, B, C, M, N, K); };
    tutorial::check_too_many_block_rows_is_a_cuda_error(gemm, kNaiveGemmBlock, "naive_gemm_kernel", "naive_gemm.cu");
}

TEST_CASE("the lesson gives the number of test shapes there are", "[chapter1]") {
    // The lesson once said 37 shapes for 36.
    const std::string lesson = tutorial::read_chapter_source(__FILE__, "README.md");
    std::smatch match;
    REQUIRE(std::regex_search(lesson, match, std::regex(R"(the launch configuration, for (\d+) shapes)")));
    CHECK(std::stoul(match[1].str()) == tutorial::gemm_test_shapes(kNaiveGemmBlock).size());
}
