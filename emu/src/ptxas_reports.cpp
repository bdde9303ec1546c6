// What ptxas reported of the program's kernels (emu/include/emu/ptxas_report.h), and the
// name of a kernel from its address: the program's symbol table, demangled and keyed as
// the profiler keys ptxas' kernels (tutorial::kernel_key in gpu_model/include/gpu_model/occupancy.h).
#include "internal.h"

#include <emu/ptxas_report.h>

#include <gpu_model/occupancy.h>

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace emu {
namespace detail {
namespace {

struct Report {
    const char* source;
    const char* text;  // null: nvcc was not found when the source was built
};

// One kernel of the reports, by its key.
struct Entry {
    tutorial::PtxasKernel kernel;
    const char* source = nullptr;
    std::string conflict;  // another kernel of the same key with other resources: which
};

struct Reports {
    std::vector<Report> registered;
    std::size_t parsed = 0;  // registered[0, parsed) are in `kernels`
    std::map<std::string, Entry> kernels;
    std::map<const void*, std::string> symbols;  // addresses already looked up
};

// Constant-initialised: safe to lock from other files' static initialisers.
std::mutex reports_mutex;
Reports& reports() {
    static Reports r;
    return r;
}

void parse_new_reports(Reports& r) {
    for (; r.parsed < r.registered.size(); ++r.parsed) {
        const Report& report = r.registered[r.parsed];
        if (report.text == nullptr) continue;
        std::istringstream in(report.text);
        for (const tutorial::PtxasKernel& k : tutorial::read_ptxas_report(in)) {
            const auto found = r.kernels.find(k.key);
            if (found == r.kernels.end()) {
                r.kernels[k.key] = Entry{k, report.source, {}};
            } else if (found->second.kernel.registers != k.registers || found->second.kernel.static_shared != k.static_shared ||
                       found->second.kernel.arch != k.arch) {
                // Overloads (one key) or one kernel compiled differently in two files.
                found->second.conflict = k.symbol + " (" + std::to_string(k.registers) + " registers, " +
                                         std::to_string(k.static_shared) + " bytes of __shared__ variables, in " +
                                         report.source + ")";
            }
        }
    }
}

// The load address of the program's own ELF file: 0 unless it is position-independent.
std::uintptr_t program_bias() {
    std::uintptr_t bias = 0;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            *static_cast<std::uintptr_t*>(data) = info->dlpi_addr;
            return 1;  // the first object is the program
        },
        &bias);
    return bias;
}

// The symbol of the function at @p address in the program's symbol table (.symtab, which
// has static functions and those of anonymous namespaces too); "" if none.
std::string symbol_in_program(const void* address) {
    const int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "";
    struct stat st {};
    void* mapped = fstat(fd, &st) == 0 && st.st_size > 0
                       ? mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
                       : MAP_FAILED;
    close(fd);
    if (mapped == MAP_FAILED) return "";
    const std::size_t size = static_cast<std::size_t>(st.st_size);
    const auto* base = static_cast<const unsigned char*>(mapped);
    std::string found;
    const auto* header = reinterpret_cast<const Elf64_Ehdr*>(base);
    const bool elf64 = size >= sizeof(Elf64_Ehdr) && std::equal(base, base + SELFMAG, ELFMAG) && base[EI_CLASS] == ELFCLASS64 &&
                       header->e_shoff + std::size_t(header->e_shnum) * sizeof(Elf64_Shdr) <= size;
    if (elf64) {
        const auto* sections = reinterpret_cast<const Elf64_Shdr*>(base + header->e_shoff);
        const std::uintptr_t wanted = reinterpret_cast<std::uintptr_t>(address) - program_bias();
        for (unsigned s = 0; s < header->e_shnum && found.empty(); ++s) {
            const Elf64_Shdr& table = sections[s];
            if (table.sh_type != SHT_SYMTAB || table.sh_link >= header->e_shnum ||
                table.sh_offset + table.sh_size > size) {
                continue;
            }
            const Elf64_Shdr& strings = sections[table.sh_link];
            const auto* symbols = reinterpret_cast<const Elf64_Sym*>(base + table.sh_offset);
            for (std::size_t i = 0; i < table.sh_size / sizeof(Elf64_Sym); ++i) {
                const Elf64_Sym& symbol = symbols[i];
                if (ELF64_ST_TYPE(symbol.st_info) == STT_FUNC && symbol.st_shndx != SHN_UNDEF && symbol.st_value == wanted &&
                    symbol.st_name < strings.sh_size && strings.sh_offset + strings.sh_size <= size) {
                    found = reinterpret_cast<const char*>(base + strings.sh_offset + symbol.st_name);
                    break;
                }
            }
        }
    }
    munmap(mapped, size);
    return found;
}

}  // namespace

