/// @file gemm_profile.h
/// @brief A GEMM chapter's profile program (`make chapterN profile`): each variant is one
/// product of the same square operands.
#pragma once

#include "gemm/gemm_operands.h"
#include "non_copyable.h"
#include "profile/profile.h"

#include <string>
#include <utility>

namespace tutorial {

/// @brief The variants of a GEMM chapter, each run on M = N = K = @p size operands from seed
/// 1 (the same in every chapter), handed to profile::run.
class GemmProfile : NonCopyable {
public:
    GemmProfile(int chapter, std::string slug, int size, InputPrecision precision = InputPrecision::fp32)
        : operands_(size, size, size, 1, precision),
          chapter_{chapter, std::move(slug), "M = N = K = " + std::to_string(size), {}} {}

    /// @brief Add a variant: @p name for people, @p kernel as ptxas names it, and @p gemm, an
    /// entry point called as the chapters' are, gemm(A, B, C, M, N, K).
    template <class Gemm>
    void add(std::string name, std::string kernel, Gemm gemm) {
        chapter_.variants.push_back({std::move(name), std::move(kernel), operands_.flops(), operands_.run_of(gemm)});
    }

    /// @brief profile::run on the variants added, in their order: the program's exit status.
    int run(int argc, char** argv) const { return profile::run(argc, argv, chapter_); }

private:
    GemmOperands operands_;
    profile::Chapter chapter_;
};

}  // namespace tutorial
