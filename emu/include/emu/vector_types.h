/// @file vector_types.h
/// @brief CUDA's float2, float4, uchar4 and uint4, with CUDA's size and alignment, for the CPU backend.
///
/// A kernel loads four floats with one instruction through a float4 pointer (chapter
/// 6's reduction does). The GPU requires the address to be a multiple of the type's
/// alignment, 16 bytes for float4; alignas gives these structs the same alignment, so a
/// layout that works here works on a GPU.
#pragma once

/// @brief Two floats, 8-byte aligned, as CUDA's float2.
struct alignas(8) float2 {
    float x;  ///< first component
    float y;  ///< second component
};

/// @brief Four floats, 16-byte aligned, as CUDA's float4.
struct alignas(16) float4 {
    float x;  ///< first component
    float y;  ///< second component
    float z;  ///< third component
    float w;  ///< fourth component
};

/// @brief A float2 from its components, as CUDA's make_float2().
inline float2 make_float2(float x, float y) { return float2{x, y}; }

/// @brief A float4 from its components, as CUDA's make_float4().
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

/// @brief Four unsigned chars, 4-byte aligned, as CUDA's uchar4.
struct alignas(4) uchar4 {
    unsigned char x;  ///< first element
    unsigned char y;  ///< second element
    unsigned char z;  ///< third element
    unsigned char w;  ///< fourth element
};
/// @brief A uchar4 from its components, as CUDA's make_uchar4().
inline uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) {
    return uchar4{x, y, z, w};
}

/// @brief Four unsigned ints, 16-byte aligned, as CUDA's uint4: 16 bytes in one load
/// (chapter 9 loads its samples so).
struct alignas(16) uint4 {
    unsigned int x;  ///< first component
    unsigned int y;  ///< second component
    unsigned int z;  ///< third component
    unsigned int w;  ///< fourth component
};
/// @brief A uint4 from its components, as CUDA's make_uint4().
inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { return uint4{x, y, z, w}; }
