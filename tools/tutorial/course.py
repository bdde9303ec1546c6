"""The course as every tool sees it: the chapters, their files, the build's layout.

- The chapters come from chapters/registry, read here and nowhere else in Python.
- A chapter is its folder chapters/NN-name/ (lesson, hints, API, the student's .cu
  files, tests, bench, demo, CPU reference) and its solution solutions/NN-name/.
- The build puts each backend and tree in build/BACKEND/TREE/, its programs in bin/, and
  each object where its source is, under build/BACKEND/: the Makefile says so, and Build
  asks it (make print-build) rather than knowing it.
- The results that the last `make chapterN test` left beside the test binary
  (harness/results_file.cpp writes them), and what they mean for progress.

Python 3 standard library only.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import subprocess
from pathlib import Path

from . import skeleton

ROOT = Path(__file__).resolve().parent.parent.parent
REGISTRY = Path("chapters/registry")


class Refusal(Exception):
    """A request a tool cannot carry out; its message says why and what to do."""


@dataclasses.dataclass(frozen=True)
class Chapter:
    """One line of chapters/registry."""

    number: str
    folder: str
    title: str
    # The chapters whose reference solutions its benchmark times (borrows=N,M).
    borrows: tuple[str, ...] = ()
    # Whether its code asks the occupancy API (occupancy=yes): make keeps ptxas' report of
    # its .cu files for the CPU backend.
    occupancy: bool = False
    # Whether the exercise's host code asks for a driver function by name (driver=yes): the
    # object check lets its objects call cudaGetDriverEntryPointByVersion.
    driver: bool = False

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

    @property
    def hints_file(self) -> Path:
        return self.student_dir / "hints.md"

    def solution_files(self) -> list[Path]:
        return sorted(self.solution_dir.glob("*.cu"))

    def student_files(self) -> list[Path]:
        """The files the student edits: one per solution file (which may be missing), or,
        in a copy without solutions/, the .cu files there are."""
        solutions = self.solution_files()
        if solutions:
            return [self.student_dir / p.name for p in solutions]
        return sorted(self.student_dir.glob("*.cu"))

    def skeleton_of(self, student_file: Path) -> str:
        """The skeleton of one student file, generated from its solution."""
        return skeleton.skeleton_of(self.solution_dir / student_file.name, self.number)


def read_registry(path: Path = REGISTRY) -> list[Chapter]:
    """The chapters of chapters/registry, in the course's order."""
    chapters = []
    for number, line in enumerate((ROOT / path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split()
        if len(fields) < 3 or not fields[0].isdigit():
            raise Refusal(f"{path}:{number}: expected 'number folder [key=value ...] title', got: {line}")
        settings = {}
        while len(fields) > 3 and "=" in fields[2]:
            key, value = fields.pop(2).split("=", 1)
            settings[key] = value
        unknown = set(settings) - {"borrows", "occupancy", "driver"}
        if unknown:
            raise Refusal(f"{path}:{number}: unknown setting {sorted(unknown)[0]}= (the known ones are borrows=, "
                          "occupancy= and driver=)")
        for key in ("occupancy", "driver"):
            if settings.get(key, "no") not in ("yes", "no"):
                raise Refusal(f"{path}:{number}: {key}={settings[key]}: it is yes or no")
        borrows = tuple(n for n in settings.get("borrows", "").split(",") if n)
        chapters.append(Chapter(fields[0], fields[1], " ".join(fields[2:]), borrows, settings.get("occupancy") == "yes",
                                settings.get("driver") == "yes"))
    if not chapters:
        raise Refusal(f"{path} lists no chapters")
    return chapters


def find(chapters: list[Chapter], numbers: list[str], verb: str) -> Chapter:
    """The one chapter a verb such as `make chapter2 hint` names."""
    if len(numbers) != 1:
        raise Refusal(f"Name one chapter, for example: make chapter1 {verb}")
    for chapter in chapters:
        if chapter.number == numbers[0]:
            return chapter
    raise Refusal(f"There is no chapter{numbers[0]}.")


def bin_dir(backend: str, tree: str) -> Path:
    return Build(backend, tree).bin


@functools.cache
def _build_model(backend: str, tree: str) -> dict[str, list[Path]]:
    """What `make print-build` says of every chapter's programs for @p backend and @p tree:
    {"bin": [dir], "chapterN GROUP": [path, ...]}. Asked with the calling make's settings
    left out, so that its SOLUTIONS=1 or BACKEND=... cannot answer for another build."""
    environment = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    answer = subprocess.run(["make", "-s", "print-build", f"BACKEND={backend}", f"SOLUTIONS={int(tree == 'solutions')}"],
                            cwd=ROOT, env=environment, capture_output=True, text=True)
    if answer.returncode != 0:
        raise Refusal(f"make print-build BACKEND={backend} could not say where the build puts its files:\n"
                      + (answer.stderr or answer.stdout).strip())
    model: dict[str, list[Path]] = {}
    for line in answer.stdout.splitlines():
        words = line.split()
        if words and words[0] == "bin":
            model["bin"] = [Path(w) for w in words[1:]]
        elif len(words) >= 2:
            model[f"{words[0]} {words[1]}"] = [Path(w) for w in words[2:]]
    return model


@dataclasses.dataclass(frozen=True)
class Build:
    """What make builds for one backend and tree, and where: the Makefile's rules are the one
    model, and this asks it (`make print-build`) rather than repeating them."""

    backend: str
    tree: str

    def _group(self, chapter: "Chapter | None", group: str) -> list[Path]:
        key = group if chapter is None else f"{chapter.name} {group}"
        try:
            return _build_model(self.backend, self.tree)[key]
        except KeyError:
            raise Refusal(f"make print-build BACKEND={self.backend} says nothing of {key}") from None

    @property
    def bin(self) -> Path:
        return self._group(None, "bin")[0]

    def kernel_sources(self, chapter: "Chapter") -> list[Path]:
        """The student's .cu files (or, in the solutions' tree, the solution's)."""
        return self._group(chapter, "kernel_sources")

    def kernels(self, chapter: "Chapter") -> list[Path]:
        """The objects of kernel_sources(), in the same order."""
        return self._group(chapter, "kernels")

    def program_parts(self, chapter: "Chapter") -> list[Path]:
        """The test program's own objects: its test.cpp and the harness."""
        return self._group(chapter, "program_parts")

    def callable_parts(self, chapter: "Chapter") -> list[Path]:
        """What the kernels may call: the chapter's CPU reference and the shared libraries."""
        return self._group(chapter, "callable_parts")

    def backend_parts(self, chapter: "Chapter") -> list[Path]:
        """The floor every program stands on (gpu_model/) and, on the CPU, the backend's runtime."""
        return self._group(chapter, "backend_parts")


BACKENDS = ("cuda", "emu")


# ---- Hints --------------------------------------------------------------------------------


def read_hints(chapter: Chapter) -> list[str]:
    """The items of the numbered list in the chapter's hints.md, each as its lines."""
    try:
        text = chapter.hints_file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    hints: list[list[str]] = []
    indent = 0  # of the item's text, which its continuation lines share
    for line in text.splitlines():
        item = re.match(r"^\d+\.\s+", line)
        if item:
            indent = item.end()
            hints.append([line[indent:]])
        elif hints and (line.startswith((" ", "\t")) or not line.strip()):
            hints[-1].append(line[indent:] if line[:indent].isspace() else line.strip())
        elif hints:
            break  # a paragraph after the list ends it
    return ["\n".join(lines).strip() for lines in hints]


# ---- The student's files ------------------------------------------------------------------


def files_state(chapter: Chapter) -> str:
    """'not started' (every file is the skeleton), 'in progress', 'file missing', or
    'unknown' when there is no solution to make the skeleton from."""
    files = chapter.student_files()
    if not chapter.solution_files():
        return "unknown"
    if any(not f.exists() for f in files):
        return "file missing"
    if all(f.read_text(encoding="utf-8") == chapter.skeleton_of(f) for f in files):
        return "not started"
    return "in progress"


# ---- Cached test results -------------------------------------------------------------------


@dataclasses.dataclass
class Results:
    """What the last run of a chapter's tests left in its results file."""

    path: Path
    backend: str
    state: str  # 'finished'; 'crashed' (a signal), or 'running' left by a run that died
    passed: int  # test cases, the [extra] ones included
    failed: int
    gpu_tests: str  # 'run' or 'skipped'
    selection: str  # 'all' or 'chosen'
    current: str  # the test case that was running when the run stopped
    crash: str  # what stopped it, when Catch2 knew
    extra_passed: int = 0  # of passed and failed, the test cases tagged [extra]: optional
    extra_failed: int = 0  # steps, which a chapter counts as done without
    further: str = ""  # on a GPU, compute-sanitizer's pass after the tests: "clean", or what it found
    checked_on_cpu: bool = False  # on a GPU, make status ran the CPU backend's checks after this run

    def crash_story(self) -> str:
        """'crashed (SIGSEGV ...) in the test 'name'', for a run that did not finish."""
        what = f" ({self.crash})" if self.crash else ""
        where = f" in the test '{self.current}'" if self.current else ""
        return f"crashed{what}{where}"

    @property
    def total(self) -> int:
        return self.passed + self.failed

    @property
    def required_passed(self) -> int:
        """Test cases that passed, leaving out the [extra] ones."""
        return self.passed - self.extra_passed

    @property
    def required_failed(self) -> int:
        return self.failed - self.extra_failed

    @property
    def required_total(self) -> int:
        return self.required_passed + self.required_failed

    @property
    def extra_total(self) -> int:
        return self.extra_passed + self.extra_failed

    def extra_note(self) -> str:
        """'extra steps: 3 of 4 tests pass', or '' for a chapter without [extra] tests."""
        if not self.extra_total:
            return ""
        return f"extra steps: {self.extra_passed} of {self.extra_total} tests pass"

    @property
    def time(self) -> float:
        return self.path.stat().st_mtime


def read_results(path: Path, backend: str) -> Results | None:
    try:
        fields = dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
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
        extra_passed=int(fields.get("extra_passed", 0)),
        extra_failed=int(fields.get("extra_failed", 0)),
        further=fields.get("further", ""),
        checked_on_cpu=fields.get("checked_on_cpu", "") == "yes",
    )


def results_path(backend: str, tree: str, chapter: Chapter) -> Path:
    return bin_dir(backend, tree) / f"{chapter.name}-tests.results"


def all_results(tree: str, chapter: Chapter) -> list[Results]:
    """The chapter's results from every backend."""
    found = [read_results(results_path(b, tree, chapter), b) for b in BACKENDS]
    return [r for r in found if r is not None]


def latest_results(tree: str, chapter: Chapter) -> Results | None:
    return max(all_results(tree, chapter), key=lambda r: r.time, default=None)


@dataclasses.dataclass
class Progress:
    """Where a chapter stands: its files, its last test results, and what they mean."""

    chapter: Chapter
    files: str
    results: Results | None
    stale: bool  # the student's files changed after those results

    @classmethod
    def of(cls, chapter: Chapter, tree: str = "chapters"):
        results = latest_results(tree, chapter)
        stale = False
        if results is not None:
            times = [f.stat().st_mtime for f in chapter.student_files() if f.exists()]
            stale = any(t > results.time for t in times)
        return cls(chapter, files_state(chapter), results, stale)

    def _every_test_run_passed(self) -> bool:
        """The last run tested the current files, ran every test it could, and they passed."""
        r = self.results
        return (
            r is not None
            and not self.stale
            and r.state == "finished"
            and r.selection == "all"
            and r.required_failed == 0
            and r.required_passed > 0
            and r.further in ("", "clean")
        )

    @property
    def passed(self) -> bool:
        """Done, as rustlings means it: every test of the chapter passes on the current files,
        except those tagged [extra] (optional steps)."""
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
        cell = f"{r.required_passed}/{r.required_total}"
        extra = f", extra {r.extra_passed}/{r.extra_total}" if r.extra_total else ""
        if self.passed:
            return cell + " passed" + extra
        if self.stale:
            return cell + " (stale)"
        if r.selection == "chosen":
            return cell + " (some)"
        if r.gpu_tests == "skipped":
            return cell + extra + ", no GPU"
        if r.further not in ("", "clean"):
            return cell + extra + (", sanitizer" if r.further.startswith("compute-sanitizer") else ", CPU checks")
        return cell + extra

    # The kinds of blockers(); the Tests column of `make status` shows those IN_TABLE.
    NOT_RUN = "not run"
    CRASHED = "crashed"
    STALE = "stale"
    SELECTION = "selection"
    FAILING = "failing"
    NO_GPU = "no GPU"
    FURTHER = "further"  # on a GPU: compute-sanitizer's pass or the CPU backend's checks found something
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
        if r.state == "finished" and (r.required_failed or not r.required_passed):
            extra = " (not counting its extra steps)" if r.extra_total else ""
            found.append((self.FAILING, f"{r.required_passed} of {r.required_total} tests pass in the last run{extra} "
                                        f"(make {name} test)."))
        if r.gpu_tests == "skipped":
            found.append((self.NO_GPU, "its tests tagged [gpu] did not run (no CUDA device), so it cannot count as passed here."))
        if r.further not in ("", "clean"):
            found.append((self.FURTHER, f"its tests pass, but then {r.further}: make {name} test shows the report."))
        return found


# ---- Build logs ---------------------------------------------------------------------------------

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


@dataclasses.dataclass
class BuildOutcome:
    """What `make status` and `make grade` left of one chapter's build: did it succeed,
    and its log (verbs.build_each writes both)."""

    builds: bool
    log: str

    @classmethod
    def read(cls, folder: Path, chapter: Chapter) -> "BuildOutcome":
        try:
            status = (folder / f"{chapter.name}-build.status").read_text().strip()
            log = (folder / f"{chapter.name}-build.log").read_text(errors="replace")
        except FileNotFoundError:
            return cls(False, f"no build log in {folder}: the build did not run")
        return cls(status == "0", log)
