#include "expect.h"

#include "cuda_check.h"
#include "random.h"
#include "sweep.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace tutorial {

std::string seed_error(const char* text) {
    if (text == nullptr || *text == '\0') return "";
    const std::string seed = text;
    const std::string why = "SEED=" + seed + " is not a whole number from 0 to 4294967295";
    if (seed.find_first_not_of("0123456789") != std::string::npos) {
        return why + ": it has a character other than the digits 0-9. Leave SEED out for the default, " +
               std::to_string(kDefaultSeed) + ".";
    }
    // At most 10 digits after leading zeros, then compare: no overflow on the way.
    const std::size_t first = std::min(seed.find_first_not_of('0'), seed.size());
    if (seed.size() - first > 10 || std::stoull(seed.substr(first).empty() ? "0" : seed.substr(first)) > 4294967295ull) {
        return why + ": it is too large.";
    }
    return "";
}

namespace {
// @p text with every run of spaces and line breaks made one space.
std::string collapse_spaces(const std::string& text) {
    std::string out;
    for (char c : text) {
        const bool space = c == ' ' || c == '\n';
        if (space && !out.empty() && out.back() == ' ') continue;
        out += space ? ' ' : c;
    }
    return out;
}
}  // namespace

bool contains_phrase(const std::string& text, const std::string& phrase) {
    if (text.find(phrase) != std::string::npos) return true;
    return phrase.find('\n') == std::string::npos &&
           collapse_spaces(text).find(collapse_spaces(phrase)) != std::string::npos;
}

void check_says(const std::string& text, const std::vector<std::string>& phrases,
                const std::vector<std::string>& not_phrases) {
    INFO(text);
    for (const std::string& phrase : phrases) {
        INFO("it should say: " << phrase);
        CHECK(contains_phrase(text, phrase));
    }
    for (const std::string& phrase : not_phrases) {
        INFO("it should not say: " << phrase);
        CHECK_FALSE(contains_phrase(text, phrase));
    }
}

std::string place_of(const std::string& path, const std::string& text) {
    std::ifstream in(path);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.find(text) != std::string::npos) return path + ":" + std::to_string(number);
    }
    FAIL("no line of " << path << " contains " << text);
    return "";
}

