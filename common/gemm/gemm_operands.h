/// @file gemm_operands.h
/// @brief The operands of one GEMM on the device, for the GEMM chapters' profiles and demos.
#pragma once

#include "device_buffer.h"
#include "random.h"

#include <functional>

namespace tutorial {

/// @brief C = A B with A of M x K and B of K x N random floats (seeds 1 and 2, the same in
/// every chapter, so that their profiles run on the same inputs), and C of M x N to write.
struct GemmOperands {
    GemmOperands(int rows, int cols, int depth)
        : M(rows), N(cols), K(depth),
          A(random_floats(static_cast<std::size_t>(rows) * depth, 1)),
          B(random_floats(static_cast<std::size_t>(depth) * cols, 2)),
          C(static_cast<std::size_t>(rows) * cols) {}

    /// @brief The floating-point operations of one product: a multiply and an add per term.
    double flops() const { return 2.0 * M * N * K; }

    /// @brief One run of @p gemm, an entry point called as the chapters' are, gemm(A, B, C,
    /// M, N, K), on these operands (which must outlive it).
    template <class Gemm>
    std::function<void()> run_of(Gemm gemm) {
        return [this, gemm] { gemm(A.data(), B.data(), C.data(), M, N, K); };
    }

    int M, N, K;
    DeviceBuffer<float> A, B, C;
};

}  // namespace tutorial
