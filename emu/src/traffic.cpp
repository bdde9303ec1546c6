// The memory-traffic profiler: records the accesses of a launch and sums them up by the
// warp model of gpu_model/include/gpu_model/traffic.h.
//
// Blocks run in parallel on worker threads, one block at a time per worker. Each worker
// keeps the records of the block it runs in its own buffer; when it starts another block
// (or the launch ends) it sums the finished block up and adds the sums to the launch's,
// under a lock. A block is summed up in one piece because a request gathers the lanes of a
// warp, which run one after another between barriers.
#include "traffic_hooks.h"

#include "block.h"

#include <gpu_model/traffic.h>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bitset>
#include <cstdio>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>

namespace emu {
namespace traffic {
namespace detail {
bool recording = false;
}  // namespace detail

namespace {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kSectorBytes = 32;
constexpr unsigned kBanks = 32;
constexpr unsigned kBankBytes = 4;

// The kind of an access: space and direction in two bits.
unsigned kind_of(Space space, Direction direction) {
    return (space == Space::shared ? 2u : 0u) | (direction == Direction::store ? 1u : 0u);
}
Space space_of(unsigned kind) { return kind & 2u ? Space::shared : Space::global; }
// The global loads of cp.async (LDGSTS), counted among the loads and apart.
constexpr unsigned kLdgstsKind = 4;
Direction direction_of(unsigned kind) { return kind & 1u ? Direction::store : Direction::load; }

// One access by one lane.
struct Record {
    const void* site;
    std::uint32_t warp;
    std::uint32_t k;  // the lane's k-th execution of this site, in this direction
    std::uint32_t epoch;  // the __syncthreads() the lane had passed
    std::uint8_t lane;
    std::uint8_t kind;
    std::uint16_t size;
    std::uint64_t address;  // global: the address; shared: the offset in the block's shared memory
};

// Counts per thread of how often it executed each site in each direction.
struct CounterKey {
    const void* site;
    std::uint32_t thread;
    std::uint32_t kind;
    bool operator==(const CounterKey& o) const { return site == o.site && thread == o.thread && kind == o.kind; }
};
struct CounterHash {
    std::size_t operator()(const CounterKey& key) const {
        return std::hash<const void*>()(key.site) ^ (std::size_t(key.thread) * 0x9E3779B97F4A7C15ull) ^ key.kind;
    }
};

// The global loads a block requests in one span between two of its barriers: the distinct
// sectors its loads touch (a sector two warps want is fetched once), and the bytes of bulk
// copies, which move whole.
struct Span {
    std::set<std::uint64_t> sectors;
    std::uint64_t bulk_bytes = 0, requests = 0;
    std::uint64_t bytes() const { return sectors.size() * kSectorBytes + bulk_bytes; }
};

// What one worker has recorded of the block it runs.
struct BlockBuffer {
    std::uint64_t launch = 0;
    unsigned long long block = ~0ull;
    std::vector<Record> records;
    std::unordered_map<CounterKey, std::uint32_t, CounterHash> counters;
    std::map<std::uint32_t, Span> bulk_spans;  // bulk and TMA copies' global bytes, by the issuing thread's span
};

// Distinct bytes touched, as bits of 4 KiB pages.
using ByteSet = std::unordered_map<std::uint64_t, std::bitset<4096>>;

void add_bytes(ByteSet& set, std::uint64_t address, unsigned size) {
    for (std::uint64_t a = address; a < address + size; ++a) set[a >> 12].set(a & 4095);
}
std::uint64_t count_bytes(const ByteSet& set) {
    std::uint64_t n = 0;
    for (const auto& page : set) n += page.second.count();
    return n;
}

// Per shared site, over a launch.
struct SiteStats {
    std::uint64_t requests = 0, wavefronts = 0, ideal = 0;
    unsigned worst_degree = 0;
    unsigned phase_lanes = 32;
    LaneAccess sample[32];
};

// The launch being recorded, and what has been recorded since start().
struct State {
    std::mutex mutex;
    bool enabled = false;
    std::uint64_t launch = 0;  // serial number of the launch being recorded
    LaunchProfile current;
    ByteSet unique[3];  // global loads, global stores, cp.async's global loads
    std::atomic<std::uint64_t> bulk_copies{0}, bulk_shared_bytes{0}, bulk_global_bytes{0};
    std::map<std::pair<const void*, unsigned>, SiteStats> shared_sites;
    std::atomic<std::uint64_t> barriers{0};
    std::atomic<bool> casts{false};  // a pointer parameter was cast: see LaunchProfile::uncounted_casts
    // Atomics and remote accesses: executions per block, call site, kind (SiteKind) and thread.
    std::mutex atomics_mutex;
    std::map<std::tuple<unsigned long long, const char*, int, detail::SiteKind, std::uint32_t>, std::uint32_t> atomics;
    std::vector<LaunchProfile> done;
    std::vector<BlockBuffer*> buffers;  // every worker's, to sum up at the end of a launch
};
State& state() {
    static State s;
    return s;
}

// The calling worker's buffer, registered so that launch_ends() can sum up its last block.
struct BufferOwner {
    BlockBuffer buffer;
    BufferOwner() {
        std::lock_guard<std::mutex> lock(state().mutex);
        state().buffers.push_back(&buffer);
    }
    ~BufferOwner() {
        std::lock_guard<std::mutex> lock(state().mutex);
        auto& all = state().buffers;
        all.erase(std::remove(all.begin(), all.end(), &buffer), all.end());
    }
};
BlockBuffer& my_buffer() {
    thread_local BufferOwner owner;
    return owner.buffer;
}

unsigned phase_lanes_for(unsigned size) { return size <= 4 ? 32 : size <= 8 ? 16 : 8; }

// One execution of a site by a warp: records [first, end), one per active lane, by lane.
struct Slice {
    std::size_t first, end;
};

// Whether slice @p next is slice @p base one word further in every lane: the same lanes,
// 4-byte elements, each address 4 * @p step bytes on.
bool one_word_on(const std::vector<Record>& records, const Slice& base, const Slice& next, unsigned step) {
    if (next.end - next.first != base.end - base.first) return false;
    for (std::size_t i = 0; i < base.end - base.first; ++i) {
        const Record& r = records[next.first + i];
        const Record& b = records[base.first + i];
        if (r.lane != b.lane || r.size != 4 || r.address != b.address + 4 * step) return false;
    }
    return true;
}

// The compiler's wide accesses. Between two barriers, nvcc may serve a site's executions by
// a warp that read (or write) consecutive words of shared memory in every lane with one 8-
// or 16-byte instruction, as it does for an unrolled loop along a row: A_tile[ty][k] for
// k = 0 to 3 becomes one 16-byte load. It needs the first word on an 8- or 16-byte boundary
// in every lane of the warp. So: each execution (in order) whose lanes all start on a
// 16-byte boundary and has unused partners 1, 2 and 3 words on is one 16-byte access; else,
// on an 8-byte boundary with a partner one word on, one 8-byte access; else itself. Returns
// each access's first slice and width in words.
std::vector<std::pair<std::size_t, unsigned>> wide_accesses(const std::vector<Record>& records, const std::vector<Slice>& slices,
                                                            std::size_t warp_lanes) {
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> by_address;  // first lane's address -> slices
    for (std::size_t i = 0; i < slices.size(); ++i) by_address[records[slices[i].first].address].push_back(i);
    std::vector<char> used(slices.size(), 0);
    std::vector<std::pair<std::size_t, unsigned>> accesses;
    for (std::size_t i = 0; i < slices.size(); ++i) {
        if (used[i]) continue;
        used[i] = 1;
        unsigned width = 1;
        // Only a whole warp's alignment says something of the index: one lane's address may
        // fall on a boundary by chance, where nvcc could not know it would.
        const bool whole_warp = slices[i].end - slices[i].first == warp_lanes;
        for (unsigned want : {4u, 2u}) {
            if (!whole_warp) break;
            bool aligned = true;
            for (std::size_t r = slices[i].first; r < slices[i].end; ++r) aligned = aligned && records[r].address % (4 * want) == 0;
            if (!aligned) continue;
            std::vector<std::size_t> partners;
            for (unsigned step = 1; step < want; ++step) {
                const auto found = by_address.find(records[slices[i].first].address + 4 * step);
                if (found == by_address.end()) break;
                for (std::size_t j : found->second) {
                    if (!used[j] && one_word_on(records, slices[i], slices[j], step)) {
                        partners.push_back(j);
                        break;
                    }
                }
                if (partners.size() != step) break;
            }
            if (partners.size() == want - 1) {
                for (std::size_t j : partners) used[j] = 1;
                width = want;
                break;
            }
        }
        accesses.emplace_back(i, width);
    }
    return accesses;
}

// Add one global request: the lanes of @p slice.
void add_global_request(State& s, const std::vector<Record>& records, const Slice& slice, std::vector<std::uint64_t>& sectors) {
    const Record& r0 = records[slice.first];
    const Direction direction = direction_of(r0.kind);
    // A cp.async's global side is a global load to ncu too (l1tex__t_requests_pipe_lsu_mem_
    // global_op_ld counts LDGSTS, measured on an H100 by make profile-probe): it is counted
    // among the loads and, again, apart.
    const bool ldgsts = r0.kind == kLdgstsKind;
    GlobalCounts& c = direction == Direction::load || ldgsts ? s.current.global_load : s.current.global_store;
    sectors.clear();
    std::uint64_t bytes = 0;
    for (std::size_t i = slice.first; i < slice.end; ++i) {
        const Record& r = records[i];
        for (std::uint64_t sector = r.address / kSectorBytes; sector <= (r.address + r.size - 1) / kSectorBytes; ++sector) {
            sectors.push_back(sector);
        }
        bytes += r.size;
        add_bytes(s.unique[direction == Direction::load || ldgsts ? 0 : 1], r.address, r.size);
        if (ldgsts) add_bytes(s.unique[2], r.address, r.size);
    }
    std::sort(sectors.begin(), sectors.end());
    const auto distinct_sectors = static_cast<std::uint64_t>(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
    for (GlobalCounts* counts : {&c, ldgsts ? &s.current.global_ldgsts : nullptr}) {
        if (counts == nullptr) continue;
        counts->requests += 1;
        counts->accesses += slice.end - slice.first;
        counts->sectors += distinct_sectors;
        counts->bytes_requested += bytes;
        counts->ideal_sectors += (bytes + kSectorBytes - 1) / kSectorBytes;
    }
}

// Add one shared request: the lanes of @p slice, each accessing @p width times its element.
void add_shared_request(State& s, const std::vector<Record>& records, const Slice& slice, unsigned width) {
    const Record& r0 = records[slice.first];
    const Direction direction = direction_of(r0.kind);
    SharedCounts& c = direction == Direction::load ? s.current.shared_load : s.current.shared_store;
    LaneAccess lanes[32];
    std::uint64_t bytes = 0;
    for (std::size_t i = slice.first; i < slice.end; ++i) {
        const Record& r = records[i];
        lanes[r.lane] = LaneAccess{true, r.address, r.size * width};
        bytes += r.size * width;
    }
    const unsigned phase_lanes = phase_lanes_for(r0.size * width);
    unsigned ideal = 0, degree = 0;
    const unsigned wavefronts = shared_wavefronts(lanes, phase_lanes, &ideal);
    // The worst phase of this request: its conflict degree.
    for (unsigned p = 0; p < kWarpSize / phase_lanes; ++p) {
        LaneAccess phase[32];
        for (unsigned l = p * phase_lanes; l < (p + 1) * phase_lanes; ++l) phase[l] = lanes[l];
        degree = std::max(degree, shared_wavefronts(phase, phase_lanes));
    }
    c.requests += 1;
    c.wavefronts += wavefronts;
    c.ideal_wavefronts += ideal;
    c.bytes_requested += bytes;
    SiteStats& site = s.shared_sites[{r0.site, r0.kind}];
    site.requests += 1;
    site.wavefronts += wavefronts;
    site.ideal += ideal;
    site.phase_lanes = phase_lanes;
    if (degree > site.worst_degree) {
        site.worst_degree = degree;
        std::copy(lanes, lanes + 32, site.sample);
    }
}

// Keep the block's largest span of global loads between two barriers, if it is the
// launch's largest so far (LaunchProfile::loads_before_wait).
void keep_largest_span(State& s, const std::map<std::uint32_t, Span>& spans) {
    for (const auto& entry : spans) {
        if (entry.second.bytes() > s.current.loads_before_wait) {
            s.current.loads_before_wait = entry.second.bytes();
            s.current.loads_before_wait_requests = entry.second.requests;
        }
    }
}

// Sum up the requests of one finished block into the launch. Called with state().mutex held.
void sum_up(BlockBuffer& b) {
    State& s = state();
    // The block's global loads by span between barriers (a record's epoch is the barriers its
    // thread had passed): the bulk copies', and below, the loads' and cp.async's.
    std::map<std::uint32_t, Span> spans;
    spans.swap(b.bulk_spans);
    if (b.records.empty()) {
        keep_largest_span(s, spans);
        b.counters.clear();
        return;
    }
    std::vector<Record>& records = b.records;
    std::sort(records.begin(), records.end(), [](const Record& x, const Record& y) {
        if (x.kind != y.kind) return x.kind < y.kind;
        if (x.site != y.site) return x.site < y.site;
        if (x.warp != y.warp) return x.warp < y.warp;
        if (x.epoch != y.epoch) return x.epoch < y.epoch;
        if (x.k != y.k) return x.k < y.k;
        return x.lane < y.lane;
    });
    std::vector<std::uint64_t> sectors;
    std::vector<Slice> slices;
    // A group: one site's executions by one warp between two barriers.
    for (std::size_t group = 0; group < records.size();) {
        const Record& g = records[group];
        slices.clear();
        std::size_t i = group;
        for (; i < records.size() && records[i].kind == g.kind && records[i].site == g.site && records[i].warp == g.warp &&
               records[i].epoch == g.epoch;
             ++i) {
            if (i == group || records[i].k != records[i - 1].k) slices.push_back(Slice{i, i});
            slices.back().end = i + 1;
        }
        if (space_of(g.kind) == Space::global) {
            for (const Slice& slice : slices) add_global_request(s, records, slice, sectors);
            if (g.kind == kind_of(Space::global, Direction::load) || g.kind == kLdgstsKind) {
                Span& span = spans[g.epoch];
                span.requests += slices.size();
                for (std::size_t r = group; r < i; ++r) {
                    const Record& load = records[r];
                    for (std::uint64_t sector = load.address / kSectorBytes; sector <= (load.address + load.size - 1) / kSectorBytes;
                         ++sector) {
                        span.sectors.insert(sector);
                    }
                }
            }
        } else if (g.size != 4) {
            for (const Slice& slice : slices) add_shared_request(s, records, slice, 1);
        } else {
            const std::size_t threads = s.current.threads_per_block();
            const std::size_t warp_lanes = std::min<std::size_t>(kWarpSize, threads - std::size_t(g.warp) * kWarpSize);
            for (const auto& access : wide_accesses(records, slices, warp_lanes)) {
                add_shared_request(s, records, slices[access.first], access.second);
            }
        }
        group = i;
    }
    keep_largest_span(s, spans);
    records.clear();
    b.counters.clear();
}

// "file:line" of the code at @p site, from the debug information (addr2line).
std::string site_location(const void* site) {
    Dl_info info{};
    if (dladdr(site, &info) == 0 || info.dli_fname == nullptr) return "an unknown site";
    // The return address is just after the call; the call itself is one byte before.
    const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(site) - reinterpret_cast<std::uintptr_t>(info.dli_fbase) - 1;
    const std::string binary = info.dli_fname[0] ? info.dli_fname : "/proc/self/exe";
    char command[1024];
    std::snprintf(command, sizeof command, "addr2line -e '%s' 0x%llx 2>/dev/null", binary.c_str(),
                  static_cast<unsigned long long>(offset));
    std::string location;
    if (FILE* pipe = popen(command, "r")) {
        char line[1024];
        if (std::fgets(line, sizeof line, pipe)) location = line;
        pclose(pipe);
    }
    // "path:line (discriminator 2)\n" -> "path:line"
    location = location.substr(0, location.find_first_of(" \n"));
    if (location.empty() || location[0] == '?') return "an unknown site (no debug information, or no addr2line)";
    // Relative to the working directory, as the compiler's messages name files.
    char here[4096];
    if (getcwd(here, sizeof here) != nullptr) {
        const std::string prefix = std::string(here) + "/";
        if (location.compare(0, prefix.size(), prefix) == 0) location.erase(0, prefix.size());
    }
    return location;
}

}  // namespace

namespace {
// Wavefronts for distinct, sorted 4-byte words served together: the words of the busiest bank.
unsigned busiest_bank(const std::vector<std::uint64_t>& words) {
    unsigned per_bank[kBanks] = {}, busiest = 0;
    for (std::uint64_t w : words) busiest = std::max(busiest, ++per_bank[w % kBanks]);
    return busiest;
}
}  // namespace

// The bank rule, as measured on an H100 with Nsight Compute (make profile-probe BACKEND=cuda):
//  - elements of 4 bytes or fewer: the whole warp in one phase; one wavefront per distinct
//    word of its busiest bank;
//  - 8-byte elements: two phases of 16 lanes; 16-byte elements: four of 8 lanes; each phase
//    by the same rule, the wavefronts added up, except that two phases of one half-warp
//    share their wavefronts:
//     - 8 bytes, the two half-warps: when each reads a single element (all its lanes the
//       same address) and the two do not conflict: one wavefront;
//     - 16 bytes, lanes 0-7 with 8-15 and 16-23 with 24-31: when the two read the same
//       set of elements, 4 or fewer (half the banks at most): the wavefronts of one; when
//       each reads a single element and the two do not conflict: one wavefront.
//    So a float4 that every lane reads takes 2 wavefronts, not 4; a float2 read by each
//    half-warp, one. Lanes 16-31 reading the same 16 float2s as lanes 0-15 still take 2,
//    and quarter-warps reading the same 8 float4s, 4. (The rule is fitted to what ncu
//    measured for make profile-probe's kernels and chapter 7's; the hardware's own rule is
//    not documented.)
// Ideal (no conflicts): a phase needs one wavefront per 128 distinct bytes it touches, and
// two phases that share, the ideal of one.
unsigned shared_wavefronts(const LaneAccess (&lanes)[32], unsigned phase_lanes, unsigned* ideal) {
    struct Phase {
        bool active = false, single = true;
        std::uint64_t address = 0;
        std::vector<std::uint64_t> words;      // distinct, sorted
        std::vector<std::uint64_t> addresses;  // of its lanes' elements: distinct, sorted
        unsigned wavefronts = 0;
    };
    const unsigned phases = kWarpSize / phase_lanes;
    Phase phase[32];
    for (unsigned p = 0; p < phases; ++p) {
        Phase& ph = phase[p];
        for (unsigned l = p * phase_lanes; l < (p + 1) * phase_lanes; ++l) {
            if (!lanes[l].active) continue;
            const std::uint64_t a = lanes[l].offset;
            if (ph.active && a != ph.address) ph.single = false;
            if (!ph.active) ph.address = a;
            ph.active = true;
            ph.addresses.push_back(a);
            for (std::uint64_t w = a / kBankBytes; w <= (a + lanes[l].size - 1) / kBankBytes; ++w) ph.words.push_back(w);
        }
        std::sort(ph.addresses.begin(), ph.addresses.end());
        ph.addresses.erase(std::unique(ph.addresses.begin(), ph.addresses.end()), ph.addresses.end());
        std::sort(ph.words.begin(), ph.words.end());
        ph.words.erase(std::unique(ph.words.begin(), ph.words.end()), ph.words.end());
        ph.wavefronts = busiest_bank(ph.words);
    }
    const auto ideal_of = [](const Phase& ph) -> unsigned {
        return ph.active ? static_cast<unsigned>((ph.words.size() * kBankBytes + 127) / 128) : 0u;
    };
    unsigned total = 0, best = 0;
    if (phases == 1) {
        total = phase[0].wavefronts;
        best = phase[0].active ? 1 : 0;
    } else {
        for (unsigned p = 0; p < phases; p += 2) {
            const Phase& a = phase[p];
            const Phase& b = phase[p + 1];
            if (a.active && b.active && phase_lanes == 8 && a.addresses == b.addresses && a.words.size() <= kBanks / 2) {
                // Two quarter-warps reading the same elements, in half the banks or fewer:
                // the wavefronts of one.
                total += a.wavefronts;
                best += ideal_of(a);
            } else if (a.active && b.active && a.single && b.single) {
                // Two single-element half-warps (8 bytes) or quarter-warps (16 bytes, such as
                // 8d's rows of A, 20 floats apart): one wavefront unless they conflict; when
                // they do, ncu counts the second one's wavefront as a conflict.
                std::vector<std::uint64_t> both = a.words;
                both.insert(both.end(), b.words.begin(), b.words.end());
                std::sort(both.begin(), both.end());
                both.erase(std::unique(both.begin(), both.end()), both.end());
                total += busiest_bank(both) == 1 ? 1 : a.wavefronts + b.wavefronts;
                best += 1;
            } else {
                total += a.wavefronts + b.wavefronts;
                best += ideal_of(a) + ideal_of(b);
            }
        }
    }
    if (ideal) *ideal = best;
    return total;
}

void start() {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.enabled = true;
    s.done.clear();
}

std::vector<LaunchProfile> take() {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.enabled = false;
    return std::move(s.done);
}

bool enabled() {
    std::lock_guard<std::mutex> lock(state().mutex);
    return state().enabled;
}

namespace detail {

// The running worker's buffer, emptied into the launch first when it holds another block's
// records.
BlockBuffer& block_buffer() {
    State& s = state();
    BlockBuffer& b = my_buffer();
    const unsigned long long block =
        blockIdx.x + static_cast<unsigned long long>(gridDim.x) * (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
    if (b.launch != s.launch || b.block != block) {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (b.launch == s.launch) sum_up(b);
        b.records.clear();
        b.counters.clear();
        b.bulk_spans.clear();
        b.launch = s.launch;
        b.block = block;
    }
    return b;
}

// The key under which a thread counts the barriers it has passed (no access site is null).
constexpr unsigned kBarrierKind = 255;

std::uint32_t linear_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

void record(Space space, Direction direction, const void* address, std::size_t size, const void* site) {
    BlockBuffer& b = block_buffer();
    const std::uint32_t thread = linear_thread();
    const unsigned kind = kind_of(space, direction);
    std::uint64_t at = reinterpret_cast<std::uintptr_t>(address);
    if (space == Space::shared) at -= reinterpret_cast<std::uintptr_t>(emu::detail::dynamic_shared().base);
    const std::uint32_t k = b.counters[CounterKey{site, thread, kind}]++;
    const auto passed = b.counters.find(CounterKey{nullptr, thread, kBarrierKind});
    const std::uint32_t epoch = passed == b.counters.end() ? 0 : passed->second;
    b.records.push_back(Record{site, thread / kWarpSize, k, epoch, static_cast<std::uint8_t>(thread % kWarpSize),
                               static_cast<std::uint8_t>(kind), static_cast<std::uint16_t>(size), at});
}

void launch_begins(const emu::detail::LaunchRequest& request) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.enabled) return;
    ++s.launch;
    s.current = LaunchProfile{};
    s.current.kernel_text = request.kernel_text;
    s.current.launch_site = std::string(request.file) + ":" + std::to_string(request.line);
    const dim3 g = request.grid, k = request.block;
    s.current.grid[0] = g.x, s.current.grid[1] = g.y, s.current.grid[2] = g.z;
    s.current.block[0] = k.x, s.current.block[1] = k.y, s.current.block[2] = k.z;
    s.current.blocks = static_cast<std::uint64_t>(g.x) * g.y * g.z;
    s.current.dynamic_shared = request.shared_bytes;
    s.unique[0].clear();
    s.unique[1].clear();
    s.unique[2].clear();
    s.shared_sites.clear();
    s.barriers = 0;
    s.bulk_copies = s.bulk_shared_bytes = s.bulk_global_bytes = 0;
    s.casts = false;
    {
        std::lock_guard<std::mutex> atomics_lock(s.atomics_mutex);
        s.atomics.clear();
    }
    recording = true;
}

void launch_ends(const emu::detail::GridOutcome& outcome) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!recording) return;
    recording = false;
    for (BlockBuffer* b : s.buffers) {
        if (b->launch == s.launch) sum_up(*b);
        b->launch = 0;
    }
    LaunchProfile& p = s.current;
    {
        // A warp's k-th execution of an atomic call (or of a map_shared_rank() pointer's
        // access) is one instruction, as for loads and stores: per warp and site, the most
        // executions of any of its lanes.
        std::lock_guard<std::mutex> atomics_lock(s.atomics_mutex);
        std::map<std::tuple<unsigned long long, const char*, int, SiteKind, std::uint32_t>, std::uint32_t> per_warp;
        const auto counts_of = [&p](SiteKind kind) -> AtomicCounts& {
            return kind == SiteKind::shared_atomic   ? p.shared_atomics
                   : kind == SiteKind::remote_atomic ? p.remote_atomics
                   : kind == SiteKind::remote_access ? p.remote_accesses
                                                     : p.global_atomics;
        };
        // A site that reached another block's shared memory got its address from
        // cluster.map_shared_rank(): on the GPU it is one distributed-shared-memory atomic
        // instruction whichever rank each lane names, its own block's included (measured on
        // an H100: ncu counts all of them in l1tex__t_requests_pipe_lsu_mem_dshared_op_atom,
        // none as shared atomics). So its atomics on the block's own memory count as remote.
        std::set<std::pair<const char*, int>> remote_sites;
        for (const auto& entry : s.atomics) {
            if (std::get<3>(entry.first) == SiteKind::remote_atomic) {
                remote_sites.insert({std::get<1>(entry.first), std::get<2>(entry.first)});
            }
        }
        // A lane's own-block and other-block atomics of one such site are then one count:
        // summed per thread first, before the most of any lane is taken per warp.
        std::map<std::tuple<unsigned long long, const char*, int, SiteKind, std::uint32_t>, std::uint32_t> per_thread;
        for (const auto& entry : s.atomics) {
            auto key = entry.first;
            if (std::get<3>(key) == SiteKind::shared_atomic && remote_sites.count({std::get<1>(key), std::get<2>(key)}) > 0) {
                std::get<3>(key) = SiteKind::remote_atomic;
            }
            per_thread[key] += entry.second;
        }
        for (const auto& entry : per_thread) {
            auto key = entry.first;
            const SiteKind kind = std::get<3>(key);
            std::get<4>(key) /= kWarpSize;
            std::uint32_t& most = per_warp[key];
            most = std::max(most, entry.second);
            counts_of(kind).accesses += entry.second;
        }
        for (const auto& entry : per_warp) counts_of(std::get<3>(entry.first)).requests += entry.second;
        s.atomics.clear();
    }
    p.kernel = outcome.kernel;
    p.static_shared = outcome.static_shared;
    p.faulted = outcome.faulted;
    p.barriers = s.barriers;
    p.uncounted_casts = s.casts;
    p.global_load.unique_bytes = count_bytes(s.unique[0]);
    p.global_store.unique_bytes = count_bytes(s.unique[1]);
    p.global_ldgsts.unique_bytes = count_bytes(s.unique[2]);
    p.bulk_copies = s.bulk_copies;
    p.bulk_shared_bytes = s.bulk_shared_bytes;
    p.bulk_global_bytes = s.bulk_global_bytes;
    // The worst shared site: the most wavefronts beyond the ideal; on a tie, the most
    // wavefronts.
    const SiteStats* worst = nullptr;
    std::pair<const void*, unsigned> worst_key{};
    for (const auto& entry : s.shared_sites) {
        const SiteStats& site = entry.second;
        const auto rank = [](const SiteStats& x) { return std::make_pair(x.wavefronts - x.ideal, x.wavefronts); };
        if (worst == nullptr || rank(site) > rank(*worst)) {
            worst = &site;
            worst_key = entry.first;
        }
    }
    if (worst != nullptr) {
        WorstSharedSite& w = p.worst_shared;
        w.found = true;
        w.location = site_location(worst_key.first);
        w.direction = direction_of(worst_key.second);
        w.requests = worst->requests;
        w.wavefronts = worst->wavefronts;
        w.ideal_wavefronts = worst->ideal;
        w.worst_degree = worst->worst_degree;
        w.phase_lanes = worst->phase_lanes;
        std::copy(worst->sample, worst->sample + 32, w.sample);
    }
    s.done.push_back(std::move(p));
    s.shared_sites.clear();
    s.unique[0].clear();
    s.unique[1].clear();
    s.unique[2].clear();
}

namespace {
// Where a cast pointer points: into a cudaMalloc buffer, the running block's shared
// memory (its arena: dynamic shared memory, then the __shared__ variables), or neither.
enum class Where { global, shared, neither };
Where where_is(const void* address) {
    const emu::detail::BlockRun* block = emu::detail::current_block;
    if (block != nullptr && block->arena) {
        const char* at = static_cast<const char*>(address);
        if (at >= block->arena.get() && at < block->arena.get() + block->arena_used) return Where::shared;
    }
    return emu::detail::find_allocation(address) != nullptr ? Where::global : Where::neither;
}
}  // namespace

void note_pointer_cast_to(const void* address) {
    if (recording && where_is(address) != Where::neither) state().casts = true;
}

void record_at(Direction direction, const void* address, std::size_t size, const void* site) {
    switch (where_is(address)) {
        case Where::global: record(Space::global, direction, address, size, site); break;
        case Where::shared: record(Space::shared, direction, address, size, site); break;
        case Where::neither: break;
    }
}

void record_site_call(SiteKind kind, const char* file, int line) {
    if (!recording) return;
    State& s = state();
    const unsigned long long block =
        blockIdx.x + static_cast<unsigned long long>(gridDim.x) * (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
    std::lock_guard<std::mutex> lock(s.atomics_mutex);
    ++s.atomics[std::make_tuple(block, file, line, kind, linear_thread())];
}

void note_barrier() {
    if (!recording) return;
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) ++state().barriers;
    ++block_buffer().counters[CounterKey{nullptr, linear_thread(), kBarrierKind}];
}

void note_async_copy(AsyncTraffic kind, const void* src, std::size_t src_bytes, const void* dst, std::size_t dst_bytes,
                     const char* file, int line) {
    (void)dst;
    if (!recording || (kind == AsyncTraffic::cp_async && src_bytes == 0)) return;
    State& s = state();
    if (kind != AsyncTraffic::cp_async) {
        // One instruction moves the whole copy; ncu counts its bytes, not lane requests.
        ++s.bulk_copies;
        s.bulk_shared_bytes += dst_bytes;
        s.bulk_global_bytes += src_bytes;
        // Its global bytes are loads its block waits for, in the span of the issuing thread.
        BlockBuffer& b = block_buffer();
        const auto passed = b.counters.find(CounterKey{nullptr, linear_thread(), kBarrierKind});
        Span& span = b.bulk_spans[passed == b.counters.end() ? 0 : passed->second];
        span.bulk_bytes += src_bytes;
        span.requests += 1;
        return;
    }
    // A cp.async is one lane's part of a warp-wide LDGSTS request, grouped with the other
    // lanes' executions of the same line as any access is. The line stands for the site:
    // each (file, line) gets a distinct address of its own.
    static std::mutex sites_mutex;
    static std::map<std::pair<std::string, int>, std::size_t> sites;
    static char site_keys[1 << 16];
    std::size_t id;
    {
        std::lock_guard<std::mutex> lock(sites_mutex);
        id = sites.emplace(std::make_pair(std::string(file), line), sites.size()).first->second;
    }
    const void* site = &site_keys[id < sizeof site_keys ? id : sizeof site_keys - 1];
    BlockBuffer& b = block_buffer();
    const std::uint32_t thread = linear_thread();
    const std::uint32_t k = b.counters[CounterKey{site, thread, kLdgstsKind}]++;
    const auto passed = b.counters.find(CounterKey{nullptr, thread, kBarrierKind});
    const std::uint32_t epoch = passed == b.counters.end() ? 0 : passed->second;
    b.records.push_back(Record{site, thread / kWarpSize, k, epoch, static_cast<std::uint8_t>(thread % kWarpSize),
                               static_cast<std::uint8_t>(kLdgstsKind), static_cast<std::uint16_t>(src_bytes),
                               reinterpret_cast<std::uintptr_t>(src)});
}

}  // namespace detail
}  // namespace traffic
}  // namespace emu
