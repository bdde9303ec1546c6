// Shared-memory atomics and thread block clusters: histograms, correct and with the
// mistakes a student makes with distributed shared memory planted.
#include "planted.h"

#include "cuda_check.h"

#include <cooperative_groups.h>
#include <cuda_pipeline.h>

namespace cg = cooperative_groups;

namespace planted {
namespace {

// The bins are spread over the shared memory of the cluster's blocks: block r owns bins
// [r * per_block, (r + 1) * per_block). Each thread counts its inputs into the owner's
// copy through map_shared_rank(); then each block adds the bins it owns to the result.
template <class Count>
__global__ void cluster_histogram_planted(const unsigned* values, int n, Count* histogram, int bins, ClusterBug bug) {
    extern __shared__ unsigned char cluster_bytes[];
    Count* owned = reinterpret_cast<Count*>(cluster_bytes);
    cg::cluster_group cluster = cg::this_cluster();
    const int blocks = static_cast<int>(cluster.num_blocks());
    const int per_block = bug == ClusterBug::owner_rounded_down ? bins / blocks : (bins + blocks - 1) / blocks;
    const int room = (bins + blocks - 1) / blocks;
    if (bug == ClusterBug::no_barrier_after_zeroing) cluster.sync();
    for (int b = threadIdx.x; b < room; b += blockDim.x) owned[b] = 0;
    if (bug != ClusterBug::no_first_barrier && bug != ClusterBug::no_barrier_after_zeroing) cluster.sync();
    const int stride = static_cast<int>(blockDim.x * gridDim.x);
    for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += stride) {
        const int bin = static_cast<int>(values[i] % static_cast<unsigned>(bins));
        Count* copy = cluster.map_shared_rank(owned, bin / per_block);
        atomicAdd(copy + bin % per_block, Count(1));
    }
    if (bug == ClusterBug::half_block_skips_last_barrier && threadIdx.x >= 32) return;
    if (bug == ClusterBug::block_barrier_as_last) __syncthreads(); else if (bug != ClusterBug::no_last_barrier) cluster.sync();
    const int first = static_cast<int>(cluster.block_rank()) * room;
    for (int b = threadIdx.x; b < room && first + b < bins; b += blockDim.x) atomicAdd(&histogram[first + b], owned[b]);
}

// The same with the cluster's shape fixed at compile time: 2 blocks.
__global__ void __cluster_dims__(2, 1, 1) pair_histogram_planted(const unsigned* values, int n, unsigned* histogram, int bins) {
    extern __shared__ unsigned pair_bins[];
    cg::cluster_group cluster = cg::this_cluster();
    const int per_block = (bins + 1) / 2;
    for (int b = threadIdx.x; b < per_block; b += blockDim.x) pair_bins[b] = 0;
    cluster.sync();
    for (int i = static_cast<int>(cg::this_grid().thread_rank()); i < n; i += blockDim.x * gridDim.x) {
        const int bin = static_cast<int>(values[i] % static_cast<unsigned>(bins));
        atomicAdd(cluster.map_shared_rank(pair_bins, bin / per_block) + bin % per_block, 1u);
    }
    cluster.sync();
    const int first = static_cast<int>(cluster.block_rank()) * per_block;
    for (int b = threadIdx.x; b < per_block && first + b < bins; b += blockDim.x) atomicAdd(&histogram[first + b], pair_bins[b]);
}

// A private histogram per block in a __shared__ array, merged at the end; with
// @p one_bin_too_many the bins run one past the array.
constexpr int kPrivateBins = 64;
__global__ void private_histogram_planted(const unsigned* values, int n, unsigned long long* histogram, bool one_bin_too_many) {
    __shared__ unsigned long long counts[kPrivateBins];
    cg::thread_block block = cg::this_thread_block();
    for (int b = block.thread_rank(); b < kPrivateBins; b += block.size()) counts[b] = 0;
    block.sync();
    const unsigned bins = one_bin_too_many ? kPrivateBins + 1 : kPrivateBins;
    for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(counts + values[i] % bins, 1ull);
    }
    block.sync();
    for (int b = block.thread_rank(); b < kPrivateBins; b += block.size()) atomicAdd(&histogram[b], counts[b]);
}

