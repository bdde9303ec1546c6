// The worker threads that run a grid's blocks. They start with the first launch and live
// as long as the process; each launch hands them the grid and waits until all are done.
#include "block.h"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace emu {
namespace detail {
namespace {

class Pool {
public:
    void run(GridState& grid, unsigned workers) {
        std::unique_lock<std::mutex> lock(mutex_);
        while (threads_started_ < worker_count()) {
            std::thread(&Pool::loop, this, threads_started_++).detach();
        }
        job_ = &grid;
        job_workers_ = std::max(1u, std::min(workers, worker_count()));
        busy_ = job_workers_;
        ++generation_;
        wake_.notify_all();
        done_.wait(lock, [&] { return busy_ == 0; });
        job_ = nullptr;
    }

private:
    void loop(unsigned id) {
        std::uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return generation_ != seen; });
            seen = generation_;
            if (id >= job_workers_) continue;
            GridState* grid = job_;
            lock.unlock();
            work(*grid);
            lock.lock();
            if (--busy_ == 0) done_.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_, done_;
    unsigned threads_started_ = 0;
    std::uint64_t generation_ = 0;
    GridState* job_ = nullptr;
    unsigned job_workers_ = 0;
    unsigned busy_ = 0;
};

Pool& pool() {
    static Pool* p = new Pool;  // its threads live until the process ends
    return *p;
}

}  // namespace

void run_on_workers(GridState& grid, unsigned workers) { pool().run(grid, workers); }

}  // namespace detail
}  // namespace emu
