/// @file non_copyable.h
/// @brief The base of the classes that own something a copy would share and free twice: a
/// library handle, device memory, a setting restored on destruction.
#pragma once

namespace tutorial {

/// @brief Derive from it to make a class neither copyable nor assignable: its copy
/// constructor and copy assignment are deleted, and so are the moves it would otherwise
/// get (a class that can hand its resource on declares its own move constructor).
class NonCopyable {
public:
    NonCopyable(const NonCopyable&) = delete;
    NonCopyable& operator=(const NonCopyable&) = delete;

protected:
    NonCopyable() = default;
    ~NonCopyable() = default;
};

}  // namespace tutorial
