// Settings of the CPU backend read from the environment (EMU_SCHEDULE, EMU_THREADS,
// EMU_STACK_KB, EMU_TIMEOUT or TIMEOUT), and emu::set_schedules() and emu::set_time_limit() for
// programs that change them.
#include "internal.h"

#include <emu/control.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace emu {
namespace detail {
namespace {

std::vector<Schedule> parse_schedules(const std::string& text) {
    std::vector<Schedule> result;
    std::stringstream list(text);
    std::string item;
    while (std::getline(list, item, ',')) {
        Schedule s;
        if (item == "forward") {
            s.kind = Schedule::Forward;
        } else if (item == "reverse") {
            s.kind = Schedule::Reverse;
        } else if (item == "random" || item.rfind("random:", 0) == 0) {
            s.kind = Schedule::Random;
            if (item.size() > 7) {
                char* end = nullptr;
                s.seed = std::strtoull(item.c_str() + 7, &end, 10);
                if (*end != '\0') throw std::invalid_argument("bad seed in schedule '" + item + "'");
            }
        } else {
            throw std::invalid_argument("unknown schedule '" + item + "'");
        }
        result.push_back(s);
    }
    if (result.empty()) throw std::invalid_argument("no schedule given");
    return result;
}

std::vector<Schedule>& schedule_setting() {
    static std::vector<Schedule> setting = [] {
        const char* text = std::getenv("EMU_SCHEDULE");
        try {
            return parse_schedules(text != nullptr && *text != '\0' ? text : "forward,reverse");
        } catch (const std::invalid_argument& error) {
            std::fprintf(stderr, "EMU_SCHEDULE=%s: %s. Use a comma-separated list of forward, reverse, random, "
                                 "random:SEED, e.g. EMU_SCHEDULE=forward,reverse (the default).\n",
                         text, error.what());
            std::exit(2);
        }
    }();
    return setting;
}

double parse_time_limit(const char* text) {
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (end == text || *end != '\0' || !std::isfinite(seconds) || seconds < 0) {
        throw std::invalid_argument(std::string("'") + text + "' is not a number of seconds");
    }
    return seconds;
}

std::atomic<double>& time_limit_setting() {
    static std::atomic<double> setting{[] {
        // EMU_TIMEOUT, else TIMEOUT: make's variable, which the messages name, works for a
        // program run by hand too.
        const char* name = "EMU_TIMEOUT";
        const char* text = std::getenv(name);
        if (text == nullptr || *text == '\0') text = std::getenv(name = "TIMEOUT");
        if (text == nullptr || *text == '\0') return kDefaultTimeLimit;
        try {
            return parse_time_limit(text);
        } catch (const std::invalid_argument& error) {
            std::fprintf(stderr, "%s=%s: %s. Give the time limit of a kernel in seconds, e.g. "
                                 "TIMEOUT=20 (the default), or 0 for none.\n",
                         name, text, error.what());
            std::exit(2);
        }
    }()};
    return setting;
}

}  // namespace

double time_limit_seconds() { return time_limit_setting().load(); }

std::string Schedule::name() const {
    switch (kind) {
        case Forward: return "forward";
        case Reverse: return "reverse";
        case Random: return "random:" + std::to_string(seed);
    }
    return "?";
}

const std::vector<Schedule>& schedules() { return schedule_setting(); }

std::size_t stack_bytes() {
    static const std::size_t bytes = [] {
        const char* text = std::getenv("EMU_STACK_KB");
        const long kib = text != nullptr ? std::atol(text) : 0;
        return static_cast<std::size_t>(kib > 0 ? kib : 64) * 1024;
    }();
    return bytes;
}

unsigned worker_count() {
    static const unsigned count = [] {
        const char* text = std::getenv("EMU_THREADS");
        const long wanted = text != nullptr ? std::atol(text) : 0;
        const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
        return wanted > 0 ? static_cast<unsigned>(std::min<long>(wanted, 256)) : hardware;
    }();
    return count;
}

}  // namespace detail

void set_schedules(const std::string& list) { detail::schedule_setting() = detail::parse_schedules(list); }

void set_time_limit(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) {
        throw std::invalid_argument("time limit " + std::to_string(seconds) + ": not a number of seconds");
    }
    detail::time_limit_setting() = seconds;
}

double time_limit() { return detail::time_limit_seconds(); }

unsigned worker_threads() { return detail::worker_count(); }

std::string schedules() {
    std::string text;
    for (const detail::Schedule& s : detail::schedules()) text += (text.empty() ? "" : ",") + s.name();
    return text;
}

}  // namespace emu
