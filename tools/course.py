"""The course as the learner's workflow sees it (tools/workflow.py uses this).

- The chapters, read from the one list, chapters/chapters.txt.
- Each chapter's files: the student's (the .cu files in chapters/NN-name/), the
  reference solution's, the lesson with its hints.
- The skeletons' git blob ids (chapters/skeletons.txt), which tell an untouched chapter
  from one in progress and find the skeleton in git for a reset.
- The results that the last `make chapterN test` left beside the test binary
  (tests/harness/results_file.cpp writes them).
- Building a chapter through make, and the first compiler error of a failed build.

Python 3 standard library only.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import shlex
import subprocess
import sys
from pathlib import Path

SKELETON_IDS = Path("chapters/skeletons.txt")


@dataclasses.dataclass(frozen=True)
class Chapter:
    """One line of chapters/chapters.txt."""

    number: str
    folder: str
    title: str

    @property
    def name(self) -> str:
        return f"chapter{self.number}"

    @property
    def student_dir(self) -> Path:
        return Path("chapters") / self.folder

    @property
    def solution_dir(self) -> Path:
        return Path("solutions") / self.folder

    @property
    def lesson(self) -> Path:
        return self.student_dir / "README.md"


def read_chapters(path: str) -> list[Chapter]:
    chapters = []
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        number, folder, title = line.split(None, 2)
        chapters.append(Chapter(number, folder, title.strip()))
    return chapters


def read_hints(lesson: Path) -> list[str]:
    """The items of the ordered list under the lesson's `## Hints`, each as its lines:
    the hints of `make chapterN hint`, written once, in the lesson."""
    section = re.search(r"^## Hints[ \t]*\n(.*?)(?=^## |\Z)", lesson.read_text(), re.M | re.S)
    hints: list[list[str]] = []
    indent = 0  # of the item's text, which its continuation lines share
    for line in section.group(1).splitlines() if section else []:
        item = re.match(r"^\d+\.\s+", line)
        if item:
            indent = item.end()
            hints.append([line[indent:]])
        elif hints and (line.startswith((" ", "\t")) or not line.strip()):
            hints[-1].append(line[indent:] if line[:indent].isspace() else line.strip())
        elif hints:
            break  # a paragraph after the list ends it
    return ["\n".join(lines).strip() for lines in hints]


# ---- The student's files and the skeletons ----------------------------------------------


def blob_id(path: Path) -> str | None:
    """The id git gives the file's content (`git hash-object`), or None if it is missing."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def read_skeleton_ids() -> dict[str, str]:
    """Path of each skeleton file -> its blob id, as recorded by `make skeleton-ids`."""
    ids = {}
    if SKELETON_IDS.exists():
        for line in SKELETON_IDS.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                blob, path = line.split(None, 1)
                ids[path.strip()] = blob
    return ids


def student_files(chapter: Chapter, skeleton_ids: dict[str, str]) -> list[Path]:
    """The files the student edits: the chapter's .cu files, and any recorded skeleton
    file that has since been deleted."""
    files = {str(p) for p in chapter.student_dir.glob("*.cu")}
    files |= {p for p in skeleton_ids if Path(p).parent == chapter.student_dir}
    return [Path(p) for p in sorted(files)]


def files_state(chapter: Chapter, skeleton_ids: dict[str, str]) -> str:
    """'not started' (every file is the skeleton), 'in progress', 'file missing', or
    'unknown' when chapters/skeletons.txt has no record of the chapter."""
    files = student_files(chapter, skeleton_ids)
    if not files or any(str(f) not in skeleton_ids for f in files):
        return "unknown"
    if any(not f.exists() for f in files):
        return "file missing"
    if all(blob_id(f) == skeleton_ids[str(f)] for f in files):
        return "not started"
    return "in progress"


# ---- Cached test results -------------------------------------------------------------------


