"""What docs/results.md says of this chapter: BARS and summary(c), as tools/tutorial/results.py reads them."""

GEMM_4096 = "4096 x 4096 x 4096"

BARS = []

# The goals of issue 14: (what, goal, aim, problem, variants), as shares of cuBLAS FP32.
GOALS = [
    ("register-tiled GEMM at 4096³", 80.0, 90.0, GEMM_4096, ["7c float4, A transposed", "7d warp tiles"]),
]


# The roofline (make chapterN roofline, tools/tutorial/roofline.py): the benchmark's problem its
# points are measured on, and which benchmark row is which variant of the profile.
ROOFLINE_PROBLEM = '4096 x 4096 x 4096'
ROOFLINE_VARIANTS = [
    ('7a: a column of outputs per thread', '7a 1D register tiling'),
    ('7b: a block of outputs per thread', '7b 2D register tiling'),
    ('7c: float4 loads, A stored transposed', '7c float4, A transposed'),
    ('7d: warp tiles', '7d warp tiles'),
]

def summary(c):
    steps = ["7a 1D register tiling", "7b 2D register tiling", "7c float4, A transposed",
             "7d warp tiles"]
    shares = ", ".join(f"{step.split()[0]} {c.percent(GEMM_4096, step)}" for step in steps)
    return (f"At 4096³ the four steps reach {shares} of cuBLAS FP32: each keeps more of C in registers per "
            "value read from shared memory, and the last two move global memory in 16-byte pieces. The rows "
            "at 4095³ and 4097³ show what the bounds handling costs when every edge tile is partial and no "
            "row starts on 16 bytes.")
