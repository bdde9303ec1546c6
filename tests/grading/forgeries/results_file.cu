// Rewrites the results file that `make test` names, with C stdio and with iostreams.
// expect: calls or uses getenv
// expect: calls or uses fopen
// expect: basic_ofstream
#include <cstdio>
#include <cstdlib>
#include <fstream>
namespace {
int rewrite_results() {
    const char* path = std::getenv("TUTORIAL_RESULTS_FILE");
    if (path != nullptr) {
        if (FILE* f = std::fopen(path, "w")) {
            std::fputs("state=finished\npassed=6\nfailed=0\n", f);
            std::fclose(f);
        }
        std::ofstream(path) << "state=finished\n";
    }
    return 0;
}
const int rewritten = rewrite_results();
}  // namespace
