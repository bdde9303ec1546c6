"""What docs/results.md says of this chapter: BARS and summary(c), as tools/tutorial/results.py reads them."""

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
