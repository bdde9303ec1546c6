#include "session.h"

#include "cuda_check.h"
#include "device_buffer.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <stdexcept>

namespace tutorial::benchmark {

namespace {

// CUDA versions are numbers like 13000 for 13.0 and 12080 for 12.8.
std::string cuda_version(int number) {
    return std::to_string(number / 1000) + "." + std::to_string(number % 1000 / 10);
}

// The driver's own version (580.65.06, say) is only known to NVML; nvidia-smi asks it.
std::string nvidia_driver_version() {
    std::string version;
    if (FILE* pipe = popen("nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null", "r")) {
        char line[128];
        if (std::fgets(line, sizeof line, pipe) != nullptr) version = line;
        pclose(pipe);
    }
    version.erase(version.find_last_not_of(" \r\n") + 1);
    return version.empty() ? "unknown" : version;
}

// The row of @p work, before it is measured: what it is and what it is compared with.
Measurement row_of(RowKind kind, const WorkToTime& work) {
    Measurement row;
    row.kind = kind;
    row.problem = work.problem;
    row.variant = work.variant;
    row.unit = work.unit;
    row.work = work.work;
    row.is_baseline = work.is_baseline;
    row.is_library = work.is_library;
    return row;
}

std::string utc_now() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

std::string mebibytes(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// The note of a row whose median rate is more than 105% of its ceiling's: what the data says
// about it, and the advice to check only when neither reason below applies.
std::string above_ceiling_note(const Measurement& row, const WorkToTime& work, const Measurement& ceiling) {
    std::string note = "faster than its ceiling: " + printf_string("%.1f%%", row.percent_of_ceiling()) + " of it by the medians";
    bool explained = false;
    if (row.timing.min_ms > 0.0 && ceiling.timing.min_ms > 0.0 && ceiling.work > 0.0) {
        const double fastest = 100.0 * (row.work / row.timing.min_ms) / (ceiling.work / ceiling.timing.min_ms);
        note += ", " + printf_string("%.1f%%", fastest) + " by the fastest run of each";
        explained = fastest <= 105.0;
    }
    // The copy ceiling counts the bytes a copy writes as well as those it reads.
    if (work.unit == "GB/s" && work.bytes_written >= 0.0 && 4.0 * work.bytes_written < work.work) {
        note += "; the ceiling is a copy, half of whose bytes are writes, and this work writes almost nothing";
        explained = true;
    }
    return explained ? note : note + ": check the work count and the measurement";
}

// The copy ceiling's buffers: far beyond L2, so the copy streams from and to DRAM.
std::size_t copy_bytes(const GpuInfo& gpu) { return std::max(std::size_t{256} << 20, 4 * gpu.l2_bytes); }

Measurement measure_copy(Session& session, std::size_t bytes) {
    DeviceBuffer<unsigned char> source(bytes), destination(bytes);
    CUDA_CHECK(cudaMemset(source.data(), 0x5A, bytes));
    WorkToTime copy;
    copy.problem = mebibytes(bytes) + " copy";
    copy.variant = "cudaMemcpy device to device";
    copy.unit = "GB/s";
    copy.work = 2.0 * static_cast<double>(bytes);  // every byte is read once and written once
    copy.bytes_written = static_cast<double>(bytes);
    copy.run = [&] {
        CUDA_CHECK(cudaMemcpyAsync(destination.data(), source.data(), bytes, cudaMemcpyDeviceToDevice, 0));
    };
    return session.measure_ceiling(copy);
}

// Options are "--name value"; a wrong one gets the usage and exit status 2.
bool parse_labels(int argc, char* argv[], RunLabels& labels) {
    for (int i = 1; i < argc; ++i) {
        const std::string option = argv[i];
        std::string* target = option == "--tree"         ? &labels.tree
                              : option == "--output-dir" ? &labels.output_dir
                                                         : nullptr;
        if (target == nullptr || i + 1 >= argc) {
            std::cerr << "usage: " << argv[0]
                      << " [--tree chapters|solutions] [--output-dir DIR]\n"
                         "Run it with `make chapterN bench` (add SOLUTIONS=1 for the reference solutions).\n";
            return false;
        }
        *target = argv[++i];
    }
    return true;
}

}  // namespace

int fp32_lanes_per_sm(int major, int minor) {
    // The CUDA C++ Programming Guide's table of arithmetic instruction throughputs: 32-bit
    // floating-point add, multiply and multiply-add results per clock per SM.
    if (major == 6) return minor == 0 ? 64 : 128;
    if (major == 7) return 64;
    if (major == 8) return minor == 0 ? 64 : 128;
    if (major == 9 || major == 10 || major == 11 || major == 12) return 128;
    return 0;
}

bool find_gpu(GpuInfo& info, std::string& why) {
    if (!cuda_device_found(why)) {
        return false;
    }
    CUDA_CHECK(cudaGetDevice(&info.device));
    cudaDeviceProp properties{};
    CUDA_CHECK(cudaGetDeviceProperties(&properties, info.device));
    info.name = properties.name;
    info.compute_capability = std::to_string(properties.major) + "." + std::to_string(properties.minor);
    info.multiprocessors = properties.multiProcessorCount;
    info.memory_bytes = properties.totalGlobalMem;
    info.l2_bytes = static_cast<std::size_t>(std::max(properties.l2CacheSize, 0));
    int version = 0;
    CUDA_CHECK(cudaDriverGetVersion(&version));
    info.driver_cuda = cuda_version(version);
    CUDA_CHECK(cudaRuntimeGetVersion(&version));
    info.runtime_cuda = cuda_version(version);
    info.driver = nvidia_driver_version();
    // The roofline's roof. Clock rates are attributes (cudaDeviceProp lost them in CUDA 13),
    // in kHz; the memory clock is the DRAM's, which moves data on both edges.
    int clock_khz = 0, memory_khz = 0, bus_bits = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, info.device));
    CUDA_CHECK(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, info.device));
    CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, info.device));
    info.peak_fp32_gflops = info.multiprocessors * fp32_lanes_per_sm(properties.major, properties.minor) * 2.0 *
                            clock_khz * 1e3 / 1e9;
    info.peak_dram_gbs = 2.0 * memory_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    return true;
}

