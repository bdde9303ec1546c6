/// @file histogram.h
/// @brief Chapter 9's API: the histogram of 8-bit or 16-bit samples, by one global atomic
/// per sample (9a), by a private histogram per block in shared memory merged at the end
/// (9b), and by a histogram spread over the distributed shared memory of a thread block
/// cluster (9c, sm_90 and later), whose blocks exchange samples instead of atomics (9d).
///
/// Shared by your chapters/09-histogram/histogram.cu, the reference solution, the tests
/// and the benchmark. You do not need to edit it.
///
/// Every function counts sample value v in bin v: bins[v] = how many of the n samples
/// equal v, for v < num_bins. A sample whose value is num_bins or more falls outside
/// every bin and is not counted (as cub::DeviceHistogram::HistogramEven drops samples
/// outside its range). The bins are overwritten, not added to.
#pragma once

#include "launch_config.h"

#include <cstddef>
#include <cstdint>
#include <string>

/// @brief Threads per block of 9a and 9b: 16 warps.
constexpr int kHistogramBlock = 512;

/// @brief The most blocks 9b launches: 396, three blocks of 512 threads (and 32 KB of
/// copies each) on each of the 132 SMs of an H100 or H200, where four would fit (0.75 waves). Each block merges its whole private histogram
/// into the global one at the end, so more blocks mean more merging; and a grid of 1.1
/// waves (1024 blocks of 256 threads) leaves most SMs idle while its last blocks run: on an
/// H200 (one measurement) it read at 74% of copy bandwidth, against 87% for 396 blocks of 512. With
/// more samples each thread goes round its grid-stride loop more often.
constexpr int kHistogramMaxBlocks = 396;

/// @brief The most bins 9b's private histograms hold, all copies together: 12288 32-bit
/// counts are 48 KB, the shared memory a block gets without opting in to more.
constexpr int kSharedMaxBins = 12288;

/// @brief The most copies of its histogram a 9b block keeps: one per lane of a warp, so
/// that no two lanes of a warp count into the same word or the same bank.
constexpr int kHistogramMaxReplicas = 32;

/// @brief The most bins of any histogram here: one per 16-bit value.
constexpr int kMaxBins = 65536;

/// @brief Blocks per cluster in 9c and 9d: 2, the fewest whose shared memories hold 2^16
/// bins of 4 bytes (256 KB; one block may have at most 227 KB on an H100), 128 KB each.
/// On an H100 (one measurement, 2^27 uniform 16-bit samples) 9c took 0.83 ms with clusters
/// of 2, 1.71 ms with 4, 1.76 ms with 8 and 1.91 ms with 16: every sample another block
/// owns costs a remote atomic, 1 in 2 of them with 2 blocks, 7 in 8 with 8.
constexpr int kClusterSize = 2;

/// @brief Threads per block of 9c and 9d: 32 warps, the most one SM holds beside a
/// 128 KB slice (one such block fits in an SM's shared memory).
constexpr int kClusterBlock = 1024;

/// @brief The most clusters 9c and 9d launch: 66 × 2 = 132 blocks, one per SM of an
/// H100 or H200 (the 128 KB slice leaves room for one block per SM). Each cluster merges
/// every bin once at the end, so more clusters mean more merging: two waves (264 blocks)
/// took 6% longer in one measurement.
constexpr int kClusterMaxClusters = 66;

/// @brief The uint4 of samples (8 each) a 9d block stages per round: two per thread.
/// Two such tiles take turns (64 KB), beside the 128 KB slice. One per thread took 28%
/// longer on an H100 (one measurement): twice the rounds, twice the cluster barriers.
constexpr int kExchangeTile = 2 * kClusterBlock;

/// @brief Blocks 9b launches for @p n samples of @p sample_bytes bytes: one per
/// 16-byte load per thread, at least 1, at most kHistogramMaxBlocks.
int histogram_shared_blocks(std::size_t n, int sample_bytes);

