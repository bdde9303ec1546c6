"""What docs/results.md says of this chapter: BARS and summary(c), as tools/tutorial/results.py reads them."""

GEMM_4096 = "4096 x 4096 x 4096"

BARS = []

# The goals of issue 20: (what, goal, aim, problem, variants), as shares of cuBLAS FP32.
GOALS = []

STEPS = ["8a two stages, __pipeline_memcpy_async", "8b cuda::pipeline, 1 stage", "8b cuda::pipeline, 2 stages",
         "8b cuda::pipeline, 3 stages", "8b cuda::pipeline, 4 stages", "8c Tensor Memory Accelerator, 2 stages"]


def summary(c):
    shares = ", ".join(f"{step} {c.percent(GEMM_4096, step)}" for step in STEPS if c.row(GEMM_4096, step) is not None)
    return (f"At 4096³ the asynchronous steps reach {shares} of cuBLAS FP32, against "
            f"{c.percent(GEMM_4096, 'tiled 32 (chapter 2 solution)')} for chapter 2's synchronous tiles of the same "
            "size: the copies overlap with the products, but each multiply-add still reads two floats from shared "
            "memory, which chapter 7's register tiling cuts.")