bool register_ptxas_report(const char* source, const char* report) {
    std::lock_guard<std::mutex> lock(reports_mutex);
    reports().registered.push_back(Report{source, report});
    return true;
}

std::string kernel_symbol(const void* kernel) {
    std::lock_guard<std::mutex> lock(reports_mutex);
    Reports& r = reports();
    const auto cached = r.symbols.find(kernel);
    if (cached != r.symbols.end()) return cached->second;
    return r.symbols[kernel] = symbol_in_program(kernel);
}

bool ptxas_resources(const void* kernel, KernelResources& resources, std::string& problem) {
    const std::string symbol = kernel_symbol(kernel);
    std::lock_guard<std::mutex> lock(reports_mutex);
    Reports& r = reports();
    parse_new_reports(r);
    resources.name = symbol.empty() ? std::string() : tutorial::kernel_key(tutorial::demangle(symbol));
    std::ostringstream address;
    address << "the function at " << kernel;
    const std::string name = symbol.empty() ? address.str() : resources.name;
    if (r.registered.empty()) {
        problem = "the registers per thread of " + name + " are unknown. The CPU backend takes a kernel's registers " +
                  "from ptxas, and this program holds no ptxas report: its build runs ptxas (nvcc " +
                  "--resource-usage -arch=sm_90a) on the .cu files of a chapter whose line in chapters/registry says " +
                  "occupancy=yes, and on no others.";
        return false;
    }
    std::string sources, without_nvcc;
    for (const Report& report : r.registered) {
        std::string& list = report.text ? sources : without_nvcc;
        list += (list.empty() ? "" : ", ") + std::string(report.source);
    }
    if (symbol.empty()) {
        problem = "no function of the program's symbol table starts at " + name + ", so the CPU backend cannot look "
                  "it up among the kernels ptxas reported (is the program stripped, or is this not a kernel?).";
        return false;
    }
    const auto found = r.kernels.find(resources.name);
    if (found == r.kernels.end()) {
        problem = "the registers per thread of " + name + " are unknown: ";
        if (!without_nvcc.empty()) {
            problem += "nvcc was not found when " + without_nvcc + " " + (without_nvcc.find(", ") == std::string::npos ? "was" : "were") +
                       " built, and the CPU backend takes a kernel's registers from ptxas (install the CUDA Toolkit and " +
                       "rebuild)" + (sources.empty() ? "." : "; ");
        }
        if (!sources.empty()) {
            problem += "ptxas reported no kernel of that name in " + sources + " (the .cu files compiled into this program " +
                       "of the chapters whose line in chapters/registry says occupancy=yes).";
        }
        return false;
    }
    const Entry& entry = found->second;
    if (!entry.conflict.empty()) {
        problem = "ptxas reported two kernels named " + name + " with different resources: " + entry.kernel.symbol + " (" +
                  std::to_string(entry.kernel.registers) + " registers, " + std::to_string(entry.kernel.static_shared) +
                  " bytes of __shared__ variables, in " + entry.source + ") and " + entry.conflict +
                  "; the CPU backend knows a kernel by its name and template arguments, as the profiler does, and cannot "
                  "tell overloads apart.";
        return false;
    }
    // sm_90a is sm_90 with its arch-specific features (wgmma): the same resources.
    const std::string& arch = entry.kernel.arch;
    const bool same_architecture = arch == kArchitecture || arch == std::string(kArchitecture) + "a";
    if (!same_architecture) {
        problem = "ptxas compiled " + name + " for " + (entry.kernel.arch.empty() ? "an unnamed architecture" : entry.kernel.arch) +
                  " (in " + entry.source + "), and the CPU backend answers as an H100, " + kArchitecture +
                  ": build with NVCC_CHECK_ARCH=" + kArchitecture + "a (the default).";
        return false;
    }
    if (entry.kernel.registers < 0) {
        problem = std::string("ptxas' report of ") + entry.source + " names " + name + " but gives no registers for it.";
        return false;
    }
    resources.registers = entry.kernel.registers;
    resources.static_shared = entry.kernel.static_shared;
    return true;
}

}  // namespace detail
}  // namespace emu
