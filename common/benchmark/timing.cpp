#include "timing.h"

#include "cuda_check.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace tutorial::benchmark {

namespace {

// One CUDA event, destroyed with its owner.
class Event {
public:
    Event() { CUDA_CHECK(cudaEventCreate(&event_)); }
    ~Event() {
        if (event_ != nullptr) cudaEventDestroy(event_);
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event(Event&& other) noexcept : event_(other.event_) { other.event_ = nullptr; }
    Event& operator=(Event&&) = delete;

    void record() { CUDA_CHECK(cudaEventRecord(event_, 0)); }
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

double elapsed_ms(const Event& start, const Event& stop) {
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return ms;
}

}  // namespace

SynchronousKernelChecksOff::SynchronousKernelChecksOff() : previous_(synchronous_kernel_checks()) {
    set_synchronous_kernel_checks(false);
}

SynchronousKernelChecksOff::~SynchronousKernelChecksOff() { set_synchronous_kernel_checks(previous_); }

Timing time_gpu_work(const std::function<void()>& work, L2Flush& flush, std::size_t bytes_written,
                     const TimingPlan& plan) {
    SynchronousKernelChecksOff no_sync_per_launch;

    // Warm-up: the first launch of a kernel loads its module (CUDA loads lazily) and
    // the GPU may still be raising its clocks. The last warm-up's time sizes the run.
    double warmup_ms = 0.0;
    for (int i = 0; i < std::max(plan.warmups, 1); ++i) {
        Event start, stop;
        flush(bytes_written);
        start.record();
        work();
        stop.record();
        CUDA_CHECK(cudaDeviceSynchronize());
        warmup_ms = elapsed_ms(start, stop);
    }
    const double wanted = plan.target_ms / std::max(warmup_ms, 1e-3);
    const int repetitions =
        static_cast<int>(std::clamp(std::ceil(wanted), double(plan.min_repetitions), double(plan.max_repetitions)));

    std::vector<Event> starts(repetitions), stops(repetitions);
    for (int i = 0; i < repetitions; ++i) {
        flush(bytes_written);
        starts[i].record();
        work();
        stops[i].record();
    }
    // One checked synchronisation for the whole loop: an error in any run surfaces here.
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaGetLastError());

    std::vector<double> samples(repetitions);
    for (int i = 0; i < repetitions; ++i) {
        samples[i] = elapsed_ms(starts[i], stops[i]);
    }
    return summarize(samples);
}

Timing time_cpu_work(const std::function<void()>& work, int warmups, int repetitions) {
    for (int i = 0; i < warmups; ++i) work();
    std::vector<double> samples;
    for (int i = 0; i < std::max(repetitions, 1); ++i) {
        const auto start = std::chrono::steady_clock::now();
        work();
        samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    return summarize(samples);
}

}  // namespace tutorial::benchmark
