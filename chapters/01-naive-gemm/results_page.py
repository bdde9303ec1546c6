"""What the results page (docs/results.md, `make results`) says about this chapter.

BARS: (what, the seed kernel's share of the ceiling in percent, problem, variants), the
bars the reference solution must reach. summary(c): the sentence the numbers teach,
from c.percent(problem, variant), c.speedup(...) and c.number_of(problem, variant, column).
The problem and variant names are the ones bench.cpp writes.
"""

GEMM_1024 = "1024 x 1024 x 1024"
GEMM_4096 = "4096 x 4096 x 4096"

BARS = [
    ("naive GEMM at 4096³", 10.2, GEMM_4096, ["naive"]),
]


def summary(c):
    return (f"The naive kernel reaches {c.percent(GEMM_4096, 'naive')} of cuBLAS FP32 at 4096³ "
            f"({c.percent(GEMM_1024, 'naive')} at 1024³): every multiply-add loads its two operands "
            "from global memory, so the kernel waits on memory traffic, not on arithmetic, and "
            "chapter 2 cuts that traffic by the tile width.")
