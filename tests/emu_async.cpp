// The CPU backend's own tests of asynchronous copies, pipelines and the Tensor Memory
// Accelerator (`make test-emu`; tests/emu.cpp says how these tests are built).
#include "emu_support.h"

using namespace emu_tests;

// ---- Asynchronous copies ---------------------------------------------------------------------
namespace {

const std::string kPipelines = "tests/emu_planted/async_pipelines.cu";
const std::string kTma = "tests/emu_planted/async_tma.cu";

// The message of a pipelined GEMM with @p bug, on a shape of 5 tiles of K.
std::string pipeline_error(planted::PipelineApi api, int stages, planted::PipelineBug bug, cudaError_t code) {
    Schedules order("forward,reverse");
    return error_text([&] { tutorial::run_gemm_case(pipelined(api, stages, bug), {20, 24, 70}, 16); }, code);
}

// A tensor map of a rows × cols matrix of seeded random floats (rows pitch floats apart,
// the padding poisoned), and the boxes tma_tiles() copies from it, checked exactly:
// elements inside the matrix are its values, those outside are zeros (or NaN).
void check_tma_tiles(int rows, int cols, bool nan_fill) {
    const int pitch = (cols + 3) / 4 * 4;
    std::vector<float> matrix(static_cast<std::size_t>(rows) * pitch, std::nanf(""));
    const auto values = tutorial::random_floats(matrix.size(), tutorial::derive_seed(tutorial::run_seed(), {rows, cols}));
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) matrix[std::size_t(r) * pitch + c] = values[std::size_t(r) * pitch + c];
    }
    DeviceBuffer<float> in(matrix);
    CUtensorMap map;
    REQUIRE(planted::make_tile_map(&map, in.data(), rows, cols, pitch, nan_fill) == cudaSuccess);
    const int across = (cols + planted::kTmaBoxCols - 1) / planted::kTmaBoxCols;
    const int down = (rows + planted::kTmaBoxRows - 1) / planted::kTmaBoxRows;
    const int box = planted::kTmaBoxRows * planted::kTmaBoxCols;
    DeviceBuffer<float> out(static_cast<std::size_t>(across) * down * box);
    out.poison();
    planted::tma_tiles(map, out.data(), rows, cols, planted::TmaBug::none);
    const std::vector<float> got = out.download();
    int wrong = 0;
    for (int by = 0; by < down; ++by) {
        for (int bx = 0; bx < across; ++bx) {
            for (int i = 0; i < box; ++i) {
                const int r = by * planted::kTmaBoxRows + i / planted::kTmaBoxCols;
                const int c = bx * planted::kTmaBoxCols + i % planted::kTmaBoxCols;
                const float value = got[(std::size_t(by) * across + bx) * box + i];
                const bool inside = r < rows && c < cols;
                const bool right = inside ? value == matrix[std::size_t(r) * pitch + c]
                                          : (nan_fill ? std::isnan(value) : value == 0.0f && !std::signbit(value));
                if (!right && wrong++ < 5) {
                    UNSCOPED_INFO("box (" << by << "," << bx << ") element (" << r << "," << c << "): " << value
                                          << (inside ? ", expected the matrix's value" : ", expected the fill"));
                }
            }
        }
    }
    CHECK(wrong == 0);
}

std::string tma_error(planted::TmaBug bug, cudaError_t code) {
    const int rows = 20, cols = 40, pitch = 40;
    DeviceBuffer<float> in(tutorial::random_floats(rows * pitch, 7));
    CUtensorMap map;
    REQUIRE(planted::make_tile_map(&map, in.data(), rows, cols, pitch) == cudaSuccess);
    DeviceBuffer<float> out(6 * planted::kTmaBoxRows * planted::kTmaBoxCols);
    return error_text([&] { planted::tma_tiles(map, out.data(), rows, cols, bug); }, code);
}

std::string rule_error(planted::CopyRuleBug bug, cudaError_t code) {
    DeviceBuffer<float> in(tutorial::random_floats(16, 3)), out(16);
    return error_text([&] { planted::copy_rules(in.data(), out.data(), 16, bug); }, code);
}

}  // namespace

