"""What docs/results.md says of this chapter: BARS and summary(c), as tools/tutorial/results.py reads them."""

GEMM_1024 = "1024 x 1024 x 1024"
GEMM_4096 = "4096 x 4096 x 4096"

BARS = [
    ("tiled GEMM, TILE 16, at 4096³", 15.9, GEMM_4096, ["tiled 16"]),
    ("tiled GEMM, TILE 32 with bounds, at 4096³", 17.4, GEMM_4096, ["tiled 32"]),
]


def views_sentence(c):
    """2c, when the file has its rows (benchmarks since 2026-11-23)."""
    if c.row(GEMM_4096, "matrix view 16 (2c)") is None:
        return ""
    return (f" The Programming Guide's version on matrix views (2c) makes the same loads as TILE 16 and "
            f"reaches {c.percent(GEMM_4096, 'matrix view 16 (2c)')} of cuBLAS at 4096³, against "
            f"{c.percent(GEMM_4096, 'tiled 16')} for TILE 16.")


# The roofline (make chapterN roofline, tools/tutorial/roofline.py): the benchmark's problem its
# points are measured on, and which benchmark row is which variant of the profile.
ROOFLINE_PROBLEM = '4096 x 4096 x 4096'
ROOFLINE_VARIANTS = [
    ('16 x 16 tiles in shared memory', 'tiled 16'),
    ('32 x 32 tiles in shared memory', 'tiled 32'),
]

def summary(c):
    return (f"At 4096³, staging tiles in shared memory makes the kernel {c.speedup(GEMM_4096, 'tiled 16')} "
            f"(TILE 16) and {c.speedup(GEMM_4096, 'tiled 32')} (TILE 32) as fast as the naive one, "
            f"{c.percent(GEMM_4096, 'tiled 32')} of cuBLAS: each element loaded is now reused TILE times, and "
            "the remaining gap is the register tiling and wide loads that cuBLAS adds on top." + views_sentence(c))
