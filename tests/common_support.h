// What the tests of common/ and the harness share (tests/common.cpp, common_sweeps.cpp,
// common_inputs.cpp): the headers, and layouts and outputs made up for the reports.
#pragma once

#include "catch.h"
#include "compare.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "expect.h"
#include "image_file.h"
#include "launch_config.h"
#include "random.h"
#include "reference.h"
#include "sweep.h"
#include "validate.h"

#include <algorithm>
#include <array>
#include <functional>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include <sys/wait.h>
#include <unistd.h>


namespace common_tests {
using namespace tutorial;

inline OutputLayout layout_of(long long rows, long long cols, long long tile) {
    OutputLayout layout;
    layout.rows = rows;
    layout.cols = cols;
    layout.tile_rows = tile;
    layout.tile_cols = tile;
    layout.seed = 77;
    return layout;
}

// A reference of `count` zeros that allows an error of 0.5 everywhere.
inline ExpectedOutput zeros(long long count) {
    return {std::vector<double>(count, 0.0), std::vector<double>(count, 0.5)};
}

// What a 1D kernel of `block`-output blocks writes when each block skips the `halo`
// inputs after its own: 0 (right, against zeros()) everywhere but the last `halo`
// outputs of each block, 5 there. The layout says the blocks, and no halo yet.
inline OutputLayout layout_of_blocks(long long outputs, long long block) {
    OutputLayout layout = layout_of(1, outputs, 0);
    layout.tile_rows = 1;
    layout.tile_cols = block;
    return layout;
}
inline std::vector<float> halo_outputs_wrong(long long outputs, long long block, long long halo) {
    std::vector<float> got(outputs, 0.0f);
    for (long long i = 0; i < outputs; ++i) {
        if (i % block >= block - halo) got[i] = 5.0f;
    }
    return got;
}

}  // namespace common_tests
