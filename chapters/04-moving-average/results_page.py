"""What docs/results.md says of this chapter: BARS and summary(c), as tools/tutorial/results.py reads them."""

BARS = [
    ("moving average, N=64", 16.7, "64 Mi floats, N=64", ["naive", "read-only", "shared"]),
    ("moving average, N=255", 4.8, "64 Mi floats, N=255", ["naive", "read-only", "shared"]),
]

# The goals of issue 14 for the going-further step 4d: (what, goal, aim, problem, variants).
GOALS = [(f"moving average, N={n}, prefix sums (4d)", 70.0, 85.0, f"64 Mi floats, N={n}", ["prefix sums"])
         for n in (8, 64, 255, 1025)]


def summary(c):
    naive = [c.number_of(f"64 Mi floats, N={n}", "naive", "percent_of_ceiling") for n in (8, 255)]
    shared = [c.number_of(f"64 Mi floats, N={n}", "shared", "percent_of_ceiling") for n in (8, 255)]
    numbers = (f"naive {c.format_percent(naive[0])} at N=8 and {c.format_percent(naive[1])} at N=255, "
               f"shared {c.format_percent(shared[0])} and {c.format_percent(shared[1])}")
    if None not in naive + shared and naive[1] < naive[0] and shared[1] > naive[1]:
        return ("The naive kernel asks global memory for every input N times, and the caches absorb less of "
                "that as the window grows, while the shared-memory kernel loads each block's window once, "
                "about 1 + (N−1)/block reads per input, so it holds up better as N grows "
                f"(share of copy bandwidth: {numbers}).")
    return ("Each variant's share of copy bandwidth as the window grows "
            f"({numbers}) shows how much of the naive kernel's N reads per input the caches absorb, "
            "and what loading each block's window once into shared memory saves.")