TEST_CASE("tiled GEMMs pipelined with asynchronous copies give the reference result in every thread order", "[emu][async]") {
    const std::string schedules = GENERATE("forward,reverse", "reverse,random:1,random:2");
    const planted::PipelineApi api = GENERATE(planted::PipelineApi::primitives, planted::PipelineApi::pipeline);
    const int stages = GENERATE(2, 3);
    const tutorial::GemmShape shape = GENERATE(tutorial::GemmShape{1, 1, 1}, tutorial::GemmShape{17, 15, 33},
                                               tutorial::GemmShape{40, 33, 70}, tutorial::GemmShape{3, 50, 16});
    INFO("schedules " << schedules << ", " << (api == planted::PipelineApi::primitives ? "primitives" : "cuda::pipeline")
                      << ", " << stages << " stages, shape " << shape);
    Schedules order(schedules);
    REQUIRE_MATCH(tutorial::run_gemm_case(pipelined(api, stages, planted::PipelineBug::none), shape, 16));
}

TEST_CASE("a block's group memcpy_async through a block-scope pipeline lands whole at consumer_wait()", "[emu][async]") {
    const std::string schedules = GENERATE("forward,reverse", "random:4");
    const int stages = GENERATE(2, 3);
    const int chunks = GENERATE(1, 2, 5);
    INFO("schedules " << schedules << ", " << stages << " stages, " << chunks << " chunks");
    Schedules order(schedules);
    const auto input = tutorial::random_floats(std::size_t(chunks) * 256, tutorial::derive_seed(tutorial::run_seed(), {chunks}));
    DeviceBuffer<float> in(input), out(input.size());
    out.poison();
    planted::group_copies(in.data(), out.data(), chunks, stages);
    const auto got = out.download();
    for (int c = 0; c < chunks; ++c) {
        for (int i = 0; i < 256; ++i) REQUIRE(got[c * 256 + i] == 2.0f * input[c * 256 + (i + 5) % 256]);
    }
}

TEST_CASE("a read of a stage before its wait names the read's and the copy's lines", "[emu][async]") {
    const int stages = GENERATE(2, 3);
    check_says(
        pipeline_error(planted::PipelineApi::primitives, stages, planted::PipelineBug::no_wait, cudaErrorLaunchFailure),
        {"shared memory read " + site_of(kPipelines, "sum += a_tiles[s]") + " before the asynchronous copy issued " +
             site_of(kPipelines, "__pipeline_memcpy_async(&a_stage") + " was waited for",
         "primitives_gemm_planted<", "block (0,0,0), thread (0,0,0)",
         // Where the waits are right, the stage read may be the wrong one: both are named.
         "Wait for the copy before using its bytes", "a stage other than the one waited for"});
}

TEST_CASE("a read of a cuda::pipeline stage other than the one waited for is reported at every stage count", "[emu][async]") {
    // Its copies were committed by every thread, so on the CPU backend they have landed;
    // on a GPU they may land at any time until this thread's wait for them returns.
    const int stages = GENERATE(2, 3);
    check_says(
        pipeline_error(planted::PipelineApi::pipeline, stages, planted::PipelineBug::stage_ahead, cudaErrorLaunchFailure),
        {"shared memory read " + site_of(kPipelines, "sum += b_tiles[s]") +
             " before this thread waited for the asynchronous copy issued " + site_of(kPipelines, "cuda::memcpy_async(&b_tiles[s]"),
         "which this thread has not waited for", "a stage index that is not the one waited for"});
}

TEST_CASE("a read before the wait in a helper that takes the tile by reference names the helper's line", "[emu][async]") {
    const std::string text = pipeline_error(planted::PipelineApi::primitives, 2, planted::PipelineBug::no_wait_read_in_helper,
                                            cudaErrorLaunchFailure);
    check_says(text, {"shared memory read " + site_of(kPipelines, "sum += a_stage[threadIdx.y][k]") +
                      " before the asynchronous copy issued " + site_of(kPipelines, "__pipeline_memcpy_async(&a_stage") +
                      " was waited for"});
    CHECK_FALSE(tutorial::contains_phrase(text, "a line the CPU backend was not told"));
}

TEST_CASE("a read of another thread's copy without __syncthreads() after the wait is reported", "[emu][async]") {
    check_says(pipeline_error(planted::PipelineApi::primitives, 2, planted::PipelineBug::no_sync_after_wait,
                              cudaErrorLaunchFailure),
               {"shared memory read " + site_of(kPipelines, "sum += a_tiles[s]") + " before the asynchronous copy",
                "issued by thread (", "__syncthreads() after the wait"});
}

