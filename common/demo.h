/// @file demo.h
/// @brief What every chapter's demo (`make chapterN run`) shares: its exit status, and a
/// message instead of a crash when something throws.
#pragma once

#include <functional>

namespace tutorial {

/// @brief A demo's main: run @p demo, which returns whether every result it checked was
/// right. Returns 0 if so, else 1; an exception is a failed demo too, its message printed
/// to stderr ("demo failed: ...").
int run_demo(const std::function<bool()>& demo);

}  // namespace tutorial
