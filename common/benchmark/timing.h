/// @file timing.h
/// @brief Time GPU work with CUDA events: warm-up runs, then repetitions, each with a
/// cold L2 cache, summarised by their median and spread.
///
/// Part of the benchmark harness (common/benchmark/), which only the benchmarks link:
/// it needs a real GPU, and cuBLAS for the GEMM ceiling.
#pragma once

#include "device_buffer.h"
#include "non_copyable.h"
#include "report.h"

#include <cstddef>
#include <functional>

namespace tutorial::benchmark {

/// @brief How many times to run the work.
///
/// The number of timed repetitions adapts to the work: enough of them to fill about
/// @ref target_ms of GPU time, but never fewer than @ref min_repetitions nor more than
/// @ref max_repetitions, so a slow student kernel still finishes in seconds.
struct TimingPlan {
    int warmups = 2;            ///< untimed runs first: module loading, clocks ramping up
    int min_repetitions = 7;    ///< odd, so the median is one of the samples
    int max_repetitions = 51;   ///< the most repetitions, for very short work
    double target_ms = 300.0;   ///< aim for about this much timed GPU work in total
};

/// @brief Evicts the GPU's L2 cache before a timed run, and leaves in it the dirty lines
/// the run would find after a run of its own.
///
/// Without a flush, a repetition finds the previous one's data in L2 and runs faster
/// than a first call would: a 1024² GEMM's 12 MiB of inputs fit in a 50 MiB L2.
///
/// A flush happens in two parts. First a kernel reads a buffer twice the size of L2,
/// which evicts everything there and writes back what was dirty (the previous run's
/// output) before the timer starts: L2 then holds only clean lines. Then a memset writes
/// as many bytes as the timed work writes, up to the size of L2: dirty lines whose
/// write-back the run pays for while it evicts them, just as it would pay for its own
/// predecessor's output when runs follow each other. A flush that left L2 clean would let
/// a bandwidth-bound kernel leave up to an L2 of its own output unwritten when it stops,
/// and its effective bandwidth would come out too high; one that left a whole L2 dirty
/// (a memset of the whole buffer, this harness's flush until 2026-11-30) would charge a
/// kernel that writes little, a histogram or a reduction, for up to an L2 of write-back
/// that is not its own.
class L2Flush {
public:
    /// @param l2_bytes the L2 size, from cudaDeviceProp::l2CacheSize; the buffer read is
    ///                 twice that, and at least 64 MiB; the one written at most that, and
    ///                 at least 32 MiB
    explicit L2Flush(std::size_t l2_bytes);

    /// @brief Enqueue the flush on the default stream: the read of the whole eviction
    /// buffer, then a memset of min(@p bytes_written, its dirty buffer) bytes.
    /// @param bytes_written the bytes the timed work writes to global memory in one run
    void operator()(std::size_t bytes_written);

    /// @brief The size of the buffer each flush reads.
    std::size_t bytes() const { return evict_.bytes(); }

    /// @brief The most bytes a flush leaves dirty.
    std::size_t dirty_bytes() const { return dirty_.bytes(); }

private:
    DeviceBuffer<unsigned char> evict_;  // zeros, written once: its lines in L2 are never dirty
    DeviceBuffer<unsigned char> dirty_;  // written by each flush, as much as the work writes
    DeviceBuffer<unsigned> sink_;        // where the eviction kernel would write a nonzero byte (never)
};

/// @brief Switches tutorial::set_synchronous_kernel_checks off for its lifetime and
/// restores the previous setting afterwards, even when an exception leaves the scope.
///
/// Timed loops run with it: a host synchronisation after every launch would leave the
/// GPU idle between launches and add the round trip to every timing.
class SynchronousKernelChecksOff : NonCopyable {
public:
    SynchronousKernelChecksOff();
    ~SynchronousKernelChecksOff();

private:
    bool previous_;
};

/// @brief Time host code (a CPU baseline) with std::chrono::steady_clock.
///
/// No L2 flush and no adaptive count: CPU baselines take seconds, so a few runs are
/// enough, and their caches are the CPU's, which the flush does not touch.
/// @param work        one run, finished when it returns
/// @param warmups     untimed runs first (thread pools starting, pages faulting in)
/// @param repetitions timed runs, at least 1
Timing time_cpu_work(const std::function<void()>& work, int warmups, int repetitions);

/// @brief Time @p work, which enqueues GPU work (kernel launches, copies) on the
/// default stream.
///
/// Each run, warm-up or timed, is preceded by an L2 flush outside the timed interval
/// and bracketed by a pair of CUDA events. The timed runs are enqueued back to back
/// with synchronous kernel checks off; one checked cudaDeviceSynchronize() after the
/// loop reports any error a run caused. The flush also keeps the GPU busy while the
/// host enqueues the next run, so host launch overhead stays out of the timings.
/// @param bytes_written what one run writes to global memory: the flush leaves that much
///                      of L2 dirty (L2Flush)
/// @throws tutorial::CudaError if the work or the timing fails
Timing time_gpu_work(const std::function<void()>& work, L2Flush& flush, std::size_t bytes_written,
                     const TimingPlan& plan = TimingPlan{});

}  // namespace tutorial::benchmark
