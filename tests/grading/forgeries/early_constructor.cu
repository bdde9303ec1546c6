// A constructor of its own priority, to run before the harness takes its channel.
// expect: section \.init_array\.
__attribute__((constructor(101))) static void before_the_harness() {}
