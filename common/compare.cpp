#include "compare.h"

#include "random.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace tutorial {

namespace {

constexpr long long kMapLimit = 64;  // the most characters a map row or column may have

std::string format_number(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.7g", value);
    return buffer;
}

// "15 rows x 17 columns": said in words, since "8 x 32" reads as x by y to someone who
// launched 32 x 8 blocks, and as rows by columns to someone reading a matrix.
std::string rows_by_cols(long long rows, long long cols) {
    return std::to_string(rows) + (rows == 1 ? " row" : " rows") + " x " + std::to_string(cols) +
           (cols == 1 ? " column" : " columns");
}

// One axis of the map: how many elements each character stands for.
long long cell_size(long long extent, long long tile) {
    if (extent <= kMapLimit) {
        return 1;
    }
    if (tile > 0 && (extent + tile - 1) / tile <= kMapLimit) {
        return tile;
    }
    return (extent + kMapLimit - 1) / kMapLimit;
}

// When only the last one to three outputs of a 1D output are wrong, the sentence that says
// so and names the off-by-one it points to; empty otherwise.
std::string last_outputs_sentence(const ComparisonReport& report, const OutputLayout& layout,
                                  const std::vector<double>& got) {
    const long long cols = layout.cols;
    if (layout.rows != 1 || report.wrong >= report.total || report.wrong > 3) return "";
    const long long first_wrong = cols - report.wrong;
    for (long long c = 0; c < first_wrong; ++c) {
        if (report.wrong_mask[c]) return "";
    }
    const bool nan_poison = std::isnan(layout.poison);
    bool unwritten = true;
    for (long long c = first_wrong; c < cols; ++c) {
        unwritten = unwritten && (nan_poison ? std::isnan(got[c]) : got[c] == layout.poison);
    }
    const std::string which = report.wrong == 1 ? "output (index " + std::to_string(cols - 1) + ") is"
                                                : std::to_string(report.wrong) + " outputs (from index " +
                                                      std::to_string(first_wrong) + ") are";
    return "Only the last " + which + " wrong" +
           (unwritten ? ", still the poison: no thread wrote " + std::string(report.wrong == 1 ? "it" : "them") +
                            ". An off-by-one in which outputs get computed: a bounds check with > where >= belongs "
                            "(or the reverse), or one output too few in the count the kernel is given."
                      : ": look at what the kernel does differently at the end, such as a bounds check or a window "
                        "that reaches past the input.");
}

// Shared tail of both comparisons: the header, the list, the patterns and the map.
void write_report(ComparisonReport& report, const OutputLayout& layout, const std::vector<double>& got,
                  bool exact) {
    if (report.ok()) {
        return;
    }
    std::ostringstream text;
    const double percent = 100.0 * static_cast<double>(report.wrong) / static_cast<double>(report.total);
    text << wrap_report_text(layout.name + " is wrong at " + std::to_string(report.wrong) + " of " +
                     std::to_string(report.total) + " elements (" + format_number(percent) + "%); " + layout.name +
                     " has " + rows_by_cols(layout.rows, layout.cols) + ".",
                 kReportWidth, "", "");

    // A NaN counts as the largest error of all; say NaN rather than the inf it is counted as.
    const bool largest_is_nan = std::isnan(got[report.max_error_row * layout.cols + report.max_error_col]);
    const std::string where = "(" + std::to_string(report.max_error_row) + ", " + std::to_string(report.max_error_col) + ")";
    if (largest_is_nan) {
        text << "Largest error at " << where << ": the value there is NaN.\n";
    } else {
        text << "Largest error " << format_number(report.max_error) << " at " << where << ".\n";
    }
    text << "Seed " << layout.seed << ": run again with SEED=" << layout.seed << " to get the same inputs.\n";
    text << "First wrong elements (row, col):\n";
    for (const Mismatch& m : report.first) {
        std::ostringstream line;
        line << layout.name << "(" << m.row << ", " << m.col << "): expected " << format_number(m.expected) << ", got "
             << format_number(m.got);
        if (!exact) {
            line << " (error " << format_number(std::fabs(m.got - m.expected)) << ", allowed " << format_number(m.allowed)
                 << ")";
        }
        // Wrapped here, at a space, so that no terminal or Catch2 cuts a number in two.
        text << wrap_report_text(line.str(), kReportWidth, "  ", "      ");
    }
    if (report.wrong > static_cast<long long>(report.first.size())) {
        text << "  ... and " << report.wrong - static_cast<long long>(report.first.size()) << " more.\n";
    }
    const std::vector<std::string> patterns = describe_error_pattern(report, layout, got, exact);
    if (!patterns.empty()) {
        text << "What the wrong elements have in common:\n";
        for (const std::string& sentence : patterns) {
            text << wrap_report_text(sentence, kReportWidth, "  - ", "    ");
        }
    }
    text << draw_error_map(report, layout);
    report.text = text.str();
    // The pattern that names its mistake outright: a sweep shows this shape first.
    report.cause = last_outputs_sentence(report, layout, got);

    const bool nan_poison = std::isnan(layout.poison);
    // Every element, not only every wrong one: a byte poison (0, say) may equal the right
    // value of a few elements by chance, and the kernel still wrote nothing.
    const bool all_poison = std::all_of(got.begin(), got.end(), [&](double value) {
        return nan_poison ? std::isnan(value) : value == layout.poison;
    });
    if (all_poison) {
        const std::string causes = "(a step not written yet, a launch or grid that covers none of it, bounds checks "
                                   "that are too strict)";
        report.untouched = "every element of " + layout.name + " holds " +
                           (nan_poison ? std::string("NaN") : format_number(layout.poison)) +
                           ", the poison the test wrote before the run (seed " + std::to_string(layout.seed) + "). " +
                           (nan_poison ? "Either no thread wrote " + layout.name + " " + causes +
                                             ", or all of it was computed from memory nobody wrote."
                                       : "Most likely no thread wrote " + layout.name + " " + causes + ".");
    }
}

// FNV-1a over the values' bits: two runs of a kernel on the same inputs that wrote the
// same output have the same fingerprint.
std::uint64_t fingerprint_of(const std::vector<double>& values) {
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (double value : values) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &value, sizeof bits);
        for (int i = 0; i < 8; ++i) {
            hash = (hash ^ ((bits >> (8 * i)) & 0xFF)) * 0x100000001b3ull;
        }
    }
    return hash;
}

