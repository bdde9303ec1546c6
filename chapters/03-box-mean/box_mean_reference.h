/// @file box_mean_reference.h
/// @brief Chapter 3's CPU reference (the box mean every kernel must match exactly)
/// and the argument checks of its entry points.
#pragma once

#include <cstdint>
#include <vector>

namespace tutorial {

/// @brief The checks every box-mean entry point makes: width and height ≥ 1, at most
/// 2³¹ − 1 pixels in all (so that an int indexes any of them), 0 ≤ radius ≤
/// @p max_radius, and no null image.
void require_box_mean_arguments(const char* function, const unsigned char* input, const unsigned char* output,
                                int width, int height, int radius, int max_radius);

/// @brief The box mean of a row-major 8-bit image: each output pixel is the mean of the
/// (2·radius+1)×(2·radius+1) pixels around it.
///
/// This defines the semantics every box-mean kernel must match exactly:
/// - the sum goes into an int, which cannot overflow (at most 289·255 for radius 8);
/// - the mean is rounded to nearest, `(sum + area/2) / area` with area = (2·radius+1)²;
/// - a neighbour outside the image is replaced by the nearest edge pixel (clamp to edge,
///   or "replicate"), so every output pixel is defined, the border included.
///
/// @throws std::invalid_argument if @p image does not hold width·height pixels, or a
///         size or the radius is negative
std::vector<std::uint8_t> box_mean_reference(const std::vector<std::uint8_t>& image, int width, int height,
                                             int radius);

}  // namespace tutorial
