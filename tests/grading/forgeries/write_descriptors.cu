// Writes fake results to every file descriptor the grader might have opened.
// expect: calls or uses write
#include <unistd.h>
#include <cstring>
namespace {
int write_forgery() {
    const char* line = "state=finished\npassed=6\nfailed=0\n";
    for (int fd = 1; fd < 64; ++fd) {
        if (::write(fd, line, std::strlen(line)) < 0) continue;
    }
    return 0;
}
const int written = write_forgery();
}  // namespace
