#include "sweep.h"

#include "cuda_check.h"
#include "expect.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

namespace tutorial {

namespace {

using Parameters = std::vector<ShapeParameter>;

// A property a shape may have, as the summary names it: "K is not a multiple of 16".
struct Property {
    std::string text;
    std::function<bool(const Parameters&)> holds;
    std::set<std::size_t> on;  // the parameters it reads (their indices)
};

std::string first_line(const std::string& text, std::size_t limit) {
    std::string line = text.substr(0, text.find('\n'));
    if (line.size() > limit) line = line.substr(0, limit - 3) + "...";
    return line;
}

// The line of an error that says most, for the one-line entries: the CPU backend's
// finding when there is one ("result depends on thread order: ..."), else the first line.
std::string key_line_of_error(const std::string& text, std::size_t limit) {
    const std::string marker = "the CPU backend found:\n";
    const std::size_t at = text.find(marker);
    std::string line = at == std::string::npos ? text.substr(0, text.find('\n'))
                                               : text.substr(at + marker.size(), text.find('\n', at + marker.size()) -
                                                                                     (at + marker.size()));
    line.erase(0, line.find_first_not_of(' '));
    if (line.size() > limit) line = line.substr(0, limit - 3) + "...";
    return line;
}

// Each line of @p text wrapped to the report's width, keeping its indent, so that
// Catch2 does not wrap it at its own width in the middle of a word.
std::string wrap_each_line(const std::string& text) {
    std::istringstream lines(text);
    std::string line, out;
    while (std::getline(lines, line)) {
        const std::size_t start = line.find_first_not_of(' ');
        if (start == std::string::npos) {
            out += "\n";
            continue;
        }
        const std::string indent(start, ' ');
        out += wrap_report_text(line.substr(start), kReportWidth, indent, indent + "  ");
    }
    return out;
}

// The properties the summary tries, simplest first: the multiples and the sizes of the
// tile, a parameter's value where it takes only a few, thresholds read off the data,
// then pairs ("M or N is not a multiple of 16").
std::vector<Property> candidate_properties(const std::vector<Parameters>& shapes) {
    std::vector<Property> properties;
    if (shapes.empty()) return properties;
    const std::size_t count = shapes.front().size();
    std::vector<std::size_t> with_unit;
    std::vector<std::string> unit_text(count);
    for (std::size_t i = 0; i < count; ++i) {
        std::set<long long> units;
        for (const Parameters& shape : shapes) units.insert(shape[i].unit);
        if (units.count(0) == 1) continue;  // a parameter with no tile in some shape has none to speak of
        const ShapeParameter& p = shapes.front()[i];
        unit_text[i] = units.size() == 1 ? std::to_string(p.unit)
                       : p.unit_name.empty() ? "its " + p.unit_noun
                                             : p.unit_name;
        with_unit.push_back(i);
    }
    for (std::size_t i : with_unit) {
        const std::string& name = shapes.front()[i].name;
        const std::string& unit = unit_text[i];
        const std::string& noun = shapes.front()[i].unit_noun;
        properties.push_back({name + " is not a multiple of " + unit,
                              [i](const Parameters& s) { return s[i].value % s[i].unit != 0; }, {i}});
        properties.push_back({name + " is a multiple of " + unit,
                              [i](const Parameters& s) { return s[i].value % s[i].unit == 0; }, {i}});
        if (!shapes.front()[i].counts_units) continue;  // a unit that divides it, no pieces of it
        properties.push_back({name + " > " + unit + " (more than one " + noun + ")",
                              [i](const Parameters& s) { return s[i].value > s[i].unit; }, {i}});
        properties.push_back({name + " < " + unit + " (less than one " + noun + ")",
                              [i](const Parameters& s) { return s[i].value < s[i].unit; }, {i}});
        properties.push_back({name + " >= " + unit + " (at least one " + noun + ")",
                              [i](const Parameters& s) { return s[i].value >= s[i].unit; }, {i}});
        properties.push_back({name + " <= " + unit + " (at most one " + noun + ")",
                              [i](const Parameters& s) { return s[i].value <= s[i].unit; }, {i}});
    }
    for (std::size_t i = 0; i < count; ++i) {
        std::set<long long> values;
        for (const Parameters& shape : shapes) values.insert(shape[i].value);
        if (values.size() < 2 || values.size() > 4) continue;
        for (long long value : values) {
            properties.push_back({shapes.front()[i].name + " = " + std::to_string(value),
                                  [i, value](const Parameters& s) { return s[i].value == value; }, {i}});
        }
    }
    // Two parameters equal or not: a kernel that uses K where it should use N (a wrong
    // stride) is right exactly when N = K. Only sizes in the same unit (M, N and K, in
    // tiles): n = offset, a length against a misalignment, explains nothing.
    const auto same_kind = [&](std::size_t i, std::size_t j) {
        for (const Parameters& shape : shapes) {
            if (shape[i].unit == 0 || shape[j].unit == 0 || shape[i].unit_noun != shape[j].unit_noun ||
                !shape[i].counts_units || !shape[j].counts_units) {
                return false;
            }
        }
        return true;
    };
    for (std::size_t i = 0; i < count; ++i) {
        for (std::size_t j = i + 1; j < count; ++j) {
            if (!same_kind(i, j)) continue;
            // Unequal numbers of tiles: the grid is not square, and swapped rows and columns
            // (or a grid computed from the wrong size) show only then.
            {
                const std::string a = shapes.front()[i].name, b = shapes.front()[j].name;
                const std::string unit = unit_text[i] == unit_text[j] ? unit_text[i] : "";
                if (!unit.empty()) {
                    const auto tiles = [](const ShapeParameter& p) { return (p.value + p.unit - 1) / p.unit; };
                    properties.push_back({a + " and " + b + " span different numbers of " + shapes.front()[i].unit_noun +
                                              "s (ceil(" + a + " / " + unit + ") != ceil(" + b + " / " + unit + "))",
                                          [i, j, tiles](const Parameters& s) { return tiles(s[i]) != tiles(s[j]); }, {i, j}});
                }
            }
            const std::string a = shapes.front()[i].name, b = shapes.front()[j].name;
            properties.push_back({a + " != " + b, [i, j](const Parameters& s) { return s[i].value != s[j].value; }, {i, j}});
            properties.push_back({a + " = " + b, [i, j](const Parameters& s) { return s[i].value == s[j].value; }, {i, j}});
        }
    }
    // Pairs, for the bugs that need either of two sizes to be off the tile.
    for (std::size_t a = 0; a < with_unit.size(); ++a) {
        for (std::size_t b = a + 1; b < with_unit.size(); ++b) {
            const std::size_t i = with_unit[a], j = with_unit[b];
            if (!shapes.front()[i].counts_units || !shapes.front()[j].counts_units) continue;
            const std::string names = shapes.front()[i].name + " or " + shapes.front()[j].name;
            const std::string unit =
                unit_text[i] == unit_text[j] ? unit_text[i] : unit_text[i] + " or " + unit_text[j] + " respectively";
            properties.push_back({names + " is not a multiple of " + unit, [i, j](const Parameters& s) {
                                      return s[i].value % s[i].unit != 0 || s[j].value % s[j].unit != 0;
                                  }, {i, j}});
            // "More than one" only of the same piece: M in block tiles and K in steps along
            // K are not "more than one block tile" together.
            if (shapes.front()[i].unit_noun != shapes.front()[j].unit_noun) continue;
            properties.push_back({names + " is more than one " + shapes.front()[i].unit_noun,
                                  [i, j](const Parameters& s) { return s[i].value > s[i].unit || s[j].value > s[j].unit; }, {i, j}});
            properties.push_back({names + " is less than one " + shapes.front()[i].unit_noun,
                                  [i, j](const Parameters& s) { return s[i].value < s[i].unit || s[j].value < s[j].unit; }, {i, j}});
        }
    }
    return properties;
}

// Thresholds read off the data: every failing shape has K >= 127 and every passing one
// K <= 33. Only made when they separate the two exactly.
std::vector<Property> threshold_properties(const std::vector<Parameters>& failing,
                                           const std::vector<Parameters>& passing) {
    std::vector<Property> properties;
    if (failing.empty() || passing.empty()) return properties;
    for (std::size_t i = 0; i < failing.front().size(); ++i) {
        long long fail_min = failing.front()[i].value, fail_max = fail_min;
        for (const Parameters& s : failing) {
            fail_min = std::min(fail_min, s[i].value);
            fail_max = std::max(fail_max, s[i].value);
        }
        long long pass_min = passing.front()[i].value, pass_max = pass_min;
        for (const Parameters& s : passing) {
            pass_min = std::min(pass_min, s[i].value);
            pass_max = std::max(pass_max, s[i].value);
        }
        const std::string& name = failing.front()[i].name;
        if (pass_max < fail_min) {
            properties.push_back({name + " >= " + std::to_string(fail_min) + " (the shapes that pass have " + name +
                                      " <= " + std::to_string(pass_max) + ")",
                                  [i, fail_min](const Parameters& s) { return s[i].value >= fail_min; }, {i}});
        }
        if (pass_min > fail_max) {
            properties.push_back({name + " <= " + std::to_string(fail_max) + " (the shapes that pass have " + name +
                                      " >= " + std::to_string(pass_min) + ")",
                                  [i, fail_max](const Parameters& s) { return s[i].value <= fail_max; }, {i}});
        }
    }
    return properties;
}

// False when the GPU is left with an error that every later call would report again.
// Through check_kernel (common/), so that this file calls no CUDA function itself and
// links into test programs that have no backend.
bool gpu_still_usable() {
    try {
        check_kernel("the failed case's kernel", __FILE__, __LINE__);
        return true;
    } catch (const CudaError&) {
        return false;
    }
}

bool parse_index3(const std::string& text, Index3& out) {
    long long x = 0, y = 0, z = 0;
    if (std::sscanf(text.c_str(), "(%lld,%lld,%lld)", &x, &y, &z) != 3) return false;
    out = {x, y, z};
    return true;
}

// An error with every number but a source line's set aside, and its spaces made one.
std::string finding_key(const std::string& text) {
    // A value the output held with its sign and exponent (-0.61, 1.5e-05), and any other
    // number but a line (after ':'): two runs of one finding differ in these only. An
    // integer keeps its sign: index -1 (before an array) is not index 136 (past it).
    static const std::regex number(R"((^|[^:0-9])(-?[0-9]+\.[0-9]+([eE][-+]?[0-9]+)?|[0-9]+))");
    static const std::regex spaces(R"(\s+)");
    // Where the kernel was launched from: a host function that picks one of two instances
    // (16- or 4-byte copies) launches each on its own line, and the finding is the same.
    static const std::regex launch_site(R"(launched at\s+\S+:[0-9]+)");
    const std::string text_without_launch_site = std::regex_replace(text, launch_site, "launched at #");
    return std::regex_replace(std::regex_replace(text_without_launch_site, number, "$1#"), spaces, " ");
}

// "1, 2 and 3": the values of @p name among @p shapes, when they differ, for the line on
// shapes that share a finding; empty when they are one value or too many to list.
std::string values_of(const std::string& name, const std::vector<std::vector<ShapeParameter>>& shapes) {
    std::set<long long> values;
    for (const auto& parameters : shapes) {
        for (const ShapeParameter& parameter : parameters) {
            if (parameter.name == name) values.insert(parameter.value);
        }
    }
    if (values.size() < 2 || values.size() > 6) return "";
    std::string out;
    std::size_t k = 0;
    for (long long value : values) {
        out += (k == 0 ? "" : k + 1 == values.size() ? " and " : ", ") + std::to_string(value);
        ++k;
    }
    return name + " = " + out;
}

}  // namespace

bool same_finding(const std::string& a, const std::string& b) {
    return !a.empty() && !b.empty() && finding_key(a) == finding_key(b);
}

std::string out_of_bounds_advice(const std::string& error_text, const OutputOwnership& ownership) {
    if (error_text.find("out-of-bounds global memory access") == std::string::npos) return "";
    const std::string& name = ownership.output_name;
    // No thread names a single element: say what follows from the tiles, for any thread.
    if (ownership.work != ThreadWork::one_element) {
        if (name.empty()) return "";
        const std::string share = ownership.work == ThreadWork::column_per_thread ? "each thread a column of it"
                                  : ownership.work == ThreadWork::tile_per_thread ? "each thread a small tile of it"
                                                                                  : "each warp a part of it, split among its lanes";
        std::ostringstream advice;
        advice << "In this kernel each block computes one " << (ownership.tile_text.empty() ? "" : ownership.tile_text + " ")
               << "tile of " << name << ", " << share << ", and the threads load the tiles of the inputs into shared "
               << "memory together. In a tile that overhangs the edge of a matrix, each element loaded or stored "
               << "needs its own bounds check: load 0 for an element outside the input, store only the elements of "
               << name << " inside it. Every thread must still reach each __syncthreads(), so no thread may return "
               << "early. (If the checks are there, the index arithmetic is wrong: a row of a matrix is as long as "
               << "its number of columns.)";
        return advice.str();
    }
    if (!ownership.element_of) return "";
    // The CPU backend names the thread as "block (1,0,0), thread (3,2,0)".
    static const std::regex thread_pattern(R"(block (\(\d+,\d+,\d+\)), thread (\(\d+,\d+,\d+\)))");
    std::smatch match;
    Index3 block, thread;
    if (!std::regex_search(error_text, match, thread_pattern) || !parse_index3(match[1].str(), block) ||
        !parse_index3(match[2].str(), thread)) {
        return "";
    }
    long long row = 0, col = 0;
    ownership.element_of(block, thread, row, col);
    std::ostringstream advice;
    advice << "That thread computes " << name << "(" << row << ", " << col << "), ";
    const bool inside = row >= 0 && row < ownership.rows && col >= 0 && col < ownership.cols;
    const std::string shape = std::to_string(ownership.rows) + " x " + std::to_string(ownership.cols) + " (rows x columns) " + name;
    if (inside && !ownership.stages_in_shared && ownership.reads_neighbours) {
        advice << "which is inside the " << shape << ": its own element exists, so the access is one of the "
               << "neighbours it reads around it (the box or the window): a neighbour past the input's edge must be "
               << "clamped into the input (or left out, where the exercise says so). If every neighbour is, the index "
               << "arithmetic is wrong (a row of a matrix is as long as its number of columns).";
    } else if (inside && !ownership.stages_in_shared) {
        advice << "which is inside the " << shape << ": its own element exists, so the access goes out of bounds "
               << "through its index arithmetic, such as a wrong stride (a row of a matrix is as long as its "
               << "number of columns). A bounds check would hide this bug, not fix it.";
    } else if (inside) {
        advice << "which is inside the " << shape << ". In this kernel the threads also load elements that are "
               << "not their own (a tile, a halo) into shared memory, so the access may be one of those loads: an "
               << "element loaded from outside the input needs a bounds check (load 0, or the clamped element). "
               << "If every load has one, the index arithmetic is wrong (a row of a matrix is as long as its "
               << "number of columns).";
    } else if (!ownership.stages_in_shared) {
        advice << "which is outside the " << shape << ": a missing bounds check. A thread whose element lies "
               << "outside the output must not read or write anything for it.";
    } else {
        advice << "which is outside the " << shape << ": a missing bounds check. In this kernel that thread still "
               << "loads its share of the shared tiles and must reach every __syncthreads(): guard each of its "
               << "loads (load 0, or the clamped element, for an element outside the input) and its store, "
               << "rather than returning early, which would leave the other threads waiting at the barrier.";
    }
    return advice.str();
}

std::string summarize_failing_shapes(const std::vector<Parameters>& failing, const std::vector<Parameters>& passing,
                                     const std::vector<std::string>& labels_of_passing) {
    const std::size_t total = failing.size() + passing.size();
    std::ostringstream out;
    if (failing.empty()) return "";
    if (passing.empty()) {
        out << "it fails for every shape (" << total << " of " << total << ").";
        return out.str();
    }
    std::vector<Parameters> all = failing;
    all.insert(all.end(), passing.begin(), passing.end());
    std::vector<Property> properties = candidate_properties(all);
    const std::vector<Property> thresholds = threshold_properties(failing, passing);
    properties.insert(properties.end(), thresholds.begin(), thresholds.end());

    const Property* best = nullptr;
    std::vector<std::size_t> best_passing;
    // The simplest exact property of each set of parameters: when two read unrelated
    // parameters (K > 64, and M >= 127), the shapes tested differ in both ways at once and
    // cannot say which one matters, so neither is named as the cause.
    std::vector<const Property*> exact;
    for (const Property& property : properties) {
        if (!std::all_of(failing.begin(), failing.end(), property.holds)) continue;
        std::vector<std::size_t> also;
        for (std::size_t k = 0; k < passing.size(); ++k) {
            if (property.holds(passing[k])) also.push_back(k);
        }
        if (also.empty() && std::none_of(exact.begin(), exact.end(),
                                         [&](const Property* other) { return other->on == property.on; })) {
            exact.push_back(&property);
        }
        if (best == nullptr || also.size() < best_passing.size()) {
            best = &property;
            best_passing = also;
        }
    }
    // Nested sets (K, and M or K) are one explanation, the smaller the simpler; others are two.
    const auto nested = [](const std::set<std::size_t>& a, const std::set<std::size_t>& b) {
        return std::includes(a.begin(), a.end(), b.begin(), b.end()) ||
               std::includes(b.begin(), b.end(), a.begin(), a.end());
    };
    std::vector<const Property*> unrelated;
    for (const Property* property : exact) {
        if (unrelated.empty() || !nested(unrelated.front()->on, property->on)) unrelated.push_back(property);
    }
    if (unrelated.size() > 1) {
        out << "the shapes that pass differ from the failing ones in more than one way (";
        for (std::size_t k = 0; k < unrelated.size() && k < 3; ++k) {
            out << (k == 0 ? "" : "; ") << unrelated[k]->text;
        }
        out << (unrelated.size() > 3 ? "; and more" : "") << "), so they cannot say which one matters.";
    } else if (best != nullptr && best_passing.empty()) {
        out << "it fails only when " << best->text << ": that holds for all " << failing.size()
            << " failing shapes and for none of the " << passing.size() << " that pass.";
    } else if (best != nullptr && best_passing.size() <= 3) {
        out << "no property separates them exactly; \"" << best->text << "\" holds for every failing shape, and "
            << "for " << best_passing.size() << " of the " << passing.size() << " shapes that pass:";
        for (std::size_t k = 0; k < best_passing.size(); ++k) {
            out << (k == 0 ? " " : "; ") << labels_of_passing[best_passing[k]];
        }
        out << ".";
    } else {
        out << "no simple property (a size that is or is not a multiple of the tile, more or less than one "
               "tile, one value of a parameter) holds for every failing shape and "
            << (passing.size() == 1 ? std::string("not for the one that passes (") + labels_of_passing.front() + ")."
                                    : "for none of the " + std::to_string(passing.size()) + " that pass.");
    }
    return out.str();
}

SweepOptions default_sweep_options(int chapter) {
    SweepOptions options;
    options.chapter = chapter;
#if defined(TUTORIAL_EMU)
    options.on_gpu = false;  // the CPU backend names races itself, by running the threads in several orders
#else
    options.on_gpu = cuda_device_available();
#endif
    if (const char* pass = std::getenv("TUTORIAL_SANITIZER_PASS"); pass != nullptr && std::string(pass) == "1") {
        options.most_shapes = kSanitizerShapes;
        options.on_gpu = false;  // the sanitizer names races itself
    }
    // TUTORIAL_VERBOSE, or else VERBOSE: make puts a variable given on its command line
    // (make chapter2 test VERBOSE=1) into the environment of the test run.
    const char* verbose = std::getenv("TUTORIAL_VERBOSE");
    if (verbose == nullptr || *verbose == '\0') verbose = std::getenv("VERBOSE");
    options.verbose = verbose != nullptr && *verbose != '\0' && std::string(verbose) != "0";
    return options;
}

bool take_full_report() {
    static bool full_report_given = false;
    const char* verbose = std::getenv("TUTORIAL_VERBOSE");
    if (verbose == nullptr || *verbose == '\0') verbose = std::getenv("VERBOSE");
    if (verbose != nullptr && *verbose != '\0' && std::string(verbose) != "0") return true;
    if (full_report_given) return false;
    full_report_given = true;
    return true;
}

std::string sweeps_report(const std::vector<ShapeSweep>& sweeps) {
    std::string out;
    bool first = true;
    for (const ShapeSweep& sweep : sweeps) {
        if (sweep.ok()) continue;
        if (first) {
            out += sweep.report();
            first = false;
        } else {
            out += wrap_report_text(sweep.brief());
        }
    }
    return out;
}

ShapeSweep::ShapeSweep(std::string what, SweepOptions options) : what_(std::move(what)), options_(options) {}

namespace {

// The case labels TUTORIAL_SHAPES names, one a line: run even past most_shapes.
const std::set<std::string>& requested_shapes() {
    static const std::set<std::string> labels = [] {
        std::set<std::string> found;
        if (const char* text = std::getenv("TUTORIAL_SHAPES"); text != nullptr) {
            std::istringstream lines(text);
            for (std::string line; std::getline(lines, line);) {
                if (!line.empty()) found.insert(line);
            }
        }
        return found;
    }();
    return labels;
}

// The case after whose error the GPU could run no more kernels in this process (sweep,
// shape and error), empty while it can: every later call on the GPU fails with that error,
// which would otherwise be reported as each later test's own.
std::string& gpu_lost_at() {
    static std::string at;
    return at;
}

}  // namespace

void ShapeSweep::run(const std::string& label, std::vector<ShapeParameter> parameters,
                     const std::function<ComparisonReport()>& run, const OutputOwnership& ownership) {
    if (options_.most_shapes != 0 && shapes_.size() >= options_.most_shapes &&
        requested_shapes().count(options_.case_prefix + label) == 0) {
        return;
    }
    Shape shape;
    shape.label = label;
    shape.parameters = std::move(parameters);
    shape.scored = scored_;
    if (stopped_) {
        ++skipped_;
        record_case(options_.case_prefix + label, false, "not run: an earlier shape stopped this test", scored_);
        return;
    }
    if (options_.on_gpu && !gpu_lost_at().empty()) {
        // Not this sweep's failure: say whose it is, and run nothing more here.
        shape.passed = false;
        shape.error = "not run: the GPU was lost earlier";
        shape.full = wrap_report_text("Not run: an earlier test left the GPU unable to run kernels in this process (" +
                                      gpu_lost_at() + "). Fix that one first: this one's result is unknown.");
        shape.line = "not run: the GPU was lost earlier, at " + first_line(gpu_lost_at(), 60);
        ++failed_;
        stopped_ = true;
        stop_reason_ = "the GPU was lost earlier";
        record_case(options_.case_prefix + label, false, shape.line, scored_);
        shapes_.push_back(std::move(shape));
        return;
    }
    ComparisonReport report;
    std::string error;
    try {
        report = run();
    } catch (const std::exception& exception) {
        error = exception.what();
    }
    if (error.empty() && report.ok()) {
        record_case(options_.case_prefix + label, true, "", scored_);
        shapes_.push_back(std::move(shape));
        return;
    }
    shape.passed = false;
    ++failed_;
    std::ostringstream full, line;
    if (!error.empty()) {
        shape.error = error;
        full << wrap_each_line("It threw an exception: " + error);
        const std::string advice = out_of_bounds_advice(error, ownership);
        if (!advice.empty()) full << wrap_report_text(advice);
        shape.advice = advice;
        line << key_line_of_error(error, std::max<std::size_t>(30, kReportWidth - 4 - label.size()));
        if (options_.on_gpu && !gpu_still_usable()) {
            // An illegal address leaves the CUDA context unusable: every later call fails.
            stopped_ = true;
            stop_reason_ = "the GPU could run no kernel after the error at " + label;
            if (gpu_lost_at().empty()) gpu_lost_at() = what_ + ", " + label + ": " + first_line(error, 80);
            full << wrap_report_text("After this error the GPU cannot run another kernel in this process, so "
                                     "the remaining shapes were not run.");
        } else if (error.find("cudaErrorLaunchTimeout") != std::string::npos) {
            // A kernel that never ends would use up the time limit again on every shape.
            stopped_ = true;
            stop_reason_ = "the kernel ran past the time limit at " + label;
            full << wrap_report_text("The kernel ran past the time limit, so the remaining shapes were not run "
                                     "(each would wait as long again).");
        }
    } else {
        full << report.text;
        shape.untouched = report.untouched;
        shape.names_cause = !report.cause.empty();
        const double percent = 100.0 * static_cast<double>(report.wrong) / static_cast<double>(report.total);
        char share[32];
        std::snprintf(share, sizeof share, "%.3g%%", percent);
        line << "wrong at " << report.wrong << " of " << report.total << " elements (" << share << ")";
        if (options_.on_gpu) {
            // Same inputs, same kernel: a different output can only come from the order
            // the threads happened to run in.
            std::string again;
            try {
                const ComparisonReport second = run();
                if (second.fingerprint != report.fingerprint) {
                    again = "The result changes from run to run (run twice on the same inputs, the output "
                            "differed). Two causes do that: a race, such as a missing __syncthreads() or two "
                            "threads writing one element; or a read of shared memory that no thread wrote, which "
                            "holds whatever was left there.";
                    line << "; changes from run to run (a race, or unwritten shared memory read)";
                } else {
                    again = "Run again on the same inputs, the output was the same: no sign of a race, no proof of none.";
                }
            } catch (const std::exception& exception) {
                again = "Run again on the same inputs, it threw: " + first_line(exception.what(), 200);
            }
            full << wrap_report_text(again);
        }
    }
    shape.full = full.str();
    shape.line = line.str();
    record_case(options_.case_prefix + label, false, shape.line, scored_);
    shapes_.push_back(std::move(shape));
}

std::string ShapeSweep::not_run_note() const {
    if (skipped_ == 0) return "";
    return " (" + std::to_string(skipped_) + " more not run" + (stop_reason_.empty() ? "" : ": " + stop_reason_) + ")";
}

std::string ShapeSweep::brief() const {
    if (failed_ == 0) return "";
    std::ostringstream out;
    out << what_ << " fails for " << failed_ << " of " << shapes_.size() << " shapes";
    out << not_run_note();
    const std::size_t shown = shown_shape();
    if (shown < shapes_.size()) {
        out << (shown_is_first(shown) ? "; the first, " : "; the one whose finding is most specific, ")
            << shapes_[shown].label << ": " << shapes_[shown].line;
    }
    out << (options_.verbose ? "." : " (VERBOSE=1 shows it in full).");
    return out.str();
}

std::string ShapeSweep::first_error() const {
    const std::size_t shown = shown_shape();
    return shown < shapes_.size() ? shapes_[shown].error : "";
}

// The failing shape a report shows in full: the first, unless the CPU backend found no more
// in it than that the result depends on the order of the threads, and a later failing shape
// has a finding that says more (a read before its copy landed, with the read's line).
std::size_t ShapeSweep::shown_shape() const {
    const auto order_only = [](const Shape& shape) {
        return key_line_of_error(shape.error, 1000).rfind("result depends on thread order", 0) == 0;
    };
    const auto first = std::find_if(shapes_.begin(), shapes_.end(), [](const Shape& s) { return !s.passed; });
    if (first == shapes_.end()) return shapes_.size();
    if (order_only(*first)) {
        const auto more = std::find_if(first, shapes_.end(), [&](const Shape& s) {
            return !s.passed && s.error.find("the CPU backend found:") != std::string::npos && !order_only(s);
        });
        if (more != shapes_.end()) return static_cast<std::size_t>(more - shapes_.begin());
    }
    // A wrong result that nothing explains gives way to one whose report names the mistake
    // (a chapter's own probe; too few elements in the first shape for it, say).
    if (first->error.empty() && !first->names_cause) {
        const auto named = std::find_if(first, shapes_.end(), [](const Shape& s) { return !s.passed && s.names_cause; });
        if (named != shapes_.end()) return static_cast<std::size_t>(named - shapes_.begin());
    }
    return static_cast<std::size_t>(first - shapes_.begin());
}

bool ShapeSweep::shown_is_first(std::size_t shown) const {
    return std::none_of(shapes_.begin(), shapes_.begin() + std::min(shown, shapes_.size()),
                        [](const Shape& s) { return !s.passed; });
}

std::string ShapeSweep::report() const {
    if (failed_ == 0) return "";
    if (take_full_report()) return text();
    return wrap_report_text(brief());
}

std::string ShapeSweep::text() const {
    if (failed_ == 0) return "";
    std::ostringstream out;
    const std::size_t run_count = shapes_.size();
    out << what_ << " fails for " << failed_ << " of " << run_count << " shapes";
    out << not_run_note();
    out << ".\n";
    // A kernel that wrote nothing at all, in every shape (a step not begun, most often): a
    // few lines say so, instead of a report per shape that would say it again and again.
    const bool all_untouched =
        failed_ == run_count && skipped_ == 0 &&
        std::all_of(shapes_.begin(), shapes_.end(), [](const Shape& shape) { return !shape.untouched.empty(); });
    if (all_untouched && !options_.verbose) {
        out << wrap_report_text("In every shape, " + shapes_.front().untouched + " VERBOSE=1 shows each shape in full.");
        const std::string where = where_to_work_first_time();
        if (!where.empty()) out << wrap_report_text(where);
        // No commands that look for races here: an output nobody wrote is a step not begun.
        return out.str();
    }
    std::vector<Parameters> failing, passing;
    std::vector<std::string> passing_labels;
    std::size_t listed = 0, further = 0;
    // The shape shown in full: the first failing one, or one whose finding says more.
    const std::size_t shown = shown_shape();
    // The further failing shapes that threw the first one's finding: one line for all.
    const std::string first_finding = first_error();
    std::string first_advice;
    std::vector<std::string> same_labels;
    std::vector<Parameters> same_parameters;
    std::ostringstream others;  // the lines on the other failing shapes, after that one
    std::vector<std::string> passing_unscored;  // shapes an unwritten kernel passes too
    std::vector<Parameters> unscored_parameters;
    for (const Shape& shape : shapes_) {
        if (shape.passed && !shape.scored) {
            // Its right answer needs none of the student's code (an empty input): that it
            // passes says nothing of the kernel, so it does not stand against the failing ones.
            passing_unscored.push_back(shape.label);
            unscored_parameters.push_back(shape.parameters);
            continue;
        }
        if (shape.passed) {
            passing.push_back(shape.parameters);
            passing_labels.push_back(shape.label);
            continue;
        }
        failing.push_back(shape.parameters);
        const bool is_shown = &shape == &shapes_[shown];
        if (is_shown || options_.verbose) {
            const std::string title = !is_shown                ? "Failing shape"
                                      : shown_is_first(shown)   ? "The first failing shape"
                                      : options_.verbose        ? "Failing shape (its finding is the most specific)"
                                                                : "The failing shape whose finding is most specific";
            out << wrap_report_text(title + ", " + shape.label + ":") << shape.full;
            if (is_shown) first_advice = shape.advice;
            same_parameters.push_back(shape.parameters);
            continue;
        }
        if (same_finding(first_finding, shape.error) && finding_key(first_advice) == finding_key(shape.advice)) {
            same_labels.push_back(shape.label);
            same_parameters.push_back(shape.parameters);
            continue;
        }
        if (further++ == 0) {
            others << "The other failing shapes (VERBOSE=1 shows each in full):\n";
        }
        if (listed < options_.further_listed) {
            others << wrap_report_text(shape.label + ": " + shape.line, kReportWidth, "  ", "      ");
            ++listed;
        }
    }
    if (further > listed) {
        others << "  ... and " << further - listed << " more.\n";
    }
    if (!same_labels.empty()) {
        // Said once: the cases it covers, by the parameters that differ among few values
        // (the stage counts), then the first few labels.
        std::string covers;
        for (const ShapeParameter& parameter : same_parameters.front()) {
            if (parameter.unit != 0) continue;  // a size: too many values to say anything
            const std::string values = values_of(parameter.name, same_parameters);
            if (!values.empty()) covers += (covers.empty() ? "" : "; ") + values;
        }
        std::string cases;
        const std::size_t named = std::min<std::size_t>(same_labels.size(), 3);
        for (std::size_t k = 0; k < named; ++k) cases += (k == 0 ? "" : "; ") + same_labels[k];
        if (same_labels.size() > named) cases += "; and " + std::to_string(same_labels.size() - named) + " more";
        out << wrap_report_text(std::string("The same finding, but for the thread, block, stage or size it names, at ") +
                                (further == 0 ? "all " : "") + std::to_string(same_labels.size()) + " other failing shape(s)" +
                                (covers.empty() ? "" : " (" + covers + ")") + ": " + cases + ".");
    }
    out << others.str();
    if (run_count > 1 && passing.empty() && !passing_unscored.empty()) {
        std::string those;
        for (std::size_t k = 0; k < passing_unscored.size(); ++k) {
            those += (k == 0 ? "" : k + 1 == passing_unscored.size() ? " and " : ", ") + passing_unscored[k];
        }
        out << wrap_report_text("What the failing shapes share: it fails for every shape whose answer needs the "
                                "kernel (" + std::to_string(failed_) + " of " + std::to_string(failing.size() +
                                passing_unscored.size()) + "); the " + (passing_unscored.size() == 1 ? "one" : "ones") +
                                " that pass" + (passing_unscored.size() == 1 ? "es" : "") + " (" + those +
                                ") need" + (passing_unscored.size() == 1 ? "s" : "") +
                                " none: the code given with the exercise already gives " +
                                (passing_unscored.size() == 1 ? "its" : "their") + " answer.");
    } else if (run_count > 1) {
        // Shapes of both kinds pass: every passing shape stands against the failing ones.
        passing.insert(passing.end(), unscored_parameters.begin(), unscored_parameters.end());
        passing_labels.insert(passing_labels.end(), passing_unscored.begin(), passing_unscored.end());
        out << wrap_report_text("What the failing shapes share: " +
                                summarize_failing_shapes(failing, passing, passing_labels));
    }
    if (options_.on_gpu) {
        const std::string chapter = "make chapter" + std::to_string(options_.chapter);
        out << "To find the cause, run these two:\n"
            << "  " << chapter << " test BACKEND=emu   (barriers, bounds, order of threads)\n"
            << "  " << chapter << " sanitize           (compute-sanitizer on the GPU)\n";
    }
    return out.str();
}

}  // namespace tutorial
