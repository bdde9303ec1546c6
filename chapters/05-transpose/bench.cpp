// Chapter 5 benchmark: the transpose of an 8192 x 8192 float matrix, and of an awkward
// 8191 x 8193 one, naive against the shared tile and the padded tile.
//
// `make chapter5 bench` times your kernels; `make chapter5 bench SOLUTIONS=1` the
// references. It times cuBLAS's transpose (cublasSgeam, the library a user would call),
// transpose_naive (the baseline), transpose_shared, transpose_padded and transpose_wide (5d,
// going further), and checks every element against the CPU after timing. Its last row, "wide
// 64, copy only", moves 5d's bytes through 5d's tiles without transposing them
// (bench/transpose_copy.cu): the gap from it to 5d is what the reordering costs.
//
// The rate is effective bandwidth: the matrix read once and written once, over the
// time. Its ceiling is the device-to-device copy the session measures first: a
// transpose moves exactly the bytes of a copy, only to other places, so the share of
// the copy's rate is how much the reordering costs.
#include "transpose.h"
#include "tutorial_chapter.h"

#include "bench/cublas_transpose.h"
#include "bench/transpose_copy.h"
#include "benchmark/session.h"
#include "compare.h"
#include "device_buffer.h"
#include "random.h"
#include "transpose_reference.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace {

using TransposeFunction = std::function<void(const float* input, float* output, int rows, int cols)>;

// One row of the table: what runs, and whether it is the baseline or the library.
struct Variant {
    const char* name;
    TransposeFunction transpose;
    bool is_baseline = false;
    bool is_library = false;
};

}  // namespace

int main(int argc, char* argv[]) {
    using namespace tutorial;
    return benchmark::run(argc, argv, [](benchmark::Session& session) {
        // A square whose sides are multiples of the tile, and one whose sides are multiples of
        // nothing, with partial tiles along two edges: it should come within a few
        // percent of the square.
        const std::pair<int, int> shapes[] = {{8192, 8192}, {8191, 8193}};
        benchmark::CublasTranspose cublas_transpose;
        for (const auto& [rows, cols] : shapes) {
            const std::size_t elements = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
            const std::vector<float> matrix = random_floats(elements, derive_seed(run_seed(), {rows, cols}));
            const ExpectedOutput expected = transpose_reference(matrix, rows, cols);
            DeviceBuffer<float> input(matrix), output(elements);
            const std::string problem = std::to_string(rows) + " x " + std::to_string(cols);
            const Variant variants[] = {
                {"cuBLAS cublasSgeam", std::ref(cublas_transpose), false, true},
                {"naive", transpose_naive, true},
                {"shared", transpose_shared},
                {"padded", transpose_padded},
                {"wide 64 (" STEP("d") ")", transpose_wide},  // the chapter's optional step (going further)
            };
            for (const Variant& variant : variants) {
                benchmark::WorkToTime work;
                work.problem = problem;
                work.variant = variant.name;
                work.unit = "GB/s";
                work.work = 2.0 * sizeof(float) * static_cast<double>(elements);  // read once, written once
                work.bytes_written = sizeof(float) * static_cast<double>(elements);
                work.is_baseline = variant.is_baseline;
                work.prepare = [&] { output.poison(); };  // NaN: an element never written fails the check
                work.run = [&, rows = rows, cols = cols] { variant.transpose(input.data(), output.data(), rows, cols); };
                work.check = [&, rows = rows, cols = cols] {
                    return compare_transpose_output(output.download(), expected, rows, cols, kTransposeTile).text;
                };
                if (variant.is_library) {
                    session.measure_library(work, session.copy_ceiling());
                } else {
                    session.measure_kernel(work, session.copy_ceiling());
                }
            }
            {
                // 5d's data movement alone: its output is its input, every element checked exactly.
                ExpectedOutput same;
                same.value.assign(matrix.begin(), matrix.end());
                same.tolerance.assign(elements, 0.0);
                OutputLayout layout;
                layout.name = "output (a copy of the input)";
                layout.rows = rows;
                layout.cols = cols;
                layout.tile_rows = layout.tile_cols = kTransposeWideTile;
                layout.seed = run_seed();
                benchmark::WorkToTime work;
                work.problem = problem;
                work.variant = "wide 64, copy only (no transposition)";
                work.unit = "GB/s";
                work.work = 2.0 * sizeof(float) * static_cast<double>(elements);
                work.bytes_written = sizeof(float) * static_cast<double>(elements);
                work.prepare = [&] { output.poison(); };
                work.run = [&, rows = rows, cols = cols] { transpose_copy(input.data(), output.data(), rows, cols); };
                work.check = [&] { return compare_with_tolerance(output.download(), same, layout).text; };
                session.measure_kernel(work, session.copy_ceiling());
            }
        }
    });
}
