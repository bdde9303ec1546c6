#include "box_mean_reference.h"

#include "validate.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace tutorial {

void require_box_mean_arguments(const char* function, const unsigned char* input, const unsigned char* output,
                                int width, int height, int radius, int max_radius) {
    require_positive(function, "width", width);
    require_positive(function, "height", height);
    if (static_cast<long long>(width) * height > INT_MAX) {
        throw std::invalid_argument(std::string(function) + ": the image is " + std::to_string(width) + " x " +
                                    std::to_string(height) + " pixels, more than the " + std::to_string(INT_MAX) +
                                    " an int can index (arguments width and height)");
    }
    require_in_range(function, "radius", radius, 0, max_radius);
    require_not_null(function, "input", input);
    require_not_null(function, "output", output);
}

std::vector<std::uint8_t> box_mean_reference(const std::vector<std::uint8_t>& image, int width, int height,
                                             int radius) {
    if (width < 0 || height < 0 || radius < 0) {
        throw std::invalid_argument("box_mean_reference: width, height and radius must not be negative");
    }
    const std::size_t w = static_cast<std::size_t>(width), h = static_cast<std::size_t>(height);
    if (image.size() != w * h) {
        throw std::invalid_argument("box_mean_reference: the image must hold width*height pixels");
    }
    // Clamping acts on the row and the column separately, so the box sum is a sum of
    // row sums: first sum each row's 2R+1 neighbours, then sum 2R+1 of those per column.
    // In int both passes are exact, so this is the same as summing the whole box, only
    // O(R) per pixel instead of O(R²): fast enough for an 8000×8000 image.
    auto clamp = [](long long i, std::size_t n) {
        return static_cast<std::size_t>(std::clamp<long long>(i, 0, static_cast<long long>(n) - 1));
    };
    std::vector<int> row_sums(w * h, 0);
    for (std::size_t y = 0; y < h; ++y) {
        for (std::size_t x = 0; x < w; ++x) {
            int sum = 0;
            for (long long dx = -radius; dx <= radius; ++dx) {
                sum += image[y * w + clamp(static_cast<long long>(x) + dx, w)];
            }
            row_sums[y * w + x] = sum;
        }
    }
    const int area = (2 * radius + 1) * (2 * radius + 1);
    std::vector<std::uint8_t> mean(w * h);
    for (std::size_t y = 0; y < h; ++y) {
        for (std::size_t x = 0; x < w; ++x) {
            int sum = 0;
            for (long long dy = -radius; dy <= radius; ++dy) {
                sum += row_sums[clamp(static_cast<long long>(y) + dy, h) * w + x];
            }
            mean[y * w + x] = static_cast<std::uint8_t>((sum + area / 2) / area);
        }
    }
    return mean;
}

}  // namespace tutorial
