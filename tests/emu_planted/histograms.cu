// Histograms whose bins are updated by a plain read-modify-write (`bins[v] += 1`) instead
// of an atomic, in __shared__ and in global memory. On the CPU backend the threads of a
// block run one at a time, so no count is lost in any order; the race detector
// (emu/src/races.cpp) must name the update. The correct twin uses atomicAdd, and its
// threads also all store the same value to a flag, which is no lost update.
#include "planted.h"

#include "cuda_check.h"

#include <stdexcept>

namespace planted {
namespace {

constexpr int kMaxBins = 128;

__global__ void block_histogram_planted(const unsigned* values, int n, unsigned* histogram, int bins, unsigned* saw_zero,
                                        HistogramBug bug) {
    __shared__ unsigned s_bins[kMaxBins];
    __shared__ unsigned s_saw_zero;
    if (threadIdx.x == 0) s_saw_zero = 0;
    for (int b = threadIdx.x; b < bins; b += blockDim.x) s_bins[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        const unsigned v = values[i] % static_cast<unsigned>(bins);
        if (v == 0) s_saw_zero = 1;  // every writer stores the same value: no update is lost
        if (bug == HistogramBug::shared_plain_increment) {
            s_bins[v]++;
        } else if (bug == HistogramBug::global_plain_add) {
            histogram[v] += 1;
        } else {
            atomicAdd(&s_bins[v], 1u);
        }
    }
    __syncthreads();
    if (bug == HistogramBug::global_plain_add) return;
    for (int b = threadIdx.x; b < bins; b += blockDim.x) atomicAdd(&histogram[b], s_bins[b]);
    if (threadIdx.x == 0 && s_saw_zero != 0) atomicOr(saw_zero, 1u);
}

}  // namespace

void block_histogram(const unsigned* values, int n, unsigned* histogram, int bins, unsigned* saw_zero, unsigned blocks,
                     unsigned threads, HistogramBug bug) {
    if (bins < 1 || bins > kMaxBins) throw std::invalid_argument("block_histogram: bins must be in [1, 128]");
    block_histogram_planted<<<blocks, threads>>>(values, n, histogram, bins, saw_zero, bug);
    CUDA_CHECK_KERNEL("block_histogram_planted");
}

}  // namespace planted
