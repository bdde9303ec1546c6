#include "histogram_reference.h"

#include "validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tutorial {

void require_histogram_arguments(const char* function, const void* input, std::size_t n, const unsigned int* bins,
                                 int num_bins, long long most_bins) {
    require_in_range(function, "num_bins", num_bins, 1, most_bins);
    if (n > 0) {
        require_not_null(function, "input", input);
    }
    require_not_null(function, "bins", bins);
}

namespace {

template <class Sample>
std::vector<unsigned int> count_samples(const std::vector<Sample>& samples, int num_bins) {
    if (num_bins < 1) {
        throw std::invalid_argument("histogram_reference: num_bins must be at least 1, got " + std::to_string(num_bins));
    }
    std::vector<unsigned int> bins(static_cast<std::size_t>(num_bins), 0u);
    for (Sample s : samples) {
        if (s < num_bins) {
            ++bins[s];
        }
    }
    return bins;
}

using Bins = std::vector<unsigned int>;

long long total_of(const Bins& bins) {
    long long total = 0;
    for (unsigned int b : bins) total += b;
    return total;
}

// True when got − expected equals sign · part in every bin (modulo 2^32, as the bins are).
bool differs_by(const Bins& got, const Bins& expected, const Bins& part, int sign) {
    for (std::size_t b = 0; b < got.size(); ++b) {
        if (got[b] - expected[b] != static_cast<unsigned int>(sign) * part[b]) return false;
    }
    return true;
}

std::string plural(long long count, const char* noun) {
    return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// The first count of k in 1..limit such that the first (or last) k samples explain the
// difference, counted `sign` times too often (−1: never counted, +1: counted twice); 0 if none.
std::size_t explaining_run(const Bins& got, const Bins& expected, const HistogramContext& c, bool at_start, int sign,
                           std::size_t limit) {
    const std::size_t n = c.samples.size();
    Bins part(got.size(), 0u);
    for (std::size_t k = 1; k <= std::min(limit, n); ++k) {
        const unsigned int value = c.samples[at_start ? k - 1 : n - k];
        if (value < static_cast<unsigned int>(c.num_bins)) ++part[value];
        if (differs_by(got, expected, part, sign)) return k;
    }
    return 0;
}

// When every wrong bin holds nothing, the wrong bins are bins lo..hi, every bin between them
// that samples fall in is wrong, and the range is a cluster's slices or starts at the first or
// ends at the last bin, and at least 2 samples are missing (`lost`): the sentence that says so
// and what leaves out such a range (the check of a value against num_bins, or a slice never
// merged); empty otherwise.
std::string whole_bins_lost(const Bins& got, const Bins& expected, const HistogramContext& c, long long lost) {
    std::size_t lo = got.size(), hi = 0;
    for (std::size_t b = 0; b < got.size(); ++b) {
        if (got[b] == expected[b]) continue;
        if (got[b] != 0) return "";
        lo = std::min(lo, b);
        hi = b;
    }
    if (lo > hi || lost < 2) return "";  // one sample lost says nothing of a range of values
    for (std::size_t b = lo; b <= hi; ++b) {
        if (expected[b] > 0 && got[b] != 0) return "";
    }
    // The range widened over the bins next to it that no sample falls in: they could be
    // missing too, and nothing shows it.
    std::size_t from = lo, to = hi;
    while (from > 0 && expected[from - 1] == 0) --from;
    while (to + 1 < got.size() && expected[to + 1] == 0) ++to;
    const std::size_t last = got.size() - 1, slice = static_cast<std::size_t>(std::max(c.slice, 0));
    std::string text = "Every count of " + (lo == hi ? "bin " + std::to_string(lo) : "bins " + std::to_string(lo) + " to " + std::to_string(hi)) +
                       (lo == hi && hi == last ? ", the last bin," : hi == last ? ", the last ones," : "") + " is missing (" +
                       plural(lost, "sample") + "), and every other bin is right: ";
    // Whole slices: the range can start and end on slice boundaries within the widened range.
    const std::size_t slice_start = slice > 0 ? lo / slice * slice : 0;
    const std::size_t slice_end = slice > 0 ? std::min((hi / slice + 1) * slice - 1, last) : 0;
    if (slice > 0 && slice_start >= from && slice_end <= to) {
        const std::size_t first_rank = slice_start / slice, last_rank = slice_end / slice;
        text += (first_rank == last_rank ? "the slice of block rank " + std::to_string(first_rank)
                                         : "the slices of block ranks " + std::to_string(first_rank) + " to " + std::to_string(last_rank)) +
                ", whose counts never reached the global bins. A block merges its own slice, from bin rank * slice on, "
                "with its rank in the cluster, cluster.block_rank() (blockIdx.x numbers the blocks of the whole grid)" +
                (slice_end == last ? "; or the samples of the highest values were not counted (the check of a value against "
                              "num_bins keeps every value below it)."
                            : ".");
    } else if (to == last) {
        text += "the samples of the highest values, " + std::to_string(lo) + " and up, were not counted. The check of a "
                "sample's value against num_bins must keep every value below num_bins (value < num_bins).";
    } else if (from == 0) {
        text += (hi == 0 ? std::string("the samples of value 0") : "the samples of the lowest values, 0 to " + std::to_string(hi) + ",") +
                " were not counted: look at the check of a sample's value before it is counted.";
    } else {
        return "";  // a range in the middle: nothing in the kernels singles it out
    }
    return text;
}

// What the wrong bins share, as sentences; empty when nothing stands out. `cause` gets the
// sentence that names the mistake where the bins single one out (a range of whole bins lost):
// a sweep then shows that shape before one whose report only lists what could lose counts.
std::vector<std::string> diagnose(const Bins& got, const Bins& expected, const HistogramContext& c, std::string& cause) {
    std::vector<std::string> said;
    const long long n = static_cast<long long>(c.samples.size());
    const long long counted = total_of(expected), got_total = total_of(got);
    const std::size_t bins = got.size();

    if (got_total == 0 && counted > 0 && c.one_sample_per_thread) {
        said.push_back("None of the " + plural(n, "sample") + " was counted: no atomicAdd reached the bins. Each "
                       "thread counts the one sample at its index, blockIdx.x * blockDim.x + threadIdx.x: look at that "
                       "index, its check against n, the check of the sample's value against num_bins, and the "
                       "atomicAdd on bins[value].");
        return said;
    }
    if (got_total == 0 && counted > 0 && n <= 32) {
        said.push_back("None of the " + plural(n, "sample") + " was counted. An input this short is all head and "
                       "tail, one sample at a time, with at most one whole 16-byte vector between them: look there "
                       "first, then at the merge.");
        return said;
    }
    if (got_total == 0 && counted > 0) {
        said.push_back("Every bin is 0: no count reached the bins. The kernel counted into nothing, or into a "
                       "private histogram that it never added to the global bins (the merge).");
        return said;
    }
    for (unsigned int width : {16u, 8u}) {
        const unsigned int mask = (1u << width) - 1u;
        bool wraps = true;
        for (std::size_t b = 0; b < bins && wraps; ++b) {
            wraps = got[b] == expected[b] || (got[b] == (expected[b] & mask) && expected[b] > mask) ||
                    ((got[b] & mask) == (expected[b] & mask) && got[b] < expected[b]);
        }
        if (wraps) {
            said.push_back("Every wrong bin is short by a multiple of 2^" + std::to_string(width) + " = " +
                           std::to_string(mask + 1u) + " and right modulo it: counts wrapped around in a " +
                           std::to_string(width) + "-bit counter. A count can reach n = " + std::to_string(n) +
                           ": a bin, private or global, needs 32 bits.");
            return said;
        }
    }
    // The same error in every bin, even those no sample falls in.
    bool constant = bins > 1;
    for (std::size_t b = 1; b < bins && constant; ++b) constant = got[b] - expected[b] == got[0] - expected[0];
    if (constant) {
        const long long offset = static_cast<int>(got[0] - expected[0]);
        said.push_back("Every bin, even one no sample falls in, is off by the same " + std::to_string(offset) +
                       ": something other than the samples was added to each bin, such as what a private histogram "
                       "held before it was zeroed (the CPU backend fills fresh shared memory with 0xFF bytes, "
                       "so each block adds 0xFFFFFFFF, that is -1, to every bin).");
        return said;
    }
    for (std::size_t b = 0; b < bins; ++b) {
        if (static_cast<long long>(got[b]) > n) {
            said.push_back("Bin " + std::to_string(b) + " holds " + std::to_string(got[b]) + ", more than the " +
                           plural(n, "sample") + " there are: it was not only counted into. A private histogram "
                           "not zeroed first adds what its memory held before.");
            return said;
        }
    }
    if (got_total == counted) {
        if (c.slice > 0) {
            // Counts at the right offset of some block's slice, but of the wrong block.
            bool folded = true;
            for (int offset = 0; offset < c.slice && folded; ++offset) {
                long long got_sum = 0, expected_sum = 0;
                for (std::size_t b = static_cast<std::size_t>(offset); b < bins; b += static_cast<std::size_t>(c.slice)) {
                    got_sum += got[b];
                    expected_sum += expected[b];
                }
                folded = got_sum == expected_sum;
            }
            if (folded) {
                said.push_back("Every sample was counted once, at the right offset within a slice of " +
                               std::to_string(c.slice) + " bins, but in the wrong block's slice: the owner of bin v is "
                               "block rank v / slice, and cluster.map_shared_rank() must be given that rank.");
                return said;
            }
        }
        Bins sorted_got = got, sorted_expected = expected;
        std::sort(sorted_got.begin(), sorted_got.end());
        std::sort(sorted_expected.begin(), sorted_expected.end());
        said.push_back(sorted_got == sorted_expected
                           ? "Every count is right but in the wrong bin: the counts are those of the reference, "
                             "moved. Sample value v must be counted in bin v (in 9c: block rank v / slice, "
                             "offset v % slice)."
                           : "Every sample was counted once, but some in the wrong bin: the total is right, the "
                             "bins are not. Check how a sample's value becomes its bin.");
        return said;
    }
    const int sign = got_total < counted ? -1 : 1;
    // A run of first or last samples that explains the difference is the head or the tail
    // only when it is as long as they are (when the test said how long): a sample lost at
    // random is often one of the last few too.
    std::size_t first_k = explaining_run(got, expected, c, true, sign, 64);
    std::size_t last_k = explaining_run(got, expected, c, false, sign, 64);
    if (c.vectors_known && (c.head == 0 || first_k != c.head)) first_k = 0;
    if (c.vectors_known && (c.tail == 0 || last_k != c.tail)) last_k = 0;
    if (first_k > 0 && last_k > 0) {
        said.push_back("Exactly the first " + plural(static_cast<long long>(first_k), "sample") + ", or equally the last " +
                       plural(static_cast<long long>(last_k), "sample") +
                       (sign < 0 ? ", were not counted" : ", were counted twice") +
                       ": the head (before the first 16-byte boundary) or the tail (after the last whole vector), "
                       "which the vector loop does not reach.");
        return said;
    }
    for (bool at_start : {true, false}) {
        const std::size_t k = at_start ? first_k : last_k;
        if (k > 0) {
            said.push_back(std::string("Exactly the ") + (at_start ? "first " : "last ") + plural(static_cast<long long>(k), "sample") +
                           (sign < 0 ? " were not counted" : " were counted twice") +
                           (at_start ? ": the head, before the first 16-byte boundary, which the vector loop does not "
                                       "reach."
                                     : ": the tail, after the last whole 16-byte vector, which the vector loop does "
                                       "not reach."));
            return said;
        }
    }
    if (sign > 0) {
        // Counting a sample twice (or more) adds only to bins that samples fall in; a count in
        // a bin that none falls in came from somewhere else. (Values past the last bin are
        // counted into it by one mistake of their own, told apart below.)
        long long past_bins = 0;
        if (c.num_bins > 0) {
            for (unsigned int s : c.samples) past_bins += s >= static_cast<unsigned int>(c.num_bins);
        }
        for (std::size_t b = 0; b < bins; ++b) {
            const bool last_takes_the_rest = b + 1 == bins && past_bins > 0;
            if (expected[b] == 0 && got[b] > 0 && !last_takes_the_rest) {
                // 9a (a thread per sample, global bins the host zeroes) has no private histogram.
                said.push_back(plural(got_total - counted, "count") + " too many, and not from counting samples "
                               "twice: bin " + std::to_string(b) + ", which no sample falls in, holds " +
                               std::to_string(got[b]) + ". Something other than the samples was counted: " +
                               (c.one_sample_per_thread
                                    ? std::string("samples read past the end of the input (a thread past the last "
                                                  "sample that does not stop: the check of its index against n).")
                                    : std::string("what a bin's memory held before (a private histogram not zeroed "
                                                  "first; on a GPU, often counts an earlier block left there, and then "
                                                  "the result changes from run to run), or samples read past the end "
                                                  "of the input (a loop whose count runs past n).")));
                return said;
            }
        }
        said.push_back(plural(got_total - counted, "count") + " too many: " +
                       (c.one_sample_per_thread
                            ? std::string("either some samples were counted more than once (each thread counts "
                                          "the one sample at its index, blockIdx.x * blockDim.x + threadIdx.x; an "
                                          "index that two threads share, threadIdx.x alone say, counts a sample "
                                          "twice), or a thread past the last sample did not stop (the check of its "
                                          "index against n) and counted what lies past the end of the input.")
                            : std::string("either some samples were counted more than once (a grid-stride loop's "
                                          "step is the whole grid, gridDim.x * blockDim.x; a smaller one, or a start "
                                          "that is not this thread's own, counts samples twice), or a bin started "
                                          "from what its shared memory held before (a private histogram not zeroed "
                                          "first: on a GPU, often counts an earlier block left there, and then the "
                                          "result changes from run to run), or samples were read past the end of the "
                                          "input (a loop whose count runs past n).")));
        if (past_bins > 0 && got[bins - 1] - expected[bins - 1] == static_cast<unsigned int>(past_bins)) {
            said.back() = "The last bin holds the " + plural(past_bins, "sample") + " whose value is num_bins or more, "
                          "as well as its own: a value past the last bin is not counted anywhere.";
        }
        return said;
    }
    // Counts lost. Whole bins lost, and every other bin right: the samples of a range of
    // values were left out, which points at the test of a sample's value, or in a cluster at a
    // slice that was never merged.
    if (const std::string range = whole_bins_lost(got, expected, c, counted - got_total); !range.empty()) {
        said.push_back(range);
        cause = range;
        return said;
    }
    std::size_t worst = 0;
    for (std::size_t b = 0; b < bins; ++b) {
        if (expected[b] - got[b] > expected[worst] - got[worst] || got[worst] >= expected[worst]) worst = b;
    }
    std::size_t busier = 0;  // bins with more samples than the worst one
    for (std::size_t b = 0; b < bins; ++b) busier += expected[b] > expected[worst];
    std::ostringstream text;
    text << plural(counted - got_total, "count") << " of " << counted << (counted - got_total == 1 ? " is" : " are") << " missing. The bin that lost most, bin "
         << worst << ", lost " << (expected[worst] - got[worst]) << " of its " << expected[worst] << ", and "
         << (busier == 0 ? "no bin has more samples"
                         : "it is not the busiest bin (" + std::to_string(busier) + " have more samples)")
         << ". "
         << (c.one_sample_per_thread
                 // 9a: one sample a thread, atomics on the global bins: no barrier, no merge.
                 ? "Counts are lost when two threads add to one bin at once without atomicAdd, or when a sample is "
                   "left out: a thread whose index is below n that does not count (the check of its index against "
                   "n), or a value below num_bins that the check of the value drops."
                 : "Counts are lost when two threads add to one bin at once without atomicAdd, when a count is read "
                   "(merged) before every thread of the block has added to it, or when a thread counts into a bin "
                   "another thread has yet to zero: a barrier is missing between the two.")
         << (c.slice > 0 ? " In a cluster, counts are lost too when a block exits while other blocks still add into "
                           "its slice (a cluster.sync() is missing before the merge), or when a block merges a slice "
                           "other than its own: block rank r's slice starts at bin r * slice, and r is "
                           "cluster.block_rank(), not blockIdx.x, which numbers the blocks of the whole grid."
                         : "");
    said.push_back(text.str());
    return said;
}

std::uint64_t fingerprint_of(const Bins& bins) {
    std::uint64_t hash = 14695981039346656037ull;  // FNV-1a
    for (unsigned int b : bins) {
        for (int byte = 0; byte < 4; ++byte) {
            hash = (hash ^ ((b >> (8 * byte)) & 0xFFu)) * 1099511628211ull;
        }
    }
    return hash;
}

}  // namespace

std::vector<unsigned int> histogram_reference(const std::vector<std::uint8_t>& samples, int num_bins) {
    return count_samples(samples, num_bins);
}

std::vector<unsigned int> histogram_reference(const std::vector<std::uint16_t>& samples, int num_bins) {
    return count_samples(samples, num_bins);
}

ComparisonReport compare_bins(const std::vector<unsigned int>& got, const std::vector<unsigned int>& expected,
                              const HistogramContext& context) {
    if (got.size() != expected.size()) {
        throw std::invalid_argument("compare_bins: " + std::to_string(got.size()) + " bins got, " +
                                    std::to_string(expected.size()) + " expected");
    }
    ComparisonReport report;
    report.total = static_cast<long long>(got.size());
    report.fingerprint = fingerprint_of(got);
    report.wrong_mask.assign(got.size(), false);
    for (std::size_t b = 0; b < got.size(); ++b) {
        if (got[b] == expected[b]) continue;
        report.wrong_mask[b] = true;
        ++report.wrong;
        const double error = static_cast<double>(got[b]) - static_cast<double>(expected[b]);
        if (report.first.size() < static_cast<std::size_t>(kMismatchesListed)) {
            report.first.push_back({0, static_cast<long long>(b), static_cast<double>(expected[b]),
                                    static_cast<double>(got[b]), 0.0});
        }
        if (std::abs(error) > report.max_error) {
            report.max_error = std::abs(error);
            report.max_error_col = static_cast<long long>(b);
        }
    }
    if (report.ok()) {
        return report;
    }
    const bool poison_only = std::all_of(got.begin(), got.end(), [](unsigned int b) { return b == 0xFFFFFFFFu; });
    std::ostringstream text;
    text << report.wrong << " of " << report.total << " bins are wrong (n = "
         << plural(static_cast<long long>(context.samples.size()), "sample") << ", " << total_of(expected) << " of them below num_bins = " << context.num_bins
         << "; the bins add up to " << total_of(got) << "). Inputs from seed " << context.seed << ".\n";
    if (poison_only) {
        report.untouched = "Every bin holds 0xFFFFFFFF, the poison the test wrote before the run: nothing wrote the "
                           "bins, not even the host code that zeroes them.";
        text << wrap_report_text(report.untouched);
    } else {
        text << "  bin        expected          got   difference\n";
        for (const Mismatch& m : report.first) {
            char line[96];
            std::snprintf(line, sizeof line, "  %-8lld %10.0f %12.0f %+12.0f\n", m.col, m.expected, m.got,
                          m.got - m.expected);
            text << line;
        }
        if (report.wrong > static_cast<long long>(report.first.size())) {
            text << "  ... and " << (report.wrong - static_cast<long long>(report.first.size())) << " more\n";
        }
        for (const std::string& sentence : diagnose(got, expected, context, report.cause)) {
            text << wrap_report_text(sentence);
        }
    }
    report.text = text.str();
    return report;
}

}  // namespace tutorial
