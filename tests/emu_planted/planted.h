/// @file planted.h
/// @brief Kernels with planted bugs, and their correct twins, for the CPU backend's tests
/// (tests/emu.cpp).
///
/// Each function launches its kernel on device pointers and checks the launch with
/// CUDA_CHECK_KERNEL, exactly as a chapter does, so a bug surfaces as the
/// tutorial::CudaError a student would see.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace planted {

/// @brief Which barriers the tiled GEMM keeps.
enum class GemmBarriers { both, no_first, no_second };
/// @brief C = A·B with 16 × 16 tiles in shared memory, for any M, N, K.
void tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K, GemmBarriers barriers);

/// @brief C = A·B with one thread per element and 16 × 16 blocks; without the bounds
/// check, the threads of partial blocks read and write outside the matrices.
void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K, bool bounds_check);

/// @brief C = A·B with one thread per element, whose k loop ends at @p stop when that is
/// below K: the products with k >= stop are never added.
void gemm_k_stops_at(const float* A, const float* B, float* C, int M, int N, int K, int stop);

/// @brief How the box mean's halo is loaded.
enum class Halo { right, loop_one_too_far, clamp_one_too_far };
/// @brief 5 × 5 box mean (R = 2) of an 8-bit image, rounded to nearest, edges clamped,
/// with a 16 × 16 block staging a 20 × 20 tile, halo included, in shared memory.
void box_mean(const unsigned char* in, unsigned char* out, int width, int height, Halo halo);
/// @brief The box mean's radius.
constexpr int kBoxRadius = 2;

/// @brief out[i] = mean of in[i .. i + window - 1] for i < size - window + 1, staged in
/// `extern __shared__` memory of (256 + window - 1) floats per block, or of only 256
/// (too small) when @p too_small_buffer. Above 48 KiB it opts in with cudaFuncSetAttribute
/// when @p opt_in.
void moving_average(const float* in, float* out, int size, int window, bool too_small_buffer, bool opt_in = true);

/// @brief A 64-thread block whose first 16 threads wait at a barrier inside
/// `if (threadIdx.x < 16)`; the others finish.
void barrier_in_branch(float* out);
/// @brief Even threads wait at one barrier, odd threads at another.
void barriers_by_parity(float* out);
/// @brief Threads at and past @p n return before the block's barrier.
void return_before_barrier(float* out, int n);

/// @brief out[i] = in[i - 1] for i < n: thread 0 reads before the start of @p in.
void read_before_start(const float* in, float* out, int n);

/// @brief Every thread of a block writes its index to one shared slot, then, after a
/// barrier, all copy the slot out: the last writer wins, so the result shows the order.
void last_writer_wins(unsigned* out, unsigned threads);

/// @brief out[i] = the sum of the float4 at in + 4 * i + @p shift, for i < @p quads,
/// read through `*reinterpret_cast<const float4*>(&in[...])`; when @p moved, through a
/// cast pointer moved by arithmetic (`auto first = reinterpret_cast<...>(in); first + i`),
/// without the shift.
void quad_sums(const float* in, float* out, int quads, int shift, bool moved = false);
/// @brief 32 threads stage 32 floats of @p in and 6 zeros in `__shared__ float tile[38]`;
/// out[t] = the sum of the float4 at tile + 4 * (t % 8) + @p shift.
void shared_quads(const float* in, float* out, int shift);
/// @brief 64 threads stage @p in in the dynamic shared memory seen as `float[2][4][8]`
/// (`*reinterpret_cast<float (*)[2][4][8]>(bytes)`), then out[t] = the element of t's row at
/// column (t + @p shift) % 8, plus @p column_past for the last thread of each row.
void dynamic_stages(const float* in, float* out, int shift, int column_past);
/// @brief The same through `__shared__ float flat[64]` seen as `float[8][8]`: out[t] = in[t],
/// but the last thread of each row reads column 7 + @p column_past.
void static_view(const float* in, float* out, int column_past);
/// @brief Thread 0 reads the float4 @p offset quads past @p in through a raw `const
/// float4*` variable, which the checks cannot follow: out[0] = its sum.
void raw_quad(const float* in, float* out, long long offset);

