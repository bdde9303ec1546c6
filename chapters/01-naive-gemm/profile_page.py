"""What the lesson's profile table shows (tools/tutorial/profile_tables.py reads it)."""

COLUMNS = [
    # 2 flops per multiply-add: loads per multiply-add = 2 / (flops per load).
    ("global loads per multiply-add", lambda v: 2 / v["arithmetic intensity", "flops per global load"]),
    ("load requests", lambda v: v["global loads", "requests"]),
    ("sectors per load request", lambda v: v["global loads", "sectors per request"]),
    ("bytes moved by loads", lambda v: v["global loads", "bytes moved in sectors"]),
]
