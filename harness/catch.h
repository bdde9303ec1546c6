/// @file catch.h
/// @brief Include Catch2, whichever major version is installed.
///
/// Debian 12 ships Catch2 2.13 (one header); Ubuntu 24.04 ships Catch2 3.4 (a compiled
/// library). The Makefile detects which one is present and defines TUTORIAL_CATCH2_V3
/// for version 3. The tests use only what both versions have.
#pragma once

#if defined(TUTORIAL_CATCH2_V3)
#include <catch2/catch_all.hpp>
// Version 2 has Approx in the global namespace; version 3 only in Catch::.
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif
