// Chapter 2 tests: tiled GEMM in shared memory.  Run them with `make chapter2 test`.
#include "tiled_gemm.h"
#include "tutorial_chapter.h"

#include "catch.h"
#include "expect.h"
#include "device_buffer.h"
#include "gemm/gemm_cases.h"
#include "gemm/gemm_reference.h"
#include "random.h"

#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using tutorial::GemmShape;

TEST_CASE("tiled_gemm_launch_config gives one tile x tile block per tile of C", CHAPTER_TAG "[graded]") {
    // Both tiles in one run: the first wrong one is reported (a launch wrong at one tile is
    // most often wrong at both, and would say so twice). Its message names the tile, in the
    // block it expects.
    for (const int tile : {16, 32}) {
        tutorial::check_launch_covers([tile](int M, int N) { return tiled_gemm_launch_config(M, N, tile); }, tile);
    }
}

TEST_CASE("tiled_gemm matches the CPU reference for every shape, at TILE 16 and 32", CHAPTER_TAG "[gpu][graded]") {
    // One report for all the shapes at both tiles: the first failing one in full, then a
    // line each, then what the failing shapes share.
    REQUIRE_SWEEP(tutorial::sweep_gemm_shapes("tiled_gemm", TUTORIAL_CHAPTER, {16, 32}, "tile", [](int tile) {
        return tutorial::GemmFunction([tile](const float* A, const float* B, float* C, int M, int N, int K) {
            tiled_gemm(A, B, C, M, N, K, tile);
        });
    }, tutorial::ThreadWork::one_element, true));
}

TEST_CASE("tiled_gemm uses TILE 16 when none is named", CHAPTER_TAG "[gpu][graded]") {
    REQUIRE(kDefaultTile == 16);
    const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) { tiled_gemm(A, B, C, M, N, K); };
    const GemmShape shape{33, 35, 37};
    tutorial::ShapeSweep sweep("tiled_gemm with no tile named", tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    sweep.run("M=33 N=35 K=37", {}, [&] { return tutorial::run_gemm_case(gemm, shape, kDefaultTile); },
              tutorial::gemm_ownership(shape, kDefaultTile, tutorial::ThreadWork::one_element, true));
    REQUIRE_SWEEP(sweep);
}

TEST_CASE("tiled_gemm rejects bad sizes, null pointers and tiles other than 16 and 32", CHAPTER_TAG) {
    const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) { tiled_gemm(A, B, C, M, N, K); };
    tutorial::check_gemm_rejects_bad_arguments(gemm, "tiled_gemm");
    float dummy = 0.0f;
    REQUIRE_THROWS_WITH(tiled_gemm(&dummy, &dummy, &dummy, 4, 4, 4, 8),
                        "tiled_gemm: argument tile must be 16 or 32, got 8");
}

TEST_CASE("tiled_gemm reports a failed launch as a CudaError naming the kernel", CHAPTER_TAG "[gpu]") {
    const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) { tiled_gemm(A, B, C, M, N, K); };
    tutorial::check_too_many_block_rows_is_a_cuda_error(gemm, kDefaultTile, "tiled_gemm_kernel", "tiled_gemm.cu");
}

// ---- 2c: matrix_view_gemm, the Programming Guide's version on strided views ----------------

namespace {

// A view of `height` x `width` elements whose top-left corner is at (top, left) of a larger
// row-major parent matrix; the parent's column count is the view's stride. The margins are
// odd and different for A, B and C, so a kernel that uses the width as the stride, ignores
// the offset or swaps rows and columns reads or writes the wrong elements.
struct PlacedView {
    int height, width;
    int top, left;
    int parent_rows, parent_cols;

