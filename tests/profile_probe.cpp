// The profiler's probe: the small kernels of tests/profile_kernels/, each launched once,
// for `make profile-probe`. On the CPU it prints what the profiler predicts for each; on
// a GPU (BACKEND=cuda) what Nsight Compute measures beside it. The unit tests
// (tests/profile.cpp) hold the predictions to hand-worked counts; this program holds the
// model itself to the hardware, one access pattern at a time.
#include "profile_kernels/traffic_kernels.h"

#include "device_buffer.h"
#include "profile/profile.h"
#include "random.h"

#include <cstdint>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    using namespace traffic_kernels;
    constexpr int kElements = 8192;
    const tutorial::DeviceBuffer<float> in(tutorial::random_floats(2 * kElements + 64, 3));
    tutorial::DeviceBuffer<float> out(2 * kElements);
    const tutorial::DeviceBuffer<unsigned char> bytes(std::vector<unsigned char>(kElements, 7));
    tutorial::DeviceBuffer<unsigned char> bytes_out(kElements);
    const tutorial::DeviceBuffer<Float4> quads(std::vector<Float4>(kElements / 4, Float4{1, 2, 3, 4}));
    tutorial::DeviceBuffer<Float4> quads_out(kElements / 4);

    tutorial::profile::Chapter probe{0, "profiler-probe", "small purpose-written kernels (tests/profile_kernels/)", {}};
    const auto add = [&](const std::string& name, const std::string& kernel, std::function<void()> run) {
        probe.variants.push_back({name, kernel, 0.0, std::move(run)});
    };
    add("coalesced float loads", "gather_float_kernel", [&] { gather_float(in.data(), out.data(), kElements, 1, 0); });
    add("float loads misaligned by one float", "gather_float_kernel", [&] { gather_float(in.data(), out.data(), kElements, 1, 1); });
    add("float loads, stride 2", "gather_float_kernel", [&] { gather_float(in.data(), out.data(), kElements, 2, 0); });
    add("1-byte elements", "copy_bytes_kernel", [&] { copy_bytes(bytes.data(), bytes_out.data(), kElements); });
    add("16-byte elements (a float4-sized struct)", "copy_float4_kernel",
        [&] { copy_float4(quads.data(), quads_out.data(), kElements / 4); });
    add("every lane loads one word", "broadcast_float_kernel", [&] { broadcast_float(in.data(), out.data(), kElements); });
    add("float4 through reinterpret_cast of &in[4 i]", "copy_cast_float4_kernel",
        [&] { copy_cast_float4(in.data(), out.data(), kElements / 4); });
    add("float4 through const float4* variables (not counted on the CPU)", "copy_raw_float4_kernel",
        [&] { copy_raw_float4(in.data(), out.data(), kElements / 4); });
    add("float4 through casts of shared arrays, an element's address and a parameter", "cast_forms_kernel",
        [&] { cast_forms(in.data(), out.data()); });
    const char* scalar_names[] = {"shared words: consecutive", "shared words: stride 2", "shared words: stride 32",
                                  "shared words: one word"};
    for (int pattern = 0; pattern < 4; ++pattern) {
        add(scalar_names[pattern], "shared_words_kernel",
            [&, pattern] { shared_words(out.data(), static_cast<SharedPattern>(pattern)); });
    }
    const char* vector_names[] = {"consecutive", "all lanes one vector", "two halves, 64 bytes apart", "lanes 16-31 repeat 0-15",
                                  "eights, four vectors in the same banks", "every other vector",
                                  "even and odd lanes in two rows"};
    for (int floats : {2, 4}) {
        for (int pattern = 0; pattern < 7; ++pattern) {
            add(std::string(floats == 2 ? "float2" : "float4") + " shared loads: " + vector_names[pattern],
                std::string("shared_vectors_kernel<") + (floats == 2 ? "float2>" : "float4>"),
                [&, floats, pattern] { shared_vectors(out.data(), floats, static_cast<VectorPattern>(pattern)); });
        }
    }
    add("32 x 32 tile, columns read", "transpose_tile_kernel<0>", [&] { transpose_tile(in.data(), out.data(), 0); });
    add("32 x 33 tile, columns read", "transpose_tile_kernel<1>", [&] { transpose_tile(in.data(), out.data(), 1); });
    add("chapter 2's inner loop, unrolled", "row_times_column_kernel", [&] { row_times_column(out.data()); });
    // ldmatrix (chapter 10): one x4 from 128-byte rows, row-major (8-way conflicts) and swizzled.
    tutorial::DeviceBuffer<std::uint32_t> fragments(32 * 4);
    add("ldmatrix.x4 from 128-byte rows, row-major", "ldmatrix_tile_kernel<false>",
        [&] { ldmatrix_tile(fragments.data(), false); });
    add("ldmatrix.x4 from 128-byte rows, swizzled", "ldmatrix_tile_kernel<true>",
        [&] { ldmatrix_tile(fragments.data(), true); });
    // Shared stores of data arriving from global memory, through L1 and around it: on the
    // GPU, ncu counts stores that wait for the L1's data banks as bank conflicts.
    add("global to shared, 8 stores per thread", "stage_tile_kernel<false>",
        [&] { stage_tile(in.data(), out.data(), 8, false); });
    add("global to shared, loads cached in L2 only (__ldcg)", "stage_tile_kernel<true>",
        [&] { stage_tile(in.data(), out.data(), 8, true); });
    // The same tile filled by cp.async (chapter 8): ncu counts the copies' global side
    // among the global loads and as LDGSTS requests and sectors, and their shared writes
    // not as shared stores.
    add("global to shared by cp.async, 4-byte copies", "stage_tile_async_kernel<4>",
        [&] { stage_tile_async(in.data(), out.data(), 8, 4); });
    add("global to shared by cp.async, 16-byte copies", "stage_tile_async_kernel<16>",
        [&] { stage_tile_async(in.data(), out.data(), 8, 16); });
    // Atomics on shared memory: one instruction per warp and call (smsp__inst_executed_op_shared_atom.sum);
    // in a cluster, atomics on the other block's shared memory counted apart (sm_90).
    const std::vector<std::uint8_t> random = tutorial::random_bytes(3 * 8 * 256, 5);
    const tutorial::DeviceBuffer<unsigned> values(std::vector<unsigned>(random.begin(), random.end()));
    tutorial::DeviceBuffer<unsigned> counts(8 * 256);
    add("shared atomics, 3 per thread, 32 bins", "shared_atomics_kernel",
        [&] { shared_atomics(values.data(), counts.data(), 8, 256); });
    add("clusters of 2: an atomic on each block's own and its pair's shared memory", "remote_atomics_kernel",
        [&] { remote_atomics(values.data(), counts.data(), 8, 256); });
    add("clusters of 2: one call site reaching both blocks, twice", "mixed_rank_atomics_kernel",
        [&] { mixed_rank_atomics(values.data(), counts.data(), 8, 256); });
    add("clusters of 2: a load from the pair's shared memory", "remote_loads_kernel",
        [&] { remote_loads(values.data(), counts.data(), 8, 256); });
    // Atomics on global memory: one request per warp and call, ATOM and RED pipes together
    // (l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum + _red.sum).
    tutorial::DeviceBuffer<unsigned> bins(std::vector<unsigned>(64, 0));
    add("global atomics, 2 per thread, 64 words", "global_atomics_kernel",
        [&] { global_atomics(values.data(), bins.data(), 8, 256); });
    return tutorial::profile::run(argc, argv, probe);
}