Session::Session(const GpuInfo& gpu, RunLabels labels)
    : gpu_(gpu), labels_(std::move(labels)), date_(utc_now()), flush_(gpu.l2_bytes) {
    std::cout << "Benchmarking chapter" << labels_.chapter << " (" << labels_.tree << ") on " << gpu_.name << ", "
              << gpu_.multiprocessors << " SMs, " << mebibytes(gpu_.memory_bytes) << ", L2 " << mebibytes(gpu_.l2_bytes)
              << ".\nEvery run is preceded by a " << mebibytes(flush_.bytes())
              << " read that flushes L2 and a write that leaves as much of it dirty as the run writes;\n"
                 "results are checked against the CPU after timing.\n";
    copy_ceiling_ = measure_copy(*this, copy_bytes(gpu_));
}

Measurement Session::measure_ceiling(const WorkToTime& work) { return measure(RowKind::ceiling, work, nullptr); }

Measurement Session::measure_kernel(const WorkToTime& work, const Measurement& ceiling) {
    return measure(RowKind::kernel, work, &ceiling);
}

Measurement Session::measure_library(WorkToTime work, const Measurement& ceiling) {
    work.is_library = true;
    return measure(RowKind::library, work, &ceiling);
}

Measurement Session::library_absent(const std::string& problem, const std::string& variant, const std::string& unit,
                                    const std::string& why) {
    WorkToTime absent;
    absent.problem = problem;
    absent.variant = variant;
    absent.unit = unit;
    absent.is_library = true;
    Measurement row = row_of(RowKind::library, absent);
    row.check = kLibraryAbsent;
    row.note = why;
    require_one_library(row);
    std::cout << "  " << problem << ", " << variant << ": " << why << "\n";
    rows_.push_back(row);
    return row;
}

void Session::require_one_library(const Measurement& library) const {
    for (const Measurement& row : rows_) {
        if (row.is_library && row.problem == library.problem) {
            throw std::logic_error("the benchmark records two library rows for \"" + library.problem + "\" (" +
                                   row.variant + " and " + library.variant + "): \"x the library\" needs one");
        }
    }
}

