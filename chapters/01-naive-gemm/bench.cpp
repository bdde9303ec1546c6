// Chapter 1 benchmark: the naive GEMM against cuBLAS, at the sizes of the seed articles.
//
// `make chapter1 bench` times your kernel; `make chapter1 bench SOLUTIONS=1` the
// reference. For 1024³ and 4096³ it times cuBLAS SGEMM in pure FP32 (the ceiling),
// then naive_gemm, and checks each result against the CPU after timing. The harness
// (warm-up, L2 flush, median, table and files) is in common/benchmark/.
#include "naive_gemm.h"

#include "gemm/gemm_benchmark.h"

int main(int argc, char* argv[]) {
    return tutorial::benchmark::run(argc, argv, [](tutorial::benchmark::Session& session) {
        for (int size : {1024, 4096}) {
            tutorial::benchmark::GemmBenchmark gemm(session, size);
            gemm.time_kernel("naive", naive_gemm, /*is_baseline=*/true);
        }
    });
}
