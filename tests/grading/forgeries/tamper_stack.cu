// Tampers with the test program's memory through a pointer: from a static initializer it
// overwrites the stack above its own frame, where its callers keep their state (an empty
// asm hides the pointer's origin from the compiler, which would otherwise warn). However
// it ends, it never reports the cases passed.
// expect: 0/37|crashed|ended|killed
namespace {
int tamper() {
    volatile long here = 0;
    volatile long* p = &here;
    asm volatile("" : "+r"(p));
    for (int i = 1; i < 4096; ++i) p[i] = 0;
    return 0;
}
const int tampered = tamper();
}  // namespace
