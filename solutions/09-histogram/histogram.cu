// Chapter 9: the histogram of 8-bit and 16-bit samples, four ways: one atomicAdd in
// global memory per sample (9a), a private histogram per block in shared memory, merged
// into the global one at the end (9b), a histogram too large for one block's shared
// memory, spread over the distributed shared memory of a thread block cluster (9c), and
// the same cluster moving samples to the bins' owners instead of atomics (9d, going
// further).
//
// Reference solution.
//
// Sample value v goes to bin v; a value of num_bins or more is not counted. The host
// code (at the end of the file) checks the arguments, sets the bins to zero and
// launches the kernels: it is written.
#include "histogram.h"

#include "cuda_check.h"
#include "histogram_reference.h"

#include <cooperative_groups.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cg = cooperative_groups;

// 9a: one thread per sample, one atomicAdd in global memory each. Simple and right, but
// every sample is a read-modify-write in L2; threads that meet on the same bin (a
// skewed input, or one repeated value) wait for each other there.
template <class Sample>
__global__ void histogram_global_kernel(const Sample* input, long long n, unsigned int* bins, int num_bins) {
    // BEGIN SOLUTION: this thread's sample i, one per thread of the grid (a
    //   long long: the grid may cover more than 2^31 samples). If i < n and its value
    //   v = input[i] is below num_bins, add 1 to bins[v] with atomicAdd: a plain
    //   bins[v] += 1 from two threads at once loses one of the two.
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        const unsigned int value = input[i];
        if (value < static_cast<unsigned int>(num_bins)) {
            atomicAdd(&bins[value], 1u);
        }
    }
    // END SOLUTION
}

// The samples one 16-byte load brought, one call of count(value) each: 16 bytes, or
// 8 16-bit values, in the order they lie in memory (the GPU is little-endian: the
// sample at the lowest address is in the lowest bits of .x).
template <class Sample, class Count>
__device__ void for_each_sample_of(const uint4& vector, Count&& count) {
    constexpr int bits = 8 * static_cast<int>(sizeof(Sample));
    constexpr unsigned int mask = (1u << bits) - 1u;
    const unsigned int words[4] = {vector.x, vector.y, vector.z, vector.w};
    for (int w = 0; w < 4; ++w) {
        for (int shift = 0; shift < 32; shift += bits) {
            count((words[w] >> shift) & mask);
        }
    }
}

// Every sample of input[0, n), one call of count(value) each, shared among the grid's
// threads by a grid-stride loop, 16 bytes at a time: after the first `head` samples
// (before the first 16-byte boundary), taken one by one, the grid's threads take the
// aligned uint4s in turn, two per round so that two loads are in flight, then the last
// few samples one by one again. 9b and 9c count with it; `count` is the kernel's own
// (9b's adds 1 to a bin of the block's private histogram). The input's type is a template
// parameter, a const Sample* on the GPU, so that the CPU backend keeps checking and
// counting the loads through the kernel's pointer.
template <class Sample, class Input, class Count>
__device__ void count_samples(Input input, long long n, long long head, Count&& count) {
    // BEGIN SOLUTION: the grid-stride loop. This thread's index in the grid, `thread`, and
    //   the grid's thread count, `threads`, both long long; a uint4 holds 16 bytes of
    //   samples. The head: the first `head` threads count one sample each. The middle:
    //   after the head the input is 16-byte aligned, so view it as uint4s (`aligned`; how
    //   many whole ones are there?); walk them two rounds of the grid at a time, loading
    //   this thread's vector of both rounds (when the second exists) before counting either
    //   (two loads in flight), then for_each_sample_of<Sample>(vector, count) for each. The
    //   tail: the samples after the last whole vector, one per thread from the grid's first.
    //| (void)input, (void)n, (void)head, (void)count;
    constexpr int per_vector = 16 / sizeof(Sample);  // samples per uint4
    const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
    if (thread < head) {
        count(input[thread]);
    }
    const long long vectors = (n - head) / per_vector;
    // The host chose head so that input + head is 16-byte aligned, as uint4 loads must be.
    const auto aligned = reinterpret_cast<const uint4*>(input + head);
    for (long long v = thread; v < vectors; v += 2 * threads) {
        // Both loads are issued before either vector is counted: while the atomics of the
        // first run, the second is on its way.
        const bool second = v + threads < vectors;
        const uint4 first_vector = aligned[v];
        const uint4 second_vector = second ? aligned[v + threads] : uint4{};
        for_each_sample_of<Sample>(first_vector, count);
        if (second) {
            for_each_sample_of<Sample>(second_vector, count);
        }
    }
    const long long tail = head + vectors * per_vector;
    if (thread < n - tail) {
        count(input[tail + thread]);
    }
    // END SOLUTION
}

