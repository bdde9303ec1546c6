/// @file cuda_bf16.h
/// @brief The part of the CUDA Toolkit's <cuda_bf16.h> the tutorial uses, on the CPU
/// backend: the 16-bit brain floating-point type `__nv_bfloat16` and its conversions.
///
/// A bfloat16 is the upper half of a float: 1 sign bit, the same 8 exponent bits, 7
/// mantissa bits. Converting a float rounds it to the nearest bfloat16, ties to even, as
/// the GPU's `cvt.rn.bf16.f32` does; NaN stays a (quiet) NaN. Converting back is exact.
#pragma once

#include <cstdint>
#include <cstring>

/// @cond EMU_INTERNALS
namespace emu {
namespace detail {
/// @brief The bits of the bfloat16 nearest to @p value, ties to even.
inline std::uint16_t float_to_bf16_bits(float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0) {
        return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);  // a quiet NaN, sign kept
    }
    // Add half of the dropped part's unit, plus one more when the kept part is odd (to even).
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<std::uint16_t>(bits >> 16);
}
/// @brief The float whose upper half is @p bits: exact.
inline float bf16_bits_to_float(std::uint16_t bits) {
    const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
    float value;
    std::memcpy(&value, &wide, sizeof value);
    return value;
}
}  // namespace detail
}  // namespace emu
/// @endcond

/// @brief Raw storage of a bfloat16, as the Toolkit's `__nv_bfloat16_raw`.
struct __nv_bfloat16_raw {
    unsigned short x;  ///< the bits
};

/// @brief A bfloat16: two bytes, converted from and to float as the GPU does.
struct __nv_bfloat16 {
    unsigned short __x;  ///< the bits, as the Toolkit names them

    __nv_bfloat16() = default;
    /// @brief The bfloat16 nearest to @p value (round to nearest, ties to even).
    __nv_bfloat16(float value) : __x(::emu::detail::float_to_bf16_bits(value)) {}
    /// @brief The bfloat16 nearest to @p value.
    __nv_bfloat16(double value) : __nv_bfloat16(static_cast<float>(value)) {}
    /// @brief From raw bits.
    __nv_bfloat16(__nv_bfloat16_raw raw) : __x(raw.x) {}
    /// @brief The value as a float: exact.
    operator float() const { return ::emu::detail::bf16_bits_to_float(__x); }
    /// @brief The raw bits.
    operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
};
static_assert(sizeof(__nv_bfloat16) == 2, "a bfloat16 is two bytes");

/// @brief Two bfloat16s in one 32-bit register: x in the low half, y in the high half.
struct alignas(4) __nv_bfloat162 {
    __nv_bfloat16 x;  ///< the low half
    __nv_bfloat16 y;  ///< the high half
};

/// @brief @p value rounded to the nearest bfloat16, ties to even.
inline __nv_bfloat16 __float2bfloat16(float value) { return __nv_bfloat16(value); }
/// @brief @p value rounded to the nearest bfloat16, ties to even.
inline __nv_bfloat16 __float2bfloat16_rn(float value) { return __nv_bfloat16(value); }
/// @brief The float value of @p value: exact.
inline float __bfloat162float(__nv_bfloat16 value) { return static_cast<float>(value); }
/// @brief {@p a, @p b}, each rounded to the nearest bfloat16.
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(b)}; }
/// @brief {@p a, @p b}.
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162{a, b}; }
/// @brief A bfloat16 from its raw bits.
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short bits) { return __nv_bfloat16(__nv_bfloat16_raw{bits}); }
/// @brief The raw bits of a bfloat16.
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 value) { return value.__x; }
