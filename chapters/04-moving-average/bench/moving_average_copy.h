/// @file moving_average_copy.h
/// @brief The benchmark's copy-only row (the project's code, not the student's): 4e's data
/// movement without its arithmetic.
#pragma once

/// @brief output[j] = input[j + window − 1] for j = 0 .. size − window, moved the way
/// moving_average_stream() (4e) moves its bytes: the same blocks of kStreamSpan outputs, the
/// same chunks of kStreamChunk inputs, each loaded (two float4s a thread where aligned) while
/// the chunk before is handled, written into the same padded ring of doubles in shared
/// memory, and the chunk of outputs before it read back and stored, 8 consecutive outputs a
/// thread (two float4s where aligned). No sums, no scan: its time is the data movement
/// alone, with 4e's 4 blocks an SM (held there by dynamic shared memory it does not use:
/// with fewer registers than 4e, more of its blocks would fit). (The last input of each
/// window is what it copies, read from the ring as 4e reads P(j + window).)
/// @throws std::invalid_argument for the arguments moving_average_stream() refuses
void moving_average_copy(const float* input, float* output, int size, int window);
