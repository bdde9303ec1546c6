#include "gemm/gemm_operands.h"

#include "gemm/gemm_reference.h"
#include "random.h"

namespace tutorial {

GemmOperands::GemmOperands(int rows, int cols, int depth, std::uint64_t seed)
    : M(rows), N(cols), K(depth),
      A(random_floats(static_cast<std::size_t>(rows) * depth, seed)),
      B(random_floats(static_cast<std::size_t>(depth) * cols, seed + 1)),
      C(static_cast<std::size_t>(rows) * cols) {}

ComparisonReport GemmOperands::run_checked(const GemmFunction& gemm, int tile, int tile_cols) {
    if (expected_.value.empty()) {
        expected_ = gemm_reference(A.download(), B.download(), M, N, K);
    }
    C.poison();
    gemm(A.data(), B.data(), C.data(), M, N, K);
    return compare_gemm_output(C.download(), expected_, M, N, tile, tile_cols);
}

}  // namespace tutorial
