"""The judge believes only a clean ending (make check: tools/check-grading.sh).

Each case runs a stand-in test program through the judge (tools/tutorial/judge.py): a
Python script that reports on the grading channel as the harness does, then does what a
program that kept the channel could do. make grade's scoring (tools/tutorial/grading.py)
must void every such run and name why, refuse to run a program whose hash is not the one
taken at the object check, and still score the honest run 100% (run from an empty folder).

  python3 tests/grading/judge_endings.py    prints "ok"/"FAIL" a line; exit status 1 on a FAIL
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tools.tutorial import grading, judge  # noqa: E402
from tools.tutorial.course import Chapter  # noqa: E402

CHAPTER = Chapter("1", "01-naive-gemm", "stand-in")
REGISTRY = ["naive_gemm / 1x1x1", "naive_gemm / 17x31x5", "naive_gemm / 64x64x64"]


def snapshot(state: str, cases: list[tuple[str, str]], failed: int) -> str:
    """A snapshot as harness/results_file.cpp writes it."""
    lines = [f"state={state}", f"passed={1 - min(failed, 1)}", f"failed={failed}", "extra_passed=0",
             "extra_failed=0", "gpu_tests=run", "selection=all"]
    lines += [f"case={outcome}\tgraded\t{name}\t" for outcome, name in cases]
    return "\n".join(lines)


PASSING = snapshot("finished", [("passed", n) for n in REGISTRY], 0)
CHANGED = "a program changed after the object check"

# name: (the snapshots the stand-in sends, its exit status, what the grade's notes must say,
# or "" when the run must score 100%). The honest run scores 100% only when the judge ran it
# from an empty folder and verified its hash.
CASES = {
    "an honest run": ([snapshot("running", [], 0), PASSING], 0, ""),
    "a second report of the end": ([snapshot("finished", [("failed", n) for n in REGISTRY], 1), PASSING], 1,
                                   "2 reports of its end"),
    "a report after the end": ([PASSING, snapshot("running", [], 0)], 0, "1 report of its end and 9 lines after"),
    "no failure reported, exit status 1": ([PASSING], 1, "reported no failure, but the test program ended with "
                                                         "exit status 1"),
    "a passed case of another name": ([snapshot("finished", [("passed", "forged / 1"), ("passed", REGISTRY[1])], 0)],
                                      0, "not one of the chapter's cases"),
    CHANGED: ([PASSING], 0, "the test program changed after the object check passed it"),
    "a case passed twice": ([snapshot("finished", [("passed", REGISTRY[0]), ("passed", REGISTRY[0])], 0)], 0,
                            "passed 2 times, but the chapter's cases (the solution's run) have it 1 time"),
}

STAND_IN = """#!/usr/bin/env python3
import os, sys
fd, key = os.environ["TUTORIAL_GRADE_CHANNEL"].split(":")
snapshots = {snapshots!r}
# The judge runs a test program from an empty folder of its own: anywhere else, report nothing.
if os.listdir(".") or os.path.abspath(".") == {course!r}:
    snapshots = []
with os.fdopen(int(fd), "w") as channel:
    for text in snapshots:
        channel.write("".join(f"{{key}} {{line}}\\n" for line in ["begin", *text.split("\\n"), "end"]))
sys.exit({status})
"""


def main() -> int:
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for i, (what, (snapshots, status, expected_note)) in enumerate(CASES.items()):
            folder = Path(scratch) / f"case{i}"
            folder.mkdir()
            (folder / "chapter1-build.status").write_text("0\n")
            (folder / "chapter1-build.log").write_text("")
            (folder / "chapter1-guard.txt").write_text("")
            (folder / "chapter1-expected.results").write_text(PASSING + "\n")
            program = folder / "stand-in"
            program.write_text(STAND_IN.format(snapshots=snapshots, status=status, course=str(Path.cwd())))
            program.chmod(0o755)
            # The hash the object check took; "a program changed after the check" gets another's.
            checked = judge.sha256_of(program) if what != CHANGED else judge.sha256_of(Path(__file__))
            judge.run(program, folder / "chapter1.results", folder / "chapter1-test.log", 30, [], checked_sha256=checked)
            grade = grading.grade_chapter(folder, "emu", "chapters", CHAPTER)
            notes = grade.notes()
            if expected_note:
                good = grade.percent == 0 and expected_note in notes
            else:
                good = grade.percent == 100 and not grade.blocker
            failures += not good
            print(f"  {'ok  ' if good else 'FAIL'}  {what}: {grade.percent}%" + (f", {notes}" if notes else "")
                  + ("" if good else f" (expected {expected_note or '100%'})"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
