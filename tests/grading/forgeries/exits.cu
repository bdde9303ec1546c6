// Ends the run early, each way the C and C++ libraries offer, once a test has started.
// expect: calls or uses _?exit
// expect: calls or uses _exit
// expect: calls or uses quick_exit
// expect: calls or uses abort
// expect: calls or uses std::terminate
// expect: calls or uses raise
// expect: calls or uses kill
#include <csignal>
#include <cstdlib>
#include <exception>
#include <unistd.h>
void end_the_run(int how) {
    switch (how) {
        case 0: std::exit(0);
        case 1: _exit(0);
        case 2: std::quick_exit(0);
        case 3: std::abort();
        case 4: std::terminate();
        case 5: std::raise(SIGKILL); break;
        default: kill(getpid(), SIGKILL);
    }
}
namespace {
const int ended = (end_the_run(static_cast<int>(reinterpret_cast<unsigned long>(&ended) % 7)), 0);
}  // namespace
