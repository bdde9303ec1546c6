/// @file transpose_copy.h
/// @brief The benchmark's copy-only row (the project's code, not the student's): 5d's data
/// movement without the transposition.
#pragma once

/// @brief Copy the @p rows × @p cols row-major matrix @p input to @p output, in place for
/// place, the way transpose_wide() moves its bytes: the same 64 × 64 tiles through the same
/// padded shared tile, 16 loads in flight per thread for a whole tile, one barrier, then the
/// same coalesced stores; only the tile is written back where it came from, row by row,
/// instead of transposed. Its rate against 5d's is what the reordering costs.
/// @throws std::invalid_argument for the arguments transpose_wide() refuses
void transpose_copy(const float* input, float* output, int rows, int cols);
