"""What the lesson's profile table shows (tools/tutorial/profile_tables.py reads it):
the strided writes of 5a, and the bank conflicts of 5b that padding removes in 5c."""

COLUMNS = [
    ("sectors per store request", lambda v: v["global stores", "sectors per request"]),
    ("shared load requests", lambda v: v.get("shared loads", "requests")),
    ("shared load wavefronts", lambda v: v.get("shared loads", "wavefronts")),
    ("shared bank conflicts", lambda v: v.get("shared loads", "bank conflicts") + v.get("shared stores", "bank conflicts")),
]
