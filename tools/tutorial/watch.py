"""`make chapterN watch`, `make watch`: run a chapter's tests, then again each time one of
its files is saved, as rustlings' watch mode does. Ctrl-C stops it.

Each run clears the screen and shows a short report: the test output up to a screenful (the
first failures come first), then Catch2's summary; the whole output is in
build/watch/chapterN.log. When the chapter passes, it says what is next. A save during a
run stops that run and starts another: no report is shown of a file older than the one on
disk. WATCH_RUNS=n stops after n runs (make check uses it), WATCH_QUIET=1 leaves the screen
uncleared (for logs).

Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from .course import find
from .verbs import make_environment
from .workflow import chapter_to_do, next_chapter

POLL_SECONDS = 0.2
MAKE_ERROR = re.compile(r"^make(\[[0-9]+\])?: \*\*\*")
SAVED_DURING_RUN = "(a file was saved during the last run, so its result would be out of date: this run replaces it)"


def files_state(watched: list[Path]) -> list:
    """What a save changes: each file's time (to the nanosecond), size and inode (an editor
    may move a new file over the old one)."""
    state = []
    for path in watched:
        try:
            s = path.stat()
            state.append((str(path), s.st_mtime_ns, s.st_ctime_ns, s.st_size, s.st_ino))
        except OSError:
            state.append((str(path), None))
    return state


def short_report(log: Path) -> str:
    """The test output without Catch2's banner and make's own error line, as much as fits on
    the screen (the first failures come first), then the last lines: Catch2's summary."""
    lines, banner, skip_next = [], False, False
    for line in log.read_text(errors="replace").splitlines():
        if skip_next:
            skip_next = False
            continue
        if line.startswith("~~~~~~~~~~"):
            banner = True
        if not banner and not MAKE_ERROR.match(line):
            lines.append(line)
        if banner and line.startswith("Randomness seeded to"):
            banner, skip_next = False, True
    rows = shutil.get_terminal_size((80, 40)).lines if sys.stdout.isatty() else 40
    keep = rows - 12 if rows > 24 else 12
    if len(lines) <= keep + 6:
        return "\n".join(lines)
    return "\n".join(lines[:keep] + [f"  ... {len(lines) - keep - 4} more lines: the whole output is in {log} ..."]
                     + lines[-4:])


def watch(args) -> int:
    if len(args.numbers) > 1:
        print("Name one chapter: make chapter1 watch")
        return 1
    # No chapter named: the next one to do (the last when every chapter passes).
    chapter = find(args.chapters, args.numbers, "watch") if args.numbers else \
        (chapter_to_do(list(args.chapters)) or args.chapters[-1])
    tree_dir = Path(args.tree) / chapter.folder
    watched = sorted(tree_dir.glob("*.cu")) + sorted(chapter.student_dir.glob("*.cpp")) + sorted(chapter.student_dir.glob("*.h"))
    log = Path("build/watch") / f"{chapter.name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    make = ["make", "--no-print-directory", chapter.name, "test", f"BACKEND={args.backend}",
            *(["SOLUTIONS=1"] if args.tree == "solutions" else []), *([f"SEED={args.seed}"] if args.seed else [])]
    quiet = os.environ.get("WATCH_QUIET", "0") == "1" or not sys.stdout.isatty()
    limit = int(os.environ["WATCH_RUNS"]) if os.environ.get("WATCH_RUNS") else None
    run: subprocess.Popen | None = None

    def stop_run():
        nonlocal run
        if run is not None and run.poll() is None:
            os.killpg(run.pid, signal.SIGTERM)  # its session: make and the test program
            run.wait()
        run = None

    def stop(signum, frame):
        stop_run()
        print(f"\nStopped watching {chapter.name}.")
        sys.exit(0)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    runs, notice = 0, None
    while True:
        if not quiet:
            print("\033[2J\033[H", end="")
        state = files_state(watched)
        # Flushed: with the output in a file, Python would hold the line back until the run
        # ended, and whoever reads the log (make check's watch test) would see the run late.
        print(f"== make {chapter.name} test ({datetime.datetime.now():%H:%M:%S})", flush=True)
        if notice:
            print(notice, flush=True)
        notice = None
        with open(log, "w") as output:
            run = subprocess.Popen(make, stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
                                   env=make_environment())
        # A save during the run stops it: its result would describe the file as it was.
        while run.poll() is None and files_state(watched) == state:
            time.sleep(POLL_SECONDS)
        if files_state(watched) != state:
            stop_run()
            notice = SAVED_DURING_RUN
            continue
        result, run = run.returncode, None
        print(short_report(log))
        print()
        if result == 0:
            print(f"{chapter.name} passes.")
            next_chapter(argparse.Namespace(chapters=args.chapters, after=chapter.number, number=False))
        else:
            print(f"Not yet: fix what the report shows, and save. Stuck? make {chapter.name} hint")
        runs += 1
        if limit is not None and runs >= limit:
            print(f"Stopped after {runs} runs (WATCH_RUNS={limit}).")
            return 0
        print(f"Watching {watched[0]} and the chapter's other files for saves (checked five times a second). Ctrl-C stops.",
              flush=True)
        # Against the state the run began with: a save made while the report was printed counts.
        while files_state(watched) == state:
            time.sleep(POLL_SECONDS)