Measurement Session::measure(RowKind kind, const WorkToTime& work, const Measurement* ceiling) {
    Measurement row = row_of(kind, work);
    if (row.is_library) require_one_library(row);
    if (ceiling != nullptr) {
        row.ceiling = ceiling->variant;
        row.ceiling_rate = ceiling->ok ? ceiling->rate() : 0.0;
    }
    std::cout << "  " << row.problem << ", " << row.variant << " ..." << std::flush;
    try {
        if (!work.on_cpu && !(work.bytes_written >= 0.0)) {
            throw std::logic_error("the benchmark gives no bytes_written for this GPU row (WorkToTime)");
        }
        if (work.prepare) work.prepare();
        row.timing = work.on_cpu ? time_cpu_work(work.run, work.cpu_warmups, work.cpu_repetitions)
                                  : time_gpu_work(work.run, flush_, static_cast<std::size_t>(work.bytes_written));
        // Checked after timing, on the output of the last timed run: a kernel that is
        // "faster than memory bandwidth" is usually a kernel that skips work.
        const std::string wrong = work.check ? work.check() : std::string();
        row.ok = wrong.empty();
        row.check = row.ok ? "ok" : "WRONG";
        std::cout << " " << row.timing.median_ms << " ms, " << row.check << "\n";
        if (!row.ok) {
            row.note = "the output does not match the CPU reference, so this time means nothing";
            std::cout << wrong << (wrong.back() == '\n' ? "" : "\n");
        } else if (ceiling != nullptr && row.ceiling_rate > 0.0 && row.percent_of_ceiling() > 105.0) {
            row.note = above_ceiling_note(row, work, *ceiling);
        } else if (work.remark) {
            row.note = work.remark();
        }
    } catch (const std::exception& error) {
        row.ok = false;
        row.check = "ERROR";
        row.note = error.what();
        std::cout << " ERROR: " << error.what() << "\n";
        // A launch error is cleared by reading it; an error inside a kernel (an
        // illegal address) breaks the context for good, and nothing else can run.
        cudaGetLastError();
        const cudaError_t state = cudaDeviceSynchronize();
        if (state != cudaSuccess) {
            rows_.push_back(row);
            throw CudaError(state, "the benchmark after " + row.variant + " failed (the GPU context is unusable)",
                            __FILE__, __LINE__);
        }
    }
    rows_.push_back(row);
    return row;
}

RunStamp Session::stamp() const {
    RunStamp run_stamp{labels_.chapter, labels_.folder,   labels_.tree,         gpu_.name, gpu_.compute_capability,
                       gpu_.driver,     gpu_.driver_cuda, gpu_.runtime_cuda,    date_};
    run_stamp.peak_fp32_gflops = gpu_.peak_fp32_gflops;
    run_stamp.peak_dram_gbs = gpu_.peak_dram_gbs;
    return run_stamp;
}

int Session::finish() {
    // Speed-ups over each problem's baseline, "x the library" over its library row.
    relate_rows(rows_);

    const RunStamp run_stamp = stamp();
    print_table(std::cout, run_stamp, rows_);

    std::filesystem::create_directories(labels_.output_dir);
    const std::string base = labels_.output_dir + "/chapter" + labels_.chapter + "-" + labels_.tree;
    write_csv(base + ".csv", run_stamp, rows_);
    write_json(base + ".json", run_stamp, rows_);
    std::cout << "Wrote " << base << ".csv and " << base << ".json.\n";

    const auto failed = std::count_if(rows_.begin(), rows_.end(), [](const Measurement& row) { return row.failed(); });
    const auto failed_libraries = std::count_if(rows_.begin(), rows_.end(), [](const Measurement& row) {
        return row.failed() && row.kind == RowKind::library;
    });
    if (failed > 0) {
        std::cout << "bench: " << failed << " of " << rows_.size() << " rows are WRONG or failed: their times mean nothing.";
        if (failed > failed_libraries) {
            std::cout << " `make chapter" << labels_.chapter << " test` says what is wrong with a kernel.";
        }
        if (failed_libraries > 0) {
            std::cout << " A library row that fails is the benchmark's mistake or the library's, not yours "
                         "(its wrapper in the chapter's bench/ folder).";
        }
        std::cout << "\n";
        return 1;
    }
    return 0;
}

int run_chapter(int argc, char* argv[], const char* chapter, const char* folder,
                const std::function<void(Session&)>& body) {
    RunLabels labels;
    labels.chapter = chapter;
    labels.folder = folder;
    if (!parse_labels(argc, argv, labels)) {
        return 2;
    }
    GpuInfo gpu;
    std::string why;
    if (!find_gpu(gpu, why)) {
        std::cout << "bench: refused: no CUDA GPU found (" << why
                  << "); timings need a real GPU, and mean nothing on an emulator.\n";
        return 1;
    }
    try {
        Session session(gpu, labels);
        try {
            body(session);
        } catch (const std::exception& error) {
            std::cout << "\nbench: stopped early: " << error.what() << "\n";
            session.finish();
            return 1;
        }
        return session.finish();
    } catch (const std::exception& error) {
        std::cout << "bench: failed: " << error.what() << "\n";
        return 1;
    }
}

}  // namespace tutorial::benchmark
