"""`make chapterN test`: run each test program, and keep what the whole run prints to one screen.

A failing run is read on one screen: its first report in full, the totals, and where the work
is. What one run prints comes from three places, and all three are counted here against one
budget of lines (SCREEN_LINES, less what make prints around it: the build lines it counted as
it printed them, --build-lines, and a few of its own):

1. the test program's own report (harness/: the first failure in full, the others a
   line each). A run longer than its share keeps its beginning and its end (Catch2's totals,
   which failures are optional, where the work is), and says how many lines it left out
   between them; the whole run is kept in <program>.output;
2. on a GPU, after passing tests, compute-sanitizer's pass (tools/tutorial/sanitizer.py): its
   findings themselves, a few lines; and when it is clean, the CPU backend's checks on the
   first shapes, which make status and make grade make there too;
3. on a GPU, after a failure, the CPU backend's checks of the failing tests
   (tools/tutorial/further_checks.py, cpu_diagnosis), in what is left of the budget.

VERBOSE=1 or ARGS=--success (-s) shows everything: no budget then.

Python 3 standard library only.
"""

from __future__ import annotations

import os
import pty
import shlex
import signal
import subprocess
import sys
from pathlib import Path

from . import further_checks, sanitizer, verbs

# No failing `make chapterN test` prints more than this many lines by default (make check
# counts them on the CPU backend: tools/check.sh).
SCREEN_LINES = 120
# What make prints around the run: a few build lines before it, its own error line after.
MAKE_LINES = 10
# The end of a test program's report kept whatever its length: Catch2's totals, the note on
# optional failures and where the work is (harness/main.cpp).
TAIL_LINES = 12
# What a CPU diagnosis after a failure on a GPU needs at least: its first and last lines and
# the start of its report.
DIAGNOSIS_LINES = 20
# The least a run's report keeps after a long first build: its first failure's start, the totals
# and where the work is (a build of more than SCREEN_LINES - MAKE_LINES - this many lines, a
# first build of the CPU backend and every chapter at once, goes past one screen).
MIN_REPORT_LINES = 40


class Trimmer:
    """A report's lines as they come, kept within @p budget lines: the first ones shown at once,
    the rest held until the end, when the last @p tail are shown after one line saying how many
    were left out (@p left_out(count, failures) writes it)."""

    def __init__(self, budget: int | None, tail: int = TAIL_LINES, left_out=None):
        self.budget, self.tail = budget, tail
        self.head = None if budget is None else max(1, budget - tail - 1)
        self.shown = 0  # lines shown so far
        self.held: list[str] = []
        self.left_out = left_out or (lambda count, failures: f"({count} lines left out here)")

    def has_room(self) -> bool:
        """Whether the next line is shown at once."""
        return self.head is None or self.shown < self.head

    def feed(self, line: str) -> list[str]:
        """What to show now of @p line (one line, its end included)."""
        if self.head is None or self.shown < self.head:
            self.shown += 1
            return [line]
        self.held.append(line)
        return []

    def finish(self) -> list[str]:
        """What to show at the end: what was held, or its end after a line for the rest."""
        held, self.held = self.held, []
        if self.budget is None or self.shown + len(held) <= self.budget:
            lines = held
        else:
            # The end kept starts where a test case's report or the totals start (a rule after
            # a blank line), so that no report is shown without its heading.
            start = len(held) - self.tail
            start = next((i for i in range(start, len(held)) if held[i].startswith(("-----", "=====")) and
                          (i == 0 or not held[i - 1].strip())), start)
            dropped = held[:start]
            failures = sum(1 for line in dropped if line.rstrip().endswith(": FAILED:"))
            lines = [self.left_out(len(dropped), failures).rstrip("\n") + "\n"] + held[start:]
        self.shown += len(lines)
        return lines


def fit(lines: list[str], budget: int | None, tail: int = TAIL_LINES, left_out=None) -> list[str]:
    """@p lines as the screen shows them within @p budget (Trimmer, all at once)."""
    trimmer = Trimmer(budget, tail, left_out)
    shown = [out for line in lines for out in trimmer.feed(line)]
    return shown + trimmer.finish()


def shows_everything(arguments: list[str]) -> bool:
    verbose = os.environ.get("TUTORIAL_VERBOSE") or os.environ.get("VERBOSE") or ""
    return (verbose not in ("", "0")) or any(a in ("-s", "--success") for a in arguments)


