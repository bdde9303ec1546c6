"""What the lesson's profile table shows (tools/tutorial/profile_tables.py reads it):
the load requests the uint4 loads save, and where each step's atomics go."""

COLUMNS = [
    ("global load requests", lambda v: v["global loads", "requests"]),
    ("shared atomics", lambda v: v.get("shared atomics", "atomics (thread-level)")),
    ("atomics in another block's shared memory", lambda v: v.get("distributed shared atomics", "atomics (thread-level)")),
    ("`__syncthreads()` or `cluster.sync()` per block", lambda v: v["block", "__syncthreads() per block"]),
]
