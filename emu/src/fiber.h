// Fibers for CUDA threads: each thread of a block runs on its own stack and gives the
// OS thread back at __syncthreads(). Boost.Context (Debian's libboost-context-dev) when
// the build found it (EMU_FIBERS_BOOST), else glibc's ucontext, which is slower: it makes
// a system call at each switch.
#pragma once

#include <csetjmp>
#include <cstddef>
#include <string>

#if defined(EMU_FIBERS_BOOST)
#include <boost/context/fiber.hpp>
#else
#include <ucontext.h>
#endif

namespace emu {
namespace detail {

/// @brief A fiber's stack, with an inaccessible guard page below it: a stack overflow
/// stops the program with a message (see install_crash_report()) instead of silently
/// overwriting another fiber's stack.
class Stack {
public:
    explicit Stack(std::size_t usable_bytes);
    ~Stack();
    Stack(const Stack&) = delete;
    Stack& operator=(const Stack&) = delete;

    char* bottom() const { return memory_ + guard_; }  ///< lowest usable byte
    char* top() const { return memory_ + mapped_; }     ///< one past the highest
    std::size_t size() const { return mapped_ - guard_; }
    /// @brief Whether @p address lies in the guard page.
    bool guards(const void* address) const;

private:
    char* memory_;
    std::size_t mapped_;
    std::size_t guard_;
};

/// @brief A function running on its own stack, switched to and from explicitly.
class Fiber {
public:
    using Entry = void (*)(void* argument);

    Fiber() = default;
    Fiber(const Fiber&) = delete;
    Fiber& operator=(const Fiber&) = delete;
    ~Fiber() { reset(); }

    /// @brief Prepare to run entry(argument) on @p stack; it starts at the first resume().
    void start(Stack& stack, Entry entry, void* argument);
    /// @brief Switch to the fiber until it calls suspend() or its entry returns.
    void resume();
    /// @brief From inside the fiber: switch back to whoever resumed it.
    void suspend();
    /// @brief Whether the entry function has returned.
    bool finished() const { return finished_; }
    /// @brief Abandon a fiber that has not finished; with Boost its stack is unwound.
    void reset();

private:
    Entry entry_ = nullptr;
    void* argument_ = nullptr;
    bool finished_ = true;
#if defined(EMU_FIBERS_BOOST)
    boost::context::fiber self_;
    boost::context::fiber caller_;
#else
    static void trampoline(unsigned high, unsigned low);
    ucontext_t self_;
    ucontext_t caller_;
#endif
};

/// @brief Information for the crash report of the OS thread that calls this.
struct CrashContext {
    /// @brief The stacks of this worker's fibers, to tell a stack overflow from other crashes.
    const Stack* const* stacks = nullptr;
    std::size_t stack_count = 0;
    /// @brief Writes "kernel K, block B, thread T" into @p out for the report.
    void (*describe)(char* out, std::size_t size) = nullptr;
};

/// @brief On this worker thread: give the crash report an alternate signal stack, and
/// describe its fibers with @p context (which must outlive the thread's work).
void install_crash_report(const CrashContext* context);

/// @brief Where a CUDA thread goes back to when it crashes (SIGSEGV, SIGBUS), and what
/// the crash was: a crash inside a kernel stops that kernel with a message, and the
/// program goes on.
struct CrashRecovery {
    sigjmp_buf jump;                   ///< set by sigsetjmp in the thread's entry function
    int signal = 0;                    ///< SIGSEGV or SIGBUS; 0: no crash
    int code = 0;                      ///< siginfo's si_code (SI_KERNEL: a general-protection fault)
    const void* address = nullptr;     ///< the address the access made (null: not known)
    const void* instruction = nullptr; ///< the faulting instruction (null: not known)
    bool overflow = false;             ///< the address is in a fiber stack's guard page
};
/// @brief Make @p recovery the place the calling OS thread goes back to at a crash (null:
/// none; the crash is passed on to whoever handled the signal before).
void arm_crash_recovery(CrashRecovery* recovery);
/// @brief Install the crash handler for SIGSEGV and SIGBUS again if another one replaced
/// it (Catch2 installs its own for every test case); the replaced one still gets every
/// crash outside a kernel. Called at every launch.
void claim_crash_signals();
/// @brief "at FILE:LINE" of the source line of @p instruction (from the program's debug
/// information, through addr2line), skipping the CPU backend's own headers; "" if unknown.
std::string source_line_of(const void* instruction);

}  // namespace detail
}  // namespace emu
