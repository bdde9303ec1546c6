/// @file image_file.h
/// @brief 8-bit grayscale images in files: read PGM, write PGM and PNG.
///
/// An image demo reads a photo the student names and writes its results as files a
/// person can open. PGM (Netpbm's graymap) is the simplest image format there is; PNG is
/// what every browser and image viewer shows. Neither needs a library: the PNG writer
/// stores its pixels uncompressed, which PNG's deflate format allows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tutorial {

/// @brief A row-major 8-bit grayscale image: pixel (x, y) is pixels[y * width + x].
struct GrayImage {
    int width = 0;                      ///< columns
    int height = 0;                     ///< rows
    std::vector<std::uint8_t> pixels;   ///< width × height values, 0 black to 255 white
};

/// @brief Decode a PGM file held in memory.
///
/// Accepts binary (P5) and plain-text (P2) graymaps with comments in the header and a
/// maximum value up to 255; a maximum below 255 is scaled up to the full range.
/// @param bytes  the whole file
/// @param source the file's name, for the error messages
/// @throws std::runtime_error saying what is wrong: not a PGM (a colour PPM, say), a
///         16-bit PGM, a bad or truncated header, or fewer pixels than the header says
GrayImage parse_pgm(const std::string& bytes, const std::string& source);

/// @brief Read and decode the PGM file at @p path (see parse_pgm()).
/// @throws std::runtime_error if the file cannot be read or is not a PGM this reads
GrayImage read_pgm(const std::string& path);

/// @brief Encode @p image as a binary (P5) PGM file.
std::string encode_pgm(const GrayImage& image);

/// @brief Encode @p image as a grayscale PNG file, uncompressed.
///
/// The pixel rows go into deflate "stored" blocks, so the file is a little larger than
/// the pixels, and any PNG reader opens it.
std::string encode_png(const GrayImage& image);

/// @brief Write @p bytes to the file at @p path, replacing it.
/// @throws std::runtime_error if the file cannot be written
void write_file(const std::string& path, const std::string& bytes);

}  // namespace tutorial
