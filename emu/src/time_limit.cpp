// The time limit of a grid run (EMU_TIMEOUT, default 20 s).
//
// A watchdog thread waits for each run's deadline. Past it, it sets time_is_up, which
// every checked memory access, barrier and warp primitive tests: the CUDA thread that
// sees it throws, its block stops, and the launch fails with cudaErrorLaunchTimeout and a
// message saying where the block's threads were. A thread looping without any of those
// never looks; if the run has not ended some seconds later, the watchdog names the
// kernel and what the workers were running, and ends the program.
#include "block.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <thread>

namespace emu {
namespace detail {

std::atomic<bool> time_is_up{false};

namespace {

using Clock = std::chrono::steady_clock;

struct Watch {
    std::mutex mutex;
    std::condition_variable changed;
    bool armed = false;
    std::uint64_t generation = 0;
    Clock::time_point deadline;
    double seconds = 0;
    std::string kernel;  // as launched, with its launch site
    dim3 grid, block;
    std::vector<Worker*> workers;
};

Watch& watch() {
    static Watch* w = new Watch;  // the watchdog uses it until the process ends
    return *w;
}

// The last resort: threads that never look at time_is_up cannot be stopped.
[[noreturn]] void give_up(Watch& w, double late) {
    std::ostringstream out;
    out << "\nCPU backend: " << w.kernel << " is still running " << late << " s after its time limit of " << w.seconds
        << " s, in code that makes no checked memory access, no barrier and no warp primitive (a loop whose condition "
           "never changes?), so the kernel cannot be stopped. Its threads being run were:";
    for (const Worker* worker : w.workers) {
        const unsigned long long block = worker->running_block.load(std::memory_order_relaxed);
        if (block == 0) continue;
        const unsigned long long linear = block - 1;
        const std::size_t t = worker->running_thread.load(std::memory_order_relaxed);
        const uint3 b{static_cast<unsigned>(linear % w.grid.x), static_cast<unsigned>(linear / w.grid.x % w.grid.y),
                      static_cast<unsigned>(linear / (static_cast<unsigned long long>(w.grid.x) * w.grid.y))};
        const uint3 thread{static_cast<unsigned>(t % w.block.x), static_cast<unsigned>(t / w.block.x % w.block.y),
                           static_cast<unsigned>(t / (w.block.x * w.block.y))};
        out << "\n  thread " << coordinates(thread) << " of block " << coordinates(b);
    }
    out << "\nThe program stops here (exit code 124). TIMEOUT=seconds sets the time limit.\n";
    const std::string text = out.str();
    std::fflush(stdout);
    const ssize_t ignored = write(STDERR_FILENO, text.data(), text.size());
    (void)ignored;
    std::_Exit(124);
}

void watchdog() {
    Watch& w = watch();
    std::unique_lock<std::mutex> lock(w.mutex);
    for (;;) {
        w.changed.wait(lock, [&] { return w.armed; });
        const std::uint64_t generation = w.generation;
        auto over = [&] { return !w.armed || w.generation != generation; };
        if (w.changed.wait_until(lock, w.deadline, over)) continue;
        time_is_up.store(true);
        // Threads that make checked accesses stop within moments; give the others time.
        const double grace = std::min(std::max(w.seconds, 1.0), 5.0);
        const auto last = w.deadline + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace));
        if (!w.changed.wait_until(lock, last, over)) give_up(w, grace);
    }
}

}  // namespace

void register_worker(Worker& worker) {
    Watch& w = watch();
    std::lock_guard<std::mutex> lock(w.mutex);
    w.workers.push_back(&worker);
}

TimeLimit::TimeLimit(const GridRun& run) {
    const double seconds = time_limit_seconds();
    if (seconds <= 0) return;
    static std::once_flag started;
    std::call_once(started, [] { std::thread(&watchdog).detach(); });
    Watch& w = watch();
    std::lock_guard<std::mutex> lock(w.mutex);
    w.armed = true;
    ++w.generation;
    w.seconds = seconds;
    w.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    w.kernel = run.kernel_text + " (launched at " + run.launch_site + ")";
    w.grid = run.request->grid;
    w.block = run.request->block;
    w.changed.notify_all();
}

TimeLimit::~TimeLimit() {
    Watch& w = watch();
    std::lock_guard<std::mutex> lock(w.mutex);
    w.armed = false;
    time_is_up.store(false);
    w.changed.notify_all();
}

void stop_at_time_limit(const char* file, int line) {
    const BlockRun& b = block_or_die("the time limit");
    throw KernelFault{cudaErrorLaunchTimeout, time_limit_message(b, time_limit_seconds(), file, line)};
}

}  // namespace detail
}  // namespace emu