std::string read_chapter_source(const std::string& folder, const std::string& file_name) {
    char self[4096];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    const std::string binary = length > 0 ? std::string(self, static_cast<std::size_t>(length)) : "";
    const std::size_t build = binary.rfind("/build/");
    const std::string root = build == std::string::npos ? "." : binary.substr(0, build);
    const std::string tree = binary.find("/solutions/bin/") != std::string::npos ? "solutions" : "chapters";
    std::string path = root + "/" + tree + "/" + folder + "/" + file_name;
    std::ifstream in(path);
    if (!in && tree == "solutions") {
        // The lesson and the API header live in chapters/ only, for both trees.
        path = root + "/chapters/" + folder + "/" + file_name;
        in.open(path);
    }
    if (folder.empty() || !in) {
        throw std::runtime_error("cannot read the chapter's source " + path + " (chapter folder '" + folder +
                                 "', tree and repository from the test binary " + binary + ")");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string kernel_parameter_list(const std::string& source, const std::string& kernel_name) {
    // Comments out, white space runs made one space.
    std::string code;
    for (std::size_t i = 0; i < source.size(); ++i) {
        if (source.compare(i, 2, "//") == 0) {
            i = source.find('\n', i);
            if (i == std::string::npos) break;
        } else if (source.compare(i, 2, "/*") == 0) {
            i = source.find("*/", i);
            if (i == std::string::npos) break;
            ++i;
            if (!code.empty() && code.back() != ' ') code += ' ';  // a comment separates tokens
            continue;
        }
        const bool space = std::isspace(static_cast<unsigned char>(source[i]));
        if (space && !code.empty() && code.back() == ' ') continue;
        code += space ? ' ' : source[i];
    }
    const std::regex definition("__global__\\s+void\\s+" + kernel_name + "\\s*\\(([^)]*)\\)");
    std::smatch match;
    if (!std::regex_search(code, match, definition)) return "";
    std::string parameters = match[1].str();
    parameters.erase(0, parameters.find_first_not_of(' '));
    parameters.erase(parameters.find_last_not_of(' ') + 1);
    return parameters;
}

namespace {
std::string where_to_work_text;
}  // namespace

std::string where_to_work() { return where_to_work_text; }

std::string where_to_work_first_time() {
    static bool said = false;
    if (said || where_to_work_text.empty()) return "";
    said = true;
    return where_to_work_text;
}

void find_where_to_work(const std::string& program) {
    where_to_work_text.clear();
    static const std::regex chapter_program(R"((^|/)chapters/bin/chapter(\d+)-tests$)");
    std::smatch match;
    if (!std::regex_search(program, match, chapter_program)) return;
    const std::string number = match[2].str();
    // chapters/registry: "number folder title" per line.
    std::ifstream registry("chapters/registry");
    std::string line, folder;
    while (std::getline(registry, line)) {
        std::istringstream fields(line);
        std::string first, second;
        if (fields >> first >> second && first == number) folder = second;
    }
    if (folder.empty()) return;
    std::vector<std::string> files;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator("chapters/" + folder, error)) {
        if (entry.path().extension() == ".cu") files.push_back("chapters/" + folder + "/" + entry.path().filename().string());
    }
    if (files.empty()) return;
    std::sort(files.begin(), files.end());
    std::string list;
    for (std::size_t i = 0; i < files.size(); ++i) list += (i == 0 ? "" : i + 1 == files.size() ? " and " : ", ") + files[i];
    where_to_work_text = "Your code for chapter " + number + " is in " + list + " (its TODO(chapter" + number +
                         ") markers); make chapter" + number + " hint gives a hint, one at a time.";
}

std::string optional_failures_note(const std::vector<std::string>& required, const std::vector<std::string>& optional,
                                   std::size_t hidden, bool whole_run) {
    if (optional.empty()) return "";
    // The steps, from the names' prefixes: one step ("8c: ") or a list ("3c and 3d: ",
    // "8c, 8d: ", "8a, 8b and 8d: "), read as tests/manifest_reader.py's STEP_PREFIX reads
    // them (it checks them against chapter.toml's going_further). A name without one is
    // quoted whole.
    static const std::regex step_prefix(R"(^(\d+[a-z](?:(?:, | and )\d+[a-z])*):)");
    static const std::regex one_step(R"(\d+[a-z])");
    std::vector<std::string> steps;
    const auto add = [&steps](const std::string& step) {
        if (std::find(steps.begin(), steps.end(), step) == steps.end()) steps.push_back(step);
    };
    for (const std::string& name : optional) {
        std::smatch match;
        if (!std::regex_search(name, match, step_prefix)) {
            add("\"" + name + "\"");
            continue;
        }
        const std::string prefix = match[1].str();
        for (auto it = std::sregex_iterator(prefix.begin(), prefix.end(), one_step); it != std::sregex_iterator(); ++it) {
            add(it->str());
        }
    }
    std::string list;
    for (std::size_t i = 0; i < steps.size(); ++i) list += (i == 0 ? "" : i + 1 == steps.size() ? " and " : ", ") + steps[i];
    const std::size_t failing = required.size() + optional.size();
    const std::string what = "the going-further step" + std::string(steps.size() == 1 ? " " : "s ") + list +
                             " (tagged [extra]): optional, the chapter is done without " + (steps.size() == 1 ? "it" : "them");
    const std::string optional_part = std::to_string(optional.size()) + (optional.size() == 1 ? " is " : " are ") + what;
    if (required.empty()) {
        // Only a run of every test knows that the required ones pass.
        const std::string all_pass = whole_run ? "The chapter's required test cases all pass. " : "";
        if (failing == 1) return all_pass + "The one test case that fails is " + what + ".";
        return all_pass + "Of the " + std::to_string(failing) + " test cases that fail, " + optional_part + ".";
    }
    std::string note = "Of the " + std::to_string(failing) + " test cases that fail, " + optional_part + "; the other " +
                       std::to_string(required.size()) + (required.size() == 1 ? " is" : " are") + " required.";
    if (hidden > 0) {
        note += hidden == optional.size() ? " Their reports are left out while a required one fails (VERBOSE=1 shows "
                                            "them)."
                                          : " " + std::to_string(hidden) + " of their reports are left out while a "
                                            "required one fails (VERBOSE=1 shows them).";
    }
    return note;
}

void check_launch_refused(const std::function<void()>& call, const std::string& kernel_name,
                          const std::string& source_file) {
    try {
        call();
        // Every caller asks for one row of blocks more than a GPU allows (grid.y > 65535).
        // The why is said once a run: a chapter with two launchers would say it twice.
        static bool explained = false;
        if (explained && !default_sweep_options(0).verbose) {
            FAIL("the launch succeeded; it should have been refused, as the test above says.");
        }
        explained = true;
        FAIL("the launch succeeded; it should have been refused: this size needs 65536 rows of blocks "
             "(grid.y), one more than a GPU allows. A grid computed from the size, its y counting the blocks "
             "down the rows, is refused by CUDA, and the check after the launch (CUDA_CHECK_KERNEL) reports it; "
             "this grid is not that (a fixed size, or its x and y swapped?).");
    } catch (const CudaError& error) {
        const std::string text = error.what();
        INFO(text);
        // CUDA 13 on an H200 answers cudaErrorInvalidValue; the documentation's name
        // for a bad launch shape is cudaErrorInvalidConfiguration. Either is right.
        const bool launch_refused =
            error.code() == cudaErrorInvalidValue || error.code() == cudaErrorInvalidConfiguration;
        CHECK(launch_refused);
        CHECK(text.find(kernel_name) != std::string::npos);
        CHECK(text.find(source_file + ":") != std::string::npos);
    }
}

std::string launch_config_mismatch(const LaunchConfig& got, dim3 grid, dim3 block, const std::string& input,
                                   const std::string& why) {
    const auto same = [](dim3 a, dim3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; };
    if (same(got.grid, grid) && same(got.block, block)) return "";
    const auto sizes = [](dim3 d) {
        return std::to_string(d.x) + " x " + std::to_string(d.y) + " x " + std::to_string(d.z);
    };
    return input + " the launch is grid " + sizes(got.grid) + ", block " + sizes(got.block) + ".\nExpected grid " +
           sizes(grid) + " (" + why + "), block " + sizes(block) + ".";
}

std::string match_failure_text(const ComparisonReport& report) {
    if (take_full_report()) return report.text;
    // The report's first sentence, its lines joined: "C is wrong at 4 of 9 elements (44%); ..."
    std::string joined;
    for (const char c : report.text) {
        const bool space = c == '\n' || c == ' ';
        if (!space || (!joined.empty() && joined.back() != ' ')) joined += space ? ' ' : c;
    }
    const std::size_t end = joined.find(". ");
    const std::string first = end == std::string::npos ? joined : joined.substr(0, end + 1);
    return wrap_report_text(first + " (VERBOSE=1 shows it in full.)");
}

}  // namespace tutorial
