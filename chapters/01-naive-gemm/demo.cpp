// Chapter 1 demo: multiply two small integer matrices with your naive_gemm and show
// the result beside the CPU's.  Run it with `make chapter1 run`.
#include "naive_gemm.h"
#include "tutorial_chapter.h"

#include "demo.h"
#include "device_buffer.h"
#include "gemm/gemm_reference.h"

#include <cstdio>
#include <vector>

namespace {
void print_matrix(const char* name, const std::vector<float>& m, int rows, int cols) {
    std::printf("%s (%d x %d):\n", name, rows, cols);
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) std::printf(" %6g", m[r * cols + c]);
        std::printf("\n");
    }
}
}  // namespace

int main() {
    return tutorial::run_demo([] {
        // Small integers keep every product and sum exact, so GPU and CPU agree to the bit.
        const int M = 3, N = 4, K = 5;
        std::vector<float> A(M * K), B(K * N);
        for (int i = 0; i < M * K; ++i) A[i] = static_cast<float>(i % 7 - 3);
        for (int i = 0; i < K * N; ++i) B[i] = static_cast<float>(i % 5 - 2);
        print_matrix("A", A, M, K);
        print_matrix("B", B, K, N);

        tutorial::DeviceBuffer<float> dA(A), dB(B), dC(M * N);
        dC.poison();
        naive_gemm(dA.data(), dB.data(), dC.data(), M, N, K);
        const std::vector<float> C = dC.download();
        print_matrix("C = A * B from your kernel (nan: never written)", C, M, N);

        const tutorial::ExpectedOutput expected = tutorial::gemm_reference(A, B, M, N, K);
        int wrong = 0;
        for (int i = 0; i < M * N; ++i) wrong += C[i] != expected.value[i];
        const tutorial::LaunchConfig launch = naive_gemm_launch_config(M, N);
        std::printf("Launched %u x %u blocks of %u x %u threads for %d elements of C.\n", launch.grid.x,
                    launch.grid.y, launch.block.x, launch.block.y, M * N);
        std::printf(wrong == 0 ? "All %d elements match the CPU.\n" : "%d of the elements differ from the CPU: run "
                                                                      "`make " CHAPTER_NAME " test` to see which.\n",
                    wrong == 0 ? M * N : wrong);
        return wrong == 0;
    });
}