TEST_CASE("a stage refilled before every thread is done with it is reported, primitives and cuda::pipeline", "[emu][async]") {
    SECTION("primitives: no __syncthreads() before the refill") {
        check_says(pipeline_error(planted::PipelineApi::primitives, 2, planted::PipelineBug::no_sync_before_refill,
                                  cudaErrorLaunchFailure),
                   {"shared memory read " + site_of(kPipelines, "sum += a_tiles[s]"),
                    "a stage refilled before every consumer released it"});
    }
    SECTION("cuda::pipeline: consumer_release() before the stage's last read") {
        const int stages = GENERATE(2, 3);
        check_says(pipeline_error(planted::PipelineApi::pipeline, stages, planted::PipelineBug::release_before_use,
                                  cudaErrorLaunchFailure),
                   {"shared memory read " + site_of(kPipelines, "sum += b_tiles[s]"),
                    "a stage refilled before every consumer released it"});
    }
    SECTION("cuda::pipeline: never released, so producer_acquire() waits forever") {
        check_says(
            pipeline_error(planted::PipelineApi::pipeline, 2, planted::PipelineBug::no_release, cudaErrorLaunchFailure),
            {"a pipeline stage refilled before every consumer released it (a hang on a GPU)",
             "at producer_acquire() " + site_of(kPipelines, "pipe.producer_acquire()"), "consumer_release()"});
    }
    SECTION("cuda::pipeline: a copy without producer_acquire()") {
        check_says(
            pipeline_error(planted::PipelineApi::pipeline, 2, planted::PipelineBug::no_acquire, cudaErrorLaunchFailure),
            {"a pipeline stage refilled before every consumer released it",
             site_of(kPipelines, "cuda::memcpy_async(&a_tiles[s]").substr(3), "without producer_acquire()"});
    }
}

TEST_CASE("a wait for more stages than were committed is reported at the wait", "[emu][async]") {
    SECTION("__pipeline_wait_prior(STAGES) with STAGES groups in flight") {
        const int stages = GENERATE(2, 3);
        check_says(pipeline_error(planted::PipelineApi::primitives, stages, planted::PipelineBug::wait_off_by_one,
                                  cudaErrorLaunchFailure),
                   {"a wait for more stages than were committed",
                    "__pipeline_wait_prior() " + site_of(kPipelines, "__pipeline_wait_prior(STAGES);"),
                    "waits for none of them"});
    }
    SECTION("one consumer_wait() too many on a block-scope cuda::pipeline") {
        check_says(pipeline_error(planted::PipelineApi::pipeline, 3, planted::PipelineBug::extra_consumer_wait,
                                  cudaErrorLaunchFailure),
                   {"a wait for more stages than were committed",
                    "consumer_wait() " + site_of(kPipelines, "pipe.consumer_wait();  // planted")});
    }
}

TEST_CASE("a TMA tile copy fills the box, zeros or NaN past the matrix's edges", "[emu][async]") {
    const std::string schedules = GENERATE("forward,reverse", "random:3");
    Schedules order(schedules);
    check_tma_tiles(37, 45, false);
    check_tma_tiles(8, 32, false);
    check_tma_tiles(1, 1, false);
    check_tma_tiles(17, 70, true);
}

TEST_CASE("TMA and barrier mistakes are reported with their lines", "[emu][async]") {
    SECTION("the tile read before the barrier's wait") {
        check_says(
            tma_error(planted::TmaBug::no_wait, cudaErrorLaunchFailure),
            {"shared memory read " + site_of(kTma, "= tile[i / kTmaBoxCols]") +
             " before the asynchronous copy issued " + site_of(kTma, "cp_async_bulk_tensor_2d_global_to_shared(")});
    }
    SECTION("16 bytes more expected than the box holds") {
        check_says(tma_error(planted::TmaBug::too_many_bytes_expected, cudaErrorLaunchFailure),
                   {"expected transaction bytes that never arrive (a hang on a GPU)", "1040 bytes are expected",
                    "delivered 1024", site_of(kTma, "bar.wait(std::move(token))").substr(3)});
    }
    SECTION("16 bytes fewer expected than the box holds") {
        check_says(tma_error(planted::TmaBug::too_few_bytes_expected, cudaErrorLaunchFailure),
                   {"more transaction bytes than expected (a hang on a GPU)", "delivered 1024 bytes",
                    "only 1008 were expected"});
    }
    SECTION("a destination off its 128-byte alignment") {
        check_says(tma_error(planted::TmaBug::unaligned_destination, cudaErrorMisalignedAddress),
                   {"misaligned asynchronous copy", "128-byte aligned",
                    site_of(kTma, "cp_async_bulk_tensor_2d_global_to_shared(").substr(3)});
    }
    SECTION("init() by every thread") {
        check_says(tma_error(planted::TmaBug::init_by_every_thread, cudaErrorLaunchFailure),
                   {"cuda::barrier initialised by two threads", site_of(kTma, "init(&bar, blockDim.x)").substr(3)});
    }
    SECTION("no __syncthreads() between init() and the barrier's use") {
        check_says(tma_error(planted::TmaBug::no_sync_after_init, cudaErrorLaunchFailure),
                   {"cuda::barrier used before init() was made visible",
                    "initialised " + site_of(kTma, "init(&bar, blockDim.x)")});
    }
}

