"""The judge: runs one test program for `make grade` and keeps only what the harness
reports over the grading channel (harness/grade_channel.h).

The student's files are compiled into the test program, so whatever the program prints,
writes or returns may be theirs. The judge therefore reads nothing of it but a pipe that
it opens itself and names, with a random key made for this run, in TUTORIAL_GRADE_CHANNEL;
the harness reads and erases both before any static initializer of the student's runs,
and prefixes each line it sends with the key. The judge keeps the last whole snapshot
of results the harness sent, and writes it as the results file that grading reads (the
program itself is given none to write), with what it saw of the run in a `.judge` file:

  exit=<status>          the program's exit status, or signal=<name> when a signal ended it
  timed_out=1            when it ran past --timeout seconds and was stopped
  snapshots=<n>          whole snapshots received
  foreign_lines=<n>      lines on the channel without the run's key: something other than
                         the harness wrote to it, which voids the run
  ended=1                the last snapshot is the one the harness sends when the run ends
                         (state=finished or crashed)
  endings=<n>            snapshots that say the run ended: the harness sends one, last
  after_ending=<n>       lines with the run's key after the first such snapshot: the
                         harness sends none, so something kept the channel and wrote more
  changed_after_check=1  the program is not the one the object check passed (its SHA-256
                         differs): it was not run
  confined=1|0           whether it ran in the mount namespaces of confine.py (only when
                         asked to confine it)

The program runs from an empty working directory made for the run, and deleted after it.

  judge --binary B --results R --log L [--timeout S] [ARGS...]
"""

from __future__ import annotations

import hashlib
import os
import secrets
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

from . import confine


# The states of the snapshot the harness sends once, when the run ends.
ENDINGS = ("finished", "crashed")


def _state_of(snapshot: list[str]) -> str:
    return next((line.split("=", 1)[1] for line in snapshot if line.startswith("state=")), "")


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(binary: Path, results: Path, log: Path, timeout: float, arguments: list[str],
        extra_env: dict | None = None, checked_sha256: str | None = None, confine_in: Path | None = None) -> dict:
    """Run @p binary from an empty working directory of its own, reading its grading channel.
    @p checked_sha256: the program's hash when the object check passed it; a program that
    no longer has it is not run (facts: changed_after_check=1). @p confine_in: the course's
    root, which the program then sees read-only and without its solutions (confine.py)."""
    results.unlink(missing_ok=True)
    if checked_sha256 is not None and (not binary.is_file() or sha256_of(binary) != checked_sha256):
        facts = {"changed_after_check": 1}
        log.write_text(f"{binary} is not the program the object check passed: not run\n")
        Path(f"{results}.judge").write_text("".join(f"{k}={v}\n" for k, v in facts.items()))
        return facts
    key = secrets.token_hex(16)
    read_end, write_end = os.pipe()
    env = {k: v for k, v in os.environ.items() if k not in ("TUTORIAL_RESULTS_FILE", "TUTORIAL_GRADE_CHANNEL")}
    env.update(extra_env or {})
    env["TUTORIAL_GRADE_CHANNEL"] = f"{write_end}:{key}"
    facts: dict = {"snapshots": 0, "foreign_lines": 0, "ended": 0, "endings": 0, "after_ending": 0}
    last: list[str] = []
    received: list[bytes] = []

    def read_channel() -> None:
        with os.fdopen(read_end, "rb") as channel:
            for chunk in iter(lambda: channel.read1(65536), b""):
                received.append(chunk)

    reader = threading.Thread(target=read_channel, daemon=True)
    # An empty working directory: nothing the program finds or leaves there is the course's.
    empty = tempfile.TemporaryDirectory(prefix="tutorial-judge-")
    with open(log, "wb") as out:
        # A session of its own, so that a timeout stops everything the program started.
        argv = [str(binary.resolve()), *arguments]
        if confine_in is not None:
            argv = confine.command(argv, confine_in, read_only=True)
            facts["confined"] = int(confine.available())
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                   stderr=subprocess.STDOUT, env=env, pass_fds=(write_end,),
                                   start_new_session=True, cwd=empty.name)
    os.close(write_end)
    reader.start()
    try:
        status = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        status = process.wait()
        facts["timed_out"] = 1
    # Whatever still holds the pipe's write end once the program is gone is not the
    # harness: give the reader a moment, then stop listening.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    reader.join(timeout=5)
    empty.cleanup()
    if status < 0:
        facts["signal"] = signal.Signals(-status).name
    else:
        facts["exit"] = status

    snapshot: list[str] | None = None
    prefix = key + " "
    for line in b"".join(received).decode("utf-8", errors="replace").splitlines():
        if not line.startswith(prefix):
            facts["foreign_lines"] += 1
            continue
        body = line[len(prefix):]
        if facts["endings"]:
            facts["after_ending"] += 1
        if body == "begin":
            snapshot = []
        elif body == "end":
            if snapshot is not None:
                last = snapshot
                facts["snapshots"] += 1
                if _state_of(snapshot) in ENDINGS:
                    facts["endings"] += 1
            snapshot = None
        elif snapshot is not None:
            snapshot.append(body)
    results.unlink(missing_ok=True)
    if last:
        results.write_text("\n".join(last) + "\n")
        facts["ended"] = int(_state_of(last) in ENDINGS)
    Path(f"{results}.judge").write_text("".join(f"{k}={v}\n" for k, v in facts.items()))
    return facts


def read_facts(results: Path) -> dict | None:
    """What the judge saw of the run whose results are @p results, or None when no judge ran it."""
    try:
        text = Path(f"{results}.judge").read_text()
    except FileNotFoundError:
        return None
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def judge(args) -> int:
    run(Path(args.binary), Path(args.results), Path(args.log), args.timeout, args.arguments)
    return 0


# ---- What a test program printed: its failures (the CPU diagnosis, the sanitizer's logs) ------------


def reports_of(output: str) -> list[list[str]]:
    """Each failure Catch2 printed in @p output: from its "file:line: FAILED:" line to the line
    before the next failure, test case rule or the totals, blank lines at its end dropped."""
    lines = output.splitlines()
    reports = []
    for start, line in enumerate(lines):
        if not line.rstrip().endswith(": FAILED:"):
            continue
        end = next((i for i in range(start + 1, len(lines))
                    if lines[i].startswith(("-----", "=====", "~~~~~")) or lines[i].rstrip().endswith(": FAILED:")),
                   len(lines))
        report = lines[start:end]
        while report and not report[-1].strip():
            report.pop()
        reports.append(report)
    return reports
