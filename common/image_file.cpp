#include "image_file.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tutorial {

namespace {

std::runtime_error pgm_error(const std::string& source, const std::string& what) {
    return std::runtime_error(source + ": " + what);
}

// Reads a PGM header's fields: numbers separated by whitespace, with comments from '#'
// to the end of the line.
class PgmReader {
public:
    PgmReader(const std::string& bytes, const std::string& source) : bytes_(bytes), source_(source) {}

    // The next number, or -1 if something else comes first (see found()).
    long long next_number() {
        skip_space_and_comments();
        if (at_ >= bytes_.size() || !std::isdigit(static_cast<unsigned char>(bytes_[at_]))) {
            return -1;
        }
        long long value = 0;
        while (at_ < bytes_.size() && std::isdigit(static_cast<unsigned char>(bytes_[at_]))) {
            value = value * 10 + (bytes_[at_++] - '0');
            if (value > INT_MAX) {
                throw pgm_error(source_, "bad PGM: a number in it is too large");
            }
        }
        return value;
    }

    // The next number, which must be there.
    long long number(const std::string& field) {
        const long long value = next_number();
        if (value < 0) {
            throw pgm_error(source_, "bad PGM: expected the " + field + ", found " + found());
        }
        return value;
    }

    // What stands where a number was expected.
    std::string found() const {
        return at_ >= bytes_.size() ? "the end of the file" : "'" + std::string(1, bytes_[at_]) + "'";
    }

    // The binary raster starts after exactly one whitespace character.
    void skip_one_space() {
        if (at_ >= bytes_.size() || !std::isspace(static_cast<unsigned char>(bytes_[at_]))) {
            throw pgm_error(source_, "bad PGM header: no whitespace between the maximum value and the pixels");
        }
        ++at_;
    }

    std::size_t position() const { return at_; }

private:
    void skip_space_and_comments() {
        while (at_ < bytes_.size()) {
            if (bytes_[at_] == '#') {
                while (at_ < bytes_.size() && bytes_[at_] != '\n') ++at_;
            } else if (std::isspace(static_cast<unsigned char>(bytes_[at_]))) {
                ++at_;
            } else {
                return;
            }
        }
    }

    const std::string& bytes_;
    const std::string& source_;
    std::size_t at_ = 2;  // after the magic number
};

std::string describe_magic(const std::string& bytes) {
    if (bytes.empty()) return "the file is empty";
    const std::string magic = bytes.substr(0, 2);
    if (magic == "P6" || magic == "P3") return "it is a colour PPM (" + magic + "), not a grayscale PGM";
    if (magic == "P4" || magic == "P1") return "it is a black-and-white PBM (" + magic + "), not a grayscale PGM";
    if (bytes.compare(0, 4, "\x89PNG") == 0) return "it is a PNG file, not a PGM";
    if (bytes.compare(0, 3, "\xFF\xD8\xFF") == 0) return "it is a JPEG file, not a PGM";
    return "it does not start with P5 or P2, the marks of a PGM file";
}

void append_u32(std::string& out, std::uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xFF));
}

std::uint32_t crc32(const std::string& bytes, std::size_t from) {
    static const std::array<std::uint32_t, 256> table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t n = 0; n < 256; ++n) {
            std::uint32_t c = n;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[n] = c;
        }
        return t;
    }();
    std::uint32_t crc = 0xFFFFFFFFu;
    for (std::size_t i = from; i < bytes.size(); ++i) {
        crc = table[(crc ^ static_cast<std::uint8_t>(bytes[i])) & 0xFF] ^ (crc >> 8);
    }
    return crc ^ 0xFFFFFFFFu;
}

// A PNG chunk: length, type, data, and a CRC of type and data.
void append_chunk(std::string& png, const char* type, const std::string& data) {
    append_u32(png, static_cast<std::uint32_t>(data.size()));
    const std::size_t type_at = png.size();
    png += type;
    png += data;
    append_u32(png, crc32(png, type_at));
}

// A zlib stream of deflate "stored" (uncompressed) blocks of at most 65535 bytes.
std::string zlib_stored(const std::string& data) {
    std::string out = "\x78\x01";  // deflate, 32 KB window, no preset dictionary; (0x78 << 8 | 0x01) % 31 == 0
    std::size_t at = 0;
    do {
        const std::size_t length = std::min<std::size_t>(65535, data.size() - at);
        const bool last = at + length == data.size();
        out.push_back(last ? 1 : 0);  // BFINAL, and BTYPE 00: stored
        out.push_back(static_cast<char>(length & 0xFF));
        out.push_back(static_cast<char>(length >> 8));
        out.push_back(static_cast<char>(~length & 0xFF));
        out.push_back(static_cast<char>((~length >> 8) & 0xFF));
        out.append(data, at, length);
        at += length;
    } while (at < data.size());
    std::uint32_t a = 1, b = 0;  // Adler-32 of the uncompressed data
    for (unsigned char byte : data) {
        a = (a + byte) % 65521;
        b = (b + a) % 65521;
    }
    append_u32(out, (b << 16) | a);
    return out;
}

}  // namespace

