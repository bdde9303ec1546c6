// Chapter 1's profile: the naive GEMM once, at M = N = K = 128 (a multiple of the 16 x 16
// block, so every thread computes an element and the counts are those of the formulas:
// each multiply-add loads one element of A and one of B from global memory).
#include "naive_gemm.h"
#include "tutorial_chapter.h"

#include "device_buffer.h"
#include "profile/profile.h"
#include "random.h"

int main(int argc, char** argv) {
    constexpr int M = 128, N = 128, K = 128;
    const tutorial::DeviceBuffer<float> A(tutorial::random_floats(M * K, 1));
    const tutorial::DeviceBuffer<float> B(tutorial::random_floats(K * N, 2));
    tutorial::DeviceBuffer<float> C(M * N);
    tutorial::profile::Chapter chapter{TUTORIAL_CHAPTER, CHAPTER_NAME, "M = N = K = 128", {}};
    chapter.variants.push_back({"one thread per element of C", "naive_gemm_kernel", 2.0 * M * N * K,
                                [&] { naive_gemm(A.data(), B.data(), C.data(), M, N, K); }});
    return tutorial::profile::run(argc, argv, chapter);
}
