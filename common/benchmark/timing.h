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

/// @brief Evicts the GPU's L2 cache by writing a buffer larger than it.
///
/// Without a flush, a repetition finds the previous one's data in L2 and runs faster
/// than a first call would: a 1024² GEMM's 12 MiB of inputs fit in a 50 MiB L2.
///
/// The flush writes rather than reads on purpose. It leaves L2 full of dirty lines,
/// whose write-back the timed run pays for while it evicts them, just as a run pays
/// for its predecessor's output when runs follow each other. A flush that only read
/// would write back the previous run's output before the timer starts, and let a
/// bandwidth-bound kernel leave up to an L2 of its own output unwritten when it stops:
/// its effective bandwidth would come out too high.
class L2Flush {
public:
    /// @param l2_bytes the L2 size, from cudaDeviceProp::l2CacheSize; the buffer
    ///                 written is twice that, and at least 64 MiB
    explicit L2Flush(std::size_t l2_bytes);

    /// @brief Enqueue the flush (a cudaMemsetAsync) on the default stream.
    void operator()();

    /// @brief The size of the buffer written by each flush.
    std::size_t bytes() const { return buffer_.bytes(); }

private:
    DeviceBuffer<unsigned char> buffer_;
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

/// @brief Time @p work, which enqueues GPU work (kernel launches, copies) on the
/// default stream.
///
/// Each run, warm-up or timed, is preceded by an L2 flush outside the timed interval
/// and bracketed by a pair of CUDA events. The timed runs are enqueued back to back
/// with synchronous kernel checks off; one checked cudaDeviceSynchronize() after the
/// loop reports any error a run caused. The flush also keeps the GPU busy while the
/// host enqueues the next run, so host launch overhead stays out of the timings.
/// @throws tutorial::CudaError if the work or the timing fails
/// @brief Time host code (a CPU baseline) with std::chrono::steady_clock.
///
/// No L2 flush and no adaptive count: CPU baselines take seconds, so a few runs are
/// enough, and their caches are the CPU's, which the flush does not touch.
/// @param work        one run, finished when it returns
/// @param warmups     untimed runs first (thread pools starting, pages faulting in)
/// @param repetitions timed runs, at least 1
Timing time_cpu_work(const std::function<void()>& work, int warmups, int repetitions);

Timing time_gpu_work(const std::function<void()>& work, L2Flush& flush, const TimingPlan& plan = TimingPlan{});

}  // namespace tutorial::benchmark
