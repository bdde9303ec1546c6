#include "demo.h"

#include <cstdio>
#include <exception>

namespace tutorial {

int run_demo(const std::function<bool()>& demo) {
    try {
        return demo() ? 0 : 1;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "demo failed: %s\n", error.what());
        return 1;
    }
}

}  // namespace tutorial
