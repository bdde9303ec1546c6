"""What the lesson's profile table shows (tools/tutorial/profile_tables.py reads it).
Pixels are one byte, so bytes requested count pixels."""

COLUMNS = [
    ("global pixels loaded per output pixel",
     lambda v: v["global loads", "bytes requested"] / v["global stores", "bytes requested"]),
    ("sectors per load request", lambda v: v["global loads", "sectors per request"]),
    ("load requests", lambda v: v["global loads", "requests"]),
    ("shared bank conflicts", lambda v: v.get("shared loads", "bank conflicts") + v.get("shared stores", "bank conflicts")),
]
