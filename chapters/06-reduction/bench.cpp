// Chapter 6 benchmark: the sum of 2^28 floats (1 GiB), the tree with interleaved
// addressing against the tree with sequential addressing and the float4 + warp-shuffle
// kernel, with Mark Harris's intermediate steps between them.
//
// `make chapter6 bench` times your kernels; `make chapter6 bench SOLUTIONS=1` the
// references. It times cub::DeviceReduce::Sum (the library a user would call), then, in
// Harris's order: reduce_interleaved (his kernel 1, the baseline the speed-ups are over), his
// kernel 2 (bench/harris_reduction.h), reduce_sequential (his kernel 3), his kernels 4 to 7,
// and reduce_warp; it checks each sum against the CPU after timing.
//
// The rate is the read rate: the 4 bytes of each element, read once, over the time (a
// sum writes nothing worth counting). Its ceiling is the device-to-device copy the
// session measures first, reads plus writes: a reduction that reads as fast as a copy
// moves bytes is as fast as the memory allows.
#include "reduction.h"

#include "bench/cub_sum.h"
#include "bench/harris_reduction.h"
#include "benchmark/session.h"
#include "compare.h"
#include "device_buffer.h"
#include "random.h"
#include "reduction_reference.h"

#include <string>
#include <vector>

namespace {

constexpr int kElements = 1 << 28;

}  // namespace

int main(int argc, char* argv[]) {
    using namespace tutorial;
    return benchmark::run(argc, argv, [](benchmark::Session& session) {
        const std::vector<float> values = random_floats(kElements, derive_seed(run_seed(), {kElements}));
        DeviceBuffer<float> input(values), sum(1), workspace(reduce_workspace_floats(kElements));
        // The sum of the 2^28 floats by `variant`, each element read once; its result is
        // checked against the exact sum, within the error bound of `depth` additions.
        const auto sum_work = [&](const std::string& variant, long long depth) {
            benchmark::WorkToTime work;
            work.problem = "2^28 floats";
            work.variant = variant;
            work.unit = "GB/s";
            work.work = sizeof(float) * static_cast<double>(kElements);  // each element read once
            // The sum, and the blocks' partial sums in the workspace (CUB's are smaller still).
            work.bytes_written = static_cast<double>(sum.bytes() + workspace.bytes());
            work.check = [&sum, expected = sum_reference(values, depth)] {
                return compare_with_tolerance(sum.download(), expected, output_layout("sum")).text;
            };
            return work;
        };
        {
            // CUB's order of additions is its own; it reduces as reduce_warp does (a chain per
            // thread over a grid-strided share, block trees, a second pass over the blocks'
            // sums), so it is held to reduce_warp's error bound. The bound is a worst case
            // that the rounding errors of random inputs stay far below.
            benchmark::CubSum cub_sum(kElements);
            benchmark::WorkToTime work = sum_work("CUB DeviceReduce::Sum", reduce_warp_depth(kElements));
            work.prepare = [&] { sum.poison(); };
            work.run = [&] { cub_sum(input.data(), sum.data(), kElements); };
            session.measure_library(work, session.copy_ceiling());
        }
        // The chapter's steps and, between them, Harris's that they skip: each row's speed-up
        // over the one before it is the step's, its speed-up over 6a the cumulative one.
        const benchmark::HarrisStep variants[] = {{"interleaved", reduce_interleaved, reduce_tree_depth},
                                                  benchmark::kHarrisStridedIndex,
                                                  {"sequential", reduce_sequential, reduce_tree_depth},
                                                  benchmark::kHarrisFirstAddDuringLoad,
                                                  benchmark::kHarrisUnrolledLastWarp,
                                                  benchmark::kHarrisCompletelyUnrolled,
                                                  benchmark::kHarrisManyElementsPerThread,
                                                  {"warp", reduce_warp, reduce_warp_depth}};
        for (const benchmark::HarrisStep& variant : variants) {
            benchmark::WorkToTime work = sum_work(variant.variant, variant.depth(kElements));
            work.is_baseline = variant.reduce == reduce_interleaved;
            work.prepare = [&] {  // NaN: a sum never written, or a partial sum never written, fails the check
                sum.poison();
                workspace.poison();
            };
            work.run = [&, reduce = variant.reduce] { reduce(input.data(), sum.data(), kElements, workspace.data()); };
            session.measure_kernel(work, session.copy_ceiling());
        }
    });
}
