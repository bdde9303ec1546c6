// A constructor of its own priority, to run before the harness takes its channel (and, in
// another form, .preinit_array, which runs before every constructor).
// expect: section \.init_array\.
// expect: section \.preinit_array
#include <cstdio>
__attribute__((constructor(101))) static void before_the_harness() { std::puts("before the harness"); }
static void before_everything() { std::puts("before every constructor"); }
__attribute__((section(".preinit_array"), used)) static void (*const run_first)() = before_everything;