/// @brief One block of 64 threads stages @p in (64 floats) in shared memory, then thread t
/// writes its value to out[t], or, when @p two_writers, to out[t / 2]: two threads write
/// each of the first 32 elements.
void staged_copy(const float* in, float* out, bool two_writers);

/// @brief Launch a kernel that writes each thread's global linear index to @p out
/// (grid.x * block.x elements) with the given configuration; the caller checks errors.
cudaError_t launch_index_kernel(unsigned* out, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes);
/// @brief The kernel launch_index_kernel() launches, for cudaFuncSetAttribute.
const void* index_kernel();

/// @brief Launch a kernel with 64 KiB of `__shared__` variables; return cudaGetLastError().
cudaError_t launch_too_much_static_shared();

/// @brief What a thread reads from `__shared__` float and unsigned char arrays nobody wrote.
void read_unwritten_shared(float* out_float, unsigned char* out_byte);

/// @brief Each block's thread 0 notes the worker thread that runs it in @p workers
/// (one slot per block), holding on to it a moment so that other workers take blocks.
void note_workers(unsigned long long* workers, unsigned blocks);

/// @brief Every thread of @p blocks blocks of 256 adds 1 to counter[0] and 1.0f to *sum
/// with atomicAdd, on the pointer parameters themselves and through &counter[0].
void count_atomically(int* counter, float* sum, unsigned blocks);

/// @brief Copy threadIdx, blockIdx, blockDim and gridDim of every thread to @p out
/// (12 unsigned per thread), through `auto` and printf-compatible unsigned fields.
void copy_builtins(unsigned* out, dim3 grid, dim3 block);

/// @brief Results per thread of warp_primitives(): __shfl_sync, __shfl_up_sync,
/// __shfl_down_sync, __shfl_xor_sync, __ballot_sync(v % 3 == 0), __any_sync(v % 7 == 0),
/// __all_sync(v % 2 == 0), __activemask().
constexpr int kWarpResults = 8;
/// @brief Every thread of n / block blocks of @p block threads calls each warp primitive
/// with the full mask on v = in[i], the shuffles with @p delta (source lane, delta or lane
/// mask) and @p width; out gets kWarpResults ints per thread.
void warp_primitives(const int* in, int* out, int n, int block, int delta, int width);
/// @brief out[b] = the sum of block b's @p block values of @p in, added with warp shuffles.
void block_sums(const double* in, double* out, int blocks, int block);
/// @brief *out = the sum of in[0..63] by a tree whose last steps run in one warp, with
/// __syncwarp() between its steps or, when @p syncwarp is false, relying on lockstep.
void warp_tree_sum(const float* in, float* out, bool syncwarp);
/// @brief The misuses of warp primitives planted in warps.cu.
enum class WarpMisuse {
    shuffle_after_exit,  ///< lanes 16-31 of a warp return; lanes 0-15 then shuffle with the full mask
    /// In each warp of a block of 64, lanes 0-15 shuffle with the full mask inside a branch
    /// while lanes 16-31 go on to the block's barrier.
    shuffle_in_branch,
    syncwarp_by_parity,         ///< even lanes call one __syncwarp(), odd lanes another
    full_mask_in_partial_warp,  ///< a block of 48 threads shuffles with the full mask: its second warp has 16 lanes
    mask_without_caller,        ///< every lane of a warp shuffles with mask 0xffff, which names only lanes 0-15
};
/// @brief Run the kernel of @p misuse: one block, of 64 threads for shuffle_in_branch, 48
/// for full_mask_in_partial_warp, else 32, each writing out[threadIdx.x].
void warp_misuse(WarpMisuse misuse, int* out);

