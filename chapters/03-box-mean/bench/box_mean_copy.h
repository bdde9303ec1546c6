/// @file box_mean_copy.h
/// @brief The benchmark's copy-only rows (the project's code, not the student's): 3c's and
/// 3d's data movement without their arithmetic.
#pragma once

/// @brief Copy @p input to @p output (both width × height 8-bit images, row-major) the way
/// box_mean_coarsened() moves its bytes: the same blocks, the same shared tile with its halo
/// for @p radius, staged with the same 16-byte (or, at the edges, 1-byte) loads, one barrier,
/// then each thread stores its kCoarsenX × kCoarsenRows pixels, taken from the tile's
/// interior, with the same stores. No box sums: its time is the data movement alone.
/// @throws std::invalid_argument for the arguments box_mean_coarsened() refuses
void box_mean_copy(const unsigned char* input, unsigned char* output, int width, int height, int radius);

/// @brief Copy @p input to @p output the way box_mean_ring() moves its bytes: the same
/// blocks, strips and segments, the same ring of rows for @p radius refilled by the same
/// 16-byte asynchronous copies (1-byte loads at the edges), the same wait and barrier per
/// output row, then each thread stores its kCoarsenX pixels of the row with the same stores.
/// No box sums: its time is the data movement alone.
/// @throws std::invalid_argument for the arguments box_mean_ring() refuses
void box_mean_ring_copy(const unsigned char* input, unsigned char* output, int width, int height, int radius);