@dataclasses.dataclass
class Results:
    """What the last run of a chapter's tests left in its results file."""

    path: Path
    backend: str
    state: str  # 'finished'; 'crashed' (a signal), or 'running' left by a run that died
    passed: int
    failed: int
    gpu_tests: str  # 'run' or 'skipped'
    selection: str  # 'all' or 'chosen'
    current: str  # the test case that was running when the run stopped
    crash: str  # what stopped it, when Catch2 knew

    def crash_story(self) -> str:
        """'crashed (SIGSEGV ...) in the test 'name'', for a run that did not finish."""
        what = f" ({self.crash})" if self.crash else ""
        where = f" in the test '{self.current}'" if self.current else ""
        return f"crashed{what}{where}"

    @property
    def total(self) -> int:
        return self.passed + self.failed

    @property
    def time(self) -> float:
        return self.path.stat().st_mtime


def results_path(bin_dir: str, chapter: Chapter) -> Path:
    return Path(bin_dir) / f"{chapter.name}-tests.results"


def read_results(path: Path, backend: str) -> Results | None:
    try:
        fields = dict(
            line.split("=", 1) for line in path.read_text().splitlines() if "=" in line
        )
    except FileNotFoundError:
        return None
    return Results(
        path=path,
        backend=backend,
        state=fields.get("state", "running"),
        passed=int(fields.get("passed", 0)),
        failed=int(fields.get("failed", 0)),
        gpu_tests=fields.get("gpu_tests", "run"),
        selection=fields.get("selection", "all"),
        current=fields.get("current", ""),
        crash=fields.get("crash", ""),
    )


def all_results(bin_dir: str, backend: str, chapter: Chapter) -> list[Results]:
    """The chapter's results from every backend: the build folders are
    build/BACKEND/TREE/bin, so the other backends' results are the siblings of ours."""
    parts = Path(bin_dir).parts
    if backend not in parts:
        found = [read_results(results_path(bin_dir, chapter), backend)]
    else:
        at = parts.index(backend)
        pattern = Path(*parts[at + 1 :]) / f"{chapter.name}-tests.results"
        found = [read_results(p, p.parts[at]) for p in Path(*parts[:at]).glob(f"*/{pattern}")]
    return [r for r in found if r is not None]


def latest_results(bin_dir: str, backend: str, chapter: Chapter) -> Results | None:
    return max(all_results(bin_dir, backend, chapter), key=lambda r: r.time, default=None)


@dataclasses.dataclass
class Progress:
    """Where a chapter stands: its files, its last test results, and what they mean."""

    chapter: Chapter
    files: str
    results: Results | None
    stale: bool  # the student's files changed after those results

    @classmethod
    def of(cls, chapter: Chapter, bin_dir: str, backend: str, skeleton_ids: dict[str, str]):
        results = latest_results(bin_dir, backend, chapter)
        stale = False
        if results is not None:
            times = [f.stat().st_mtime for f in student_files(chapter, skeleton_ids) if f.exists()]
            stale = any(t > results.time for t in times)
        return cls(chapter, files_state(chapter, skeleton_ids), results, stale)

    def _every_test_run_passed(self) -> bool:
        """The last run tested the current files, ran every test it could, and they passed."""
        r = self.results
        return (
            r is not None
            and not self.stale
            and r.state == "finished"
            and r.selection == "all"
            and r.failed == 0
            and r.passed > 0
        )

    @property
    def passed(self) -> bool:
        """Done, as rustlings means it: every test of the chapter passes on the current files."""
        return self._every_test_run_passed() and self.results.gpu_tests == "run"

    @property
    def passed_but_gpu_tests_skipped(self) -> bool:
        """As far as this machine can tell: only the [gpu] tests did not run (no device)."""
        return self._every_test_run_passed() and self.results.gpu_tests == "skipped"

    def tests_cell(self) -> str:
        """The Tests column of `make status`: short; blockers() explains."""
        r = self.results
        if r is None:
            return "not run"
        if r.state != "finished":
            return f"{r.passed}/? crashed"
        cell = f"{r.passed}/{r.total}"
        if self.passed:
            return cell + " passed"
        if self.stale:
            return cell + " (stale)"
        if r.selection == "chosen":
            return cell + " (some)"
        if r.gpu_tests == "skipped":
            return cell + ", no GPU"
        return cell

    # The kinds of blockers(); the Tests column of `make status` shows those IN_TABLE.
    NOT_RUN = "not run"
    CRASHED = "crashed"
    STALE = "stale"
    SELECTION = "selection"
    FAILING = "failing"
    NO_GPU = "no GPU"
    IN_TABLE = {NOT_RUN, FAILING}

    def blockers(self) -> list[tuple[str, str]]:
        """Why the chapter does not count as passed, most pressing first: (kind, sentence)."""
        r, name = self.results, self.chapter.name
        if r is None:
            return [(self.NOT_RUN, f"its tests have not run yet (make {name} test).")]
        found = []
        if r.state != "finished":
            found.append((self.CRASHED, f"its last test run {r.crash_story()}; the tests after it did not run."))
        if self.stale:
            found.append((self.STALE, f"you changed its files after the last test run: run make {name} test again."))
        if r.selection == "chosen":
            found.append((self.SELECTION, f"the last run was a selection of its tests: run them all with make {name} test."))
        if r.state == "finished" and (r.failed or not r.passed):
            found.append((self.FAILING, f"{r.passed} of {r.total} tests pass in the last run (make {name} test)."))
        if r.gpu_tests == "skipped":
            found.append((self.NO_GPU, "its tests tagged [gpu] did not run (no CUDA device), so it cannot count as passed here."))
        return found


