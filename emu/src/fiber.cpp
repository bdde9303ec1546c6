// Fibers, their guarded stacks, and the report of a crash inside a kernel.
#include "fiber.h"

#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <utility>

namespace emu {
namespace detail {

namespace {
std::size_t page_size() {
    static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return size;
}
}  // namespace

Stack::Stack(std::size_t usable_bytes) {
    guard_ = page_size();
    mapped_ = guard_ + (usable_bytes + guard_ - 1) / guard_ * guard_;
    void* memory = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (memory == MAP_FAILED) throw std::bad_alloc();
    memory_ = static_cast<char*>(memory);
    // Stacks grow down: the guard page is the lowest one.
    if (mprotect(memory_, guard_, PROT_NONE) != 0) {
        munmap(memory_, mapped_);
        throw std::bad_alloc();
    }
}

Stack::~Stack() { munmap(memory_, mapped_); }

bool Stack::guards(const void* address) const {
    const auto at = reinterpret_cast<std::uintptr_t>(address);
    const auto low = reinterpret_cast<std::uintptr_t>(memory_);
    return at >= low && at < low + guard_;
}

#if defined(EMU_FIBERS_BOOST)

namespace {
// Hands Boost.Context a stack we own: the stacks are reused block after block.
struct BorrowedStack {
    boost::context::stack_context context;
    boost::context::stack_context allocate() { return context; }
    void deallocate(boost::context::stack_context&) noexcept {}
};
}  // namespace

void Fiber::start(Stack& stack, Entry entry, void* argument) {
    reset();
    entry_ = entry;
    argument_ = argument;
    finished_ = false;
    boost::context::stack_context context;
    context.size = stack.size();
    context.sp = stack.top();
    self_ = boost::context::fiber(std::allocator_arg, BorrowedStack{context}, [this](boost::context::fiber&& caller) {
        caller_ = std::move(caller);
        entry_(argument_);
        finished_ = true;
        return std::move(caller_);
    });
}

void Fiber::resume() { self_ = std::move(self_).resume(); }

void Fiber::suspend() { caller_ = std::move(caller_).resume(); }

void Fiber::reset() {
    // Destroying a suspended Boost fiber unwinds its stack (a forced_unwind exception).
    self_ = boost::context::fiber();
    finished_ = true;
}

#else

void Fiber::trampoline(unsigned high, unsigned low) {
    auto* fiber = reinterpret_cast<Fiber*>((static_cast<std::uintptr_t>(high) << 32) | low);
    fiber->entry_(fiber->argument_);
    fiber->finished_ = true;
    swapcontext(&fiber->self_, &fiber->caller_);
}

void Fiber::start(Stack& stack, Entry entry, void* argument) {
    entry_ = entry;
    argument_ = argument;
    finished_ = false;
    getcontext(&self_);
    self_.uc_stack.ss_sp = stack.bottom();
    self_.uc_stack.ss_size = stack.size();
    self_.uc_link = nullptr;
    const auto address = reinterpret_cast<std::uintptr_t>(this);
    makecontext(&self_, reinterpret_cast<void (*)()>(&Fiber::trampoline), 2, static_cast<unsigned>(address >> 32),
                static_cast<unsigned>(address & 0xffffffffu));
}

void Fiber::resume() { swapcontext(&caller_, &self_); }

void Fiber::suspend() { swapcontext(&self_, &caller_); }

void Fiber::reset() { finished_ = true; }  // the stack is simply reused

#endif

bool host_access_message(const void* address, bool write, char* out, std::size_t size);  // memory.cpp

namespace {

thread_local const CrashContext* crash_context = nullptr;
thread_local CrashRecovery* armed_recovery = nullptr;

// What SIGSEGV and SIGBUS did before claim_crash_signals(): crashes outside kernels go there.
struct sigaction previous_actions[2];
std::atomic<bool> passed_on{false};
constexpr int kCrashSignals[2] = {SIGSEGV, SIGBUS};

const void* faulting_instruction(void* context) {
#if defined(__x86_64__)
    return reinterpret_cast<const void*>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
    return reinterpret_cast<const void*>(static_cast<ucontext_t*>(context)->uc_mcontext.pc);
#else
    (void)context;
    return nullptr;
#endif
}

void report_crash(int signal_number, siginfo_t* info, void* context) {
    CrashRecovery* recovery = armed_recovery;
    const CrashContext* crashed = crash_context;
    if (recovery != nullptr && crashed != nullptr) {
        // A CUDA thread crashed: note what happened and go back to its entry function,
        // which stops the kernel with a message (block_runner.cpp). The fiber's stack is
        // abandoned; siglongjmp restores the signal mask sigsetjmp saved.
        bool overflow = false;
        for (std::size_t i = 0; i < crashed->stack_count; ++i) overflow = overflow || crashed->stacks[i]->guards(info->si_addr);
        recovery->signal = signal_number;
        recovery->code = info->si_code;
        recovery->address = info->si_addr;
        recovery->instruction = faulting_instruction(context);
        recovery->overflow = overflow;
        armed_recovery = nullptr;
        siglongjmp(recovery->jump, 1);
    }
    // Host code touched device memory, which is closed to it as a GPU's is (memory.cpp): say
    // so before the crash is reported.
    bool writing = false;
#if defined(__x86_64__)
    writing = (static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#endif
    char message[512];
    if (signal_number == SIGSEGV && host_access_message(info->si_addr, writing, message, sizeof message)) {
        const std::size_t length = std::strlen(message);
        message[length] = '\n';
        (void)!::write(2, message, length + 1);
    }
    // Not a kernel's crash: the handler we replaced (Catch2's, which reports the test
    // case) gets it, once; after that, or with none, the process dies of the signal.
    const struct sigaction& previous = previous_actions[signal_number == SIGBUS ? 1 : 0];
    const bool handler = (previous.sa_flags & SA_SIGINFO) != 0 ? previous.sa_sigaction != nullptr
                                                               : previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN;
    if (handler && !passed_on.exchange(true)) {
        if ((previous.sa_flags & SA_SIGINFO) != 0) {
            previous.sa_sigaction(signal_number, info, context);
        } else {
            previous.sa_handler(signal_number);
        }
        return;
    }
    struct sigaction fallback;
    std::memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal_number, &fallback, nullptr);
    // Returning re-runs the faulting instruction, and the process dies of the signal.
}

}  // namespace

void claim_crash_signals() {
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    for (int i = 0; i < 2; ++i) {
        struct sigaction current;
        sigaction(kCrashSignals[i], nullptr, &current);
        if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == &report_crash) continue;
        struct sigaction action;
        std::memset(&action, 0, sizeof action);
        action.sa_sigaction = &report_crash;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        sigaction(kCrashSignals[i], &action, &previous_actions[i]);
    }
    passed_on = false;
}

void arm_crash_recovery(CrashRecovery* recovery) { armed_recovery = recovery; }

std::string source_line_of(const void* instruction) {
    Dl_info object;
    if (instruction == nullptr || dladdr(instruction, &object) == 0 || object.dli_fname == nullptr) return "";
    auto address = reinterpret_cast<std::uintptr_t>(instruction);
    // A position-independent program's addresses in its debug information start at 0.
    const auto* header = static_cast<const ElfW(Ehdr)*>(object.dli_fbase);
    if (header != nullptr && header->e_type == ET_DYN) address -= reinterpret_cast<std::uintptr_t>(object.dli_fbase);
    char command[4096 + 64];
    std::snprintf(command, sizeof command, "addr2line -i -e '%s' 0x%llx 2>/dev/null", object.dli_fname,
                  static_cast<unsigned long long>(address));
    FILE* pipe = popen(command, "r");
    if (pipe == nullptr) return "";
    // -i lists the inlined calls innermost first: the first line outside the backend's
    // own headers is the kernel's.
    std::string found;
    char line[4096];
    while (std::fgets(line, sizeof line, pipe) != nullptr) {
        std::string text(line);
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
        const std::size_t discriminator = text.find(" (discriminator");
        if (discriminator != std::string::npos) text.erase(discriminator);
        if (!found.empty() || text.empty() || text[0] == '?' || text.find(":0") == text.size() - 2) continue;
        if (text.find("emu/include/") != std::string::npos || text.find("/usr/include/") != std::string::npos) continue;
        // The debug information names files by absolute path: relative to the working
        // directory, as the other messages name them.
        char directory[4096];
        if (getcwd(directory, sizeof directory) != nullptr) {
            const std::string prefix = std::string(directory) + "/";
            if (text.compare(0, prefix.size(), prefix) == 0) text.erase(0, prefix.size());
        }
        found = "at " + text;
    }
    pclose(pipe);
    return found;
}

void install_crash_report(const CrashContext* context) {
    claim_crash_signals();
    // A fiber that overflowed its stack has none left to run the handler on.
    static thread_local std::unique_ptr<char[]> alternate;
    if (!alternate) {
        const std::size_t size = 64 * 1024;
        alternate.reset(new char[size]);
        stack_t stack;
        stack.ss_sp = alternate.get();
        stack.ss_size = size;
        stack.ss_flags = 0;
        sigaltstack(&stack, nullptr);
    }
    crash_context = context;
}

}  // namespace detail
}  // namespace emu
