"""What the lesson's profile table shows (tools/tutorial/profile_tables.py reads it).
Inputs and outputs are both floats, so the ratio of bytes is the ratio of elements."""

COLUMNS = [
    ("global loads per output",
     lambda v: v["global loads", "bytes requested"] / v["global stores", "bytes requested"]),
    ("sectors per load request", lambda v: v["global loads", "sectors per request"]),
    ("blocks per SM", lambda v: v["occupancy", "blocks per SM"]),
    ("theoretical occupancy %", lambda v: v["occupancy", "theoretical occupancy %"]),
]