# ---- Building -----------------------------------------------------------------------------


def build(make: str, chapter: Chapter, *targets: str, variables: tuple[str, ...] = ()) -> tuple[bool, str]:
    """Run `make chapterN [targets]`; return whether it succeeded and its output. A build
    that takes more than a second says so on stderr, so a first `make status` on a fresh
    clone is not silent for a minute."""
    command = shlex.split(make) + [chapter.name, *targets, *variables]
    # close_fds=False keeps make's jobserver open to the child under `make -j`.
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, close_fds=False
    )
    try:
        output, _ = process.communicate(timeout=1.0)
    except subprocess.TimeoutExpired:
        what = " ".join([chapter.name, *targets])
        print(f"  ... make {what}", file=sys.stderr, flush=True)
        output, _ = process.communicate()
    return process.returncode == 0, output


# nvcc:  chapters/01-naive-gemm/naive_gemm.cu(18): error: expected a ";"
# g++:   chapters/01-naive-gemm/naive_gemm.cu:18:5: error: expected ';' before '}' token
_COMPILER_ERROR = re.compile(
    r"^(?P<file>[^\s:()][^:()]*?)(?:\((?P<nvcc_line>\d+)\)|:(?P<line>\d+)(?::\d+)?):\s*"
    r"(?:fatal )?error\b:?\s*(?P<message>.*)$"
)


def first_compile_error(log: str, chapter: Chapter) -> str:
    """The compiler's first error as 'file:line: error: message', the first one in the
    student's own files when there is one; failing that, a linker error, or the last line."""
    errors = []
    for line in log.splitlines():
        match = _COMPILER_ERROR.match(line.strip())
        if match:
            where = f"{match['file']}:{match['nvcc_line'] or match['line']}"
            errors.append((match["file"], f"{where}: error: {match['message']}"))
    own = [text for file, text in errors if Path(file).resolve().parent == chapter.student_dir.resolve()]
    if own or errors:
        return (own or [text for _, text in errors])[0]
    missing = re.search(r"undefined reference to (.*)$", log, re.M)
    if missing:
        return (
            f"the link failed: undefined reference to {missing[1]}, which the tests call: "
            f"is it missing or renamed in your file?"
        )
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    failing = [line for line in lines if "error" in line.lower()]
    return (failing or lines or ["the build failed without a message"])[0]
