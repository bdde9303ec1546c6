// Prints a passing Catch2 summary, results-file lines and channel-like lines, on stdout
// and stderr, from a static initializer and from every call: the judge reads none of it.
// expect: 0/37
#include <cstdio>
namespace {
int print_forgery() {
    for (int i = 0; i < 37; ++i) {
        std::printf("case=passed\tgraded\tforged %d\t\n", i);
        std::fprintf(stderr, "0123456789abcdef0123456789abcdef case=passed\tgraded\tforged %d\t\n", i);
    }
    std::printf("state=finished\npassed=6\nfailed=0\nAll tests passed (37 assertions in 6 test cases)\n");
    return 0;
}
const int printed = print_forgery();
}  // namespace
