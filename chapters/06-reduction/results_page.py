"""What docs/results.md says of this chapter: BARS, GOALS and summary(c), as tools/tutorial/results.py reads them."""

from tools.tutorial.results import format_percent, format_speedup

# No published bar to compare with: the ceiling is the copy measured in the same run.
BARS = []

PROBLEM = "2^28 floats"

# Issue 13's goal: 6c's read rate at least 90% of the copy bandwidth of the same run.
GOALS = [(PROBLEM, "warp", 90.0)]


def summary(c):
    shares = {v: c.number_of(PROBLEM, v, "percent_of_ceiling") for v in ("interleaved", "sequential", "warp")}
    speedups = {v: c.number_of(PROBLEM, v, "speedup") for v in ("sequential", "warp")}
    text = (f"Summing {PROBLEM}, the read rate is {format_percent(shares['interleaved'])} of copy bandwidth "
            f"with interleaved addressing, {format_percent(shares['sequential'])} with sequential addressing "
            f"({format_speedup(speedups['sequential'])} as fast) and {format_percent(shares['warp'])} with float4 "
            f"loads and warp shuffles ({format_speedup(speedups['warp'])})")
    if shares["warp"] is None:
        return text + "."
    met = all(c.number_of(p, v, "percent_of_ceiling") >= at for p, v, at in GOALS)
    return (text + ": adding while loading, with a quarter of the load instructions, is what lets the kernel "
            "ask for memory as fast as it comes; it " + ("meets" if met else "**misses**") + " the goal of 90%.")
