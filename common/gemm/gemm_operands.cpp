#include "gemm/gemm_operands.h"

#include "gemm/bf16_inputs.h"
#include "gemm/gemm_reference.h"
#include "random.h"

namespace tutorial {

GemmOperands::GemmOperands(int rows, int cols, int depth, std::uint64_t seed, InputPrecision inputs)
    : M(rows), N(cols), K(depth),
      A(random_floats(static_cast<std::size_t>(rows) * depth, seed)),
      B(random_floats(static_cast<std::size_t>(depth) * cols, seed + 1)),
      C(static_cast<std::size_t>(rows) * cols),
      precision(inputs) {}

ComparisonReport GemmOperands::run_checked(const GemmFunction& gemm, int tile, int tile_cols) {
    if (expected_.value.empty()) {
        if (precision == InputPrecision::bf16) {
            expected_ = gemm_reference(rounded_to_bf16(A.download()), rounded_to_bf16(B.download()), M, N, K);
            // The products of two BF16 values are exact in FP32, so only the additions err.
            // The PTX ISA does not promise that the tensor cores' FP32 additions round to
            // nearest; truncating ones err by up to twice the unit roundoff each.
            for (double& tolerance : expected_.tolerance) tolerance *= 2.0;
        } else {
            expected_ = gemm_reference(A.download(), B.download(), M, N, K);
        }
    }
    C.poison();
    gemm(A.data(), B.data(), C.data(), M, N, K);
    return compare_gemm_output(C.download(), expected_, M, N, tile, tile_cols);
}

}  // namespace tutorial
