"""What the lesson's profile table shows (tools/tutorial/profile_tables.py reads it):
how many load instructions bring the same bytes, and the barriers each tree waits at."""

COLUMNS = [
    ("global load requests", lambda v: v["global loads", "requests"]),
    ("sectors per load request", lambda v: v["global loads", "sectors per request"]),
    ("shared load requests", lambda v: v.get("shared loads", "requests")),
    ("`__syncthreads()` per block", lambda v: v["block", "__syncthreads() per block"]),
]
