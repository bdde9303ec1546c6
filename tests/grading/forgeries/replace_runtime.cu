// Replaces functions of the C and C++ runtime for the whole program: memcmp, operator new
// (a legal replacement in C++), and getenv as a weak definition.
// expect: defines memcmp
// expect: defines (operator new|memcmp)
// expect: defines getenv
#include <cstddef>
#include <cstdlib>
extern "C" int memcmp(const void*, const void*, std::size_t) { return 0; }
void* operator new(std::size_t size) { return std::malloc(size ? size : 1); }
extern "C" __attribute__((weak)) char* getenv(const char*) { return nullptr; }