    std::size_t parent_size() const { return static_cast<std::size_t>(parent_rows) * parent_cols; }
    std::size_t index(int row, int col) const {
        return static_cast<std::size_t>(top + row) * parent_cols + (left + col);
    }
    bool contains(std::size_t parent_index) const {
        const long long row = static_cast<long long>(parent_index / parent_cols) - top;
        const long long col = static_cast<long long>(parent_index % parent_cols) - left;
        return row >= 0 && row < height && col >= 0 && col < width;
    }
    Matrix on(float* parent) const { return Matrix{width, height, parent_cols, parent + index(0, 0)}; }
    // The view's elements, copied out of the parent into a dense row-major matrix.
    std::vector<float> dense(const std::vector<float>& parent) const {
        std::vector<float> out(static_cast<std::size_t>(height) * width);
        for (int r = 0; r < height; ++r) {
            for (int c = 0; c < width; ++c) {
                out[static_cast<std::size_t>(r) * width + c] = parent[index(r, c)];
            }
        }
        return out;
    }
};

PlacedView place(int height, int width, int top, int left, int right_margin, int bottom_margin) {
    return PlacedView{height, width, top, left, top + height + bottom_margin, left + width + right_margin};
}

// Sentences about what a kernel wrote outside the view C, or "" when it wrote nothing there.
std::string writes_outside(const PlacedView& view, const std::vector<float>& before, const std::vector<float>& after) {
    std::size_t changed = 0, first = 0;
    for (std::size_t i = 0; i < before.size(); ++i) {
        if (!view.contains(i) && std::memcmp(&before[i], &after[i], sizeof(float)) != 0) {
            if (changed++ == 0) first = i;
        }
    }
    if (changed == 0) return "";
    std::ostringstream text;
    text << "matrix_view_gemm changed " << changed << " element(s) of the larger matrix outside the view C.\n"
         << "C is rows " << view.top << ".." << view.top + view.height - 1 << ", columns " << view.left << ".."
         << view.left + view.width - 1 << " of a " << view.parent_rows << " x " << view.parent_cols
         << " matrix (stride " << view.parent_cols << "). The first changed element is at row "
         << first / view.parent_cols << ", column " << first % view.parent_cols << ": it was " << before[first]
         << ", now " << after[first] << ".\nA kernel may write only the elements of its view: check the stride "
         << "(not the width) between rows, and the bounds against the clipped sub-matrix.";
    return text.str();
}

}  // namespace

TEST_CASE("matrix_view_gemm_launch_config gives one 16 x 16 block per sub-matrix of C", CHAPTER_TAG "[graded]") {
    float dummy = 0.0f;
    tutorial::check_launch_covers(
        [&dummy](int M, int N) { return matrix_view_gemm_launch_config(Matrix{N, M, N + 3, &dummy}); },
        kMatrixViewBlock);
}

