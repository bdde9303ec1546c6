"""What docs/results.md says of this chapter: BARS, GOALS and summary(c), as tools/tutorial/results.py reads them."""

# No published bar: the ceiling is the copy measured in the same run, and the library
# (CUB's HistogramEven) runs in the same run too, as every problem's baseline.
BARS = []

UNIFORM8 = "2^28 bytes, 256 bins, uniform"
PROBLEMS8 = [UNIFORM8, "2^28 bytes, 256 bins, skewed", "2^28 bytes, 256 bins, one value"]
PROBLEMS16 = ["2^27 16-bit, 2^16 bins, uniform", "2^27 16-bit, 2^16 bins, skewed"]
SHARED, CLUSTER = "shared privatized (9b)", "cluster DSMEM (9c)"

# Issue 21's goals on the copy rate: 9b at least 90% for 256 bins, uniform input.
# (what, goal, aim, problem, variants)
GOALS = [("histogram of 2^28 uniform bytes into 256 bins, private histograms (9b)", 90.0, 90.0, UNIFORM8, [SHARED])]


def summary(c):
    share = c.number_of(UNIFORM8, SHARED, "percent_of_ceiling")
    ahead = [c.number_of(p, SHARED, "speedup") for p in PROBLEMS8]
    cluster = [c.number_of(p, CLUSTER, "speedup") for p in PROBLEMS16]
    text = (f"Counting {UNIFORM8}, private histograms in shared memory read at {c.format_percent(share)} of copy "
            f"bandwidth; against CUB's HistogramEven they run " +
            ", ".join(f"{c.format_speedup(s)} as fast ({p.split(', ')[-1]})" for s, p in zip(ahead, PROBLEMS8)))
    if any(s is not None for s in cluster):
        text += ("; into 2^16 bins, the cluster's distributed shared memory runs " +
                 ", ".join(f"{c.format_speedup(s)} as fast as CUB ({p.split(', ')[-1]})" for s, p in zip(cluster, PROBLEMS16)))
    return text + " (goals: 9b 90% of copy and ahead of CUB on every 8-bit input; 9c 5× CUB)."
