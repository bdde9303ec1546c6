// Chapter 1's profile: the naive GEMM once, at M = N = K = 128 (a multiple of the 16 x 16
// block, so every thread computes an element and the counts are those of the formulas:
// each multiply-add loads one element of A and one of B from global memory).
#include "naive_gemm.h"
#include "tutorial_chapter.h"

#include "gemm/gemm_profile.h"

int main(int argc, char** argv) {
    tutorial::GemmProfile profile(TUTORIAL_CHAPTER, CHAPTER_NAME, 128);
    profile.add("one thread per element of C", "naive_gemm_kernel", naive_gemm);
    return profile.run(argc, argv);
}