def run_program(binary: Path, arguments: list[str], trimmer: Trimmer, whole: Path) -> int:
    """Run a test program, its output through @p trimmer to ours and whole to @p whole. On a
    terminal it runs on one of its own (a pseudo-terminal), so that it still colours its
    report and prints each line as it comes. Its exit status, or 128 + the signal that ended it."""
    environment = {**os.environ, "TUTORIAL_RESULTS_FILE": f"{binary}.results"}
    out = sys.stdout.buffer
    sys.stdout.flush()
    terminal = sys.stdout.isatty()
    if terminal:
        reader, writer = pty.openpty()
    else:
        reader, writer = os.pipe()
    try:
        program = subprocess.Popen([f"./{binary}" if not binary.is_absolute() else str(binary), *arguments],
                                   stdout=writer, stderr=writer, stdin=subprocess.DEVNULL, env=environment)
    finally:
        os.close(writer)
    held = b""  # what came once the screen's share of the beginning was shown
    with open(whole, "wb") as log:
        while True:
            try:
                chunk = os.read(reader, 65536)
            except OSError:  # a pseudo-terminal whose program has ended
                chunk = b""
            if not chunk:
                break
            log.write(chunk)
            # The beginning shows as it comes, a line still being written included.
            while chunk and not held and trimmer.has_room():
                end = chunk.find(b"\n")
                if end < 0:
                    out.write(chunk)
                    chunk = b""
                else:
                    out.write(chunk[:end + 1])
                    trimmer.feed("")
                    chunk = chunk[end + 1:]
            out.flush()
            held += chunk
            *lines, held = held.split(b"\n")
            for line in lines:
                trimmer.feed((line + b"\n").decode(errors="replace"))
    os.close(reader)
    if held:
        trimmer.feed(held.decode(errors="replace") + "\n")
    status = program.wait()
    for line in trimmer.finish():
        out.write(line.encode())
    out.flush()
    return 128 - status if status < 0 else status


def left_out_note(whole: Path):
    def note(count: int, failures: int) -> str:
        what = f"the reports of {failures} more failures, " if failures > 1 else "the report of 1 more failure, " \
            if failures == 1 else ""
        return (f"... ({count} lines left out here, {what}to keep the run to one screen: VERBOSE=1 shows "
                f"every report; the whole run: {whole})")
    return note


def test(args) -> int:
    """`make test` and `make chapterN test`: each test program of @p args.binaries, in turn."""
    args.arguments = shlex.split(args.args)
    failed = 0
    try:
        for binary in map(Path, args.binaries):
            failed |= test_one(args, binary) != 0
            args.build_lines = 0  # printed once, before the first program
    except KeyboardInterrupt:  # Ctrl-C: the test program had it too
        return 130
    return 1 if failed else 0


def test_one(args, binary: Path) -> int:
    everything = shows_everything(args.arguments)
    # The build lines make printed first (a first build: some 30 to 70) are on the same screen.
    build_lines = getattr(args, "build_lines", 0)
    budget = None if everything else max(SCREEN_LINES - MAKE_LINES - build_lines, MIN_REPORT_LINES)
    chapter = binary.name[:-len("-tests")] if binary.name.startswith("chapter") and binary.name.endswith("-tests") else ""
    on_gpu = args.backend == "cuda" and bool(chapter)
    print(f"== {binary} ({args.tree}, backend {args.backend})", flush=True)
    used = 1
    # On a GPU a failure is followed by the CPU backend's checks: the report leaves them room.
    share = None if budget is None else budget - used - (DIAGNOSIS_LINES if on_gpu else 0)
    whole = Path(f"{binary}.output")
    trimmer = Trimmer(share, TAIL_LINES, left_out_note(whole))
    status = run_program(binary, args.arguments, trimmer, whole)
    used += trimmer.shown
    if status > 128:  # what a shell would have said
        try:
            name = signal.Signals(status - 128).name
        except ValueError:
            name = f"signal {status - 128}"
        print(f"{binary} ended by {name}: {signal.strsignal(status - 128) or 'an unknown signal'} "
              f"(exit status {status})", flush=True)
        used += 1
    if not on_gpu:
        return status
    diagnose_all = False
    if status == 0:
        found = sanitizer.after_tests(binary, Path(args.sanitize_output), args.arguments, chapter)
        if found.record:
            results = Path(f"{binary}.results")
            if results.exists():  # what it found keeps make status from calling the chapter done
                with open(results, "a") as out:
                    out.write(f"further={found.record}\n")
        for line in found.lines:
            print(line, flush=True)
        used += len(found.lines)
        if found.status == 0:
            # What make status and make grade check next on a GPU, checked now: a passing run
            # is not green until the CPU backend's checks pass too.
            left = None if budget is None else max(budget - used, 4)
            failed = further_checks.cpu_diagnosis(args, verbs.make, binary, None, left, after_pass=True)
            further_checks.record_cpu_check(Path(f"{binary}.results"), failed)
            return failed
        status, diagnose_all = 1, True
    left = None if budget is None else max(budget - used, 4)
    further_checks.cpu_diagnosis(args, verbs.make, binary, None if diagnose_all else Path(f"{binary}.results"), left)
    return status
