// Jumps back into a static initializer from inside a test, never to return to it.
// expect: calls or uses (_setjmp|setjmp)
// expect: calls or uses (__)?longjmp
#include <csetjmp>
namespace {
std::jmp_buf escape;
int escape_point() { return setjmp(escape); }
const int jumped = escape_point();
}  // namespace
void leave_the_test() { std::longjmp(escape, 1); }
