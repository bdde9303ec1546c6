/// @file image_demo.h
/// @brief What the image demos share: the input image, from the file
/// the student names or made by the demo, and the pictures they write.
#pragma once

#include "image_file.h"

#include <functional>
#include <string>

namespace tutorial {

/// @brief The input of a demo run as `program [image.pgm]`: the PGM file named by its one
/// argument, or generated() when there is none. Prints a line saying which, and its size.
/// @throws std::runtime_error from read_pgm when the file is missing or not a PGM
GrayImage demo_input_image(int argc, char* argv[], GrayImage (*generated)());

/// @brief The main of an image demo run as `program [image.pgm]`: with more arguments, print
/// its usage (`make @p chapter run IMAGE=image.pgm`) and return 2; else run_demo() of
/// @p demo on demo_input_image(), which reads and checks the input before @p demo writes
/// anything, so that a bad file leaves no output.
/// @param argc      main's argument count
/// @param argv      main's arguments: the program, and the PGM file to read, if any
/// @param chapter   the chapter's name as make knows it, CHAPTER_NAME ("chapterN")
/// @param generated makes the input when no file is named
/// @param demo      the demo on the input: true when every result it checked was right
int run_image_demo(int argc, char* argv[], const char* chapter, GrayImage (*generated)(),
                   const std::function<bool(const GrayImage& input)>& demo);

/// @brief Write @p image as stem.pgm and stem.png (creating the folder they go in), and
/// print a line saying so.
void write_demo_image(const GrayImage& image, const std::string& stem);

}  // namespace tutorial
