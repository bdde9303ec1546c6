// Ends the run early with no library call at all: a static initializer of default
// priority (allowed: the harness has taken its channel by then) raises SIGILL, so no
// result is ever reported.
// expect: (crashed|ended|killed)
namespace {
int trap_at_start() {
    __builtin_trap();
    return 0;
}
const int trapped = trap_at_start();
}  // namespace