void note_wrong(ComparisonReport& report, long long index, long long cols, double error) {
    report.wrong_mask[index] = true;
    const double size = std::isnan(error) ? INFINITY : error;  // NaN counts as the largest error of all
    if (report.wrong == 0 || size > report.max_error) {
        report.max_error = size;
        report.max_error_row = index / cols;
        report.max_error_col = index % cols;
    }
}

void check_sizes(std::size_t got, std::size_t expected, const OutputLayout& layout) {
    const auto cells = static_cast<std::size_t>(layout.rows * layout.cols);
    if (got != expected || got != cells) {
        throw std::invalid_argument("compare: " + layout.name + " has " + std::to_string(got) +
                                    " elements, the reference " + std::to_string(expected) + ", the layout " +
                                    std::to_string(layout.rows) + " x " + std::to_string(layout.cols));
    }
}

}  // namespace

OutputLayout output_layout(const std::string& name, long long rows, long long cols, long long tile_rows,
                           long long tile_cols) {
    OutputLayout layout;
    layout.name = name;
    layout.rows = rows;
    layout.cols = cols;
    layout.tile_rows = tile_rows;
    layout.tile_cols = tile_cols;
    layout.seed = run_seed();
    return layout;
}

// A word longer than the width gets a line of its own, unbroken.
std::string wrap_report_text(const std::string& text, std::size_t width, const std::string& first,
                             const std::string& rest) {
    std::ostringstream out;
    std::istringstream words(text);
    std::string word, line = first;
    bool line_empty = true;
    while (words >> word) {
        if (!line_empty && line.size() + 1 + word.size() > width) {
            out << line << "\n";
            line = rest;
            line_empty = true;
        }
        line += (line_empty ? "" : " ") + word;
        line_empty = false;
    }
    out << line << "\n";
    return out.str();
}