// 9b: each block counts its share of the samples into a histogram of its own, in shared
// memory, with shared-memory atomics (fast, and contended only within the block); at the
// end it adds each of its counts to the global bins with one atomicAdd. The block keeps
// `replicas` copies of its histogram, interleaved: bin b of copy c is block_bins[b *
// replicas + c], and thread t counts into copy t % replicas. With 32 copies the 32 lanes
// of a warp count into 32 different words in 32 different banks, whatever their samples:
// no two lanes contend for a word, and no bank conflict serialises the atomics (chapter 5).
// The samples come by count_samples. EVERY_VALUE_HAS_A_BIN: the host launches the kernel
// with true when num_bins covers every value a Sample can hold (256 bins of bytes), and
// then no sample needs the check value < num_bins: on an H100 that check alone, a compare
// and a branch per sample, cost a quarter of the rate (66% of copy bandwidth against 89%).
template <class Sample, bool EVERY_VALUE_HAS_A_BIN>
__global__ void histogram_shared_kernel(const Sample* input, long long n, long long head, unsigned int* bins,
                                        int num_bins, int replicas) {
    // num_bins * replicas counts: the host sizes the launch's dynamic shared memory to them
    // (histogram_shared_replicas(num_bins) copies, a power of two up to 32).
    extern __shared__ unsigned int block_bins[];

    // BEGIN SOLUTION: the private histograms start at zero: shared memory holds whatever
    //   the block before left there. Threads threadIdx.x, + blockDim.x, ... below
    //   num_bins * replicas zero block_bins; then a barrier, so that no thread counts into
    //   a bin another thread has yet to zero.
    for (int b = threadIdx.x; b < num_bins * replicas; b += blockDim.x) {
        block_bins[b] = 0;
    }
    // Every bin of every copy is zero before any thread counts into it.
    __syncthreads();
    // END SOLUTION

    // BEGIN SOLUTION: count one sample: a lambda, `count`, taking the value as an unsigned
    //   int, that adds 1 to bin `value` of this thread's copy (the copies are interleaved:
    //   the lesson says where bin b of copy c lies, and which copy a thread uses), when
    //   value < num_bins (a check the kernel
    //   skips when EVERY_VALUE_HAS_A_BIN: if constexpr). Threads of other warps count into
    //   the same copy: atomicAdd, which works on shared memory too.
    //| [[maybe_unused]] auto count = [&](unsigned int value) { (void)value; };
    const unsigned int copy = threadIdx.x % static_cast<unsigned int>(replicas);
    auto count = [&](unsigned int value) {
        if constexpr (!EVERY_VALUE_HAS_A_BIN) {
            if (value >= static_cast<unsigned int>(num_bins)) {
                return;
            }
        }
        atomicAdd(&block_bins[value * static_cast<unsigned int>(replicas) + copy], 1u);
    };
    // END SOLUTION

    // BEGIN SOLUTION: count every sample, with count_samples and the lambda above. Then a
    //   barrier: the merge reads every bin.
    count_samples<Sample>(input, n, head, count);
    // The merge reads bins that other threads of the block count into.
    __syncthreads();
    // END SOLUTION

    // BEGIN SOLUTION: the merge: threads threadIdx.x, + blockDim.x, ... below num_bins
    //   add up bin b of every copy, block_bins[b * replicas + c] for c below replicas, and
    //   add the sum to bins[b] with atomicAdd (other blocks add to the same bins), skipping
    //   zeros, which would add nothing. (Starting each thread's c at b % replicas spreads
    //   the warp's reads over the banks.)
    for (int b = threadIdx.x; b < num_bins; b += blockDim.x) {
        unsigned int count_b = 0;
        for (int c = 0; c < replicas; ++c) {
            count_b += block_bins[b * replicas + (b + c) % replicas];
        }
        if (count_b != 0) {
            atomicAdd(&bins[b], count_b);
        }
    }
    // END SOLUTION
}