TEST_CASE("matrix_view_gemm multiplies views at odd offsets inside larger matrices, touching nothing else",
          CHAPTER_TAG "[gpu][graded]") {
    // One report for all the shapes: the first failing one in full, then a line each.
    tutorial::ShapeSweep sweep("matrix_view_gemm on views", tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    for (const GemmShape& shape : tutorial::gemm_test_shapes(kMatrixViewBlock)) {
        const auto [M, N, K] = shape;
        std::ostringstream label;
        label << shape;
        const std::vector<tutorial::ShapeParameter> parameters{{"M", M, kMatrixViewBlock, "TILE", "block"},
                                                               {"N", N, kMatrixViewBlock, "TILE", "block"},
                                                               {"K", K, kMatrixViewBlock, "TILE", "block"}};
        sweep.run(label.str(), parameters, [M = M, N = N, K = K] {
            const PlacedView a = place(M, K, 1, 3, 2, 2);
            const PlacedView b = place(K, N, 2, 1, 3, 1);
            const PlacedView c = place(M, N, 3, 5, 1, 2);

            const std::uint64_t seed = tutorial::derive_seed(tutorial::run_seed(), {M, N, K, 2});
            const std::vector<float> A = tutorial::random_floats(a.parent_size(), seed);
            const std::vector<float> B = tutorial::random_floats(b.parent_size(), seed + 1);
            // C's neighbours hold random values the kernel must leave alone; C itself is
            // poisoned with NaN, so an element the kernel never writes cannot pass.
            std::vector<float> C_before = tutorial::random_floats(c.parent_size(), seed + 2);
            for (int r = 0; r < M; ++r) {
                for (int col = 0; col < N; ++col) {
                    C_before[c.index(r, col)] = std::numeric_limits<float>::quiet_NaN();
                }
            }

            tutorial::DeviceBuffer<float> dA(A), dB(B), dC(C_before);
            matrix_view_gemm(a.on(dA.data()), b.on(dB.data()), c.on(dC.data()));
            const std::vector<float> C_after = dC.download();

            const std::string outside = writes_outside(c, C_before, C_after);
            if (!outside.empty()) throw std::runtime_error(outside);

            tutorial::OutputLayout layout;
            layout.name = "C (the view)";
            layout.rows = M;
            layout.cols = N;
            layout.tile_rows = kMatrixViewBlock;
            layout.tile_cols = kMatrixViewBlock;
            layout.seed = tutorial::run_seed();
            return tutorial::compare_with_tolerance(c.dense(C_after),
                                                    tutorial::gemm_reference(a.dense(A), b.dense(B), M, N, K), layout);
        });
    }
    REQUIRE_SWEEP(sweep);
}

TEST_CASE("matrix_view_gemm multiplies whole matrices (stride == width)", CHAPTER_TAG "[gpu][graded]") {
    const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) {
        matrix_view_gemm(Matrix{K, M, K, const_cast<float*>(A)}, Matrix{N, K, N, const_cast<float*>(B)},
                         Matrix{N, M, N, C});
    };
    // One report for the three shapes, as for every sweep: the first failing one in full.
    tutorial::ShapeSweep sweep("matrix_view_gemm on whole matrices", tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    for (const GemmShape& shape : {GemmShape{1, 1, 1}, GemmShape{33, 35, 37}, GemmShape{16, 16, 16}}) {
        std::ostringstream label;
        label << shape;
        sweep.run(label.str(),
                  {{"M", shape.M, kMatrixViewBlock, "", "block"}, {"N", shape.N, kMatrixViewBlock, "", "block"},
                   {"K", shape.K, kMatrixViewBlock, "", "block"}},
                  [&] { return tutorial::run_gemm_case(gemm, shape, kMatrixViewBlock); });
    }
    REQUIRE_SWEEP(sweep);
}

TEST_CASE("matrix_view_gemm rejects views that are empty, null, narrower than their stride or do not fit",
          CHAPTER_TAG) {
    // No GPU memory is needed: the checks must refuse before any kernel could run.
    float dummy = 0.0f;
    const Matrix A{4, 3, 4, &dummy}, B{5, 4, 6, &dummy}, C{5, 3, 5, &dummy};
    const auto refuses = [](Matrix a, Matrix b, Matrix c) { matrix_view_gemm(a, b, c); };
    SECTION("null elements") {
        REQUIRE_THROWS_WITH(refuses(Matrix{4, 3, 4, nullptr}, B, C),
                            "matrix_view_gemm: argument A.elements is a null pointer");
        REQUIRE_THROWS_WITH(refuses(A, B, Matrix{5, 3, 5, nullptr}),
                            "matrix_view_gemm: argument C.elements is a null pointer");
    }
    SECTION("sizes below 1") {
        REQUIRE_THROWS_WITH(refuses(A, Matrix{0, 4, 6, &dummy}, C),
                            "matrix_view_gemm: argument B.width must be at least 1, got 0");
        REQUIRE_THROWS_WITH(refuses(Matrix{4, -2, 4, &dummy}, B, C),
                            "matrix_view_gemm: argument A.height must be at least 1, got -2");
    }
    SECTION("a stride below the width") {
        REQUIRE_THROWS_WITH(refuses(A, B, Matrix{5, 3, 4, &dummy}),
                            "matrix_view_gemm: argument C.stride must be at least its width (5), got 4");
    }
    SECTION("sizes that do not fit together") {
        REQUIRE_THROWS_WITH(refuses(A, Matrix{5, 3, 6, &dummy}, C),
                            "matrix_view_gemm: argument B.height (3) must equal A.width (4)");
        REQUIRE_THROWS_WITH(refuses(A, B, Matrix{5, 2, 5, &dummy}),
                            "matrix_view_gemm: argument C.height (2) must equal A.height (3)");
        REQUIRE_THROWS_WITH(refuses(A, B, Matrix{6, 3, 6, &dummy}),
                            "matrix_view_gemm: argument C.width (6) must equal B.width (5)");
    }
    SECTION("the exception type is std::invalid_argument") {
        REQUIRE_THROWS_AS(refuses(A, B, Matrix{5, 3, 4, &dummy}), std::invalid_argument);
    }
}

TEST_CASE("matrix_view_gemm reports a failed launch as a CudaError naming the kernel", CHAPTER_TAG "[gpu]") {
    const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) {
        matrix_view_gemm(Matrix{K, M, K, const_cast<float*>(A)}, Matrix{N, K, N, const_cast<float*>(B)},
                         Matrix{N, M, N, C});
    };
    tutorial::check_too_many_block_rows_is_a_cuda_error(gemm, kMatrixViewBlock, "matrix_view_gemm_kernel",
                                                        "tiled_gemm.cu");
}
