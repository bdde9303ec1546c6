/// @file tutorial_chapter.h
/// @brief A chapter's identity, from its line in chapters/registry: its name and test tag.
///
/// The build compiles every file of chapter N with -DTUTORIAL_CHAPTER=N, the number of its
/// registry line, and -DTUTORIAL_CHAPTER_FOLDER="NN-name", its folder: the one way a chapter's
/// identity reaches the C++ side (its programs take no --chapter option, and nothing parses a
/// path for it). Code names its chapter through these macros, never by a literal, so a chapter
/// folder copied and given a new number in the registry is that new chapter in its test tags,
/// its messages and the files its programs write (docs/maintainers.md).
#pragma once

#if !defined(TUTORIAL_CHAPTER) || !defined(TUTORIAL_CHAPTER_FOLDER)
#error "TUTORIAL_CHAPTER and TUTORIAL_CHAPTER_FOLDER are not defined: the Makefile defines them for the files of chapter N only"
#endif

/// @brief @p n as a string literal, unexpanded (TUTORIAL_CHAPTER_STRING expands it first).
#define TUTORIAL_CHAPTER_STRING_(n) #n
/// @brief @p n, a macro such as TUTORIAL_CHAPTER, expanded and made a string literal: "N".
#define TUTORIAL_CHAPTER_STRING(n) TUTORIAL_CHAPTER_STRING_(n)
/// @brief The chapter's name as make knows it, a string literal: "chapterN" (`make chapterN test`)
/// for TUTORIAL_CHAPTER=N.
#define CHAPTER_NAME "chapter" TUTORIAL_CHAPTER_STRING(TUTORIAL_CHAPTER)
/// @brief The chapter's Catch2 tag, a string literal: "[chapterN]". Tags join by
/// concatenation: `TEST_CASE("...", CHAPTER_TAG "[graded]")`.
#define CHAPTER_TAG "[" CHAPTER_NAME "]"
/// @brief The chapter's folder under chapters/ and solutions/, a string literal: "NN-name".
#define CHAPTER_FOLDER TUTORIAL_CHAPTER_FOLDER
/// @brief Step @p id of the chapter as the lessons label it, a string literal: STEP("c") is
/// "3c" in chapter 3. Test names, benchmark rows, profile variants and demo lines write their
/// step this way, so a chapter copied under a new number in the registry names its own steps
/// (chapter.toml writes them "@c": tools/tutorial/manifest.py).
#define STEP(id) TUTORIAL_CHAPTER_STRING(TUTORIAL_CHAPTER) id