GrayImage parse_pgm(const std::string& bytes, const std::string& source) {
    const bool binary = bytes.compare(0, 2, "P5") == 0;
    if (!binary && bytes.compare(0, 2, "P2") != 0) {
        throw pgm_error(source, "not a PGM image: " + describe_magic(bytes));
    }
    PgmReader header(bytes, source);
    GrayImage image;
    const long long width = header.number("width");
    const long long height = header.number("height");
    const long long max_value = header.number("maximum value");
    if (width < 1 || height < 1) {
        throw pgm_error(source, "bad PGM header: the image is " + std::to_string(width) + " x " +
                                    std::to_string(height) + " pixels");
    }
    if (width * height > INT_MAX) {
        throw pgm_error(source, "the image is too large: " + std::to_string(width) + " x " + std::to_string(height));
    }
    if (max_value < 1 || max_value > 255) {
        throw pgm_error(source, "unsupported PGM: the maximum value is " + std::to_string(max_value) +
                                    (max_value > 255 ? " (a 16-bit image); only 8-bit PGMs (at most 255) are read"
                                                     : "; it must be 1 to 255"));
    }
    image.width = static_cast<int>(width);
    image.height = static_cast<int>(height);
    const std::size_t count = static_cast<std::size_t>(width * height);
    image.pixels.resize(count);

    std::size_t binary_start = 0;
    if (binary) {
        header.skip_one_space();
        binary_start = header.position();
        const std::size_t available = bytes.size() - binary_start;
        if (available < count) {
            throw pgm_error(source, "truncated PGM: the header says " + std::to_string(width) + " x " +
                                        std::to_string(height) + " = " + std::to_string(count) +
                                        " pixels, the file holds " + std::to_string(available));
        }
    }
    for (std::size_t i = 0; i < count; ++i) {
        const long long value = binary ? static_cast<std::uint8_t>(bytes[binary_start + i]) : header.next_number();
        if (value < 0) {
            throw pgm_error(source, "bad PGM: expected the value of pixel " + std::to_string(i) + " of " +
                                        std::to_string(count) + ", found " + header.found());
        }
        if (value > max_value) {
            throw pgm_error(source, "bad PGM: pixel " + std::to_string(i) + " is " + std::to_string(value) +
                                        ", above the maximum value " + std::to_string(max_value));
        }
        // A maximum below 255 is a coarser scale of the same range: stretch it to 0..255.
        image.pixels[i] = static_cast<std::uint8_t>((value * 255 + max_value / 2) / max_value);
    }
    return image;
}

GrayImage read_pgm(const std::string& path) {
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored)) {
        throw std::runtime_error(path + ": is a folder, not an image file");
    }
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw std::runtime_error(path + ": cannot open it: " + std::strerror(errno));
    }
    std::ostringstream contents;
    contents << file.rdbuf();
    if (file.bad()) {
        throw std::runtime_error(path + ": cannot read it: " + std::strerror(errno));
    }
    return parse_pgm(contents.str(), path);
}

std::string encode_pgm(const GrayImage& image) {
    std::string out = "P5\n" + std::to_string(image.width) + " " + std::to_string(image.height) + "\n255\n";
    out.append(image.pixels.begin(), image.pixels.end());
    return out;
}

std::string encode_png(const GrayImage& image) {
    std::string png = "\x89PNG\r\n\x1a\n";
    std::string header;
    append_u32(header, static_cast<std::uint32_t>(image.width));
    append_u32(header, static_cast<std::uint32_t>(image.height));
    header += std::string("\x08\x00\x00\x00\x00", 5);  // 8 bits, grayscale, deflate, no filter, no interlace
    append_chunk(png, "IHDR", header);

    // Each row starts with its filter type, 0: the bytes as they are.
    std::string rows;
    rows.reserve(static_cast<std::size_t>(image.width + 1) * image.height);
    for (int y = 0; y < image.height; ++y) {
        rows.push_back('\0');
        rows.append(image.pixels.begin() + static_cast<std::ptrdiff_t>(y) * image.width,
                    image.pixels.begin() + static_cast<std::ptrdiff_t>(y + 1) * image.width);
    }
    append_chunk(png, "IDAT", zlib_stored(rows));
    append_chunk(png, "IEND", "");
    return png;
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file || !file.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) || !file.flush()) {
        throw std::runtime_error(path + ": cannot write it: " + std::strerror(errno));
    }
}

}  // namespace tutorial