ComparisonReport compare_with_tolerance(const std::vector<float>& got, const ExpectedOutput& expected,
                                        const OutputLayout& layout) {
    check_sizes(got.size(), expected.value.size(), layout);
    ComparisonReport report;
    report.total = static_cast<long long>(got.size());
    report.wrong_mask.assign(got.size(), false);
    std::vector<double> got_values(got.begin(), got.end());
    for (long long i = 0; i < report.total; ++i) {
        const double error = std::fabs(static_cast<double>(got[i]) - expected.value[i]);
        if (!(error <= expected.tolerance[i])) {  // written this way round so that NaN is wrong
            note_wrong(report, i, layout.cols, error);
            if (++report.wrong <= kMismatchesListed) {
                report.first.push_back(
                    {i / layout.cols, i % layout.cols, expected.value[i], got[i], expected.tolerance[i]});
            }
        }
    }
    report.fingerprint = fingerprint_of(got_values);
    write_report(report, layout, got_values, false);
    return report;
}

ComparisonReport compare_exact(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& expected,
                               const OutputLayout& layout) {
    check_sizes(got.size(), expected.size(), layout);
    ComparisonReport report;
    report.total = static_cast<long long>(got.size());
    report.wrong_mask.assign(got.size(), false);
    std::vector<double> got_values(got.begin(), got.end());
    for (long long i = 0; i < report.total; ++i) {
        if (got[i] != expected[i]) {
            note_wrong(report, i, layout.cols, std::fabs(double(got[i]) - double(expected[i])));
            if (++report.wrong <= kMismatchesListed) {
                report.first.push_back({i / layout.cols, i % layout.cols, double(expected[i]), double(got[i]), 0.0});
            }
        }
    }
    report.fingerprint = fingerprint_of(got_values);
    write_report(report, layout, got_values, true);
    return report;
}

