"""What docs/results.md says of this chapter: BARS, GOALS and summary(c), as tools/tutorial/results.py reads them."""

# No published bar to compare with: the ceiling is the copy measured in the same run.
BARS = []

PROBLEM = "2^28 floats"

# Issue 13's goal: 6c's read rate at least 90% of the copy bandwidth of the same run.
# (what, goal, aim, problem, variants)
GOALS = [("reduction of 2^28 floats, float4 + warp shuffles (6c)", 90.0, 90.0, PROBLEM, ["warp"])]


def summary(c):
    shares = {v: c.number_of(PROBLEM, v, "percent_of_ceiling") for v in ("interleaved", "sequential", "warp")}
    speedups = {v: c.number_of(PROBLEM, v, "speedup") for v in ("sequential", "warp")}
    text = (f"Summing {PROBLEM}, the read rate is {c.format_percent(shares['interleaved'])} of copy bandwidth "
            f"with interleaved addressing, {c.format_percent(shares['sequential'])} with sequential addressing "
            f"({c.format_speedup(speedups['sequential'])} as fast) and {c.format_percent(shares['warp'])} with float4 "
            f"loads and warp shuffles ({c.format_speedup(speedups['warp'])})")
    if shares["warp"] is None:
        return text + "."
    met = all((c.number_of(p, v, "percent_of_ceiling") or 0) >= at for _, at, _, p, vs in GOALS for v in vs)
    return (text + ": adding while loading, with a quarter of the load instructions, is what lets the kernel "
            "ask for memory as fast as it comes; it " + ("meets" if met else "**misses**") + " the goal of 90%.")
