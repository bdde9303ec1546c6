"""What docs/results.md says of this chapter: BARS and summary(c), as tools/tutorial/results.py reads them."""

BARS = [
    ("box mean 3×3, 8000×8000", 9.7, "8000 x 8000, R=1", ["global", "shared"]),
    ("box mean 5×5, 8000×8000", 8.4, "8000 x 8000, R=2", ["global", "shared"]),
]

# The goals of issue 14 for the going-further step 3c: (what, goal, aim, problem, variants).
GOALS = [
    ("box mean 3×3, 8000×8000, coarsened (3c)", 70.0, 85.0, "8000 x 8000, R=1", ["coarsened"]),
    ("box mean 5×5, 8000×8000, coarsened (3c)", 70.0, 85.0, "8000 x 8000, R=2", ["coarsened"]),
]


def summary(c):
    gain_3 = c.number_of("8000 x 8000, R=1", "shared", "speedup")
    gain_5 = c.number_of("8000 x 8000, R=2", "shared", "speedup")
    numbers = (f"The shared-memory tile is {c.format_speedup(gain_3)} as fast as global memory at 3×3 "
               f"and {c.format_speedup(gain_5)} at 5×5")
    if gain_3 is not None and gain_5 is not None and gain_5 > gain_3:
        return (numbers + ": at 3×3 the L1 cache already serves most of the 9 repeated reads, so the halo "
                "tile has little to save, while at 5×5 each pixel is read 25 times and staging it once pays more.")
    return (numbers + ": with a good L1 cache, repeated reads of neighbours are cheap even from global "
            "memory, so a halo tile pays only when the neighbourhood is large enough.")
