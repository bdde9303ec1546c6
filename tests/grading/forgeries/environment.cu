// Looks for the grader's channel in the environment, through environ (the harness has
// erased it before any static initializer of default priority runs, too).
// expect: calls or uses environ
#include <cstring>
extern char** environ;
const char* find_channel() {
    for (char** e = environ; *e != nullptr; ++e) {
        if (std::strncmp(*e, "TUTORIAL_GRADE_CHANNEL=", 23) == 0) return *e + 23;
    }
    return nullptr;
}
