"""What the tools' unit tests (tests/*.py, run by make check's part_tool_units) share: the
course's root on the import path, a list of failures, and the report that ends each run.

    from tool_checks import ROOT, check, failures, finish
    check(1 + 1 == 2, "what must hold")
    finish("tests/example.py", "what passing means")   # exit status 1 and the failures on stderr
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

failures = []


def check(condition, what, shown=None):
    """Record @p what as a failure unless @p condition holds (with what was got, @p shown)."""
    if not condition:
        failures.append(what + (f"\n    got: {shown}" if shown is not None else ""))


def finish(name, passing):
    """Print each failure on stderr and exit 1, or print @p passing and exit 0."""
    if failures:
        print(f"{name}: {len(failures)} failed:", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
        sys.exit(1)
    print(f"{name}: {passing}")
    sys.exit(0)
