"""What the lesson's profile table shows (tools/tutorial/profile_tables.py reads it):
the strided writes of 5a, the bank conflicts of 5b that padding removes in 5c, and (5d)
what rows that do not start on 128 bytes cost each load request."""

COLUMNS = [
    ("sectors per load request", lambda v: v["global loads", "sectors per request"]),
    ("sectors per store request", lambda v: v["global stores", "sectors per request"]),
    ("shared load requests", lambda v: v.get("shared loads", "requests")),
    ("shared load wavefronts", lambda v: v.get("shared loads", "wavefronts")),
    ("shared bank conflicts", lambda v: v.get("shared loads", "bank conflicts") + v.get("shared stores", "bank conflicts")),
]
