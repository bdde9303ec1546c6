// Chapter 1 tests: naive GEMM.  Run them with `make chapter1 test`.
#include "naive_gemm.h"
#include "tutorial_chapter.h"

#include "catch.h"
#include "expect.h"
#include "gemm/gemm_cases.h"
#include "gemm/gemm_reference.h"

#include <regex>
#include <string>

using tutorial::GemmShape;

TEST_CASE("naive_gemm_launch_config covers C with 16x16 blocks, x along the columns", CHAPTER_TAG "[graded]") {
    tutorial::check_launch_covers(naive_gemm_launch_config, kNaiveGemmBlock);
}

TEST_CASE("naive_gemm matches the CPU reference for every shape", CHAPTER_TAG "[gpu][graded]") {
    // One report for all the shapes: the first failing one in full, then a line each.
    REQUIRE_SWEEP(tutorial::sweep_gemm_shapes("naive_gemm", TUTORIAL_CHAPTER, {kNaiveGemmBlock}, "block",
                                              [](int) { return tutorial::GemmFunction(naive_gemm); }));
}

TEST_CASE("naive_gemm rejects bad sizes and null pointers, naming the argument", CHAPTER_TAG) {
    tutorial::check_gemm_rejects_bad_arguments(naive_gemm, "naive_gemm");
}

TEST_CASE("naive_gemm reports a failed launch as a CudaError naming the kernel", CHAPTER_TAG "[gpu]") {
    const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) { naive_gemm(A, B, C, M, N, K); };
    tutorial::check_too_many_block_rows_is_a_cuda_error(gemm, kNaiveGemmBlock, "naive_gemm_kernel", "naive_gemm.cu");
}

// The CPU reference this chapter is checked against must itself be right.
TEST_CASE("gemm_reference computes a small product exactly, with a tolerance from K", CHAPTER_TAG "[reference]") {
    // [1 2; 3 4] x [5 6; 7 8] = [19 22; 43 50]; the second column of A is negative in
    // the second test, so the tolerance (a sum of magnitudes) exceeds |value|.
    const auto out = tutorial::gemm_reference({1, 2, 3, 4}, {5, 6, 7, 8}, 2, 2, 2);
    CHECK(out.value == std::vector<double>{19, 22, 43, 50});
    CHECK(out.tolerance[0] == Approx(19 * tutorial::float_sum_error_factor(2)));
    const auto mixed = tutorial::gemm_reference({1, -2}, {5, 7}, 1, 1, 2);
    CHECK(mixed.value[0] == -9);
    CHECK(mixed.tolerance[0] == Approx(19 * tutorial::float_sum_error_factor(2)));
    REQUIRE_THROWS_AS(tutorial::gemm_reference({1, 2, 3}, {1, 2}, 2, 1, 2), std::invalid_argument);
}

TEST_CASE("the lesson gives the number of test shapes there are", CHAPTER_TAG) {
    // The lesson once said 37 shapes for 36.
    const std::string lesson = tutorial::read_chapter_source(CHAPTER_FOLDER, "README.md");
    std::smatch match;
    REQUIRE(std::regex_search(lesson, match, std::regex(R"(the launch configuration, for (\d+) shapes)")));
    CHECK(std::stoul(match[1].str()) == tutorial::gemm_test_shapes(kNaiveGemmBlock).size());
}
