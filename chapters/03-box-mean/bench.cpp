// Chapter 3 benchmark: box mean on an 8000 x 8000 image, global memory against shared.
//
// `make chapter3 bench` times your kernels; `make chapter3 bench SOLUTIONS=1` the
// references. For R = 1 (3x3) and R = 2 (5x5) it times NPP's box filter (the library a user
// would call: nppiFilterBoxBorder_8u_C1R_Ctx, border replicated), box_mean_global (the
// baseline), box_mean_shared, box_mean_coarsened (3c) and box_mean_ring (3d), and checks
// every pixel against the CPU after timing. Without NPP (a separate package on some systems)
// its row says how to get it.
// Its last rows, "coarsened, copy only" and "ring, copy only", move 3c's and 3d's bytes with
// their tiles or ring, loads, copies and stores but compute no mean (bench/box_mean_copy.cu):
// the gap from each to its step is the work done between the loads, the gap from the copy to
// it the data movement's own. The very last, a cudaMemcpy of the image, is what a copy of
// these 64 MB reaches against the 256 MiB copy of the ceiling.
//
// The rate is effective bandwidth: the compulsory bytes, the image read once and the
// result written once, over the time. Its ceiling is the device-to-device copy the
// session measures first, which moves the same kind of bytes as fast as the GPU can.
#include "box_mean.h"

#include "bench/box_mean_copy.h"
#include "bench/npp_box_filter.h"
#include "benchmark/session.h"
#include "compare.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "random.h"
#include "box_mean_reference.h"

#include <cstdint>
#include <string>
#include <vector>

namespace {

// The size of the seed article's image.
constexpr int kWidth = 8000;
constexpr int kHeight = 8000;

using BoxMeanFunction = void (*)(const unsigned char* input, unsigned char* output, int width, int height, int radius);

// NPP may round a mean whose fraction is exactly one half the other way from the reference's
// (sum + area/2) / area, so its check allows 1 gray level, and its note counts the pixels that
// used it. A pixel left at the 0xFF poison, a wrong border or a shifted image are off by far more.
std::string npp_difference(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& expected,
                           const tutorial::OutputLayout& layout, bool as_remark) {
    long long off_by_one = 0;
    std::vector<std::uint8_t> nudged = got;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i] != expected[i] && (got[i] + 1 == expected[i] || got[i] == expected[i] + 1)) {
            nudged[i] = expected[i];
            ++off_by_one;
        }
    }
    if (as_remark) {
        return off_by_one == 0 ? "" : std::to_string(off_by_one) + " pixels differ from the reference's round-half-up mean "
                                      "by 1 gray level, which the check allows NPP";
    }
    return tutorial::compare_exact(nudged, expected, layout).text;
}

}  // namespace

int main(int argc, char* argv[]) {
    using namespace tutorial;
    return benchmark::run(argc, argv, [](benchmark::Session& session) {
        const std::size_t pixels = static_cast<std::size_t>(kWidth) * kHeight;
        const std::vector<std::uint8_t> image = random_bytes(pixels, derive_seed(run_seed(), {kWidth, kHeight}));
        DeviceBuffer<std::uint8_t> input(image), output(pixels);

        for (int radius : {1, 2}) {
            const std::vector<std::uint8_t> expected = box_mean_reference(image, kWidth, kHeight, radius);
            const std::string problem =
                std::to_string(kWidth) + " x " + std::to_string(kHeight) + ", R=" + std::to_string(radius);
            OutputLayout layout;
            layout.name = "output image";
            layout.rows = kHeight;
            layout.cols = kWidth;
            layout.border = radius;
            layout.seed = run_seed();
            const std::string npp_variant = "NPP nppiFilterBoxBorder (replicate)";
            if (!benchmark::NppBoxFilter::available()) {
                session.library_absent(problem, npp_variant, "GB/s", benchmark::NppBoxFilter::why_absent());
            } else {
                benchmark::NppBoxFilter npp;
                benchmark::WorkToTime work;
                work.problem = problem;
                work.variant = npp_variant;
                work.unit = "GB/s";
                work.work = 2.0 * static_cast<double>(pixels);
                work.bytes_written = static_cast<double>(pixels);
                work.prepare = [&] { output.poison(); };
                work.run = [&] { npp(input.data(), output.data(), kWidth, kHeight, radius); };
                work.check = [&] { return npp_difference(output.download(), expected, layout, false); };
                work.remark = [&] { return npp_difference(output.download(), expected, layout, true); };
                session.measure_library(work, session.copy_ceiling());
            }
            // "coarsened" (3c) and "ring" (3d) are the chapter's optional steps (going further).
            const std::pair<const char*, BoxMeanFunction> variants[] = {{"global", box_mean_global},
                                                                        {"shared", box_mean_shared},
                                                                        {"coarsened", box_mean_coarsened},
                                                                        {"ring", box_mean_ring}};
            for (const auto& [variant, box_mean] : variants) {
                benchmark::WorkToTime work;
                work.problem = problem;
                work.variant = variant;
                work.unit = "GB/s";
                work.work = 2.0 * static_cast<double>(pixels);  // each pixel read once and written once
                work.bytes_written = static_cast<double>(pixels);
                work.is_baseline = box_mean == box_mean_global;
                // 0xFF poison: a pixel never written stays 255, which a mean of random
                // pixels practically never is.
                work.prepare = [&] { output.poison(); };
                work.run = [&, box_mean = box_mean] {
                    box_mean(input.data(), output.data(), kWidth, kHeight, radius);
                };
                work.check = [&] { return compare_exact(output.download(), expected, layout).text; };
                session.measure_kernel(work, session.copy_ceiling());
            }
            // 3c's and 3d's data movement alone: the output is the input, every pixel checked.
            // Then the same bytes copied by cudaMemcpy: the ceiling is a copy of 256 MiB, and
            // this row says how much of it a copy of this 64 MB image reaches (its start and
            // its end weigh more in a shorter copy).
            const std::pair<const char*, BoxMeanFunction> copies[] = {
                {"coarsened, copy only (no arithmetic)", box_mean_copy},
                {"ring, copy only (no arithmetic)", box_mean_ring_copy},
                {"cudaMemcpy of the image (no kernel of ours)",
                 [](const unsigned char* in, unsigned char* out, int width, int height, int) {
                     CUDA_CHECK(cudaMemcpyAsync(out, in, static_cast<std::size_t>(width) * height,
                                                cudaMemcpyDeviceToDevice));
                 }}};
            for (const auto& [variant, copy] : copies) {
                OutputLayout copy_layout = layout;
                copy_layout.name = "output image (a copy of the input)";
                copy_layout.border = 0;
                benchmark::WorkToTime work;
                work.problem = problem;
                work.variant = variant;
                work.unit = "GB/s";
                work.work = 2.0 * static_cast<double>(pixels);
                work.bytes_written = static_cast<double>(pixels);
                work.prepare = [&] { output.poison(); };
                work.run = [&, copy = copy] { copy(input.data(), output.data(), kWidth, kHeight, radius); };
                work.check = [&, copy_layout] { return compare_exact(output.download(), image, copy_layout).text; };
                session.measure_kernel(work, session.copy_ceiling());
            }
        }
    });
}