std::vector<std::string> describe_error_pattern(const ComparisonReport& report, const OutputLayout& layout,
                                                const std::vector<double>& got, bool exact) {
    std::vector<std::string> sentences;
    if (report.ok()) {
        return sentences;
    }
    const long long rows = layout.rows, cols = layout.cols;
    // Calls `test(row, col)` for every wrong element; true when it holds for all of them.
    auto every_wrong = [&](auto test) {
        for (long long r = 0; r < rows; ++r) {
            for (long long c = 0; c < cols; ++c) {
                if (report.wrong_mask[r * cols + c] && !test(r, c)) return false;
            }
        }
        return true;
    };
    // A sentence "only the elements in region X are wrong" says something only when the
    // output has elements outside X: otherwise it is true of any bug at all, and sends the
    // student to the wrong place. So every region sentence below asks both questions.
    auto some_element_outside = [&](auto in_region) {
        for (long long r = 0; r < rows; ++r) {
            for (long long c = 0; c < cols; ++c) {
                if (!in_region(r, c)) return true;
            }
        }
        return false;
    };
    auto only_region_wrong = [&](auto in_region) { return some_element_outside(in_region) && every_wrong(in_region); };
    // The patterns below say where the errors are, which means nothing when all are wrong.
    const bool some_right = report.wrong < report.total;

    if (!some_right && report.total > 1) {  // of a single value (a sum), it says nothing
        sentences.push_back("Every element is wrong: check the index arithmetic and that the kernel writes its result.");
    }
    const double poison = layout.poison;
    const bool nan_poison = std::isnan(poison);
    if (every_wrong([&](long long r, long long c) {
            const double value = got[r * cols + c];
            return nan_poison ? std::isnan(value) : value == poison;
        })) {
        if (nan_poison) {
            sentences.push_back("Every wrong element is NaN, like the NaN poison the test wrote before the run. "
                                "Either no thread wrote it (check the grid covers the whole output, the bounds "
                                "checks are not too strict, and the threads' indices cover every element), "
                                "or it was computed from memory nobody wrote, such as shared memory the kernel "
                                "never loaded.");
        } else {
            sentences.push_back("Every wrong element holds " + format_number(poison) +
                                ", the poison the test wrote before the run: most likely no thread wrote it. Check "
                                "the grid covers the whole output, the bounds checks are not too strict, and the "
                                "threads' indices cover every element.");
        }
    }

    // Integers compared exactly, none off by more than 1: every wrong one is off by exactly 1.
    if (exact && report.max_error == 1.0) {
        sentences.push_back("Every wrong element is off by exactly 1: a rounding, such as a division that truncates "
                            "where the result must be rounded to nearest (add half the divisor before dividing), or "
                            "one that rounds where it must truncate.");
    }

    const long long tile_r = layout.tile_rows, tile_c = layout.tile_cols;
    const bool tiled = tile_r > 0 && tile_c > 0;
    const std::string tile_shape = tiled ? rows_by_cols(tile_r, tile_c) : "";

    // Only the first tile right, everything else wrong: one block did all the work there
    // was (a grid of one block, or swapped rows and columns: see below). For an output one element past a tile this is
    // also "only the partial tiles are wrong", which would send the student to bounds
    // checks that may well be right; this sentence says it better.
    auto in_first_tile = [&](long long r, long long c) { return r < tile_r && c < tile_c; };
    bool first_tile_only = false;
    if (tiled && some_right && some_element_outside(in_first_tile)) {
        first_tile_only = true;
        for (long long r = 0; r < rows && first_tile_only; ++r) {
            for (long long c = 0; c < cols; ++c) {
                if (report.wrong_mask[r * cols + c] == in_first_tile(r, c)) {
                    first_tile_only = false;
                    break;
                }
            }
        }
        if (first_tile_only) {
            // Whether the other blocks ran tells the two causes apart: a grid of one block
            // leaves every element outside the first tile holding the poison.
            const bool outside_untouched = every_wrong([&](long long r, long long c) {
                const double value = got[r * cols + c];
                return std::isnan(layout.poison) ? std::isnan(value) : value == layout.poison;
            });
            if (outside_untouched) {
                // Two causes leave this picture: a grid of one block, or (only when the output
                // spans unequal numbers of tiles across and down, so that the grid is not
                // square) rows and columns swapped, which sends every other block's threads
                // past the edge, where the bounds check stops them.
                const bool square_grid = (rows + tile_r - 1) / tile_r == (cols + tile_c - 1) / tile_c;
                std::string sentence = "Only the first tile (" + tile_shape + " at the top left) is right, and every "
                                       "element outside it still holds the poison the test wrote: no thread wrote "
                                       "anything outside the first block's tile";
                if (square_grid) {
                    sentence += ", as if the grid were a single block. Check the launch configuration.";
                } else {
                    sentence += ". Either the grid is a single block (the launch configuration's own test says "
                                "whether it is), or the rows and columns are swapped, which sends the other blocks' "
                                "threads outside " + layout.name + ", where the bounds check stops them: each "
                                "thread's row and column (rows come from blockIdx.y and threadIdx.y, columns from "
                                ".x), or the grid's x and y (x counts the blocks across the columns, y down the "
                                "rows).";
                }
                sentences.push_back(sentence);
            } else {
                sentences.push_back("Only the first tile (" + tile_shape + " at the top left) is right; the other "
                                    "blocks wrote wrong values: where blockIdx is 0 any mix-up of the block's "
                                    "coordinates goes unseen. Check how each thread's row and column come from "
                                    "blockIdx and threadIdx (rows from .y, columns from .x; swapped?).");
            }
        }
    }

    // The last one to three elements of a 1D output and nothing else: an off-by-one in which
    // outputs the kernel computes, whatever the tiles (it fails when the count is a
    // multiple of the tile too), so the partial-tile sentence below would mislead.
    const std::string last_only = last_outputs_sentence(report, layout, got);
    if (!last_only.empty()) sentences.push_back(last_only);

    // Errors confined to the last, partial tile row or column: the classic bounds bug.
    // The output needs at least one full tile, or every element is in a partial one.
    if (tiled && some_right && !first_tile_only && last_only.empty()) {
        const long long full_rows = rows - rows % tile_r;  // first row of the partial tile row
        const long long full_cols = cols - cols % tile_c;
        auto in_partial_tile = [&](long long r, long long c) { return r >= full_rows || c >= full_cols; };
        if (only_region_wrong(in_partial_tile)) {
            // Name the partial tile rows alone when they hold every wrong element, and so on.
            const bool all_in_rows = every_wrong([&](long long r, long long) { return r >= full_rows; });
            const bool all_in_cols = every_wrong([&](long long, long long c) { return c >= full_cols; });
            const bool in_partial_rows = all_in_rows || !all_in_cols;
            const bool in_partial_cols = all_in_cols || !all_in_rows;
            std::ostringstream s;
            s << "Only the last, partial tiles are wrong (";
            if (in_partial_rows) s << "rows " << full_rows << ".." << rows - 1;
            if (in_partial_rows && in_partial_cols) s << " and ";
            if (in_partial_cols) s << "columns " << full_cols << ".." << cols - 1;
            s << "; tiles are " << tile_shape
              << "): the size is not a multiple of the tile and the edge is not handled.";
            sentences.push_back(s.str());
        }
    }

    // Errors confined to a ring of width `border` round the edge: edge handling. An image
    // no larger than two rings is all ring.
    const long long ring = layout.border;
    auto in_ring = [&](long long r, long long c) {
        return r < ring || r >= rows - ring || c < ring || c >= cols - ring;
    };
    if (ring > 0 && some_right && only_region_wrong(in_ring)) {
        sentences.push_back("Only elements within " + std::to_string(ring) +
                            " of the image border are wrong: the clamping at the edges is off.");
    }

    // Errors within `border` of the edges of the tiles, some of them away from the image
    // border: a stencil's halo, which neighbouring tiles share, is loaded wrong. When a
    // tile is no wider than two radii every element is near a tile edge and this says nothing.
    if (ring > 0 && tile_r > 2 * ring && tile_c > 2 * ring && some_right) {
        auto near_tile_edge = [&](long long r, long long c) {
            return r % tile_r < ring || r % tile_r >= tile_r - ring || c % tile_c < ring || c % tile_c >= tile_c - ring;
        };
        const bool on_seams =
            only_region_wrong([&](long long r, long long c) { return near_tile_edge(r, c) || in_ring(r, c); });
        if (on_seams && !every_wrong(in_ring)) {
            sentences.push_back("Only elements within " + std::to_string(ring) + " of the edge of a tile (" +
                                tile_shape +
                                ") are wrong, along the seams between tiles: those are the outputs whose "
                                "neighbourhood reaches into the halo, so the halo is not loaded (or not clamped) "
                                "right, or is read before the threads that load it have stored it (a missing "
                                "__syncthreads() between loading the tile and reading it).");
        }
    }

    // A 1D window of N over blocks of B: output t of a block reads elements t .. t + N − 1
    // of the block's window, and the last N − 1 outputs are the ones that reach past the
    // block's own B elements into the halo. Only for kernels that load a halo: the layout
    // leaves `halo` at 0 for one that reads global memory directly.
    const long long halo = layout.halo;
    if (rows == 1 && tile_c > 0 && halo > 0 && halo < tile_c && some_right) {
        auto reads_halo = [&](long long c) { return c % tile_c >= tile_c - halo; };
        if (only_region_wrong([&](long long, long long c) { return reads_halo(c); })) {
            long long halo_outputs = 0;
            for (long long c = 0; c < cols; ++c) halo_outputs += reads_halo(c) ? 1 : 0;
            const std::string last = "the last N-1 = " + std::to_string(halo) + " outputs of ";
            const std::string block = "block of " + std::to_string(tile_c);
            if (halo_outputs == report.wrong) {
                sentences.push_back("The wrong outputs are exactly " + last + "each " + block +
                                    ": their windows reach past the block's own " + std::to_string(tile_c) +
                                    " inputs into the N-1 halo elements after it. Either the halo was not loaded, "
                                    "or it was read before the threads that load it had stored it (a missing "
                                    "__syncthreads() between the loads and the sums).");
            } else {
                sentences.push_back("Every wrong output is among " + last + "its " + block +
                                    ", whose windows reach into the halo past the block's own inputs: the halo "
                                    "was not loaded completely, or parts of it were read before they were stored "
                                    "(a missing __syncthreads() between the loads and the sums).");
            }
        }
    }
    return sentences;
}

