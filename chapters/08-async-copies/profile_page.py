"""What the lesson's profile table shows (tools/tutorial/profile_tables.py reads it):
chapter 2's synchronous tiles beside the asynchronous steps, so the lesson shows the same
traffic reaching shared memory by another road, and what the stages cost in occupancy."""

CHAPTERS = [2, 8]
COLUMNS = [
    ("load requests", lambda v: v["global loads", "requests"]),
    ("bytes moved by loads", lambda v: v["global loads", "bytes moved in sectors"]),
    ("`__syncthreads()` per block", lambda v: v["block", "__syncthreads() per block"]),
    ("theoretical occupancy %", lambda v: v["occupancy", "theoretical occupancy %"]),
]
