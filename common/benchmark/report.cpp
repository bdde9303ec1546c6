#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace tutorial::benchmark {

namespace {

// The p-quantile of sorted values, interpolating between neighbours.
double quantile(const std::vector<double>& sorted, double p) {
    const double position = p * static_cast<double>(sorted.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    const double fraction = position - static_cast<double>(below);
    return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

}  // namespace

Timing summarize(std::vector<double> samples_ms) {
    if (samples_ms.empty()) {
        throw std::invalid_argument("summarize: no samples");
    }
    Timing timing;
    timing.samples_ms = samples_ms;
    std::sort(samples_ms.begin(), samples_ms.end());
    timing.min_ms = samples_ms.front();
    timing.max_ms = samples_ms.back();
    timing.median_ms = quantile(samples_ms, 0.5);
    timing.q1_ms = quantile(samples_ms, 0.25);
    timing.q3_ms = quantile(samples_ms, 0.75);
    return timing;
}

double Measurement::rate() const {
    if (timing.repetitions() == 0 || timing.median_ms <= 0.0) return 0.0;
    return work / (timing.median_ms * 1e-3) / 1e9;
}

double Measurement::percent_of_ceiling() const {
    return ceiling_rate > 0.0 ? 100.0 * rate() / ceiling_rate : 0.0;
}

double Measurement::speedup() const {
    if (baseline_ms <= 0.0 || timing.repetitions() == 0 || timing.median_ms <= 0.0) return 0.0;
    return baseline_ms / timing.median_ms;
}

double Measurement::times_library() const {
    if (library_ms <= 0.0 || timing.repetitions() == 0 || timing.median_ms <= 0.0) return 0.0;
    return library_ms / timing.median_ms;
}

std::string printf_string(const char* format, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

namespace {

// Milliseconds with about four significant digits, never in exponent notation.
std::string format_ms(double ms) {
    const char* format = ms >= 100 ? "%.1f" : ms >= 10 ? "%.2f" : ms >= 1 ? "%.3f" : "%.4f";
    return printf_string(format, ms);
}

// A number for a file: full precision, or empty when there is none (0 means none).
std::string file_number(double value, bool present) { return present ? printf_string("%.6g", value) : ""; }

const char* kind_name(RowKind kind) {
    return kind == RowKind::ceiling ? "ceiling" : kind == RowKind::library ? "library" : "kernel";
}

// One cell of a row in the files, shared by the CSV and the JSON writers.
struct Field {
    std::string name;
    std::string text;
    bool numeric;  // a number (empty text: none) rather than a string
};

std::vector<Field> fields(const RunStamp& stamp, const Measurement& row) {
    const bool timed = row.timing.repetitions() > 0;
    const bool has_ceiling = timed && row.ceiling_rate > 0.0;
    const bool has_speedup = row.speedup() > 0.0;
    const bool has_library = row.times_library() > 0.0;
    return {
        {"chapter", stamp.chapter, false},
        {"folder", stamp.folder, false},
        {"tree", stamp.tree, false},
        {"kind", kind_name(row.kind), false},
        {"problem", row.problem, false},
        {"variant", row.variant, false},
        {"median_ms", file_number(row.timing.median_ms, timed), true},
        {"min_ms", file_number(row.timing.min_ms, timed), true},
        {"max_ms", file_number(row.timing.max_ms, timed), true},
        {"q1_ms", file_number(row.timing.q1_ms, timed), true},
        {"q3_ms", file_number(row.timing.q3_ms, timed), true},
        {"repetitions", std::to_string(row.timing.repetitions()), true},
        {"unit", row.unit, false},
        {"rate", file_number(row.rate(), timed), true},
        {"ceiling", row.ceiling, false},
        {"ceiling_rate", file_number(row.ceiling_rate, has_ceiling), true},
        {"percent_of_ceiling", file_number(row.percent_of_ceiling(), has_ceiling), true},
        {"baseline", row.baseline, false},
        {"speedup", file_number(row.speedup(), has_speedup), true},
        {"library", row.library, false},
        {"times_library", file_number(row.times_library(), has_library), true},
        {"is_library", row.is_library ? "1" : "0", true},
        {"check", row.check, false},
        {"note", row.note, false},
        {"gpu", stamp.gpu, false},
        {"compute_capability", stamp.compute_capability, false},
        {"driver", stamp.driver, false},
        {"driver_cuda", stamp.driver_cuda, false},
        {"runtime_cuda", stamp.runtime_cuda, false},
        {"date", stamp.date, false},
        {"peak_fp32_gflops", file_number(stamp.peak_fp32_gflops, stamp.peak_fp32_gflops > 0.0), true},
        {"peak_dram_gbs", file_number(stamp.peak_dram_gbs, stamp.peak_dram_gbs > 0.0), true},
    };
}

std::string csv_quote(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) {
        quoted += c;
        if (c == '"') quoted += '"';
    }
    return quoted + "\"";
}

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
                    out += escaped;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

std::ofstream open_for_writing(const std::string& path) {
    std::ofstream file(path, std::ios::trunc);
    if (!file) {
        throw std::runtime_error("cannot write " + path);
    }
    return file;
}

void finish_writing(std::ofstream& file, const std::string& path) {
    file.close();
    if (!file) {
        throw std::runtime_error("writing " + path + " failed");
    }
}

// Columns padded to their widest cell; text left-aligned, numbers right-aligned.
void print_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& cells,
                   const std::vector<bool>& right_aligned) {
    std::vector<std::size_t> width(right_aligned.size(), 0);
    for (const auto& line : cells) {
        for (std::size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
    }
    for (const auto& line : cells) {
        std::string text = " ";
        for (std::size_t c = 0; c < line.size(); ++c) {
            const std::string padding(width[c] - line[c].size(), ' ');
            text += "  " + (right_aligned[c] ? padding + line[c] : line[c] + padding);
        }
        text.erase(text.find_last_not_of(' ') + 1);
        out << text << "\n";
    }
}

}  // namespace

void relate_rows(std::vector<Measurement>& rows) {
    std::map<std::string, const Measurement*> baselines, libraries;
    for (const Measurement& row : rows) {
        if (row.is_baseline) baselines[row.problem] = &row;
        if (row.is_library) {
            const auto [found, inserted] = libraries.emplace(row.problem, &row);
            if (!inserted) {
                throw std::logic_error("two library rows for \"" + row.problem + "\" (" + found->second->variant +
                                       " and " + row.variant + "): \"x the library\" can be over one only");
            }
        }
    }
    for (Measurement& row : rows) {
        const auto baseline = baselines.find(row.problem);
        if (row.kind != RowKind::ceiling && baseline != baselines.end()) {
            row.baseline = baseline->second->variant;
            row.baseline_ms = baseline->second->ok ? baseline->second->timing.median_ms : 0.0;
        }
        const auto library = libraries.find(row.problem);
        if (library != libraries.end() && library->second != &row) {
            row.library = library->second->variant;
            row.library_ms = library->second->ok ? library->second->timing.median_ms : 0.0;
        }
    }
}

void print_table(std::ostream& out, const RunStamp& stamp, const std::vector<Measurement>& rows) {
    out << "\nchapter" << stamp.chapter << " (" << stamp.folder << ", " << stamp.tree << ") on " << stamp.gpu
        << " (compute capability " << stamp.compute_capability << "), driver " << stamp.driver << " (CUDA "
        << stamp.driver_cuda << "), runtime CUDA " << stamp.runtime_cuda << ", " << stamp.date << "\n";

    std::vector<std::vector<std::string>> cells{
        {"problem", "variant", "median ms", "min..max ms", "runs", "rate", "% of ceiling", "speed-up", "x the library",
         "check"}};
    std::string previous_problem;
    for (const Measurement& row : rows) {
        const bool timed = row.timing.repetitions() > 0;
        const bool ok_timed = timed && row.ok;
        cells.push_back({
            row.problem == previous_problem ? "" : row.problem,
            row.variant,
            timed ? format_ms(row.timing.median_ms) : "-",
            timed ? format_ms(row.timing.min_ms) + ".." + format_ms(row.timing.max_ms) : "-",
            std::to_string(row.timing.repetitions()),
            ok_timed ? printf_string(row.unit == "GB/s" ? "%.1f " : "%.0f ", row.rate()) + row.unit : "-",
            row.kind == RowKind::ceiling ? "(ceiling)"
            : ok_timed && row.ceiling_rate > 0.0 ? printf_string("%.1f%%", row.percent_of_ceiling())
                                                 : "-",
            ok_timed && row.speedup() > 0.0 ? printf_string("%.2fx", row.speedup()) : "-",
            row.is_library ? "(library)"
            : ok_timed && row.times_library() > 0.0 ? printf_string("%.2fx", row.times_library())
                                                    : "-",
            row.check,
        });
        previous_problem = row.problem;
    }
    print_aligned(out, cells, {false, false, true, true, true, true, true, true, true, false});

    out << "Rate: the work of one run over its median time (GFLOP/s count flops; GB/s count bytes read plus "
           "bytes written). Speed-up: over the baseline of the same problem";
    for (const Measurement& row : rows) {
        if (row.is_baseline) {
            out << " (" << row.variant << ")";
            break;
        }
    }
    out << ".";
    for (const Measurement& row : rows) {
        if (row.is_library) {
            out << " x the library: the library row's time over this row's, for the same problem (above 1: faster "
                   "than the library)";
            break;
        }
    }
    out << ".\n";
    for (const Measurement& row : rows) {
        if (!row.note.empty()) {
            out << "  note, " << row.problem << ", " << row.variant << ": " << row.note << "\n";
        }
    }
}

const std::vector<std::string>& csv_columns() {
    static const std::vector<std::string> columns = [] {
        std::vector<std::string> names;
        for (const Field& field : fields(RunStamp{}, Measurement{})) names.push_back(field.name);
        return names;
    }();
    return columns;
}

void write_csv(const std::string& path, const RunStamp& stamp, const std::vector<Measurement>& rows) {
    std::ofstream file = open_for_writing(path);
    const std::vector<std::string>& columns = csv_columns();
    for (std::size_t c = 0; c < columns.size(); ++c) file << (c ? "," : "") << columns[c];
    file << "\n";
    for (const Measurement& row : rows) {
        const std::vector<Field> cells = fields(stamp, row);
        for (std::size_t c = 0; c < cells.size(); ++c) file << (c ? "," : "") << csv_quote(cells[c].text);
        file << "\n";
    }
    finish_writing(file, path);
}

void write_json(const std::string& path, const RunStamp& stamp, const std::vector<Measurement>& rows) {
    std::ofstream file = open_for_writing(path);
    file << "{\n  \"stamp\": {";
    const std::vector<std::pair<const char*, std::string>> stamp_fields{
        {"chapter", stamp.chapter},   {"folder", stamp.folder},
        {"tree", stamp.tree},         {"gpu", stamp.gpu},
        {"compute_capability", stamp.compute_capability},
        {"driver", stamp.driver},     {"driver_cuda", stamp.driver_cuda},
        {"runtime_cuda", stamp.runtime_cuda},
        {"date", stamp.date}};
    for (std::size_t i = 0; i < stamp_fields.size(); ++i) {
        file << (i ? ", " : "") << json_string(stamp_fields[i].first) << ": " << json_string(stamp_fields[i].second);
    }
    file << "},\n  \"rows\": [";
    for (std::size_t r = 0; r < rows.size(); ++r) {
        file << (r ? "," : "") << "\n    {";
        for (const Field& field : fields(stamp, rows[r])) {
            file << json_string(field.name) << ": ";
            if (field.numeric) {
                file << (field.text.empty() ? "null" : field.text);
            } else {
                file << json_string(field.text);
            }
            file << ", ";
        }
        file << "\"samples_ms\": [";
        const std::vector<double>& samples = rows[r].timing.samples_ms;
        for (std::size_t i = 0; i < samples.size(); ++i) file << (i ? ", " : "") << printf_string("%.6g", samples[i]);
        file << "]}";
    }
    file << "\n  ]\n}\n";
    finish_writing(file, path);
}

}  // namespace tutorial::benchmark
