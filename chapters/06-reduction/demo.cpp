// Chapter 6 demo: which sum of a million floats is closest to the truth?
//
//   make chapter6 run
//
// It sums 2^20 random floats in [0, 1) four ways: a plain left-to-right float loop on
// the CPU, and your three kernels. Each is compared with the exact sum (accumulated in
// double) and with its error bound, γ_depth · Σ|x| (depth: the longest chain of
// additions a term goes through). The loop's chain is a million additions long; the
// kernels' trees are a few dozen deep, and that is why their sums are closer.
#include "reduction.h"
#include "tutorial_chapter.h"

#include "demo.h"
#include "device_buffer.h"
#include "random.h"
#include "reduction_reference.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kElements = 1 << 20;

void print_row(const char* how, double got, double exact, long long depth, double magnitude) {
    const double bound = tutorial::float_sum_error_factor(depth) * magnitude;
    const double error = std::fabs(got - exact);
    std::printf("  %-28s %16.4f %12.4f %8lld %12.4f  %s\n", how, got, error, depth, bound,
                std::isnan(got) ? "WRONG: never written (run `make " CHAPTER_NAME " test`)"
                : error <= bound ? "within its bound"
                                 : "WRONG: past its bound (run `make " CHAPTER_NAME " test`)");
}

}  // namespace

int main() {
    return tutorial::run_demo([] {
        const std::vector<float> values =
            tutorial::random_floats(kElements, tutorial::derive_seed(tutorial::run_seed(), {kElements}), 0.0f, 1.0f);
        double exact = 0.0;
        float loop = 0.0f;
        for (float x : values) {
            exact += x;
            loop += x;  // the obvious CPU loop, in float
        }
        // All values are positive, so Σ|x| is the sum itself.
        std::printf("The sum of %d random floats in [0, 1): %.4f (accumulated in double)\n\n", kElements, exact);
        std::printf("  %-28s %16s %12s %8s %12s\n", "summed by", "sum", "error", "depth", "error bound");
        print_row("a float loop on the CPU", loop, exact, kElements - 1, exact);

        const tutorial::DeviceBuffer<float> input(values);
        tutorial::DeviceBuffer<float> sum(1), workspace(reduce_workspace_floats(kElements));
        const std::pair<const char*, void (*)(const float*, float*, int, float*)> variants[] = {
            {"reduce_interleaved (" STEP("a") ")", reduce_interleaved},
            {"reduce_sequential (" STEP("b") ")", reduce_sequential},
            {"reduce_warp (" STEP("c") ")", reduce_warp}};
        bool all_right = true;
        for (const auto& [name, reduce] : variants) {
            sum.poison();  // NaN, in case nothing is written
            workspace.poison();
            reduce(input.data(), sum.data(), kElements, workspace.data());
            const double got = sum.download()[0];
            const long long depth = reduce == reduce_warp ? reduce_warp_depth(kElements) : reduce_tree_depth(kElements);
            print_row(name, got, exact, depth, exact);
            all_right &= std::fabs(got - exact) <= tutorial::float_sum_error_factor(depth) * exact;
        }
        std::printf("\nA float has 24 significant bits: once the loop's running sum passes 2^18 = 262144, every "
                    "addition is rounded to a multiple of 2^-5, and the loop does that for the second half of its "
                    "million additions. In a tree, each number meets only a few dozen roundings.\n");
        return all_right;
    });
}
