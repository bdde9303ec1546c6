"""What the lesson's profile table shows (tools/tutorial/profile_tables.py reads it):
chapter 1's naive kernel beside the tiles, so the lesson shows the TILE-fold cut."""

CHAPTERS = [1, 2]
COLUMNS = [
    # 2 flops per multiply-add: loads per multiply-add = 2 / (flops per load).
    ("global loads per multiply-add", lambda v: 2 / v["arithmetic intensity", "flops per global load"]),
    ("load requests", lambda v: v["global loads", "requests"]),
    ("bytes moved by loads", lambda v: v["global loads", "bytes moved in sectors"]),
    ("shared bank conflicts", lambda v: v.get("shared loads", "bank conflicts") + v.get("shared stores", "bank conflicts")),
    ("`__syncthreads()` per block", lambda v: v["block", "__syncthreads() per block"]),
]
