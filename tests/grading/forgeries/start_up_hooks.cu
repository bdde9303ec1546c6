// Runs before every constructor, whatever its priority: the C runtime's start-up calls
// __gmon_start__ (crti.o's _init) and _ITM_registerTMCloneTable (crtbegin's frame_dummy)
// when the program defines them, and nothing else in the program does. From there it could
// take the grader's channel before the harness does. And a helper with a reserved name.
// expect: defines __gmon_start__, which crti\.o \(the C runtime's start-up\) refers to
// expect: defines _ITM_registerTMCloneTable, which crtbegin
// expect: defines tutorial::__keep_channel\(\), a reserved identifier
namespace tutorial {
int __keep_channel() { return 3; }
}  // namespace tutorial
extern "C" void __gmon_start__() { tutorial::__keep_channel(); }
extern "C" void _ITM_registerTMCloneTable(void*, unsigned long) { tutorial::__keep_channel(); }