// 9c: 2^16 bins of 4 bytes are 256 KB, more than a block's shared memory. A cluster of
// kClusterSize blocks holds them together: block rank r owns the `slice` bins from
// r * slice on, in its own shared memory. Every block counts its samples into whichever
// block owns each sample's bin, through cluster.map_shared_rank(), which gives the
// address of the same variable in another block of the cluster (distributed shared
// memory). Two cluster barriers: one before the first remote access (the owner must
// have zeroed its bins, and must have started at all), one before any block goes on to
// merge and exit (its bins must stay while other blocks still count into them).
__global__ void histogram_cluster_kernel(const std::uint16_t* input, long long n, long long head, unsigned int* bins,
                                         int num_bins) {
    // Clusters exist from sm_90 on. Built for an older GPU, the kernel is empty: there
    // histogram_cluster() refuses to launch it.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    // This block's slice of the bins: cluster_slice(num_bins) counts (the host sizes the
    // dynamic shared memory to them).
    extern __shared__ unsigned int slice_bins[];

    [[maybe_unused]] cg::cluster_group cluster = cg::this_cluster();
    // Bins each block owns, cluster_slice(num_bins) (a host function, so written out here).
    [[maybe_unused]] const int slice = (num_bins + kClusterSize - 1) / kClusterSize;

    // BEGIN SOLUTION: zero this block's slice (threads threadIdx.x, + blockDim.x, ...
    //   below slice), then cluster.sync(): every block of the cluster must have zeroed its
    //   slice before any block counts into it, and __syncthreads() waits for this block
    //   alone.
    for (int b = threadIdx.x; b < slice; b += blockDim.x) {
        slice_bins[b] = 0;
    }
    // Every block's slice is zero (and every block has started) before anyone counts.
    cluster.sync();
    // END SOLUTION

    // BEGIN SOLUTION: count one sample: a value below num_bins belongs to one block of the
    //   cluster, its owner, at some offset of that block's slice_bins (each block owns
    //   `slice` consecutive bins). Reach the owner's slice_bins through
    //   cluster.map_shared_rank and add 1 there atomically.
    //| [[maybe_unused]] auto count = [&](unsigned int value) { (void)value; };
    auto count = [&](unsigned int value) {
        if (value < static_cast<unsigned int>(num_bins)) {
            const unsigned int owner = value / slice;
            const unsigned int offset = value % slice;
            auto owner_bins = cluster.map_shared_rank(slice_bins, owner);
            atomicAdd(&owner_bins[offset], 1u);
        }
    };
    // END SOLUTION

    // BEGIN SOLUTION: count every sample as 9b does (count_samples, 16-bit samples); then
    //   cluster.sync(): the merge below reads this block's slice, which
    //   other blocks count into, and no block may exit while another can still reach its
    //   shared memory.
    count_samples<std::uint16_t>(input, n, head, count);
    // Every block of the cluster has finished counting into this block's slice, and no
    // block touches another's shared memory after this: each may merge and exit.
    cluster.sync();
    // END SOLUTION

    // BEGIN SOLUTION: the merge: this block (rank cluster.block_rank()) adds each bin of its
    //   slice to the global bin of the same value (where does this block's slice start?),
    //   for the bins below num_bins (the last slice may reach past it), with atomicAdd,
    //   skipping zeros.
    const int first_bin = static_cast<int>(cluster.block_rank()) * slice;
    for (int b = threadIdx.x; b < slice && first_bin + b < num_bins; b += blockDim.x) {
        const unsigned int count_b = slice_bins[b];
        if (count_b != 0) {
            atomicAdd(&bins[first_bin + b], count_b);
        }
    }
    // END SOLUTION
#endif
}

// 9d (going further): move the samples, not the atomics. In 9c every sample that another
// block owns costs a remote atomic, and Nsight Compute shows where the time goes: remote
// accesses queue in the same L1 pipeline as global memory (most warps wait there, "LG
// throttle"). A 16-byte read of another block's shared memory brings 8 samples for the
// cost of one such access. So each round, every block stages kExchangeTile uint4 of the
// input in a tile of its own shared memory; after cluster.sync() each block reads every
// tile of the cluster (its own and the others', through map_shared_rank) and counts only
// the samples whose bins it owns, with atomics on its own shared memory. Two tiles take
// turns: a block writes a tile again two rounds later, after the barrier of the round in
// between has shown that every block finished reading it, so one cluster.sync() a round
// suffices.
//
// The block's bins are zeroed and merged as in 9c (given below); the samples before the
// first 16-byte boundary and after the last whole uint4 (at most 7 each) are read by both
// blocks of the first cluster, each counting those it owns.
// Where 9d's tiles start in its dynamic shared memory, in counts: after the slice,
// rounded up to 4 counts (16 bytes, a uint4's alignment).
__host__ __device__ constexpr int exchange_tiles_offset(int slice) { return (slice + 3) / 4 * 4; }