/// @brief out[i] = the sum of in[k] for k = 0, 0, 0, ...: a loop with `k += 0` that reads
/// @p in forever, in @p blocks blocks of @p block threads.
void endless_sum(const float* in, float* out, int n, int blocks, int block);
/// @brief 64 threads loop around a __syncthreads() forever (for n > 0).
void endless_barrier(float* out, int n);
/// @brief 32 threads loop forever (for n > 0) without touching checked memory.
void endless_without_access(int* out, int n);

/// @brief out[r] = the sum of row r of a 4 × 8 row-major @p in, through a __shared__ tile
/// whose rows are bound to references and passed to a __device__ function as pointers;
/// with @p one_too_far, each row is stored one element to the right, past its end.
void shared_rows(const float* in, float* out, bool one_too_far = false);

/// @brief Which API loads a pipelined GEMM's tiles.
enum class PipelineApi { primitives, pipeline };
/// @brief A pipelined GEMM's planted bug. For the primitives (<cuda_pipeline.h>): no wait
/// before reading a tile; no __syncthreads() after the wait; no __syncthreads() before a
/// stage is refilled; a wait for one stage too many in flight. For cuda::pipeline: the
/// stage released before it is read; never released; refilled without producer_acquire();
/// one consumer_wait() too many at the end; the stage after the one waited for read
/// (stage_ahead: (t + 1) % STAGES, a stage index that runs ahead); for the primitives, no
/// wait before a helper that takes the stage's tiles by reference reads them.
enum class PipelineBug {
    none,
    no_wait,
    no_sync_after_wait,
    no_sync_before_refill,
    wait_off_by_one,
    release_before_use,
    no_release,
    no_acquire,
    extra_consumer_wait,
    stage_ahead,
    no_wait_read_in_helper,
};
/// @brief C = A·B with 16 × 16 tiles loaded asynchronously @p stages - 1 tiles ahead (2 or
/// 3 stages), for any M, N, K, with the given API and planted bug.
void pipelined_gemm(const float* A, const float* B, float* C, int M, int N, int K, PipelineApi api, int stages,
                    PipelineBug bug);

/// @brief out[256 c + i] = 2 in[256 c + (i + 5) % 256] for chunks c < @p chunks: one block of
/// 64 threads copies each chunk of 256 floats with one cuda::memcpy_async(block, ...,
/// cuda::aligned_size_t<16>, pipe) through a block-scope pipeline of @p stages (2 or 3).
void group_copies(const float* in, float* out, int chunks, int stages);

/// @brief The box a TMA test block loads: 8 rows of 32 floats (128 bytes a row).
constexpr int kTmaBoxRows = 8, kTmaBoxCols = 32;
/// @brief A TMA tile copy's planted bug: no wait before reading the tile; 16 bytes fewer or
/// more expected than the box holds; a destination 16 bytes past a 128-byte boundary; the
/// barrier initialised by every thread; no __syncthreads() between init() and its use.
enum class TmaBug {
    none,
    no_wait,
    too_few_bytes_expected,
    too_many_bytes_expected,
    unaligned_destination,
    init_by_every_thread,
    no_sync_after_init,
};
/// @brief A tensor map of a rows × cols float matrix, rows @p pitch floats apart (a
/// multiple of 4), box kTmaBoxRows × kTmaBoxCols, made through
/// cudaGetDriverEntryPointByVersion() as on a GPU; out-of-bounds elements read as zeros, or
/// NaN with @p nan_fill.
cudaError_t make_tile_map(struct CUtensorMap_st* map, const float* matrix, int rows, int cols, int pitch,
                          bool nan_fill = false);
/// @brief Each block of 64 threads loads box (blockIdx.y, blockIdx.x) of @p map with the TMA
/// and copies it whole, fill included, to its slot of @p out (kTmaBoxRows * kTmaBoxCols floats).
void tma_tiles(const struct CUtensorMap_st& map, float* out, int rows, int cols, TmaBug bug);