// Pairs of blocks: each thread reads the word of the other block of its pair, by a plain
// load through map_shared_rank(); without the final cluster.sync() a block may exit first.
__global__ void __cluster_dims__(2, 1, 1) neighbour_read_planted(unsigned* out, bool final_barrier) {
    __shared__ unsigned word[32];
    cg::cluster_group cluster = cg::this_cluster();
    word[threadIdx.x] = blockIdx.x * 32 + threadIdx.x;
    cluster.sync();
    unsigned* other = cluster.map_shared_rank(word, cluster.block_rank() ^ 1);
    out[blockIdx.x * 32 + threadIdx.x] = other[threadIdx.x];
    if (final_barrier) cluster.sync();
}

// Asynchronous copies inside a cluster: each block stages its 32 inputs with cp.async,
// then reads its own copy and its pair block's.
__global__ void __cluster_dims__(2, 1, 1) staged_pair_sum_planted(const unsigned* in, unsigned* out, bool wait) {
    __shared__ unsigned staged[32];
    cg::cluster_group cluster = cg::this_cluster();
    __pipeline_memcpy_async(&staged[threadIdx.x], &in[blockIdx.x * 32 + threadIdx.x], sizeof(unsigned));
    __pipeline_commit();
    if (wait) __pipeline_wait_prior(0);
    cluster.sync();
    const unsigned* pair = cluster.map_shared_rank(staged, cluster.block_rank() ^ 1);
    out[blockIdx.x * 32 + threadIdx.x] = staged[threadIdx.x] + 2 * pair[threadIdx.x];
    cluster.sync();
}

// The same, each block reading only its pair block's copy: without the wait, that read
// reaches bytes the pair's copies have yet to write.
__global__ void __cluster_dims__(2, 1, 1) staged_pair_read_planted(const unsigned* in, unsigned* out, bool wait) {
    __shared__ unsigned staged[32];
    cg::cluster_group cluster = cg::this_cluster();
    __pipeline_memcpy_async(&staged[threadIdx.x], &in[blockIdx.x * 32 + threadIdx.x], sizeof(unsigned));  // for the pair
    __pipeline_commit();
    if (wait) __pipeline_wait_prior(0);
    cluster.sync();
    const unsigned* pair_copy = cluster.map_shared_rank(staged, cluster.block_rank() ^ 1);
    out[blockIdx.x * 32 + threadIdx.x] = pair_copy[threadIdx.x];
    cluster.sync();
}

}  // namespace

template <class Count>
cudaError_t cluster_histogram(const unsigned* values, int n, Count* histogram, int bins, unsigned cluster_size,
                              unsigned clusters, ClusterBug bug, bool non_portable) {
    CUDA_CHECK(cudaFuncSetAttribute(cluster_histogram_planted<Count>, cudaFuncAttributeNonPortableClusterSizeAllowed,
                                    non_portable ? 1 : 0));
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(cluster_size * clusters);
    config.blockDim = dim3(128);
    config.dynamicSmemBytes = (bins + cluster_size - 1) / cluster_size * sizeof(Count);
    cudaLaunchAttribute attributes[1];
    attributes[0].id = cudaLaunchAttributeClusterDimension;
    attributes[0].val.clusterDim.x = cluster_size;
    attributes[0].val.clusterDim.y = 1;
    attributes[0].val.clusterDim.z = 1;
    config.attrs = attributes;
    config.numAttrs = 1;
    const cudaError_t launched = cudaLaunchKernelEx(&config, cluster_histogram_planted<Count>, values, n, histogram, bins, bug);
    if (launched != cudaSuccess) {
        (void)cudaGetLastError();  // the test reads the launch's own result
        return launched;
    }
    CUDA_CHECK_KERNEL("cluster_histogram_planted");
    return cudaSuccess;
}
template cudaError_t cluster_histogram<unsigned>(const unsigned*, int, unsigned*, int, unsigned, unsigned, ClusterBug, bool);
template cudaError_t cluster_histogram<unsigned long long>(const unsigned*, int, unsigned long long*, int, unsigned, unsigned,
                                                           ClusterBug, bool);

