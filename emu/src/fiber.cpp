// Fibers, their guarded stacks, and the report of a crash inside a kernel.
#include "fiber.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

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

namespace {

thread_local const CrashContext* crash_context = nullptr;

void report_crash(int signal_number, siginfo_t* info, void*) {
    const CrashContext* context = crash_context;
    if (context != nullptr && context->describe != nullptr) {
        char who[512];
        context->describe(who, sizeof who);
        bool overflow = false;
        for (std::size_t i = 0; i < context->stack_count; ++i) {
            overflow = overflow || context->stacks[i]->guards(info->si_addr);
        }
        char message[1024];
        if (overflow) {
            std::snprintf(message, sizeof message,
                          "\nCPU backend: %s overflowed its stack of %zu KiB (a large local array, or deep recursion?). "
                          "EMU_STACK_KB=n gives every CUDA thread n KiB.\n",
                          who, context->stacks[0]->size() / 1024);
        } else {
            std::snprintf(message, sizeof message,
                          "\nCPU backend: %s crashed (%s at address %p). Accesses through a kernel's pointer parameters "
                          "and to __shared__ arrays are checked; this one was not: a raw pointer, or an index far "
                          "outside an array?\n",
                          who, signal_number == SIGBUS ? "bus error" : "segmentation fault", info->si_addr);
        }
        const ssize_t ignored = write(STDERR_FILENO, message, std::strlen(message));
        (void)ignored;
    }
    // SA_RESETHAND restored the default action: returning re-runs the faulting
    // instruction, and the process dies of the signal as it would have without us.
}

}  // namespace

void install_crash_report(const CrashContext* context) {
    static std::once_flag installed;
    std::call_once(installed, [] {
        struct sigaction action;
        std::memset(&action, 0, sizeof action);
        action.sa_sigaction = &report_crash;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
        sigemptyset(&action.sa_mask);
        sigaction(SIGSEGV, &action, nullptr);
        sigaction(SIGBUS, &action, nullptr);
    });
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