// SharedCounts is a template parameter (unsigned int* on the GPU) so that the CPU backend
// keeps counting the shared-memory traffic through it.
template <class SharedCounts>
__device__ void zero_slice(SharedCounts slice_bins, int slice) {
    for (int b = threadIdx.x; b < slice; b += blockDim.x) {
        slice_bins[b] = 0;
    }
}

template <class SharedCounts>
__device__ void merge_slice(SharedCounts slice_bins, int slice, int first_bin, unsigned int* bins, int num_bins) {
    for (int b = threadIdx.x; b < slice && first_bin + b < num_bins; b += blockDim.x) {
        const unsigned int count_b = slice_bins[b];
        if (count_b != 0) {
            atomicAdd(&bins[first_bin + b], count_b);
        }
    }
}

__global__ void histogram_exchange_kernel(const std::uint16_t* input, long long n, long long head, unsigned int* bins,
                                          int num_bins) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    // Dynamic shared memory: this block's slice of cluster_slice(num_bins) counts, then
    // two tiles of kExchangeTile uint4 (32 KB each) from the next 16-byte boundary.
    // (auto, not uint4*: the CPU backend then counts the traffic through the tiles.)
    extern __shared__ unsigned int slice_bins[];
    const int slice = (num_bins + kClusterSize - 1) / kClusterSize;
    const auto tiles = reinterpret_cast<uint4*>(&slice_bins[exchange_tiles_offset(slice)]);

    cg::cluster_group cluster = cg::this_cluster();
    const unsigned int rank = cluster.block_rank();
    const int first_bin = static_cast<int>(rank) * slice;
    // The bins this block counts: first_bin ... first_bin + owned - 1 (the last block's
    // slice may reach past num_bins).
    const unsigned int owned = static_cast<unsigned int>(min(slice, num_bins - first_bin));
    // Only this block touches its slice: __syncthreads() orders the zeroing before the counting.
    zero_slice(slice_bins, slice);
    __syncthreads();

    // A sample is this block's when value - first_bin, as an unsigned number, is below
    // owned (a value below first_bin wraps round to a huge number): one subtraction and
    // one comparison per sample, where value / slice == rank would cost a division.
    auto count_if_mine = [&](unsigned int value) {
        const unsigned int offset = value - static_cast<unsigned int>(first_bin);
        if (offset < owned) {
            atomicAdd(&slice_bins[offset], 1u);
        }
    };
    constexpr int per_vector = 16 / sizeof(std::uint16_t);
    const long long cluster_index = blockIdx.x / kClusterSize, clusters = gridDim.x / kClusterSize;
    const long long vectors = (n - head) / per_vector;
    const long long tail = head + vectors * per_vector;
    if (cluster_index == 0) {
        if (threadIdx.x < head) count_if_mine(input[threadIdx.x]);
        if (threadIdx.x < n - tail) count_if_mine(input[tail + threadIdx.x]);
    }
    [[maybe_unused]] const auto aligned = reinterpret_cast<const uint4*>(input + head);
    // Every block goes round the same number of times: cluster.sync() must be reached by
    // all the threads of the cluster.
    const long long per_round = clusters * kClusterSize * kExchangeTile;
    const long long rounds = (vectors + per_round - 1) / per_round;
    for (long long round = 0; round < rounds; ++round) {
        [[maybe_unused]] const auto tile = tiles + (round % 2) * kExchangeTile;
        // The cluster's share of this round: kClusterSize tiles, block rank r's from
        // vector cluster_first + r * kExchangeTile on.
        [[maybe_unused]] const long long cluster_first = (round * clusters + cluster_index) * kClusterSize * kExchangeTile;

        // BEGIN SOLUTION: 9d, step 1. Stage this block's tile: the block's threads share its
        //   kExchangeTile vectors (a block-stride loop). In this round the cluster's blocks
        //   take consecutive tiles from cluster_first, in rank order: which vector of the
        //   input is element i of this block's tile? Copy those that exist (below vectors).
        //   Then cluster.sync(): the other blocks read this tile next, and this block theirs.
        for (int i = threadIdx.x; i < kExchangeTile; i += blockDim.x) {
            const long long v = cluster_first + rank * kExchangeTile + i;
            if (v < vectors) {
                tile[i] = aligned[v];
            }
        }
        cluster.sync();
        // END SOLUTION

        // BEGIN SOLUTION: 9d, step 2. For each rank q of the cluster (its own included):
        //   reach block q's tile through cluster.map_shared_rank, and count the samples of
        //   each of its vectors that exist (the same numbering as step 1, for block q) with
        //   for_each_sample_of and count_if_mine.
        for (unsigned int q = 0; q < kClusterSize; ++q) {
            const uint4* staged = cluster.map_shared_rank(tile, q);
            for (int i = threadIdx.x; i < kExchangeTile; i += blockDim.x) {
                const long long v = cluster_first + q * kExchangeTile + i;
                if (v < vectors) {
                    for_each_sample_of<std::uint16_t>(staged[i], count_if_mine);
                }
            }
        }
        // END SOLUTION
    }
    // BEGIN SOLUTION: 9d, step 3. One more cluster.sync() before the merge: another block
    //   may still be reading this block's last tile, and a block's shared memory must
    //   outlive every access to it.
    cluster.sync();
    // END SOLUTION
    merge_slice(slice_bins, slice, first_bin, bins, num_bins);