/// @brief Copies that break a rule of asynchronous copies, in a block of 16 threads: a
/// cp.async of 12 bytes; a 16-byte cp.async 4 bytes off its alignment; 16-byte copies of
/// in[4i..4i+3], past the end of @p in's @p n = 16 floats from thread 4 on; a bulk copy of
/// 20 bytes. none: each thread copies in[i] with cp.async; none_bulk: one bulk copy of
/// @p n floats through a barrier. Then out[i] = 2 in[i] for i < n.
enum class CopyRuleBug { none, none_bulk, size_12, misaligned_16, source_past_end, bulk_size_not_multiple_of_16 };
void copy_rules(const float* in, float* out, int n, CopyRuleBug bug);

/// @brief The mistakes planted in the cluster histogram.
enum class ClusterBug {
    none,                           ///< correct
    no_first_barrier,               ///< no cluster.sync() between zeroing the bins and counting
    no_barrier_after_zeroing,       ///< a cluster.sync() before zeroing, none between zeroing and counting
    no_last_barrier,                ///< no cluster.sync() before the blocks merge their bins and exit
    owner_rounded_down,             ///< bins per block rounded down: the last bins' owner is past the cluster
    half_block_skips_last_barrier,  ///< threads 32 and up return before the last cluster.sync()
    block_barrier_as_last,          ///< __syncthreads() where the last cluster.sync() belongs
};
/// @brief A histogram of values[i] % bins with its bins spread over the shared memory of
/// each cluster's blocks (distributed shared memory, map_shared_rank and atomicAdd),
/// launched with cudaLaunchKernelEx on @p clusters clusters of @p cluster_size blocks of
/// 128 threads; counts of type Count (unsigned or unsigned long long) are added to
/// @p histogram. The kernel allows clusters of more than 8 blocks only with @p non_portable.
/// Returns cudaLaunchKernelEx's result; errors of the kernel's execution throw.
template <class Count>
cudaError_t cluster_histogram(const unsigned* values, int n, Count* histogram, int bins, unsigned cluster_size,
                              unsigned clusters, ClusterBug bug, bool non_portable = false);
/// @brief The same (unsigned counts, clusters of 2 blocks), launched as chapter 9's host code
/// does: a helper takes the kernel as a function pointer named `kernel` and passes that to
/// cudaLaunchKernelEx, so that the launch's text names the pointer, not the kernel.
cudaError_t cluster_histogram_through_pointer(const unsigned* values, int n, unsigned* histogram, int bins,
                                              unsigned clusters, ClusterBug bug);
/// @brief A histogram of values[i] % 64 in a dynamic shared array, launched with
/// cudaLaunchKernelEx on 2 blocks of 64 threads, whose index subtracts blockIdx.x * 64 in
/// unsigned arithmetic: in block 1 it wraps around, past 2^31.
void slice_offset(const unsigned* values, int n, unsigned* histogram);
/// @brief The same with `__cluster_dims__(2, 1, 1)` on the kernel and a <<<blocks, 96>>> launch.
void pair_histogram(const unsigned* values, int n, unsigned* histogram, int bins, unsigned blocks);
/// @brief A histogram of values[i] % 64 with a private `__shared__ unsigned long long
/// counts[64]` per block (3 blocks), merged with atomics; with @p one_bin_too_many the
/// bins are values[i] % 65, one past the array.
void private_histogram(const unsigned* values, int n, unsigned long long* histogram, bool one_bin_too_many);
/// @brief Clusters of 2 blocks of 32 threads: out[32 b + t] = 32 b' + t, read by thread t
/// of block b from the shared memory of the other block b' of its pair (a plain load
/// through map_shared_rank()); without @p final_barrier, blocks may exit while their pair
/// still reads them.
void neighbour_read(unsigned* out, unsigned blocks, bool final_barrier);
/// @brief Clusters of 2 blocks of 32 threads: each block stages in[32 b + t] in shared memory
/// with cp.async (__pipeline_memcpy_async), then out[32 b + t] = in[32 b + t] + 2 in[32 b' + t],
/// b' the other block of its pair, read from the pair's shared memory after a cluster.sync();
/// without @p wait, no __pipeline_wait_prior() before the reads.
void staged_pair_sum(const unsigned* in, unsigned* out, unsigned blocks, bool wait);
/// @brief Pairs of blocks (@p blocks even): each block stages in[32 b ... 32 b + 31] with
/// cp.async, then out[32 b + t] = its pair block's staged[t] (map_shared_rank); with
/// @p wait false the copies are not waited for before the cluster barrier.
void staged_pair_read(const unsigned* in, unsigned* out, unsigned blocks, bool wait);
/// @brief cudaOccupancyMaxActiveClusters for the cluster histogram with clusters of @p cluster_size.
int max_active_clusters(unsigned cluster_size);