std::string draw_error_map(const ComparisonReport& report, const OutputLayout& layout) {
    const long long rows = layout.rows, cols = layout.cols;
    const long long cell_r = cell_size(rows, layout.tile_rows);
    const long long cell_c = cell_size(cols, layout.tile_cols);
    const bool per_element = cell_r == 1 && cell_c == 1;
    if (report.total == 1) return "";  // one value (a sum): its line above says it all
    if (report.wrong == report.total) {
        // A map of nothing but X says no more than this line, in up to 70 lines fewer.
        return wrap_report_text("Map of " + layout.name + " (" + rows_by_cols(rows, cols) +
                                    "): not drawn, since every element is wrong.",
                                kReportWidth, "", "    ");
    }
    std::ostringstream caption;
    caption << "Map of " << layout.name << " (" << rows_by_cols(rows, cols) << "): ";
    if (per_element) {
        caption << "one character per element, '.' right, 'X' wrong";
        if (layout.tile_rows > 0 && layout.tile_cols > 0) {
            caption << ", gaps between tiles of " << rows_by_cols(layout.tile_rows, layout.tile_cols);
        }
    } else {
        caption << "one character per " << rows_by_cols(cell_r, cell_c)
                << " of elements, '.' all right, 'x' some wrong, 'X' all wrong";
    }
    std::ostringstream map;
    map << wrap_report_text(caption.str() + ".", kReportWidth, "", "    ");
    // Gaps between tiles only where a character is one element; in a coarse map each
    // character already is a tile or a block.
    const long long gap_r = per_element ? layout.tile_rows : 0;
    const long long gap_c = per_element ? layout.tile_cols : 0;
    for (long long r0 = 0; r0 < rows; r0 += cell_r) {
        if (gap_r > 0 && r0 > 0 && r0 % gap_r == 0) {
            // A line of dashes, not an empty one: Catch2 drops the indent of the line that
            // follows an empty line in a message.
            map << "  ";
            for (long long c0 = 0; c0 < cols; c0 += cell_c) {
                if (gap_c > 0 && c0 > 0 && c0 % gap_c == 0) map << ' ';
                map << '-';
            }
            map << "\n";
        }
        map << "  ";
        for (long long c0 = 0; c0 < cols; c0 += cell_c) {
            if (gap_c > 0 && c0 > 0 && c0 % gap_c == 0) map << ' ';
            long long wrong = 0, count = 0;
            for (long long r = r0; r < std::min(rows, r0 + cell_r); ++r) {
                for (long long c = c0; c < std::min(cols, c0 + cell_c); ++c) {
                    wrong += report.wrong_mask[r * cols + c] ? 1 : 0;
                    ++count;
                }
            }
            map << (wrong == 0 ? '.' : wrong == count ? 'X' : 'x');
        }
        map << "\n";
    }
    return map.str();
}

}  // namespace tutorial
