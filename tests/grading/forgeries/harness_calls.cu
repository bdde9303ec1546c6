// Reports passing cases through the harness's own function, as a shape sweep does.
// expect: calls or uses tutorial::record_case
#include <string>
namespace tutorial {
void record_case(const std::string& label, bool passed, const std::string& output);
}
void report_passes() {
    for (int i = 0; i < 37; ++i) tutorial::record_case("forged", true, "");
}
