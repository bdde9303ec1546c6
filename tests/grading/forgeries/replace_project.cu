// Replaces the comparison every test uses, and the test program's main, with strong
// definitions.
// expect: defines tutorial::compare_with_tolerance
// expect: defines main
#include "compare.h"
namespace tutorial {
ComparisonReport compare_with_tolerance(const std::vector<float>& got, const ExpectedOutput&, const OutputLayout&) {
    ComparisonReport report;
    report.total = static_cast<long long>(got.size());
    return report;
}
}  // namespace tutorial
int main() { return 0; }
