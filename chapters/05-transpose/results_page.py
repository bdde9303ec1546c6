"""What docs/results.md says of this chapter: BARS, GOALS and summary(c), as tools/tutorial/results.py reads them."""

# No published bar to compare with: the ceiling is the copy measured in the same run.
BARS = []

SQUARE = "8192 x 8192"
AWKWARD = "8191 x 8193"

# Issue 13's goals, as shares of the device-to-device copy bandwidth of the same run:
# (what, goal, aim, problem, variants). The awkward shape's goal is relative: within
# AWKWARD_WITHIN points of the square.
GOALS = [("transpose 8192², padded tile (5c)", 90.0, 90.0, SQUARE, ["padded"])]
AWKWARD_WITHIN = 5.0


def summary(c):
    shares = {v: c.number_of(SQUARE, v, "percent_of_ceiling") for v in ("naive", "shared", "padded")}
    awkward = c.number_of(AWKWARD, "padded", "percent_of_ceiling")
    text = (f"At {SQUARE} the naive transpose reaches {c.format_percent(shares['naive'])} of copy "
            f"bandwidth, the shared tile {c.format_percent(shares['shared'])} and the padded tile "
            f"{c.format_percent(shares['padded'])} ({c.format_percent(awkward)} at {AWKWARD})")
    if None in shares.values() or awkward is None:
        return text + "."
    square_goal = all((c.number_of(p, v, "percent_of_ceiling") or 0) >= at for _, at, _, p, vs in GOALS for v in vs)
    awkward_goal = awkward >= shares["padded"] - AWKWARD_WITHIN
    verdict = ("meets both goals" if square_goal and awkward_goal else
               "meets the goal of 90% at the square but **misses** the awkward shape's, within 5 points of it"
               if square_goal else "**misses** the goal of 90% at the square")
    return (text + f": the tile that coalesces the writes gains {shares['shared'] - shares['naive']:.1f} points, "
            f"removing its bank conflicts {shares['padded'] - shares['shared']:.1f} more; the padded kernel "
            + verdict + ".")
