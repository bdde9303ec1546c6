"""What the lesson's profile table shows (tools/tutorial/profile_tables.py reads it):
chapter 2's 32 x 32 tiles beside the register tilings, so the lesson shows the work each
shared-memory pass feeds growing, and what the registers cost in occupancy."""

CHAPTERS = [2, 7]


def _multiply_adds(v):
    # flops per byte loaded x bytes loaded = flops; 2 flops per multiply-add.
    return v["arithmetic intensity", "flops per byte loaded"] * v["global loads", "bytes requested"] / 2


COLUMNS = [
    ("multiply-adds per global load", lambda v: v["arithmetic intensity", "flops per global load"] / 2),
    ("multiply-adds per shared load wavefront", lambda v: _multiply_adds(v) / v["shared loads", "wavefronts"]),
    ("registers per thread", lambda v: v["occupancy", "registers per thread"]),
    ("theoretical occupancy %", lambda v: v["occupancy", "theoretical occupancy %"]),
]