namespace {
// Launch @p kernel in clusters of 2 blocks of 128 threads: the kernel is a parameter here,
// as in chapter 9's host code, so cudaLaunchKernelEx's text is "kernel".
cudaError_t launch_in_pairs(void (*kernel)(const unsigned*, int, unsigned*, int, ClusterBug), unsigned clusters,
                            int bins, const unsigned* values, int n, unsigned* histogram, ClusterBug bug) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(2 * clusters);
    config.blockDim = dim3(128);
    config.dynamicSmemBytes = (bins + 1) / 2 * sizeof(unsigned);
    cudaLaunchAttribute attributes[1];
    attributes[0].id = cudaLaunchAttributeClusterDimension;
    attributes[0].val.clusterDim.x = 2;
    attributes[0].val.clusterDim.y = 1;
    attributes[0].val.clusterDim.z = 1;
    config.attrs = attributes;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, kernel, values, n, histogram, bins, bug);
}
}  // namespace

cudaError_t cluster_histogram_through_pointer(const unsigned* values, int n, unsigned* histogram, int bins,
                                              unsigned clusters, ClusterBug bug) {
    const cudaError_t launched = launch_in_pairs(cluster_histogram_planted<unsigned>, clusters, bins, values, n, histogram, bug);
    if (launched != cudaSuccess) {
        (void)cudaGetLastError();  // the test reads the launch's own result
        return launched;
    }
    CUDA_CHECK_KERNEL("cluster_histogram_planted");
    return cudaSuccess;
}

namespace {
// Each block counts into its own slice of `slice_counts`, at the value's offset from the
// block's first bin, computed with the block's place in the grid in unsigned arithmetic:
// from the second block on, the offset of a value below its first bin wraps around.
__global__ void slice_offset_planted(const unsigned* values, int n, unsigned* histogram) {
    extern __shared__ unsigned slice_counts[];
    constexpr unsigned kSlice = 64;
    slice_counts[threadIdx.x % kSlice] = 0;
    __syncthreads();
    for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) {
        atomicAdd(&slice_counts[values[i] % kSlice - blockIdx.x * kSlice], 1u);
    }
    __syncthreads();
    if (threadIdx.x < kSlice) atomicAdd(&histogram[threadIdx.x], slice_counts[threadIdx.x]);
}
}  // namespace

void slice_offset(const unsigned* values, int n, unsigned* histogram) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(2);
    config.blockDim = dim3(64);
    config.dynamicSmemBytes = 64 * sizeof(unsigned);
    CUDA_CHECK(cudaLaunchKernelEx(&config, slice_offset_planted, values, n, histogram));
    CUDA_CHECK_KERNEL("slice_offset_planted");
}

void pair_histogram(const unsigned* values, int n, unsigned* histogram, int bins, unsigned blocks) {
    pair_histogram_planted<<<blocks, 96, (bins + 1) / 2 * sizeof(unsigned)>>>(values, n, histogram, bins);
    CUDA_CHECK_KERNEL("pair_histogram_planted");
}

void private_histogram(const unsigned* values, int n, unsigned long long* histogram, bool one_bin_too_many) {
    private_histogram_planted<<<3, 256>>>(values, n, histogram, one_bin_too_many);
    CUDA_CHECK_KERNEL("private_histogram_planted");
}

void staged_pair_sum(const unsigned* in, unsigned* out, unsigned blocks, bool wait) {
    staged_pair_sum_planted<<<blocks, 32>>>(in, out, wait);
    CUDA_CHECK_KERNEL("staged_pair_sum_planted");
}

void staged_pair_read(const unsigned* in, unsigned* out, unsigned blocks, bool wait) {
    staged_pair_read_planted<<<blocks, 32>>>(in, out, wait);
    CUDA_CHECK_KERNEL("staged_pair_read_planted");
}

void neighbour_read(unsigned* out, unsigned blocks, bool final_barrier) {
    neighbour_read_planted<<<blocks, 32>>>(out, final_barrier);
    CUDA_CHECK_KERNEL("neighbour_read_planted");
}

int max_active_clusters(unsigned cluster_size) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(cluster_size);
    config.blockDim = dim3(128);
    config.dynamicSmemBytes = 1024;
    cudaLaunchAttribute attribute;
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = cluster_size;
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    int clusters = -1;
    CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, cluster_histogram_planted<unsigned>, &config));
    return clusters;
}

}  // namespace planted
