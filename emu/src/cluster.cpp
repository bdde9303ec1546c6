// Thread block clusters on the CPU backend (compute capability 9.0).
//
// The blocks of a cluster are resident together on a GPU, and may wait for each other at
// cluster.sync() and use each other's shared memory (distributed shared memory). Here the
// blocks of one cluster run on one worker thread, all their CUDA threads as fibers of one
// scheduler: a round runs the blocks in the schedule's order (forward, reverse, random),
// each block's threads in the schedule's order, until every thread waits or has returned;
// then warp primitives complete, a block whose threads all wait at one __syncthreads()
// goes on, and when every thread of every block waits at the same cluster.sync() they all
// go on together. The order check thus also reorders the blocks of a cluster, so that a
// missing cluster.sync() changes results.
//
// A block's shared memory stays in place until the whole cluster is done; what a GPU
// would not allow is reported: another block's shared memory used before the first
// cluster.sync() (it may not have started), or after its owner returned (it is gone), a
// rank outside the cluster, a cluster.sync() that not every thread reaches, and launches
// the GPU refuses (a grid that is not a multiple of the cluster, more than 8 blocks per
// cluster without cudaFuncAttributeNonPortableClusterSizeAllowed, more than 16).
#include "block.h"
#include "traffic_hooks.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <cstring>
#include <sstream>