/// @brief Copies of its histogram each 9b block keeps for @p num_bins bins: the largest
/// power of two up to kHistogramMaxReplicas whose copies fit in kSharedMaxBins counts (32
/// for 256 bins, 1 for 12288).
int histogram_shared_replicas(int num_bins);

/// @brief Clusters 9c launches for @p n 16-bit samples: one per 16-byte load per thread
/// of its kClusterSize blocks, at least 1, at most kClusterMaxClusters.
int histogram_cluster_clusters(std::size_t n);

/// @brief Clusters 9d launches for @p n 16-bit samples: one per kExchangeTile uint4 per
/// block of its kClusterSize blocks, at least 1, at most kClusterMaxClusters.
int histogram_exchange_clusters(std::size_t n);

/// @brief Bins each block of a cluster owns in 9c: ⌈num_bins / kClusterSize⌉. Block rank r
/// owns bins r · slice … (r + 1) · slice − 1 (the last block's slice may reach past
/// num_bins: those counts are never used).
inline int cluster_slice(int num_bins) { return (num_bins + kClusterSize - 1) / kClusterSize; }

/// @brief True when this device can launch 9c's and 9d's clusters: compute capability 9.0 or
/// later (the CPU backend always can). Sets @p why to the reason when it cannot.
bool cluster_launch_supported(std::string* why = nullptr);

/// @brief bins[v] = how many of input[0 … n − 1] equal v, for v < num_bins; one
/// atomicAdd in global memory per sample.
/// @param input    device pointer to @p n samples, at any address (null allowed when n = 0)
/// @param n        samples, ≥ 0
/// @param bins     device pointer to @p num_bins counts, overwritten
/// @param num_bins bins, 1 … 256 for 8-bit samples
/// @throws std::invalid_argument naming the argument for a bad num_bins or a null pointer
/// @throws tutorial::CudaError if a launch or a kernel fails
void histogram_global(const std::uint8_t* input, std::size_t n, unsigned int* bins, int num_bins);

/// @brief The same for 16-bit samples, num_bins 1 … 65536.
void histogram_global(const std::uint16_t* input, std::size_t n, unsigned int* bins, int num_bins);

/// @brief The same histogram by histogram_shared_blocks(n) blocks, each counting a
/// grid-stride share of the input (16 bytes at a time) into a private histogram in
/// shared memory with shared atomics, then adding its non-zero counts to the bins with
/// one global atomicAdd each. Same arguments, result and errors as histogram_global().
void histogram_shared(const std::uint8_t* input, std::size_t n, unsigned int* bins, int num_bins);

/// @brief The same for 16-bit samples, num_bins 1 … kSharedMaxBins.
void histogram_shared(const std::uint16_t* input, std::size_t n, unsigned int* bins, int num_bins);

/// @brief The same histogram by clusters of kClusterSize blocks whose shared memories
/// together hold it: block rank r of a cluster owns cluster_slice(num_bins) bins, every
/// block counts its samples into the owner's bins through distributed shared memory, and
/// each block adds its own slice to the bins at the end. num_bins 1 … 65536.
/// @throws std::invalid_argument naming the argument for a bad num_bins or a null pointer
/// @throws std::runtime_error on a GPU before compute capability 9.0, saying so
/// @throws tutorial::CudaError if a launch or a kernel fails
void histogram_cluster(const std::uint16_t* input, std::size_t n, unsigned int* bins, int num_bins);

/// @brief The same histogram by clusters of kClusterSize blocks that exchange samples
/// rather than atomics: each round every block stages kExchangeTile uint4 of samples in
/// its shared memory, then reads every block's tile through distributed shared memory and
/// counts only the samples whose bins it owns (cluster_slice(num_bins) of them, as 9c),
/// with shared atomics on its own memory. Same arguments, result and errors as
/// histogram_cluster().
void histogram_exchange(const std::uint16_t* input, std::size_t n, unsigned int* bins, int num_bins);