/// @brief The mistakes planted in the block histogram.
enum class HistogramBug {
    none,                    ///< atomicAdd on a __shared__ copy per block, merged with atomicAdd
    shared_plain_increment,  ///< `s_bins[v]++` on the __shared__ copy
    global_plain_add,        ///< `histogram[v] += 1` straight into global memory
};
/// @brief Adds the histogram of values[i] % @p bins (1 to 128 bins) to @p histogram, with
/// @p blocks blocks of @p threads threads; sets *@p saw_zero to 1 when some value falls in
/// bin 0 (every thread that sees one stores 1 to a __shared__ flag). Throws
/// std::invalid_argument for other numbers of bins.
void block_histogram(const unsigned* values, int n, unsigned* histogram, int bins, unsigned* saw_zero, unsigned blocks,
                     unsigned threads, HistogramBug bug);

// ---- The tensor cores (tensor_cores.cu) ----------------------------------------------------

/// @brief Which ldmatrix ldmatrix_fragments() runs.
enum class LdmatrixVariant { x4, x4_trans, x2, x2_trans };
/// @brief One warp loads the 16 × 16 row-major BF16 @p in from shared memory with @p variant,
/// lane l pointing at row l % 16, column 8 (l / 16); out[4 l + i] = lane l's register i
/// (0 for the registers an x2 does not write).
void ldmatrix_fragments(const __nv_bfloat16* in, std::uint32_t* out, LdmatrixVariant variant);

/// @brief A fragment index planted in mma_tile().
enum class FragmentBug {
    none,            ///< the PTX ISA's layouts
    a_matrix_order,  ///< A's ldmatrix rows: the four matrices taken column block first
    c_row,           ///< C's and D's row: lane % 8 instead of lane / 4
};
/// @brief D = A·B + C for one 16 × 16 A, 16 × 8 B (row-major k × n), 16 × 8 C, by one warp
/// with ldmatrix and mma_m16n8k16_bf16, with the fragment index @p bug plants.
void mma_tile(const __nv_bfloat16* A, const __nv_bfloat16* B, const float* C, float* D, FragmentBug bug);

/// @brief Two warps of one block each compute D = Σₛ Aₛ·Bₛ over @p steps pairs of a
/// 16 × 16 A and a 16 × 8 B (row-major, k × n), from shared tiles that all 64 threads refill
/// at every step: warp w's D at D + 128 w. Without @p barrier_at_end, the __syncthreads()
/// between the warps' ldmatrix and the next refill is left out.
void mma_steps(const __nv_bfloat16* A, const __nv_bfloat16* B, float* D, int steps, bool barrier_at_end);

