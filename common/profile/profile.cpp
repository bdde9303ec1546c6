// The driver of the chapters' profile programs: see profile.h.
#include "profile.h"

#include "in_flight.h"
#include <gpu_model/occupancy.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#if defined(EMU_BACKEND_TRAFFIC)
#include <gpu_model/traffic.h>
#endif

namespace tutorial {
namespace profile {

namespace {

const char* const kUsage =
    "usage: PROGRAM [--arch sm_XY] [--ptxas FILE] [--measured FILE] [--occupancy FILE] [--out DIR]\n"
    "  --arch sm_XY     the architecture for occupancy (default sm_90)\n"
    "  --ptxas FILE     nvcc --resource-usage output for the chapter's kernels: registers per thread\n"
    "  --measured FILE  ncu --csv output of the same program on a GPU: shown beside the prediction\n"
    "  --occupancy FILE what the occupancy API said on the GPU (the GPU program writes it): shown beside the prediction\n"
    "  --out DIR        where the CSV table and the SVG pictures go (default build/profile)\n"
    "On the GPU (BACKEND=cuda) the program launches each variant once, for ncu, and writes\n"
    "DIR/chapterN-occupancy-api.csv: what cudaOccupancyMaxActiveBlocksPerMultiprocessor gives for each launch.\n";

struct Options {
    std::string arch = "sm_90";
    std::string ptxas;
    std::string measured;
    std::string occupancy;
    std::string out = "build/profile";
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument("option " + a + " needs a value\n" + kUsage);
            return argv[++i];
        };
        if (a == "--arch") o.arch = value();
        else if (a == "--ptxas") o.ptxas = value();
        else if (a == "--measured") o.measured = value();
        else if (a == "--occupancy") o.occupancy = value();
        else if (a == "--out") o.out = value();
        else if (a == "--help" || a == "-h") throw std::invalid_argument(kUsage);
        else throw std::invalid_argument("unknown option '" + a + "'\n" + kUsage);
    }
    return o;
}

// The file prefix of a chapter's outputs: DIR/chapterN (DIR/SLUG for a program of no chapter).
std::string output_prefix(const Options& options, const Chapter& chapter) {
    return options.out + "/" + (chapter.number > 0 ? "chapter" + std::to_string(chapter.number) : chapter.slug);
}
// "Chapter N" (or the slug of a program of no chapter), for the first line.
std::string title_of(const Chapter& chapter) {
    return chapter.number > 0 ? "Chapter " + std::to_string(chapter.number) : chapter.slug;
}

#if !defined(TUTORIAL_EMU)
// ---- On the GPU: what the occupancy API says of each launch ---------------------------------
// The profile program is linked with -Wl,--wrap=__cudaLaunchKernel (mk/profile.mk): every
// `kernel<<<...>>>` of the chapter's code goes through the function below first, which asks
// the occupancy API about the kernel with the launch's own block size and dynamic shared
// memory. (nvcc's launch code calls __cudaLaunchKernel, declared in crt/device_functions.h,
// with a cudaKernel_t, which these APIs accept in place of the function's address.)
struct ApiOccupancy {
    std::string kernel;
    int threads = 0;
    std::size_t dynamic_shared = 0;
    int registers = -1;
    std::size_t static_shared = 0;
    int blocks_per_sm = -1;
    int max_warps_per_sm = 0;
    std::string error;
};
std::vector<ApiOccupancy>& api_occupancy() {
    static std::vector<ApiOccupancy> launches;
    return launches;
}
}  // namespace
}  // namespace profile
}  // namespace tutorial

extern "C" cudaError_t __real___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared,
                                                 cudaStream_t stream);
extern "C" cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared,
                                                 cudaStream_t stream) {
    using tutorial::profile::ApiOccupancy;
    ApiOccupancy a;
    const void* function = reinterpret_cast<const void*>(kernel);
    const char* name = nullptr;
    a.kernel = cudaFuncGetName(&name, function) == cudaSuccess && name ? tutorial::kernel_key(tutorial::demangle(name))
                                                                      : "(unnamed)";
    a.threads = static_cast<int>(block.x * block.y * block.z);
    a.dynamic_shared = shared;
    cudaFuncAttributes attributes{};
    int device = 0, max_threads = 0;
    cudaError_t status = cudaFuncGetAttributes(&attributes, function);
    if (status == cudaSuccess) status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&a.blocks_per_sm, function, a.threads, shared);
    if (status == cudaSuccess) status = cudaGetDevice(&device);
    if (status == cudaSuccess) status = cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    if (status == cudaSuccess) {
        a.registers = attributes.numRegs;
        a.static_shared = attributes.sharedSizeBytes;
        a.max_warps_per_sm = max_threads / 32;
    } else {
        a.error = cudaGetErrorString(status);
        cudaGetLastError();  // the query's error is not the launch's
    }
    tutorial::profile::api_occupancy().push_back(a);
    return __real___cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}

