// Chapter 1's profile: the naive GEMM once, at M = N = K = 128 (a multiple of the 16 x 16
// block, so every thread computes an element and the counts are those of the formulas:
// each multiply-add loads one element of A and one of B from global memory).
#include "naive_gemm.h"
#include "tutorial_chapter.h"

#include "gemm/gemm_operands.h"
#include "profile/profile.h"

int main(int argc, char** argv) {
    tutorial::GemmOperands gemm(128, 128, 128);
    tutorial::profile::Chapter chapter{TUTORIAL_CHAPTER, CHAPTER_NAME, "M = N = K = 128", {}};
    chapter.variants.push_back({"one thread per element of C", "naive_gemm_kernel", gemm.flops(), gemm.run_of(naive_gemm)});
    return tutorial::profile::run(argc, argv, chapter);
}