/// @brief The misuses of ldmatrix and mma.sync planted in tensor_cores.cu.
enum class TensorCoreMisuse {
    misaligned_row,         ///< every lane's row address one element (2 bytes) past a 16-byte boundary
    ldmatrix_in_branch,     ///< lanes 0-15 call ldmatrix inside a branch, lanes 16-31 go on
    rows_in_global_memory,  ///< the row addresses point into @p in, a cudaMalloc buffer
    mma_in_partial_warp,    ///< a block of 48 threads calls mma.sync: its second warp has 16 lanes
};
/// @brief Run the kernel of @p misuse: one block of 32 threads (48 for mma_in_partial_warp),
/// reading @p in (16 × 16) and writing out[threadIdx.x] or out_floats[threadIdx.x].
void tensor_core_misuse(TensorCoreMisuse misuse, const __nv_bfloat16* in, std::uint32_t* out, float* out_floats);

// ---- Hopper's warpgroup MMA (wgmma.cu) -----------------------------------------------------

/// @brief K of one stage of wgmma_tile(): one 128-byte row of the 128-byte swizzle.
constexpr int kWgmmaTileK = 64;
/// @brief What wgmma_tile() does: the right sequence, or one planted mistake.
enum class WgmmaBug {
    none,                ///< A K-major, B MN-major (B given K × 256), as chapter 10's 10c
    none_b_k_major,      ///< the same with B K-major: B given 256 × K (K contiguous), tnspB = 0
    b_no_swizzle,        ///< B's descriptor says swizzle mode 0 though the TMA wrote the 128-byte swizzle
    b_stride_512,        ///< B's stride byte offset 512 instead of 1024 (8 rows of 128 bytes)
    b_leading_4096,      ///< B's leading byte offset 4096 instead of 8192 (one 64-column box)
    a_start_off_1024,    ///< A's tile 128 bytes past a 1024-byte boundary
    no_barrier_wait,     ///< the wgmmas read the stage without waiting for its barrier
    no_fence,            ///< no wgmma.fence before the first wgmma
    no_commit,           ///< the wgmmas never committed (the wait then waits for nothing)
    no_wait,             ///< no wgmma.wait_group before the accumulators are stored
    refill_before_wait,  ///< the next stage's TMA copy refills the tiles before the wait
};
/// @brief One warpgroup (a block of 128 threads) computes D (64 × 256 floats, row-major) =
/// A (64 × K, row-major BF16) · B, K = @p k_tiles × kWgmmaTileK, one stage of shared memory
/// refilled by the TMA (128-byte swizzle) for each 64 columns of K, four
/// wgmma.m64n256k16 per stage, with @p bug planted.
void wgmma_tile(const __nv_bfloat16* A, const __nv_bfloat16* B, float* D, int k_tiles, WgmmaBug bug);

/// @brief What wgmma_specialized() does: the right sequence, or one planted mistake.
enum class SpecializedBug {
    none,                        ///< a producer warpgroup, two consumers, the stages' count running on
    refill_without_empty_wait,   ///< the producer refills a stage without waiting for its release
    count_restarts_per_tile,     ///< the consumers' count of steps restarts at each tile
    setmaxnreg_in_one_warp,      ///< the producer's setmaxnreg.dec in warp 0 only (if (threadIdx.x < 32))
    setmaxnreg_in_one_thread,    ///< the producer's setmaxnreg.dec by its thread 0 only
};
/// @brief Step 10d of chapter 10 in small: one persistent block of 384 threads (a producer
/// warpgroup whose thread 0 issues the TMA copies, two consumer warpgroups of 64 rows each)
/// computes D (128 @p tiles × 256 floats, row-major) = A (128 @p tiles × 128, row-major
/// BF16) · B (128 × 256, row-major BF16), one 128 × 256 tile after the other, each in 2
/// steps of 64 along K through a ring of 2 stages of 48 KiB, with @p bug planted.
void wgmma_specialized(const __nv_bfloat16* A, const __nv_bfloat16* B, float* D, int tiles, SpecializedBug bug);

}  // namespace planted