namespace tutorial {
namespace profile {
namespace {
// DIR/chapterN-occupancy-api.csv, one row per launch, in launch order.
void write_api_occupancy(const std::string& path) {
    std::ofstream csv(path);
    if (!csv) throw std::runtime_error("cannot write " + path);
    csv << "kernel,threads,dynamic_shared,registers,static_shared,blocks_per_sm,max_warps_per_sm,error\n";
    for (const ApiOccupancy& a : api_occupancy()) {
        csv << "\"" << a.kernel << "\"," << a.threads << "," << a.dynamic_shared << "," << a.registers << "," << a.static_shared
            << "," << a.blocks_per_sm << "," << a.max_warps_per_sm << ",\"" << a.error << "\"\n";
    }
}
#endif

#if defined(EMU_BACKEND_TRAFFIC)
using emu::traffic::LaunchProfile;

// ---- What ptxas says about each kernel -----------------------------------------------------
// The kernels of the --ptxas file (tutorial::read_ptxas_report), by the name the profile
// programs give them (kernel_key).
std::map<std::string, PtxasKernel> read_ptxas(const std::string& path) {
    std::map<std::string, PtxasKernel> kernels;
    if (path.empty()) return kernels;
    std::ifstream in(path);
    if (!in) throw std::runtime_error("--ptxas: cannot read " + path);
    for (const PtxasKernel& k : read_ptxas_report(in)) kernels[k.key] = k;
    return kernels;
}

// ---- What ncu measured ---------------------------------------------------------------------
struct MeasuredLaunch {
    std::string kernel;                      // as ncu names it: "void tiled_gemm_kernel<16>(const float *, ...)"
    std::map<std::string, double> metrics;   // metric name -> value
};

std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (char c : line) {
        if (quoted) {
            if (c == '"') quoted = false;
            else field += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.push_back(field);
            field.clear();
        } else if (c != '\r') {
            field += c;
        }
    }
    fields.push_back(field);
    return fields;
}

// ncu --csv --metrics ...: one row per kernel launch and metric, with the columns "ID",
// "Kernel Name", "Metric Name" and "Metric Value" among others; values may carry
// thousands separators.
std::vector<MeasuredLaunch> read_ncu(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("--measured: cannot read " + path);
    std::string line;
    std::vector<std::string> header;
    int id_column = -1, name_column = -1, metric_column = -1, value_column = -1;
    std::map<long, MeasuredLaunch> by_id;
    while (std::getline(in, line)) {
        if (line.rfind("==", 0) == 0 || line.empty()) continue;  // ncu's own messages
        const std::vector<std::string> fields = split_csv(line);
        if (id_column < 0) {
            for (std::size_t i = 0; i < fields.size(); ++i) {
                if (fields[i] == "ID") id_column = static_cast<int>(i);
                if (fields[i] == "Kernel Name") name_column = static_cast<int>(i);
                if (fields[i] == "Metric Name") metric_column = static_cast<int>(i);
                if (fields[i] == "Metric Value") value_column = static_cast<int>(i);
            }
            if (id_column < 0 || name_column < 0 || metric_column < 0 || value_column < 0) {
                id_column = -1;  // not the header yet
            }
            continue;
        }
        const int needed = std::max({id_column, name_column, metric_column, value_column});
        if (static_cast<int>(fields.size()) <= needed) continue;
        std::string value = fields[value_column];
        value.erase(std::remove(value.begin(), value.end(), ','), value.end());
        char* end = nullptr;
        const double number = std::strtod(value.c_str(), &end);
        if (end == value.c_str()) continue;  // "n/a"
        MeasuredLaunch& launch = by_id[std::atol(fields[id_column].c_str())];
        launch.kernel = fields[name_column];
        launch.metrics[fields[metric_column]] = number;
    }
    if (id_column < 0) throw std::runtime_error("--measured: " + path + " has no ncu CSV header (ID, Kernel Name, Metric Name, Metric Value)");
    std::vector<MeasuredLaunch> launches;
    for (auto& entry : by_id) launches.push_back(std::move(entry.second));
    return launches;
}

// What the GPU program wrote of the occupancy API (write_api_occupancy), in launch order.
struct ApiAnswer {
    std::string kernel;
    double registers = -1, blocks_per_sm = -1, max_warps_per_sm = 0, threads = 0;
};
std::vector<ApiAnswer> read_api_occupancy(const std::string& path) {
    std::vector<ApiAnswer> answers;
    if (path.empty()) return answers;
    std::ifstream in(path);
    if (!in) throw std::runtime_error("--occupancy: cannot read " + path);
    std::string line;
    std::getline(in, line);
    if (line.rfind("kernel,threads,", 0) != 0) throw std::runtime_error("--occupancy: " + path + " is not the GPU program's occupancy file");
    while (std::getline(in, line)) {
        const std::vector<std::string> f = split_csv(line);
        if (f.size() < 7) continue;
        answers.push_back(ApiAnswer{f[0], std::atof(f[3].c_str()), std::atof(f[5].c_str()), std::atof(f[6].c_str()),
                                    std::atof(f[1].c_str())});
    }
    return answers;
}

// "tiled_gemm_kernel<TILE>" -> "tiled_gemm_kernel": what ncu's name must contain.
std::string base_name(const std::string& kernel) { return kernel.substr(0, kernel.find_first_of("<( ")); }

// The next of @p launches (ncu's, or the occupancy API's, in launch order) from @p next on
// whose kernel is @p kernel_text's; those before it are skipped. Null when none is left.
template <class Launch>
const Launch* next_launch_of(const std::vector<Launch>& launches, std::size_t& next, const std::string& kernel_text) {
    while (next < launches.size()) {
        const Launch& candidate = launches[next++];
        if (candidate.kernel.find(base_name(kernel_text)) != std::string::npos) return &candidate;
    }
    return nullptr;
}

// ---- The table -----------------------------------------------------------------------------
struct Row {
    std::string group;      // "global loads"
    std::string counter;    // "requests"
    double predicted = 0;
    bool has_predicted = true;
    std::optional<double> measured;
    std::string note;       // after the numbers
};

std::string number(double v) {
    char text[64];
    if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(text, sizeof text, "%.0f", v);
    else std::snprintf(text, sizeof text, "%.2f", v);
    return text;
}

std::optional<double> relative_difference(const Row& row) {
    if (!row.measured || !row.has_predicted) return std::nullopt;
    if (row.predicted == 0) return *row.measured == 0 ? std::optional<double>(0.0) : std::nullopt;
    return (*row.measured - row.predicted) / row.predicted;
}

std::string slug_of(const std::string& text) {
    std::string out;
    for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
    while (out.find("--") != std::string::npos) out.erase(out.find("--"), 1);
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out;
}

std::optional<double> metric(const MeasuredLaunch* m, const std::string& name) {
    if (m == nullptr) return std::nullopt;
    const auto found = m->metrics.find(name);
    if (found == m->metrics.end()) return std::nullopt;
    return found->second;
}

// The sum of two counters ncu splits one kind of instruction over (by pipe or by
// direction): nothing when ncu gave neither, else the sum of those it gave.
std::optional<double> metric_sum(const MeasuredLaunch* m, const std::string& first, const std::string& second) {
    const auto a = metric(m, first), b = metric(m, second);
    return a || b ? std::optional<double>(a.value_or(0) + b.value_or(0)) : std::nullopt;
}

// ---- The prediction, and the measurement beside it ------------------------------------------
struct Report {
    std::vector<Row> rows;
    std::string heading;
    std::vector<std::string> notes;
};

// The rows "bytes in flight" (docs/profile.md): what one block loads before it waits, times
// the blocks resident per SM, beside what Little's law needs on the GPU of @p arch
// (in_flight.h) and the share of the copy rate that allows. Nothing for a kernel that loads
// nothing from global memory.
void add_bytes_in_flight(Report& r, const LaunchProfile& p, std::optional<int> blocks_per_sm, const std::string& arch) {
    if (p.loads_before_wait == 0) return;
    const std::string group = "bytes in flight";
    const auto add = [&](const std::string& counter, double value, const std::string& note) {
        r.rows.push_back(Row{group, counter, value, true, std::nullopt, note});
    };
    // Requests per warp, beside make chapterN sass's static count of load instructions: more
    // than the code holds means a loop, whose iterations the bound assumes issued together.
    const double warps = std::ceil(p.threads_per_block() / 32.0);
    add("loaded before a wait", double(p.loads_before_wait),
        "per block: the most bytes in the sectors its global loads touch between two __syncthreads(); " +
            number(double(p.loads_before_wait_requests)) + " warp requests, " +
            number(std::round(100.0 * double(p.loads_before_wait_requests) / warps) / 100.0) + " a warp");
    if (!blocks_per_sm) {
        r.notes.push_back("bytes in flight per SM: unknown without the blocks per SM (occupancy, above)");
        return;
    }
    const double per_sm = double(p.loads_before_wait) * *blocks_per_sm;
    add("per SM", per_sm, "x " + number(*blocks_per_sm) + " blocks per SM (occupancy " + arch + ")");
    const GpuMemory* gpu = gpu_memory_for(arch);
    if (gpu == nullptr) {
        r.notes.push_back("Little's law: no GPU of " + arch + " has its copy rate and DRAM latency in common/profile/in_flight.h");
        return;
    }
    char note[256];
    std::snprintf(note, sizeof note, "per SM on an %s: %.2f TB/s x %.0f ns / %d SMs", gpu->gpu, gpu->copy_bytes_per_second / 1e12,
                  gpu->dram_latency_seconds / 1e-9, gpu->sms);
    add("Little's law needs", std::round(bytes_in_flight_needed_per_sm(*gpu)), note);
    std::snprintf(note, sizeof note, "of %.2f TB/s, at most: more waits than at barriers allow less (docs/profile.md)",
                  gpu->copy_bytes_per_second / 1e12);
    add("share of copy rate %", std::round(1000.0 * share_of_copy_rate(per_sm, *gpu)) / 10.0, note);
}

Report report_launch(const Variant& variant, const LaunchProfile& p, const MeasuredLaunch* m, const ApiAnswer* api,
                     const std::map<std::string, PtxasKernel>& ptxas, const Options& options,
                     const std::string& svg_path, bool ptxas_given) {
    Report r;
    std::ostringstream heading;
    heading << variant.kernel << ": " << variant.name << "\n   grid (" << p.grid[0] << "," << p.grid[1] << "," << p.grid[2]
            << ") x block (" << p.block[0] << "," << p.block[1] << "," << p.block[2] << "), " << p.static_shared
            << " B static + " << p.dynamic_shared << " B dynamic shared memory per block, launched at " << p.launch_site;
    if (p.faulted) heading << "\n   THE LAUNCH FAILED: the counts below are of the part that ran";
    if (p.uncounted_casts) {
        heading << "\n   NOT ALL TRAFFIC IS COUNTED: the kernel keeps a pointer cast to another type (a float4*, say)"
                   "\n   in a raw pointer, and what it reads or writes through that pointer is not counted, so the"
                   "\n   rows below are a lower bound (ncu, on the GPU, counts everything). Declare the pointer"
                   "\n   auto (auto p = reinterpret_cast<const float4*>(...)) and the CPU backend counts it.";
    }
    r.heading = heading.str();
    const auto add = [&](const std::string& group, const std::string& counter, double predicted, std::optional<double> measured,
                         const std::string& note = "") { r.rows.push_back(Row{group, counter, predicted, true, measured, note}); };

    for (int store = 0; store < 2; ++store) {
        const emu::traffic::GlobalCounts& g = store ? p.global_store : p.global_load;
        const std::string group = store ? "global stores" : "global loads";
        const std::string op = store ? "st" : "ld";
        const auto requests = metric(m, "l1tex__t_requests_pipe_lsu_mem_global_op_" + op + ".sum");
        const auto sectors = metric(m, "l1tex__t_sectors_pipe_lsu_mem_global_op_" + op + ".sum");
        add(group, "requests", double(g.requests), requests);
        add(group, "sectors", double(g.sectors), sectors);
        if (g.requests > 0) {
            std::optional<double> per_request;
            if (requests && sectors && *requests > 0) per_request = *sectors / *requests;
            char ideal[96];
            std::snprintf(ideal, sizeof ideal, "%.2f if each lane's element were distinct and consecutive",
                          double(g.ideal_sectors) / double(g.requests));
            add(group, "sectors per request", double(g.sectors) / double(g.requests), per_request, ideal);
        }
        add(group, "bytes requested", double(g.bytes_requested), std::nullopt);
        add(group, "bytes moved in sectors", double(g.bytes_in_sectors()),
            sectors ? std::optional<double>(*sectors * 32) : std::nullopt);
        add(group, "unique bytes", double(g.unique_bytes), std::nullopt, "the compulsory traffic");
        if (store == 0) {
            if (const auto dram = metric(m, "dram__bytes_read.sum")) {
                add(group, "DRAM bytes read", double(g.unique_bytes), dram,
                    "predicted: the unique bytes loaded, which caches let a GPU read about once");
            }
        }
    }
    {
        // cp.async: its global side, among the global loads above and here alone (LDGSTS);
        // the shared memory it writes is not among the shared stores' wavefronts.
        const emu::traffic::GlobalCounts& g = p.global_ldgsts;
        const auto requests = metric(m, "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum");
        const auto sectors = metric(m, "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum");
        if (g.requests > 0 || requests.value_or(0) > 0) {
            const std::string group = "cp.async global loads";
            add(group, "requests", double(g.requests), requests, "LDGSTS, one per warp and copy site; among the global loads too");
            add(group, "sectors", double(g.sectors), sectors);
            add(group, "bytes requested", double(g.bytes_requested), std::nullopt);
            add(group, "unique bytes", double(g.unique_bytes), std::nullopt, "the compulsory traffic");
        }
    }
    if (p.bulk_copies > 0) {
        const std::string group = "bulk and TMA copies";
        add(group, "copies issued", double(p.bulk_copies), std::nullopt, "cp.async.bulk and cp.async.bulk.tensor");
        add(group, "bytes written to shared memory", double(p.bulk_shared_bytes), std::nullopt,
            "out-of-bounds fill included");
        add(group, "bytes read from global memory", double(p.bulk_global_bytes), std::nullopt);
    }
    for (int store = 0; store < 2; ++store) {
        const emu::traffic::SharedCounts& s = store ? p.shared_store : p.shared_load;
        const std::string group = store ? "shared stores" : "shared loads";
        const std::string op = store ? "st" : "ld";
        const auto wavefronts = metric(m, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum");
        if (s.requests == 0 && wavefronts.value_or(0) == 0) continue;
        add(group, "requests", double(s.requests), std::nullopt);
        add(group, "wavefronts", double(s.wavefronts), wavefronts);
        add(group, "bank conflicts", double(s.bank_conflicts()),
            metric(m, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + op + ".sum"),
            s.ideal_wavefronts == s.requests ? "wavefronts - requests"
                                             : "wavefronts beyond the ideal (8- and 16-byte elements need 2 and 4)");
    }
    // Atomics on shared memory: instructions, not wavefronts (lanes that hit one word are
    // serialised, which the model does not predict). Those through cluster.map_shared_rank()
    // (a cluster's distributed shared memory, the block's own included) are requests of
    // ncu's dshared pipe.
    // A warp's k-th call of a site is one instruction; where its lanes skip the call in
    // different rounds of a loop, the GPU issues more (docs/profile.md).
    const char* const skipped_calls = "predicted fewer where lanes skip the call in different rounds of a loop (docs/profile.md)";
    const auto shared_atomic_instructions = metric(m, "smsp__inst_executed_op_shared_atom.sum");
    if (p.shared_atomics.requests > 0 || shared_atomic_instructions.value_or(0) > 0) {
        add("shared atomics", "instructions (warp-level)", double(p.shared_atomics.requests), shared_atomic_instructions,
            std::string("ncu: smsp__inst_executed_op_shared_atom.sum; ") + skipped_calls);
        add("shared atomics", "atomics (thread-level)", double(p.shared_atomics.accesses), std::nullopt);
    }
    const auto dsmem_atomic_requests = metric(m, "l1tex__t_requests_pipe_lsu_mem_dshared_op_atom.sum");
    if (p.remote_atomics.requests > 0 || dsmem_atomic_requests.value_or(0) > 0) {
        add("DSMEM atomics", "instructions (warp-level)", double(p.remote_atomics.requests), dsmem_atomic_requests,
            "through cluster.map_shared_rank, own block's included; ncu: l1tex__t_requests_pipe_lsu_mem_dshared_op_atom.sum");
        add("DSMEM atomics", "atomics (thread-level)", double(p.remote_atomics.accesses), std::nullopt);
    }
    // Plain loads and stores through cluster.map_shared_rank() pointers, by the same rule.
    const std::optional<double> dsmem_accesses = metric_sum(m, "l1tex__t_requests_pipe_lsu_mem_dshared_op_ld.sum",
                                                            "l1tex__t_requests_pipe_lsu_mem_dshared_op_st.sum");
    if (p.remote_accesses.requests > 0 || dsmem_accesses.value_or(0) > 0) {
        add("DSMEM loads, stores", "instructions (warp-level)", double(p.remote_accesses.requests), dsmem_accesses,
            "through cluster.map_shared_rank, to another block (the own block's are shared loads); ncu: "
            "l1tex__t_requests_pipe_lsu_mem_dshared_op_ld.sum + _st.sum");
        add("DSMEM loads, stores", "accesses (thread-level)", double(p.remote_accesses.accesses), std::nullopt);
    }
    // Atomics on global memory: ncu counts them as requests of the global atomic (atom,
    // when the returned value is used) and reduction (red, when it is not) pipes; the model
    // cannot tell which the compiler chose, so it compares their sum.
    const std::optional<double> global_atomic_requests = metric_sum(
        m, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum");
    if (p.global_atomics.requests > 0 || global_atomic_requests.value_or(0) > 0) {
        add("global atomics", "instructions (warp-level)", double(p.global_atomics.requests), global_atomic_requests,
            std::string("ncu: l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum + _red.sum; ") + skipped_calls);
        add("global atomics", "atomics (thread-level)", double(p.global_atomics.accesses), std::nullopt);
    }
    add("block", "__syncthreads() per block", p.barriers_per_block(), std::nullopt);
    if (variant.flops > 0 && p.global_load.accesses > 0) {
        add("arithmetic intensity", "flops per global load", variant.flops / double(p.global_load.accesses), std::nullopt,
            "per thread-level load of one element");
        add("arithmetic intensity", "flops per byte loaded", variant.flops / double(p.global_load.bytes_requested), std::nullopt,
            "per byte requested");
    }

    // Occupancy, from ptxas' registers.
    const ArchitectureLimits& arch = architecture_limits(options.arch);
    std::optional<int> blocks_per_sm;  // for the bytes in flight
    const auto found = ptxas.find(variant.kernel);
    if (found == ptxas.end() || found->second.registers < 0) {
        r.notes.push_back(std::string("occupancy: unknown, ") +
                          (ptxas_given ? "ptxas reported no kernel named " + variant.kernel
                                       : "registers per thread come from nvcc --resource-usage, and nvcc was not found"));
    } else {
        const PtxasKernel& k = found->second;
        BlockResources block;
        block.threads = static_cast<int>(p.threads_per_block());
        block.registers_per_thread = k.registers;
        block.static_shared = k.static_shared;
        block.dynamic_shared = p.dynamic_shared;
        const Occupancy o = theoretical_occupancy(arch, block);
        blocks_per_sm = o.blocks_per_sm;
        const std::string group = "occupancy " + options.arch;
        // Measured: the occupancy API's answer when the GPU program gave one, else ncu's
        // launch statistics.
        const bool from_api = api != nullptr && api->blocks_per_sm >= 0;
        std::optional<double> measured_registers = metric(m, "launch__registers_per_thread"), measured_blocks, measured_pct;
        if (from_api) {
            measured_registers = api->registers;
            measured_blocks = api->blocks_per_sm;
            if (api->max_warps_per_sm > 0) {
                measured_pct = 100.0 * api->blocks_per_sm * std::ceil(api->threads / 32.0) / api->max_warps_per_sm;
            }
        } else {
            for (const char* limit : {"launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
                                      "launch__occupancy_limit_warps", "launch__occupancy_limit_blocks"}) {
                if (const auto v = metric(m, limit)) measured_blocks = measured_blocks ? std::min(*measured_blocks, *v) : *v;
            }
            measured_pct = metric(m, "sm__maximum_warps_per_active_cycle_pct");
        }
        const std::string source = from_api ? "; measured: cudaFuncGetAttributes" : (m ? "; measured: ncu" : "");
        add(group, "registers per thread", k.registers, measured_registers, "ptxas" + source);
        add(group, "blocks per SM", o.blocks_per_sm, measured_blocks,
            "limited by " + o.limiting() + (from_api ? "; measured: cudaOccupancyMaxActiveBlocksPerMultiprocessor" : source));
        add(group, "theoretical occupancy %", 100.0 * o.fraction(), measured_pct,
            number(o.warps_per_sm) + " of " + number(o.max_warps_per_sm) + " warps");
        if (const auto achieved = metric(m, "sm__warps_active.avg.pct_of_peak_sustained_active")) {
            r.rows.push_back(Row{group, "achieved occupancy %", 0, false, achieved, "measured only"});
        }
        if (k.static_shared != p.static_shared) {
            r.notes.push_back("ptxas gives " + number(double(k.static_shared)) + " B of static shared memory, the CPU run " +
                              number(double(p.static_shared)) + " B; occupancy uses ptxas'");
        }
    }
    add_bytes_in_flight(r, p, blocks_per_sm, options.arch);
    if (p.worst_shared.found) {
        const emu::traffic::WorstSharedSite& w = p.worst_shared;
        char line[768];
        const char* direction = w.direction == emu::traffic::Direction::load ? "load" : "store";
        if (w.wavefronts == w.ideal_wavefronts) {
            std::snprintf(line, sizeof line, "no bank conflict at any shared-memory site; one warp's %s at %s: %s", direction,
                          w.location.c_str(), svg_path.c_str());
        } else {
            std::snprintf(line, sizeof line, "worst shared-memory site: %s (%s), %.2f wavefronts per ideal one over its %llu "
                          "requests, the worst request %u-way; one warp's request: %s",
                          w.location.c_str(), direction, w.degree(), static_cast<unsigned long long>(w.requests),
                          w.worst_degree, svg_path.c_str());
        }
        r.notes.push_back(line);
    }
    return r;
}

void print_report(const Report& r, bool with_measured) {
    std::printf("\n== %s\n", r.heading.c_str());
    if (with_measured) {
        std::printf("   %-22s %-26s %14s %14s %11s\n", "", "", "predicted", "measured", "difference");
    } else {
        std::printf("   %-22s %-26s %14s\n", "", "", "predicted");
    }
    std::string last_group;
    for (const Row& row : r.rows) {
        const std::string group = row.group == last_group ? "" : row.group;
        last_group = row.group;
        std::printf("   %-22s %-26s %14s", group.c_str(), row.counter.c_str(), row.has_predicted ? number(row.predicted).c_str() : "-");
        if (with_measured) {
            const auto diff = relative_difference(row);
            char d[32] = "";
            if (diff) std::snprintf(d, sizeof d, "%+.1f%%", 100.0 * *diff);
            else if (row.measured && row.has_predicted) std::snprintf(d, sizeof d, "%+.0f", *row.measured - row.predicted);
            std::printf(" %14s %11s", row.measured ? number(*row.measured).c_str() : "-", d);
        }
        if (!row.note.empty()) std::printf("   %s", row.note.c_str());
        std::printf("\n");
    }
    for (const std::string& note : r.notes) std::printf("   %s\n", note.c_str());
}

int run_emu(const Chapter& chapter, const Options& options) {
    const std::map<std::string, PtxasKernel> ptxas = read_ptxas(options.ptxas);
    std::vector<MeasuredLaunch> measured;
    if (!options.measured.empty()) measured = read_ncu(options.measured);
    const std::vector<ApiAnswer> api = read_api_occupancy(options.occupancy);
    std::size_t next_api = 0;
    try {
        architecture_limits(options.arch);  // refuse an unknown one before running anything
    } catch (const std::invalid_argument& error) {
        throw std::invalid_argument(std::string("--arch: ") + error.what());
    }
    std::filesystem::create_directories(options.out);
    const std::string prefix = output_prefix(options, chapter);
    const std::string csv_path = prefix + (measured.empty() ? "-predicted.csv" : "-compared.csv");
    std::ofstream csv(csv_path);
    csv << "chapter,variant,kernel,group,counter,predicted,measured,relative_difference\n";

    std::printf("%s, %s. Predicted by the CPU backend%s; occupancy for %s.\n", title_of(chapter).c_str(), chapter.size.c_str(),
                measured.empty() ? "" : (", beside what ncu measured (" + options.measured + ")").c_str(), options.arch.c_str());
    std::printf("A request is one warp's access; a sector is 32 bytes; a wavefront is one pass through the 32 banks of shared memory.\n");
    if (!measured.empty()) {
        std::printf("difference: (measured - predicted) / predicted; where the prediction is 0, measured - predicted.\n");
    }
    std::map<std::string, double> largest;  // counter -> largest |relative difference|
    std::size_t next_measured = 0;
    for (std::size_t index = 0; index < chapter.variants.size(); ++index) {
        const Variant& variant = chapter.variants[index];
        emu::traffic::start();
        variant.run();
        const std::vector<LaunchProfile> launches = emu::traffic::take();
        if (launches.empty()) {
            std::printf("\n== %s: %s\n   launched no kernel.\n", variant.kernel.c_str(), variant.name.c_str());
            continue;
        }
        for (std::size_t i = 0; i < launches.size(); ++i) {
            const LaunchProfile& p = launches[i];
            // ncu's launches in order; skip any whose name is not this kernel's.
            const MeasuredLaunch* m = next_launch_of(measured, next_measured, p.kernel_text);
            if (!measured.empty() && m == nullptr) {
                std::printf("\n   (ncu measured no launch of %s in this order: is %s from the same build?)\n",
                            p.kernel_text.c_str(), options.measured.c_str());
            }
            const std::string svg = prefix + "-" + std::to_string(index + 1) + "-" + slug_of(variant.kernel) + (launches.size() > 1 ? "-" + std::to_string(i + 1) : "") +
                                    "-banks.svg";
            if (p.worst_shared.found) write_bank_svg(svg, variant.kernel + ": " + variant.name, p.worst_shared);
            const ApiAnswer* a = next_launch_of(api, next_api, p.kernel_text);
            const Report r = report_launch(variant, p, m, a, ptxas, options, svg, !options.ptxas.empty());
            print_report(r, !measured.empty() || !api.empty());
            for (const Row& row : r.rows) {
                const auto diff = relative_difference(row);
                csv << chapter.number << ",\"" << variant.name << "\",\"" << variant.kernel << "\",\"" << row.group << "\",\""
                    << row.counter << "\"," << (row.has_predicted ? number(row.predicted) : "") << ","
                    << (row.measured ? number(*row.measured) : "") << "," << (diff ? std::to_string(*diff) : "") << "\n";
                const std::string key = row.group.substr(0, row.group.find(" sm_")) + ": " + row.counter;
                // DRAM bytes stand beside a floor (the unique bytes), not a prediction: not summed up.
                if (row.counter == "DRAM bytes read") continue;
                if (diff) {
                    largest[key] = std::max(largest[key], std::fabs(*diff));
                } else if (row.measured && row.has_predicted) {
                    largest[key] = HUGE_VAL;  // predicted 0, measured more: no ratio, and no agreement either
                }
            }
        }
    }
    if (!largest.empty()) {
        std::printf("\nLargest relative difference per counter over the chapter's kernels (DRAM bytes left out: the\n"
                    "unique bytes beside them are a floor, not a prediction):\n");
        for (const auto& entry : largest) {
            if (std::isinf(entry.second)) std::printf("   %-50s predicted 0 where the GPU measured more\n", entry.first.c_str());
            else std::printf("   %-50s %6.1f%%\n", entry.first.c_str(), 100.0 * entry.second);
        }
    }
    std::printf("\nTable written to %s.\n", csv_path.c_str());
    return 0;
}
#endif

}  // namespace

#if defined(EMU_BACKEND_TRAFFIC)
// ---- The picture ---------------------------------------------------------------------------
// One warp's request at the worst shared site: 32 lanes above, 32 banks below, each distinct
// word the request touches stacked in its bank; a bank with more than one word is a conflict.
namespace {
// Text for an SVG (XML) document: kernel names carry < and >.
std::string xml_text(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '&') out += "&amp;";
        else if (c == '\'') out += "&apos;";
        else out += c;
    }
    return out;
}
}  // namespace

void write_bank_svg(const std::string& path, const std::string& title, const emu::traffic::WorstSharedSite& site) {
    struct Word {
        std::uint64_t index;
        std::vector<unsigned> lanes;
    };
    std::vector<Word> banks[32];
    for (unsigned lane = 0; lane < 32; ++lane) {
        const emu::traffic::LaneAccess& a = site.sample[lane];
        if (!a.active) continue;
        const std::uint64_t word = a.offset / 4;  // the first word of the element
        std::vector<Word>& bank = banks[word % 32];
        auto found = std::find_if(bank.begin(), bank.end(), [&](const Word& w) { return w.index == word; });
        if (found == bank.end()) {
            bank.push_back(Word{word, {}});
            found = bank.end() - 1;
        }
        found->lanes.push_back(lane);
    }
    std::size_t deepest = 1;
    for (const auto& bank : banks) deepest = std::max(deepest, bank.size());
    const int cell = 30, left = 70, lanes_y = 70, banks_y = 190;
    const int width = left + 32 * cell + 20, height = banks_y + static_cast<int>(deepest) * 22 + 80;
    std::ofstream svg(path);
    if (!svg) throw std::runtime_error("cannot write the picture " + path);
    svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height
        << "' font-family='sans-serif' font-size='11'>\n<rect width='100%' height='100%' fill='white'/>\n";
    svg << "<text x='10' y='20' font-size='14'>" << xml_text(title) << "</text>\n";
    svg << "<text x='10' y='40'>" << xml_text(site.location) << ": one warp's request, " << site.worst_degree
        << (site.worst_degree == 1 ? " wavefront per phase (no conflict)" : "-way bank conflict") << "</text>\n";
    svg << "<text x='10' y='" << lanes_y + 14 << "'>threads</text>\n<text x='10' y='" << banks_y - 6 << "'>banks</text>\n";
    for (unsigned b = 0; b < 32; ++b) {
        const int x = left + static_cast<int>(b) * cell;
        const bool conflict = banks[b].size() > 1;
        svg << "<rect x='" << x << "' y='" << lanes_y << "' width='" << cell - 4 << "' height='20' fill='"
            << (site.sample[b].active ? "#dde8f5" : "#eeeeee") << "' stroke='#555'/><text x='" << x + 3 << "' y='"
            << lanes_y + 14 << "'>" << b << "</text>\n";
        svg << "<text x='" << x + 3 << "' y='" << banks_y - 6 << "'" << (conflict ? " fill='#c00000' font-weight='bold'" : "")
            << ">" << b << "</text>\n";
        for (std::size_t d = 0; d < banks[b].size(); ++d) {
            const int y = banks_y + static_cast<int>(d) * 22;
            svg << "<rect x='" << x << "' y='" << y << "' width='" << cell - 4 << "' height='20' fill='"
                << (conflict ? "#f4c0c0" : "#d8efd8") << "' stroke='" << (conflict ? "#c00000" : "#3a7a3a") << "'/>"
                << "<text x='" << x + 2 << "' y='" << y + 14 << "' font-size='9'>" << banks[b][d].index << "</text>\n";
            for (unsigned lane : banks[b][d].lanes) {
                svg << "<line x1='" << left + static_cast<int>(lane) * cell + (cell - 4) / 2 << "' y1='" << lanes_y + 20
                    << "' x2='" << x + (cell - 4) / 2 << "' y2='" << y << "' stroke='" << (conflict ? "#c00000" : "#3a7a3a")
                    << "' stroke-opacity='0.5'/>\n";
            }
        }
    }
    const int note_y = banks_y + static_cast<int>(deepest) * 22 + 24;
    svg << "<text x='10' y='" << note_y << "'>Each box under a bank is one 4-byte word the warp touches (its index in shared "
           "memory). Threads on the same word share it (a broadcast);</text>\n";
    svg << "<text x='10' y='" << note_y + 16 << "'>a bank with k different words (red) needs k passes, wavefronts, "
        << "so the busiest bank sets the cost.";
    if (site.phase_lanes < 32) {
        svg << " Elements of " << (site.phase_lanes == 16 ? 8 : 16) << " bytes: the GPU serves " << site.phase_lanes
            << " threads at a time.";
    }
    svg << "</text>\n</svg>\n";
}

#endif

int run(int argc, char** argv, const Chapter& chapter) {
    try {
        const Options options = parse(argc, argv);
#if defined(EMU_BACKEND_TRAFFIC)
        return run_emu(chapter, options);
#else
        for (const Variant& variant : chapter.variants) variant.run();
        std::filesystem::create_directories(options.out);
        const std::string occupancy = output_prefix(options, chapter) + "-occupancy-api.csv";
        write_api_occupancy(occupancy);
        std::printf("%s: launched %zu kernel variants once each, %s; the occupancy API's answers are in %s.\n",
                    title_of(chapter).c_str(), chapter.variants.size(), chapter.size.c_str(), occupancy.c_str());
        return 0;
#endif
    } catch (const std::exception& error) {
        std::fprintf(stderr, "%s: %s\n", argc > 0 ? argv[0] : "profile", error.what());
        return 1;
    }
}

}  // namespace profile
}  // namespace tutorial
