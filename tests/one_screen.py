"""A failing `make chapterN test` fits on one screen (tools/tutorial/test_run.py):

- a report longer than its share keeps its beginning and its end (the totals, where the work
  is), starting the end at a report's heading, and says how many lines and failures it left
  out and where the whole run is;
- a short report, and any report with VERBOSE=1 or ARGS=--success, is shown whole;
- a test program's run, streamed, prints no more than its share, keeps the whole in its
  .output file and keeps its exit status;
- on a GPU the CPU backend's diagnosis gets what is left of 120 lines.

Run: python3 tests/one_screen.py (exit status 1 and the failures on stderr).
"""

import argparse
import io
import os
import stat
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.tutorial import test_run  # noqa: E402

failures = []


class Capture:
    """Our stdout, bytes and text, into @p out while in the block (test_run writes both)."""

    def __init__(self, out):
        self.out = out

    def __enter__(self):
        self.saved, self.wrapper = sys.stdout, io.TextIOWrapper(self.out, write_through=True)
        sys.stdout = self.wrapper

    def __exit__(self, *_):
        self.wrapper.flush()
        self.wrapper.detach()  # leaves out open
        sys.stdout = self.saved


def check(condition, what, shown=None):
    if not condition:
        failures.append(what + (f"\n    got: {shown}" if shown is not None else ""))


RULE = "-" * 79


def report(n):
    return ["\n", RULE + "\n", f"test case {n}\n", RULE + "\n", "test.cpp:1\n", "." * 79 + "\n", "\n",
            f"test.cpp:{n}: FAILED:\n", "explicitly with message:\n", f"  step {n} fails for 35 of 35 shapes\n"]


END = ["\n", "=" * 79 + "\n", "test cases: 40 | 0 passed | 40 failed\n", "assertions: 40 | 40 failed\n", "\n",
       "Your code for chapter 8 is in chapters/08-async-copy/async_copy.cu (its\n",
       "TODO(chapter8) markers); make chapter8 hint gives a hint, one at a time.\n"]
LONG = ["Kernels run on: NVIDIA H200.\n"] + [line for n in range(40) for line in report(n)] + END

shown = test_run.fit(LONG, 100, left_out=lambda count, failed: f"({count} lines, {failed} failures left out)")
check(len(shown) <= 100, f"a 407-line report is kept to its 100 lines, not {len(shown)}")
check(shown[:20] == LONG[:20], "its beginning is shown as it is")
check(shown[-len(END) + 1:] == END[1:], "its end (the totals, where the work is) is shown", shown[-8:])
note = [line for line in shown if "left out" in line]
check(len(note) == 1, "one line says what was left out", note)
if note:
    index = shown.index(note[0])
    count = len(LONG) - (len(shown) - 1)
    check(note[0] == f"({count} lines, {sum(1 for line in LONG[index:len(LONG) - len(shown) + index + 1] if 'FAILED' in line)} "
          "failures left out)\n", "it counts the lines and the failures left out", note[0])
    check(shown[index + 1].startswith(("-----", "=====")) or not shown[index + 1].strip() and
          shown[index + 2].startswith(("-----", "=====")), "the end starts at a heading, not inside a report",
          shown[index + 1:index + 3])
check(test_run.fit(LONG[:60], 100) == LONG[:60], "a short report is shown whole")
check(test_run.fit(LONG, None) == LONG, "with no budget (VERBOSE=1) everything is shown")

os.environ.pop("TUTORIAL_VERBOSE", None)
os.environ["VERBOSE"] = "1"
check(test_run.shows_everything([]), "VERBOSE=1 shows everything")
os.environ["VERBOSE"] = "0"
check(not test_run.shows_everything([]) and test_run.shows_everything(["--success"]) and
      test_run.shows_everything(["-s", "[chapter8]"]), "VERBOSE=0 does not; ARGS=--success does")
del os.environ["VERBOSE"]

# A program's run, streamed through a pipe: its share, the whole in .output, its exit status.
with tempfile.TemporaryDirectory() as folder:
    program = Path(folder) / "chapter8-tests"
    text = "".join(LONG)
    (Path(folder) / "report.txt").write_text(text)
    program.write_text(f"#!/usr/bin/env bash\ncat '{folder}/report.txt'\nprintf 'no newline at the end'\nexit 1\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    out = io.BytesIO()
    with Capture(out):
        trimmer = test_run.Trimmer(90, left_out=test_run.left_out_note(Path(f"{program}.output")))
        status = test_run.run_program(program, [], trimmer, Path(f"{program}.output"))
    lines = out.getvalue().decode().splitlines()
    check(status == 1, "the program's exit status is kept", status)
    check(len(lines) <= 90 and trimmer.shown == len(lines), f"the run prints its 90 lines at most, not {len(lines)}")
    check(lines and lines[-1] == "no newline at the end", "a last line without its end is shown", lines[-2:])
    check(Path(f"{program}.output").read_text() == text + "no newline at the end", "the whole run is kept")
    check(any(f"the whole run: {program}.output" in line for line in lines), "the note names where the whole run is")

    # On a GPU: the CPU backend's diagnosis is told what is left of the screen.
    told = []
    real = test_run.further_checks.cpu_diagnosis
    test_run.further_checks.cpu_diagnosis = lambda args, make, binary, results, lines: told.append(lines) or 0
    before = len(out.getvalue().splitlines())
    try:
        with Capture(out):
            status = test_run.test_one(argparse.Namespace(backend="cuda", tree="chapters", arguments=[],
                                                          sanitize_output=folder), program)
    finally:
        test_run.further_checks.cpu_diagnosis = real
    printed = len(out.getvalue().splitlines()) - before
    check(status == 1 and told and printed + told[0] <= test_run.SCREEN_LINES - test_run.MAKE_LINES and
          told[0] >= test_run.DIAGNOSIS_LINES, "the diagnosis gets what is left of the screen, and room enough",
          (printed, told))

    # After a first build, make's build lines (--build-lines) come out of the same screen: the
    # run, diagnosis included, prints that many fewer.
    for build_lines in (30, 200):
        told = []
        test_run.further_checks.cpu_diagnosis = lambda args, make, binary, results, lines: told.append(lines) or 0
        before = len(out.getvalue().splitlines())
        try:
            with Capture(out):
                test_run.test_one(argparse.Namespace(backend="cuda", tree="chapters", arguments=[], build_lines=build_lines,
                                                     sanitize_output=folder), program)
        finally:
            test_run.further_checks.cpu_diagnosis = real
        printed = len(out.getvalue().splitlines()) - before
        room = max(test_run.SCREEN_LINES - test_run.MAKE_LINES - build_lines, test_run.MIN_REPORT_LINES)
        check(told and printed + told[0] <= room and told[0] >= 4,
              f"after {build_lines} build lines the run and its diagnosis keep to {room} lines", (printed, told))

for failure in failures:
    print(f"one screen: {failure}", file=sys.stderr)
sys.exit(1 if failures else 0)