namespace emu {
namespace detail {
namespace {

// During a launch's probe (cluster_dims_of): where kernel_entered() puts the kernel's
// __cluster_dims__, before it stops the kernel by throwing ProbeDone.
thread_local dim3* probing = nullptr;
thread_local const char* probed_signature = nullptr;
struct ProbeDone {};

unsigned long long volume(dim3 d) { return static_cast<unsigned long long>(d.x) * d.y * d.z; }

std::string shape(dim3 d) { return std::to_string(d.x) + " x " + std::to_string(d.y) + " x " + std::to_string(d.z); }

// "block (1,0,0) (rank 1 of the cluster)".
std::string block_name(const BlockRun& b) {
    return "block " + coordinates(b.index) + " (rank " + std::to_string(b.cluster_rank) + " of its cluster)";
}

// Switch the worker thread to block @p b: its coordinates, its shared memory.
void enter(Worker& w, BlockRun& b) {
    current_block = &b;
    blockIdx = b.index;
    w.running_block.store(b.linear + 1, std::memory_order_relaxed);
    async_enter_block(b);
}

// The message for a cluster whose threads cannot all go on: some wait at a cluster.sync()
// while others wait elsewhere or have returned.
std::string cluster_divergence_message(const ClusterRun& c) {
    std::ostringstream out;
    out << "divergent cluster.sync() in " << running_kernel() << ", cluster " << coordinates(c.index) << " ("
        << c.blocks.size() << " blocks): every thread of every block of a cluster must reach the same cluster.sync(), but";
    for (const BlockRun* b : c.blocks) {
        struct Group {
            Status status;
            const char* file;
            int line;
            std::size_t threads;
            uint3 first;
            std::size_t first_thread;  ///< its position in the block's threads
        };
        std::vector<Group> groups;
        for (std::size_t i = 0; i < b->thread_count; ++i) {
            const ThreadState& t = b->threads[i];
            const bool waits = t.status == Status::AtBarrier || t.status == Status::AtClusterBarrier ||
                               t.status == Status::AtWarp || t.status == Status::AtAsync;
            auto same = [&](const Group& g) {
                return g.status == t.status && (!waits || (g.line == t.line && std::strcmp(g.file, t.file) == 0));
            };
            auto found = std::find_if(groups.begin(), groups.end(), same);
            if (found == groups.end()) {
                groups.push_back(Group{t.status, waits ? t.file : nullptr, waits ? t.line : 0, 1, t.index, i});
            } else {
                ++found->threads;
            }
        }
        out << "\n  in " << block_name(*b) << ":";
        for (const Group& g : groups) {
            out << "\n    " << g.threads << (g.threads == 1 ? " thread " : " threads ");
            switch (g.status) {
                case Status::AtClusterBarrier: out << (g.threads == 1 ? "waits" : "wait") << " at cluster.sync() at "; break;
                case Status::AtBarrier: out << (g.threads == 1 ? "waits" : "wait") << " at __syncthreads() at "; break;
                case Status::AtWarp: out << (g.threads == 1 ? "waits" : "wait") << " at a warp primitive at "; break;
                case Status::AtAsync:
                    out << (g.threads == 1 ? "waits" : "wait") << " at " << waiting_call(*b, b->threads[g.first_thread]) << " at ";
                    break;
                default: out << (g.threads == 1 ? "has" : "have") << " finished the kernel"; break;
            }
            if (g.file != nullptr) out << g.file << ":" << g.line;
            out << " (the first is thread " << coordinates(g.first) << ")";
        }
    }
    out << "\n  A cluster.sync() inside an `if` that not every thread (or not every block) takes, or a `return` "
           "before it, does this. Keep cluster barriers where all threads of all blocks of the cluster reach them.";
    return out.str();
}

// Fault @p b with @p code and @p message (the first fault of the block stands).
void fault_block(BlockRun& b, cudaError_t code, std::string message) {
    if (b.faulted) return;
    b.faulted = true;
    b.fault = KernelFault{code, std::move(message)};
}

// Where @p address lies in block @p b's shared memory: inside its dynamic bytes or one
// of its __shared__ variables (true), or in a gap or past what it uses (false).
bool inside_shared_object(const BlockRun& b, const char* at, std::size_t bytes) {
    if (at >= b.dynamic_base && at + bytes <= b.dynamic_base + b.dynamic_bytes) return true;
    for (const SharedVariable& v : b.variables) {
        if (at >= v.address && at + bytes <= v.address + v.bytes) return true;
    }
    return false;
}

bool in_arena(const BlockRun& b, const char* at) { return b.arena && at >= b.arena.get() && at < b.arena.get() + b.arena_size; }

// The access to @p owner's shared memory at @p at by the running thread of @p me, as
// @p what, written at @p file:@p line: stop the kernel if the GPU would not allow it.
void check_shared_access(BlockRun& me, const BlockRun& owner, const char* at, std::size_t bytes, const char* what,
                         const char* file, int line) {
    if (!inside_shared_object(owner, at, bytes)) {
        std::ostringstream out;
        out << "out-of-bounds shared memory access in " << running_kernel() << ", " << running_thread() << ":\n  "
            << access_site(file, line) << what << " at byte " << (at - owner.arena.get()) << " of the shared memory of "
            << (&owner == &me ? std::string("its block") : block_name(owner))
            << ", outside every __shared__ variable and the launch's dynamic shared memory.";
        throw KernelFault{cudaErrorIllegalAddress, out.str()};
    }
    if (&owner == &me) return;
    const ClusterRun& c = *me.cluster;
    if (c.epoch == 0) {
        std::ostringstream out;
        out << "distributed shared memory used before the cluster barrier in " << running_kernel() << ", "
            << running_thread() << ":\n  " << access_site(file, line) << what << " reaches the shared memory of "
            << block_name(owner) << " before the cluster's first cluster.sync(): that block may not have started, "
            << "and what it writes there (its initialisation) is not yet visible to other blocks.\n  Call "
               "cluster.sync() after every block has initialised its shared memory and before any block uses "
               "another's.";
        throw KernelFault{cudaErrorLaunchFailure, out.str()};
    }
    if (owner.exited_threads == owner.thread_count) {
        std::ostringstream out;
        out << "shared memory of a block that has exited, in " << running_kernel() << ": " << running_thread()
            << " (rank " << me.cluster_rank << " of its cluster)\n  " << access_site(file, line) << what
            << " reaches the shared memory of " << block_name(owner)
            << ", whose threads have all returned: its shared memory no longer exists.\n  Call cluster.sync() "
               "before any block exits while other blocks of the cluster may still use its shared memory (a final "
               "cluster.sync() at the end of the kernel).";
        throw KernelFault{cudaErrorIllegalAddress, out.str()};
    }
}

}  // namespace

unsigned long long cluster_size(const GridRun& run) { return run.cluster.x == 0 ? 1 : volume(run.cluster); }

void run_cluster(GridState& grid, unsigned long long linear) {
    Worker& w = this_worker();
    const GridRun& run = *grid.run;
    const LaunchRequest& request = *run.request;
    const dim3 dims = run.cluster;
    const std::size_t n = static_cast<std::size_t>(volume(dims));
    const std::size_t count = static_cast<std::size_t>(volume(request.block));
    ensure_stacks(w, n * count);
    while (w.cluster_blocks.size() < n) {
        w.cluster_blocks.push_back(std::make_unique<BlockRun>());
        allocate_shared_arena(*w.cluster_blocks.back());
    }

    // The cluster's coordinates in the grid of clusters, and its blocks', rank x-fastest.
    const dim3 clusters(request.grid.x / dims.x, request.grid.y / dims.y, request.grid.z / dims.z);
    ClusterRun c;
    c.dims = dims;
    c.index = uint3{static_cast<unsigned>(linear % clusters.x), static_cast<unsigned>(linear / clusters.x % clusters.y),
                    static_cast<unsigned>(linear / (static_cast<unsigned long long>(clusters.x) * clusters.y))};
    blockDim = request.block;
    gridDim = request.grid;
    for (std::size_t r = 0; r < n; ++r) {
        const uint3 in{static_cast<unsigned>(r % dims.x), static_cast<unsigned>(r / dims.x % dims.y),
                       static_cast<unsigned>(r / (static_cast<std::size_t>(dims.x) * dims.y))};
        const unsigned long long x = static_cast<unsigned long long>(c.index.x) * dims.x + in.x;
        const unsigned long long y = static_cast<unsigned long long>(c.index.y) * dims.y + in.y;
        const unsigned long long z = static_cast<unsigned long long>(c.index.z) * dims.z + in.z;
        BlockRun& b = *w.cluster_blocks[r];
        start_block(grid, b, x + request.grid.x * (y + static_cast<unsigned long long>(request.grid.y) * z));
        b.cluster = &c;
        b.cluster_rank = static_cast<unsigned>(r);
        c.blocks.push_back(&b);
    }

    race_start_block(run, c.blocks[0]->linear);  // the cluster's blocks are checked, or not, together
    auto any_faulted = [&] { return std::any_of(c.blocks.begin(), c.blocks.end(), [](const BlockRun* b) { return b->faulted; }); };
    auto has_ready = [&](const BlockRun& b) {
        for (std::size_t i = 0; i < count; ++i) {
            if (b.threads[i].status == Status::Ready) return true;
        }
        return false;
    };
    // In the forward order the blocks take turns in every round. In the others, one block at
    // a time runs as far as it can (past its own __syncthreads() too) before the next gets a
    // turn, as a GPU may run them: a block that reaches its end exits, and its shared memory
    // is gone for blocks that still use it without a final cluster.sync().
    const bool block_at_a_time = run.schedule.kind != Schedule::Forward;
    std::vector<char> started(n * count, 0);
    std::vector<unsigned> block_order, order;
    for (unsigned round = 0; !any_faulted(); ++round) {
        race_new_epoch();  // threads that synchronised go on: accesses before are ordered (races.cpp)
        // Blocks in the schedule's order too (a different stream of random orders than threads').
        order_threads(run.schedule, n, ~linear, round, block_order);
        BlockRun* focus = nullptr;  // the one block that runs this round, block at a time
        for (unsigned r : block_order) {
            BlockRun& b = *c.blocks[r];
            if (block_at_a_time) {
                if (focus != nullptr || !has_ready(b)) continue;
                focus = &b;
            }
            enter(w, b);
            order_threads(run.schedule, count, b.linear, round, order);
            for (unsigned i : order) {
                if (b.threads[i].status != Status::Ready) continue;
                const bool first = !started[r * count + i];
                started[r * count + i] = 1;
                run_thread_slice(w, b, i, first, *w.stacks[r * count + i]);
                if (b.faulted) break;
            }
            if (b.faulted) break;
        }
        if (any_faulted()) break;
        // A barrier phase or pipeline stage that completed in this round let threads go on
        // that came earlier in the order: they run in the next.
        // Block at a time, only the block that ran goes on; the others wait for their turn.
        bool woken = false;
        for (const BlockRun* b : c.blocks) {
            if (focus == nullptr || b == focus) woken = woken || has_ready(*b);
        }
        if (woken) continue;
        // Nobody can run. Warp primitives whose lanes have all arrived complete first.
        bool progress = false, stuck = false;
        for (BlockRun* b : c.blocks) {
            enter(w, *b);
            const WarpProgress warps = resolve_warps(*b);
            stuck = stuck || warps == WarpProgress::stuck;
            progress = progress || warps == WarpProgress::released;
        }
        if (progress) continue;
        // Threads waiting for a barrier phase or a pipeline stage of their block that nobody
        // can complete: only the block's own threads arrive there or commit its copies.
        for (BlockRun* b : c.blocks) {
            if (stuck) break;
            enter(w, *b);
            stuck = async_stuck(*b);
        }
        if (stuck) break;
        // Then each block whose threads all wait at one __syncthreads() goes on.
        std::size_t at_cluster = 0, exited = 0, agree = 0;
        const ThreadState* first_at_cluster = nullptr;
        BlockRun* divergent_block = nullptr;
        for (BlockRun* b : c.blocks) {
            std::size_t at_barrier = 0, gone = 0, same = 0, cluster_waiters = 0, async_waiters = 0;
            const ThreadState* first = nullptr;
            int count_true = 0;
            for (std::size_t i = 0; i < count; ++i) {
                const ThreadState& t = b->threads[i];
                if (t.status == Status::Exited) {
                    ++gone;
                } else if (t.status == Status::AtClusterBarrier) {
                    ++cluster_waiters;
                    if (first_at_cluster == nullptr) first_at_cluster = &t;
                    agree += t.line == first_at_cluster->line && std::strcmp(t.file, first_at_cluster->file) == 0;
                } else if (t.status == Status::AtAsync) {
                    // async_stuck() above has already faulted a block with such a thread; were
                    // one left, its block could not go on, and the block is named below.
                    ++async_waiters;
                } else if (t.status == Status::AtBarrier) {
                    if (first == nullptr) first = &t;
                    ++at_barrier;
                    count_true += t.predicate != 0;
                    same += t.line == first->line && std::strcmp(t.file, first->file) == 0;
                }
            }
            at_cluster += cluster_waiters;
            exited += gone;
            if (async_waiters != 0 && divergent_block == nullptr) divergent_block = b;
            if (at_barrier == 0) continue;
            if (at_barrier == count && same == count) {
                b->barrier_count = count_true;
                for (std::size_t i = 0; i < count; ++i) {
                    b->threads[i].status = Status::Ready;
                    b->threads[i].predicate = 0;
                }
                async_after_syncthreads(*b);
                progress = true;
            } else if (cluster_waiters == 0 && divergent_block == nullptr) {
                divergent_block = b;  // its threads at __syncthreads() and returned, or at two of them
            }
        }
        if (progress) continue;
        if (std::any_of(c.blocks.begin(), c.blocks.end(), [&](const BlockRun* b) { return has_ready(*b); })) continue;
        const std::size_t total = n * count;
        if (exited == total) break;  // the cluster is done
        if (at_cluster == total && agree == total) {
            // The cluster barrier: everyone goes on together, in a new epoch.
            ++c.epoch;
            for (BlockRun* b : c.blocks) {
                for (std::size_t i = 0; i < count; ++i) b->threads[i].status = Status::Ready;
                // It is a barrier of each block's threads too: what they initialised before it
                // (a cuda::barrier, say) is visible to all of them after it.
                async_after_syncthreads(*b);
            }
            continue;
        }
        if (divergent_block != nullptr) {
            enter(w, *divergent_block);
            fault_block(*divergent_block, cudaErrorLaunchFailure, divergence_message(*divergent_block, count));
        } else {
            enter(w, *c.blocks[0]);
            fault_block(*c.blocks[0], cudaErrorLaunchFailure, cluster_divergence_message(c));
        }
        break;
    }
    // Fibers still waiting after a fault are unwound here.
    for (BlockRun* b : c.blocks) {
        enter(w, *b);
        for (std::size_t i = 0; i < count; ++i) b->threads[i].fiber.reset();
        async_end_block(*b);
    }
    current_block = nullptr;
    w.running_block.store(0, std::memory_order_relaxed);
    // Only the first fault of the cluster, as a block runs on after none.
    bool reported = false;
    for (BlockRun* b : c.blocks) {
        if (b->faulted && reported) b->faulted = false;
        reported = reported || b->faulted;
        b->cluster = nullptr;
        finish_block(grid, *b);
    }
}

void cluster_sync(const char* file, int line) {
    BlockRun& b = block_or_die("cluster.sync()");
    if (b.cluster == nullptr) {
        // A launch without clusters: each block is a cluster of one, whose barrier is the block's.
        syncthreads(file, line);
        return;
    }
    wait_at_barrier(b, Status::AtClusterBarrier, file, line);
}

unsigned cluster_block_rank() {
    const BlockRun& b = block_or_die("cluster.block_rank()");
    return b.cluster_rank;
}

dim3 cluster_dims() {
    const BlockRun& b = block_or_die("this_cluster()");
    return b.cluster == nullptr ? dim3(1, 1, 1) : b.cluster->dims;
}

void* map_shared_rank(const void* address, unsigned rank, const char* file, int line) {
    BlockRun& b = block_or_die("cluster.map_shared_rank()");
    const std::size_t n = b.cluster == nullptr ? 1 : b.cluster->blocks.size();
    if (rank >= n) {
        std::ostringstream out;
        out << "cluster.map_shared_rank() with a rank outside the cluster in " << running_kernel() << ", "
            << running_thread() << ":\n  " << access_site(file, line) << "rank " << rank << ", but the cluster has " << n
            << (n == 1 ? " block (rank 0 only)" : " blocks (ranks 0 to " + std::to_string(n - 1) + ")")
            << ". Ranks count the blocks of one cluster (cluster.block_rank()), not of the grid.";
        throw KernelFault{cudaErrorIllegalAddress, out.str()};
    }
    const char* at = static_cast<const char*>(address);
    if (!in_arena(b, at) || at >= b.arena.get() + b.arena_used) {
        std::ostringstream out;
        out << "cluster.map_shared_rank() of an address outside shared memory in " << running_kernel() << ", "
            << running_thread() << ":\n  " << access_site(file, line)
            << "its first argument must point into the block's shared memory (a __shared__ variable or extern "
               "__shared__ memory).";
        throw KernelFault{cudaErrorIllegalAddress, out.str()};
    }
    if (b.cluster == nullptr) return const_cast<char*>(at);
    // Every block of a launch lays out its shared memory alike: the same offset in the owner's.
    return b.cluster->blocks[rank]->arena.get() + (at - b.arena.get());
}

void check_shared_atomic(const void* address, std::size_t bytes, const char* file, int line) {
    BlockRun* b = current_block;
    if (b == nullptr || b->current == nullptr) return;
    race_atomic(address, bytes);  // its change is no plain store (races.cpp)
    const char* at = static_cast<const char*>(address);
    if (in_arena(*b, at)) {
        check_shared_access(*b, *b, at, bytes, "an atomic", file, line);
        traffic::detail::record_site_call(traffic::detail::SiteKind::shared_atomic, file, line);  // the profiler, when it records
        return;
    }
    if (b->cluster != nullptr) {
        for (const BlockRun* owner : b->cluster->blocks) {
            if (owner != b && in_arena(*owner, at)) {
                check_shared_access(*b, *owner, at, bytes, "an atomic", file, line);
                traffic::detail::record_site_call(traffic::detail::SiteKind::remote_atomic, file, line);
                return;
            }
        }
    }
    // Global memory: a cudaMalloc buffer, or a __device__ variable (on the CPU backend an
    // ordinary variable of the program, in no allocation), such as 6c's count of finished
    // blocks. Either way the GPU's L2 serves it, and Nsight Compute counts it.
    traffic::detail::record_site_call(traffic::detail::SiteKind::global_atomic, file, line);
}

void end_probe(dim3 cluster, const char* signature) {
    if (probing != nullptr) {
        *probing = cluster;
        probed_signature = signature;
        throw ProbeDone{};
    }
}

// One address per map_shared_rank() call site (file and line), for the profiler, which
// groups a warp's accesses by site.
static const void* site_of(const char* file, int line) {
    static std::mutex mutex;
    static std::map<std::pair<std::string, int>, char> sites;
    std::lock_guard<std::mutex> lock(mutex);
    return &sites[{std::string(file), line}];
}

void record_remote_access(const void* address, std::size_t bytes, bool store, const char* file, int line) {
    if (!traffic::detail::recording) return;
    const BlockRun* b = current_block;
    if (b == nullptr) return;
    const char* at = static_cast<const char*>(address);
    if (in_arena(*b, at)) {
        // On the GPU a load through a map_shared_rank() pointer that reaches the block's own
        // shared memory is a shared load (measured on an H100: chapter 9's 9d, half of whose
        // tile reads are its own, counts 512 l1tex__t_requests_pipe_lsu_mem_dshared_op_ld for
        // its 1024 tile reads, its shared-load wavefronts up by about the other half's).
        traffic::detail::record(traffic::Space::shared, store ? traffic::Direction::store : traffic::Direction::load, at,
                                bytes, site_of(file, line));
    } else {
        traffic::detail::record_site_call(traffic::detail::SiteKind::remote_access, file, line);
    }
}

void check_remote_access(const void* address, std::size_t bytes, const char* file, int line) {
    BlockRun& b = block_or_die("a pointer from cluster.map_shared_rank()");
    const char* at = static_cast<const char*>(address);
    const std::string what = "an access through the pointer that cluster.map_shared_rank() gave at " + std::string(file) +
                             ":" + std::to_string(line);
    if (in_arena(b, at)) {
        check_shared_access(b, b, at, bytes, what.c_str(), nullptr, 0);
        return;
    }
    if (b.cluster != nullptr) {
        for (const BlockRun* owner : b.cluster->blocks) {
            if (owner != &b && in_arena(*owner, at)) {
                check_shared_access(b, *owner, at, bytes, what.c_str(), nullptr, 0);
                async_check_remote(*owner, at, bytes, what.c_str());
                return;
            }
        }
    }
    // Moved out of every block's shared memory.
    std::ostringstream out;
    out << "out-of-bounds shared memory access in " << running_kernel() << ", " << running_thread() << ":\n  " << what
        << " lies outside the shared memory of every block of the cluster.";
    throw KernelFault{cudaErrorIllegalAddress, out.str()};
}

void kernel_entered(const char* signature, dim3 cluster) {
    end_probe(cluster, signature);
    kernel_entered(signature);
}

dim3 cluster_dims_of(const KernelBody& body, const char** signature) {
    // The kernel's first statement tells its __cluster_dims__ (see cu2cpp.cpp) and stops it.
    dim3 found(0, 0, 0);
    probing = &found;
    probed_signature = nullptr;
    try {
        body.run();
    } catch (const ProbeDone&) {
    }
    probing = nullptr;
    if (signature != nullptr) *signature = probed_signature;
    return found;
}

cudaError_t check_cluster(const LaunchRequest& request, dim3 compiled, bool non_portable, dim3& cluster,
                          std::string& problem) {
    cluster = request.cluster_given ? request.cluster : compiled;
    if (!request.cluster_given && compiled.x == 0) return cudaSuccess;  // no clusters
    std::ostringstream out;
    if (request.cluster_given && compiled.x != 0 &&
        (compiled.x != cluster.x || compiled.y != cluster.y || compiled.z != cluster.z)) {
        out << "a cluster of " << shape(cluster) << " blocks (cudaLaunchAttributeClusterDimension), but the kernel is "
            << "declared with __cluster_dims__(" << compiled.x << ", " << compiled.y << ", " << compiled.z
            << "): a kernel with compile-time cluster dimensions cannot be launched with others.";
    } else if (cluster.x == 0 || cluster.y == 0 || cluster.z == 0) {
        out << "a cluster of " << shape(cluster) << " blocks: none of its dimensions may be 0.";
    } else if (volume(cluster) > 16 || (volume(cluster) > 8 && !non_portable)) {
        out << "a cluster of " << shape(cluster) << " = " << volume(cluster) << " blocks; a cluster may have at most 8 "
            << "blocks (the portable size), or up to 16 on compute capability 9.0 after "
            << "cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1).";
    } else if (request.grid.x % cluster.x != 0 || request.grid.y % cluster.y != 0 || request.grid.z % cluster.z != 0) {
        out << "a grid of " << shape(request.grid) << " blocks and clusters of " << shape(cluster)
            << " blocks: every dimension of the grid must be a multiple of the cluster's. Round the grid up to whole "
               "clusters, and let the blocks with nothing to do skip the work (not the cluster barriers).";
    }
    problem = out.str();
    return problem.empty() ? cudaSuccess : cudaErrorInvalidClusterSize;
}

namespace {
thread_local std::string launch_ex_kernel_text;
}  // namespace

cudaError_t configure_launch_ex(LaunchRequest& request, const cudaLaunchConfig_t* config, const char* text) {
    // The kernel as written: the second of the call's arguments, at the top level.
    std::string arguments = text, kernel;
    int depth = 0, argument = 0;
    for (char ch : arguments) {
        if (ch == '(' || ch == '<' || ch == '[' || ch == '{') ++depth;
        if (ch == ')' || ch == '>' || ch == ']' || ch == '}') --depth;
        if (ch == ',' && depth == 0) {
            ++argument;
            continue;
        }
        if (argument == 1) kernel += ch;
    }
    kernel.erase(0, kernel.find_first_not_of(" \t\n&"));
    kernel.erase(kernel.find_last_not_of(" \t\n") + 1);
    launch_ex_kernel_text = kernel.empty() ? std::string("kernel") : kernel;
    request.kernel_text = launch_ex_kernel_text.c_str();
    const std::string where = std::string(request.file) + ":" + std::to_string(request.line);
    if (config == nullptr) {
        return fail(cudaErrorInvalidValue, "cudaLaunchKernelEx() at " + where + ": config is null.");
    }
    request.grid = config->gridDim;
    request.block = config->blockDim;
    request.shared_bytes = config->dynamicSmemBytes;
    request.launched_ex = true;
    if (config->numAttrs > 0 && config->attrs == nullptr) {
        return fail(cudaErrorInvalidValue, "cudaLaunchKernelEx() at " + where + ": config->numAttrs is " +
                                               std::to_string(config->numAttrs) + " but config->attrs is null.");
    }
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        const cudaLaunchAttribute& a = config->attrs[i];
        switch (a.id) {
            case cudaLaunchAttributeIgnore:
            case cudaLaunchAttributeClusterSchedulingPolicyPreference: break;
            case cudaLaunchAttributeClusterDimension:
                request.cluster_given = true;
                request.cluster = dim3(a.val.clusterDim.x, a.val.clusterDim.y, a.val.clusterDim.z);
                break;
            default:
                return fail(cudaErrorNotSupported, "cudaLaunchKernelEx() at " + where + ": launch attribute " +
                                                       std::to_string(static_cast<int>(a.id)) +
                                                       " (attrs[" + std::to_string(i) + "]) is not supported by the CPU "
                                                       "backend; it knows cudaLaunchAttributeClusterDimension.");
        }
    }
    return cudaSuccess;
}

}  // namespace detail
}  // namespace emu