#endif
}

namespace {

// Samples before the first 16-byte boundary at or after `input`: 0 to 15 (bytes) or
// 0 to 7 (16-bit values), at most n.
template <class Sample>
long long unaligned_head(const Sample* input, std::size_t n) {
    const auto misaligned_bytes = static_cast<long long>(reinterpret_cast<std::uintptr_t>(input) % 16);
    const long long head = ((16 - misaligned_bytes) % 16) / static_cast<long long>(sizeof(Sample));
    return head < static_cast<long long>(n) ? head : static_cast<long long>(n);
}

template <class Sample>
void launch_global(const char* function, const Sample* input, std::size_t n, unsigned int* bins, int num_bins) {
    tutorial::require_histogram_arguments(function, input, n, bins, num_bins, 1 << (8 * sizeof(Sample)));
    CUDA_CHECK(cudaMemset(bins, 0, sizeof(unsigned int) * static_cast<std::size_t>(num_bins)));
    if (n == 0) {
        return;
    }
    const unsigned blocks = tutorial::ceil_div(static_cast<long long>(n), kHistogramBlock);
    histogram_global_kernel<Sample><<<blocks, kHistogramBlock>>>(input, static_cast<long long>(n), bins, num_bins);
    CUDA_CHECK_KERNEL("histogram_global_kernel");
}

template <class Sample>
void launch_shared(const char* function, const Sample* input, std::size_t n, unsigned int* bins, int num_bins) {
    const int most_bins = sizeof(Sample) == 1 ? 256 : kSharedMaxBins;
    tutorial::require_histogram_arguments(function, input, n, bins, num_bins, most_bins);
    CUDA_CHECK(cudaMemset(bins, 0, sizeof(unsigned int) * static_cast<std::size_t>(num_bins)));
    if (n == 0) {
        return;
    }
    const int blocks = histogram_shared_blocks(n, static_cast<int>(sizeof(Sample)));
    const int replicas = histogram_shared_replicas(num_bins);
    const std::size_t shared_bytes = sizeof(unsigned int) * static_cast<std::size_t>(num_bins) * replicas;
    const long long head = unaligned_head(input, n);
    if (num_bins == 1 << (8 * sizeof(Sample))) {
        histogram_shared_kernel<Sample, true><<<blocks, kHistogramBlock, shared_bytes>>>(
            input, static_cast<long long>(n), head, bins, num_bins, replicas);
    } else {
        histogram_shared_kernel<Sample, false><<<blocks, kHistogramBlock, shared_bytes>>>(
            input, static_cast<long long>(n), head, bins, num_bins, replicas);
    }
    CUDA_CHECK_KERNEL("histogram_shared_kernel");
}

// Launch a 9c or 9d kernel: clusters of kClusterSize blocks of kClusterBlock threads,
// with cudaLaunchKernelEx and the cluster-dimension attribute, after checking the
// arguments and the GPU and zeroing the bins.
using ClusterKernel = void (*)(const std::uint16_t*, long long, long long, unsigned int*, int);
void launch_cluster(const char* function, const char* kernel_name, ClusterKernel kernel, int clusters,
                    std::size_t shared_bytes, const std::uint16_t* input, std::size_t n, unsigned int* bins,
                    int num_bins) {
    tutorial::require_histogram_arguments(function, input, n, bins, num_bins, kMaxBins);
    std::string why;
    if (!cluster_launch_supported(&why)) {
        throw std::runtime_error(std::string(function) + ": " + why);
    }
    CUDA_CHECK(cudaMemset(bins, 0, sizeof(unsigned int) * static_cast<std::size_t>(num_bins)));
    if (n == 0) {
        return;
    }
    // Over 48 KB of dynamic shared memory a kernel must opt in, up to 227 KB on an H100.
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned>(clusters * kClusterSize));
    config.blockDim = dim3(kClusterBlock);
    config.dynamicSmemBytes = shared_bytes;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = kClusterSize;  // the grid's x extent is a multiple of it
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, input, static_cast<long long>(n), unaligned_head(input, n), bins,
                                  num_bins));
    CUDA_CHECK_KERNEL(kernel_name);
}

}  // namespace

