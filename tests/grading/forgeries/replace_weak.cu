// Replaces the comparison with a weak definition: the object check lets a weak copy of a
// function another part defines pass (an inline function from a header is one), because
// the student's objects are linked last and the linker keeps the first copy. So the tests
// still use the real comparison, and the skeleton's kernel still fails them.
// expect: 0/37
#include "compare.h"
namespace tutorial {
__attribute__((weak)) ComparisonReport compare_with_tolerance(const std::vector<float>& got, const ExpectedOutput&,
                                                              const OutputLayout&) {
    ComparisonReport report;
    report.total = static_cast<long long>(got.size());
    return report;
}
}  // namespace tutorial
