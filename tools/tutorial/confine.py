"""Where `make grade` lets student code run: its compile and its test programs.

The object check (guard.py) refuses code that opens files or runs commands, and the
compile's dependency files show what a student file included; this is the layer under
those. Where the machine allows user and mount namespaces (unshare(1), util-linux), a
student's compile and test runs see:
- the reference solutions and what was built from them (solutions/, build/*/solutions,
  and the folders TUTORIAL_GRADE_HIDE names, colon-separated: tools/grade-submissions.sh
  names the course's own) as empty, read-only folders;
- for a test run, the whole course read-only (it runs from an empty folder of its own).
The mounts are made in one namespace and used from a second one nested in it, which locks
them: the program cannot unmount them or make them writable again. Where namespaces are
not allowed (some containers), or TUTORIAL_GRADE_CONFINE=0 turns them off (should a GPU's
driver refuse a program in them), student code runs without them, and the grade's notes say so.
"""

from __future__ import annotations

import functools
import os
import shlex
import subprocess
import tempfile
from pathlib import Path

NAMESPACES = "in a mount namespace (solutions/ and what was built from them hidden; the course read-only to the tests)"
NONE = ("without a mount namespace (unshare is missing or not allowed here): the tests could have written to the "
        "course, and only the object check kept solutions/ from the student's code")
TURNED_OFF = ("without a mount namespace (TUTORIAL_GRADE_CONFINE=0 turned it off): the tests could have written to "
              "the course, and only the object check kept solutions/ from the student's code")


def turned_off() -> bool:
    """TUTORIAL_GRADE_CONFINE=0: no namespaces, where they would keep something from working."""
    return os.environ.get("TUTORIAL_GRADE_CONFINE", "") == "0"


@functools.lru_cache(maxsize=None)
def available() -> bool:
    """Whether this machine lets us make the mounts command() makes (tried on a folder of our own),
    and they are not turned off."""
    if turned_off():
        return False
    with tempfile.TemporaryDirectory(prefix="tutorial-confine-") as folder:
        Path(folder, "hidden").mkdir()
        try:
            return subprocess.run(_wrapped(["true"], [Path(folder, "hidden")], Path(folder)),
                                  capture_output=True, timeout=30).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False


def how() -> str:
    """What the grade's notes say of where student code ran."""
    return NAMESPACES if available() else TURNED_OFF if turned_off() else NONE


def solution_folders(root: Path) -> list[Path]:
    """The folders student code must not see: the solutions and their builds."""
    folders = [root / "solutions", *sorted((root / "build").glob("*/solutions"))]
    folders += [Path(p) for p in os.environ.get("TUTORIAL_GRADE_HIDE", "").split(":") if p]
    return [f for f in folders if f.is_dir()]


def command(argv: list[str], root: Path, read_only: bool) -> list[str]:
    """@p argv, to run with the solutions hidden (and, with @p read_only, @p root read-only);
    @p argv itself where namespaces are not allowed."""
    if not available():
        return argv
    return _wrapped(argv, solution_folders(root), root if read_only else None)


def _wrapped(argv: list[str], hidden: list[Path], read_only_root: Path | None) -> list[str]:
    steps = ["set -e"]
    for folder in hidden:
        steps.append(f"mount -t tmpfs -o ro,size=4k,mode=0555 tmpfs {shlex.quote(str(folder.resolve()))}")
    if read_only_root is not None:
        where = shlex.quote(str(read_only_root.resolve()))
        steps += [f"mount --rbind {where} {where}", f"mount -o remount,bind,ro {where}"]
    # A working folder taken before the mounts would still see what lay under them.
    steps.append('cd -- "$PWD"')
    steps.append('exec unshare --user --mount --map-root-user -- "$@"')
    return ["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private",
            "sh", "-c", "\n".join(steps), "confined", *argv]