TEST_CASE("copies that break the rules of cp.async and bulk copies are refused, naming the rule", "[emu][async]") {
    SECTION("correct copies pass") {
        for (planted::CopyRuleBug none : {planted::CopyRuleBug::none, planted::CopyRuleBug::none_bulk}) {
            const auto input = tutorial::random_floats(16, 11);
            DeviceBuffer<float> in(input), out(16);
            out.poison();
            planted::copy_rules(in.data(), out.data(), 16, none);
            const auto got = out.download();
            for (int i = 0; i < 16; ++i) CHECK(got[i] == 2.0f * input[i]);
        }
    }
    SECTION("a cp.async of 12 bytes") {
        check_says(rule_error(planted::CopyRuleBug::size_12, cudaErrorMisalignedAddress),
                   {"a cp.async copies 4, 8 or 16 bytes, not 12",
                    site_of(kTma, "__pipeline_memcpy_async(&staged[4 * i], &in[i], 12)").substr(3)});
    }
    SECTION("a 16-byte cp.async off its alignment") {
        check_says(rule_error(planted::CopyRuleBug::misaligned_16, cudaErrorMisalignedAddress),
                   {"is not aligned to 16 bytes"});
    }
    SECTION("a source past the end of its buffer") {
        check_says(rule_error(planted::CopyRuleBug::source_past_end, cudaErrorIllegalAddress),
                   {"out-of-bounds global memory access", site_of(kTma, "in + 4 * i, 16"),
                    "reads 16 bytes from byte offset 64 of a cudaMalloc buffer of 64 bytes"});
    }
    SECTION("a bulk copy of 20 bytes") {
        check_says(rule_error(planted::CopyRuleBug::bulk_size_not_multiple_of_16, cudaErrorMisalignedAddress),
                   {"a bulk copy's size must be a multiple of 16 bytes, not 20"});
    }
}

TEST_CASE("cuTensorMapEncodeTiled refuses what the driver refuses", "[emu][async]") {
    DeviceBuffer<float> matrix(64 * 64);
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found;
    REQUIRE(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found) ==
            cudaSuccess);
    REQUIRE(found == cudaDriverEntryPointSuccess);
    const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
    CUtensorMap map;
    auto try_encode = [&](const float* address, cuuint64_t stride, cuuint32_t box_cols, cuuint32_t box_rows,
                          cuuint32_t rank = 2) {
        const cuuint64_t dims[2] = {64, 64};
        const cuuint64_t strides[1] = {stride};
        const cuuint32_t box[2] = {box_cols, box_rows};
        const cuuint32_t element_strides[2] = {1, 1};
        return encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, rank, const_cast<float*>(address), dims, strides, box,
                      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    };
    CHECK(try_encode(matrix.data(), 256, 32, 8) == CUDA_SUCCESS);
    CHECK(try_encode(matrix.data() + 1, 256, 32, 8) == CUDA_ERROR_INVALID_VALUE);  // address not 16-byte aligned
    CHECK(try_encode(matrix.data(), 260, 32, 8) == CUDA_ERROR_INVALID_VALUE);      // stride not a multiple of 16
    CHECK(try_encode(matrix.data(), 256, 2, 8) == CUDA_ERROR_INVALID_VALUE);       // inner box of 8 bytes
    CHECK(try_encode(matrix.data(), 256, 32, 257) == CUDA_ERROR_INVALID_VALUE);    // box past 256
    CHECK(try_encode(matrix.data(), 256, 32, 0) == CUDA_ERROR_INVALID_VALUE);      // empty box
    CHECK(try_encode(matrix.data(), 256, 32, 8, 6) == CUDA_ERROR_INVALID_VALUE);   // rank past 5
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 11080, cudaEnableDefault, &found) ==
          cudaSuccess);
    CHECK(found == cudaDriverEntryPointVersionNotSufficent);
    CHECK(function == nullptr);
}
