/// @file moving_average_copy.h
/// @brief The benchmark's copy-only row (the project's code, not the student's): 4e's data
/// movement without its arithmetic.
#pragma once

/// @brief output[j] = input[j + window − 1] for j = 0 .. size − window, moved the way
/// moving_average_stream() (4e) moves its bytes: the same blocks of kStreamSpan outputs, the
/// same chunks of kStreamChunk inputs, each loaded (two float4s a thread where aligned) while
/// the chunk before is handled, staged through the same padded shared array, and stored in
/// consecutive order. No sums, no scan, no ring of prefix sums: its time is the data movement
/// alone. (The last input of each window is what it copies: every output then comes from one
/// input of the chunk being staged, as 4e's does.)
/// @throws std::invalid_argument for the arguments moving_average_stream() refuses
void moving_average_copy(const float* input, float* output, int size, int window);
