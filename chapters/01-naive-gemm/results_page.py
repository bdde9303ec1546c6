"""What docs/results.md says of this chapter: BARS and summary(c), as tools/tutorial/results.py reads them."""

GEMM_1024 = "1024 x 1024 x 1024"
GEMM_4096 = "4096 x 4096 x 4096"
TRIPLE_LOOP = "CPU: triple loop, 1 core"
OPENBLAS_PREFIX = "CPU: OpenBLAS SGEMM"  # bench.cpp adds ", N threads"

BARS = [
    ("naive GEMM at 4096³", 10.2, GEMM_4096, ["naive"]),
]


def ratio(c, slower, faster):
    """How many times faster `faster` ran than `slower` at 1024³, from their median times."""
    slow, fast = c.number_of(GEMM_1024, slower, "median_ms"), c.number_of(GEMM_1024, faster, "median_ms")
    if slow is None or not fast:
        return None
    value = slow / fast
    return f"{value:,.0f}×" if value >= 100 else f"{value:.1f}×"


def cpu_sentence(c):
    """The GPU against the CPU, when the file has the CPU rows (benchmarks since 2026-11-23)."""
    if c.row(GEMM_1024, TRIPLE_LOOP) is None:
        return ""
    blas = next((row["variant"] for row in c.rows
                 if row["problem"] == GEMM_1024 and row["variant"].startswith(OPENBLAS_PREFIX) and row["check"] == "ok"),
                None)
    text = (f" Against the CPU at 1024³, the naive kernel is {ratio(c, TRIPLE_LOOP, 'naive')} as fast as the "
            "triple loop on one core")
    if blas:
        text += (f" and {ratio(c, blas, 'naive')} as fast as OpenBLAS ({blas[len('CPU: '):]}), which is the "
                 f"fair baseline; cuBLAS is {ratio(c, blas, 'cuBLAS SGEMM (FP32)')} as fast as OpenBLAS")
    return text + "."


# The roofline (make chapterN roofline, tools/tutorial/roofline.py): the benchmark's problem its
# points are measured on, and which benchmark row is which variant of the profile.
ROOFLINE_PROBLEM = '4096 x 4096 x 4096'
ROOFLINE_VARIANTS = [
    ('one thread per element of C', 'naive'),
]

def summary(c):
    return (f"The naive kernel reaches {c.percent(GEMM_4096, 'naive')} of cuBLAS FP32 at 4096³ "
            f"({c.percent(GEMM_1024, 'naive')} at 1024³): every multiply-add loads its two operands "
            "from global memory, so the kernel waits on memory traffic, not on arithmetic, and "
            "chapter 2 cuts that traffic by the tile width." + cpu_sentence(c))