int histogram_shared_blocks(std::size_t n, int sample_bytes) {
    const long long per_block = 16LL * kHistogramBlock / sample_bytes;  // one uint4 per thread
    const long long blocks = (static_cast<long long>(n) + per_block - 1) / per_block;
    return static_cast<int>(blocks < 1 ? 1 : blocks < kHistogramMaxBlocks ? blocks : kHistogramMaxBlocks);
}

int histogram_shared_replicas(int num_bins) {
    int replicas = 1;
    while (replicas < kHistogramMaxReplicas && num_bins * replicas * 2 <= kSharedMaxBins) {
        replicas *= 2;
    }
    return replicas;
}

int histogram_cluster_clusters(std::size_t n) {
    const long long per_cluster = 8LL * kClusterBlock * kClusterSize;  // one uint4 of 16-bit samples per thread
    const long long clusters = (static_cast<long long>(n) + per_cluster - 1) / per_cluster;
    return static_cast<int>(clusters < 1 ? 1 : clusters < kClusterMaxClusters ? clusters : kClusterMaxClusters);
}

int histogram_exchange_clusters(std::size_t n) {
    const long long per_cluster = 8LL * kExchangeTile * kClusterSize;  // one tile of 16-bit samples per block
    const long long clusters = (static_cast<long long>(n) + per_cluster - 1) / per_cluster;
    return static_cast<int>(clusters < 1 ? 1 : clusters < kClusterMaxClusters ? clusters : kClusterMaxClusters);
}

bool cluster_launch_supported(std::string* why) {
    int device = 0, major = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    if (major >= 9) {
        return true;
    }
    if (why != nullptr) {
        int minor = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
        *why = "thread block clusters need compute capability 9.0 or later; this GPU has " + std::to_string(major) +
               "." + std::to_string(minor);
    }
    return false;
}

void histogram_global(const std::uint8_t* input, std::size_t n, unsigned int* bins, int num_bins) {
    launch_global("histogram_global", input, n, bins, num_bins);
}

void histogram_global(const std::uint16_t* input, std::size_t n, unsigned int* bins, int num_bins) {
    launch_global("histogram_global", input, n, bins, num_bins);
}

void histogram_shared(const std::uint8_t* input, std::size_t n, unsigned int* bins, int num_bins) {
    launch_shared("histogram_shared", input, n, bins, num_bins);
}

void histogram_shared(const std::uint16_t* input, std::size_t n, unsigned int* bins, int num_bins) {
    launch_shared("histogram_shared", input, n, bins, num_bins);
}

void histogram_cluster(const std::uint16_t* input, std::size_t n, unsigned int* bins, int num_bins) {
    // Each block's slice: 2^16 bins make 128 KB a block, over the 48 KB a kernel gets
    // unless it opts in (launch_cluster does).
    const std::size_t shared_bytes = sizeof(unsigned int) * static_cast<std::size_t>(cluster_slice(num_bins));
    launch_cluster("histogram_cluster", "histogram_cluster_kernel", histogram_cluster_kernel, histogram_cluster_clusters(n),
                   shared_bytes, input, n, bins, num_bins);
}

void histogram_exchange(const std::uint16_t* input, std::size_t n, unsigned int* bins, int num_bins) {
    // The slice, then two tiles of uint4: 128 KB + 64 KB for 2^16 bins.
    const std::size_t shared_bytes = sizeof(unsigned int) * exchange_tiles_offset(cluster_slice(num_bins)) +
                                     2 * sizeof(uint4) * kExchangeTile;
    launch_cluster("histogram_exchange", "histogram_exchange_kernel", histogram_exchange_kernel,
                   histogram_exchange_clusters(n), shared_bytes, input, n, bins, num_bins);
}
