"""`make grade` on a GPU: a chapter whose graded cases passed is checked further before they
count, as `make chapterN test` does there (issue 23):

1. compute-sanitizer's memcheck and racecheck run its tests again, each sweep on its first
   shapes (tools/tutorial/sanitizer.py, after_tests). A race or an access out of bounds can leave every
   result right on one run of one GPU; the chapter's tests then fail on the next.
2. The CPU backend runs the same small shapes (TUTORIAL_SANITIZER_PASS=1), with its own checks:
   every thread order it tries, every access bounds-checked, divergent barriers, warp
   shuffles whose lanes have exited. Some misuses pass on a GPU under every sanitizer tool.

A finding fails the graded cases of the test case it was found in (when the sanitizer's
whole run reports, each test case is run on its own to say which), with the finding as the
reason: a point is earned only by a kernel that is right, not by one that was lucky. The CPU
backend's run goes through the object check and the judge like the GPU's: it can only take
points away. Findings are written to build/grade/chapterN-further.txt (grading.findings_file),
which grading.py applies.

Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import subprocess
from pathlib import Path

from . import grading, judge, sanitizer
from .judge import reports_of
from .course import Build, Chapter, Progress

# The CPU backend's small shapes: seconds each on the CPU, and the GPU's large tests are left out.
CATCH_FILTER = "~[large]"
# How the CPU backend says it stopped a kernel at its time limit (emu/src/diagnostics.cpp).
CPU_TIME_LIMIT = "so the CPU backend stopped it"
EMU_TIMEOUT_SECONDS = 900


def escape_test_name(name: str) -> str:
    """A test case's name as one Catch2 test spec: its commas, brackets and backslashes escaped
    (a comma would otherwise separate two specs), a leading ~ too."""
    escaped = "".join("\\" + c if c in ",[]\\" else c for c in name)
    return "\\" + escaped if escaped.startswith("~") else escaped


def graded_tests(results: Path) -> list[str]:
    """The test cases that reported graded cases in the GPU's run (the judge's results file:
    what the harness sent on its channel), in the order they ran."""
    names: list[str] = []
    for case in grading.read_cases(results):
        name = case.name.split(" / ", 1)[0]
        if case.kind == grading.GRADED and name not in names:
            names.append(name)
    return names


def sanitizer_findings(binary: Path, results: Path, logs: Path) -> list[tuple[str, str]]:
    """compute-sanitizer's after-tests pass over the whole program, then, when it reports, over
    each test case with graded cases alone."""
    def after_tests(*arguments: str) -> tuple[int, str]:
        found = sanitizer.after_tests(binary, logs, list(arguments), binary.name[:-len("-tests")])
        return found.status, found.record or (found.lines[0] if found.lines else "")

    status, report = after_tests(CATCH_FILTER)
    if status == 0:
        return []
    findings = []
    for name in graded_tests(results):
        status_alone, report_alone = after_tests(escape_test_name(name), CATCH_FILTER)
        if status_alone != 0:
            findings.append((name, first_line(report_alone)))
    # Reported on the whole run only (the tests share state?): every test case loses its points.
    return findings or [("", first_line(report))]


def first_line(report: str) -> str:
    return report.splitlines()[0] if report else "no output"


def cpu_findings(args, chapter: Chapter, folder: Path, check_objects) -> list[tuple[str, str]]:
    """The CPU backend's run of the small shapes (its build made by run()), through the object
    check and the judge. A graded case that fails there takes its test case's points; a build
    that failed there (a feature the CPU backend lacks) takes none, and is named."""
    emu, emu_solutions = Build("emu", args.tree), Build("emu", "solutions")
    program = emu.bin / f"{chapter.name}-tests"
    build_log = folder / "cpu-build.log"
    # Built now from the files graded: each object newer than its file, the program newer than each.
    fresh = program.exists() and all(
        o.exists() and o.stat().st_mtime_ns >= f.stat().st_mtime_ns and program.stat().st_mtime_ns >= o.stat().st_mtime_ns
        for o, f in zip(emu.kernels(chapter), emu.kernel_sources(chapter)))
    if not fresh:
        return [("?", f"the CPU backend's checks could not run: its build failed (see {build_log}); no points taken")]
    cpu_folder = folder / "cpu"
    checked_sha256 = judge.sha256_of(program)
    check_objects(argparse.Namespace(**{**vars(args), "backend": "emu", "no_baseline": True}),
                  chapter, emu, emu_solutions, cpu_folder)
    refusals = grading.refusals_of(cpu_folder, chapter)
    if refusals is None or refusals:
        return [("", "the object check refuses the CPU backend's build of your files: " +
                 (refusals[0] if refusals else "it did not run"))]
    results, log = cpu_folder / f"{chapter.name}.results", cpu_folder / f"{chapter.name}-test.log"
    judge.run(program, results, log, EMU_TIMEOUT_SECONDS, [CATCH_FILTER], {"TUTORIAL_SANITIZER_PASS": "1"},
              checked_sha256=checked_sha256, confine_in=Path.cwd() if args.tree == "chapters" else None)
    if judge.read_facts(results).get("changed_after_check"):
        return [("", f"the CPU backend's test program changed after the object check passed it (see {log})")]
    cases = grading.read_cases(results)
    if not cases:
        return [("", f"the CPU backend's run of the first shapes reported no result (see {log})")]
    findings: dict[str, str] = {}
    for case in cases:
        if case.kind == grading.GRADED and not case.passed:
            findings.setdefault(family_of(case.name), "the CPU backend's checks, on the first shapes: " +
                                (case.output.splitlines()[0] if case.output else case.name))
    return sorted(findings.items())


def family_of(case_name: str) -> str:
    """The cases a failing case speaks for: those of the same step of the same test case when
    the sweep names its step before a comma ("TEST / register_tiled_gemm_vectorized, M=1 ..."
    speaks for "TEST / register_tiled_gemm_vectorized, "), else the case alone. Where one test
    case tries several steps, a mistake in one step then takes only that step's points."""
    test, _, label = case_name.partition(" / ")
    step, comma, _ = label.partition(", ")
    return f"{test} / {step}, " if comma else case_name


def run(args, chapters: list[Chapter], build: Build, folder: Path, make, check_objects) -> None:
    """Check further every chapter of @p chapters with a passing graded case; write its findings.
    @p make and @p check_objects are the verbs' (tools/tutorial/verbs.py, which calls this)."""
    passing = [c for c in chapters if any(case.passed and case.kind == grading.GRADED
                                          for case in grading.read_cases(folder / f"{c.name}.results"))]
    for chapter in chapters:
        grading.findings_file(folder, chapter).unlink(missing_ok=True)
    if not passing:
        return
    print(f"Checking further what passed on the GPU ({', '.join(c.name for c in passing)}): compute-sanitizer, "
          "then the CPU backend, on the first shapes of each test...", flush=True)
    (folder / "cpu").mkdir(parents=True, exist_ok=True)
    # One make for every chapter's CPU build: side by side, they would build the same files.
    make("-k", "BACKEND=emu", *(c.name for c in passing), log=folder / "cpu-build.log",
         hide_solutions=args.tree == "chapters")

    def check(chapter: Chapter) -> None:
        logs = folder / f"{chapter.name}-sanitizer"
        on_gpu = sanitizer_findings(build.bin / f"{chapter.name}-tests", folder / f"{chapter.name}.results", logs)
        on_cpu = cpu_findings(args, chapter, folder, check_objects)
        # The CPU backend names the step and the shape; the sanitizer only the test case. Its
        # finding takes a whole test case's points only where the CPU backend found nothing.
        seen_on_cpu = {scope.split(" / ", 1)[0] for scope, _ in on_cpu if scope not in ("", "?")}
        if any(scope == "" for scope, _ in on_cpu):
            seen_on_cpu = None
        found = on_cpu + [(scope, reason) for scope, reason in on_gpu
                          if seen_on_cpu is not None and (scope == "" and not seen_on_cpu or scope and scope not in seen_on_cpu)]
        grading.findings_file(folder, chapter).write_text("".join(f"{scope}\t{reason}\n" for scope, reason in found))

    with concurrent.futures.ThreadPoolExecutor(max_workers=min(4, len(passing))) as pool:
        list(pool.map(check, passing))


# ---- make status on a GPU -----------------------------------------------------------------------


def status_checks(chapters: list[Chapter], make, logs: Path) -> None:
    """Before `make status` calls a chapter done on a GPU: the CPU backend's checks on its
    first shapes, once per test run (the results file records that they ran). A finding goes
    into the GPU run's results file as its `further=` line, which keeps the chapter from done;
    a CPU build that fails (a feature the CPU backend lacks) takes nothing away."""
    to_check = []
    for chapter in chapters:
        progress = Progress.of(chapter)
        if progress.passed and progress.results.backend == "cuda" and not progress.results.checked_on_cpu:
            to_check.append((chapter, progress.results))
    if not to_check:
        return
    print(f"Checking {', '.join(c.name for c, _ in to_check)} on the CPU backend too (its first shapes, once "
          "after each passing run on the GPU)...", flush=True)
    logs.mkdir(parents=True, exist_ok=True)
    make("-k", "BACKEND=emu", *(c.name for c, _ in to_check), log=logs / "cpu-checks-build.log")
    for chapter, results in to_check:
        program = Build("emu", "chapters").bin / f"{chapter.name}-tests"
        cpu_results = logs / f"{chapter.name}-cpu.results"
        cpu_results.unlink(missing_ok=True)
        finding = ""
        if program.exists():
            try:
                with open(logs / f"{chapter.name}-cpu.log", "w") as log:
                    status = subprocess.run([str(program), CATCH_FILTER], stdout=log, stderr=subprocess.STDOUT,
                                            env={**os.environ, "TUTORIAL_SANITIZER_PASS": "1",
                                                 "TUTORIAL_RESULTS_FILE": str(cpu_results)},
                                            timeout=EMU_TIMEOUT_SECONDS).returncode
            except subprocess.TimeoutExpired:
                status = None
                finding = f"the CPU backend's checks did not finish within {EMU_TIMEOUT_SECONDS} s"
            if status:
                failed = [c for c in grading.read_cases(cpu_results) if not c.passed]
                finding = ("the CPU backend's checks fail on its first shapes: " +
                           (failed[0].output.splitlines()[0] if failed and failed[0].output else
                            f"see {logs / (chapter.name + '-cpu.log')}"))
        record_cpu_check(results.path, finding)


def record_cpu_check(results: Path, finding: str | int) -> None:
    """Note in a GPU run's results file that the CPU backend's checks ran after it, and what
    they found (a `further=` line, which keeps make status from calling the chapter done):
    @p finding, or for a status 1 the CPU backend's failure in general, 0 or "" nothing."""
    if not results.exists():
        return
    if finding == 1:
        finding = "the CPU backend's checks fail on its first shapes (make test BACKEND=emu shows why)"
    time = results.stat().st_mtime
    with open(results, "a") as out:
        out.write(("further=" + str(finding).replace("\n", " ") + "\n" if finding else "") + "checked_on_cpu=yes\n")
    os.utime(results, (time, time))  # still the time of the run it speaks of


# ---- make chapterN test on a GPU, when it fails -------------------------------------------------

# The most lines of the CPU backend's report shown under a GPU's failing run: the screen holds
# the GPU's report too.
CPU_REPORT_LINES = 30


def failing_tests(results: Path) -> list[str]:
    """The test cases with a failing case in a run's results file, in the order they ran."""
    names: list[str] = []
    for case in grading.read_cases(results):
        name = case.name.split(" / ", 1)[0]
        if not case.passed and name not in names:
            names.append(name)
    return names


def failing_shapes(results: Path) -> list[str]:
    """The labels of a run's failing shapes (a case's name after its test case's): the CPU
    backend's run includes them past its first shapes (TUTORIAL_SHAPES, harness/sweep.h)."""
    return [case.name.split(" / ", 1)[1] for case in grading.read_cases(results)
            if not case.passed and " / " in case.name]


def gpu_words(output: str) -> str:
    """The start of a failing case's message in a results file ("file:line: EXPR with expansion
    X; MESSAGE" or "file:line: MESSAGE"), enough to know the same message again: its first 50
    characters, the place and any expression left out."""
    line = re.sub(r"^\S+:\d+: ", "", output.splitlines()[0])
    if " with expansion " in line and "; " in line:
        line = line.split("; ", 1)[1]
    return line[:50]


def telling_report(output: str, said_on_gpu: list[str]) -> list[str]:
    """The CPU backend's report that adds most to the GPU's: the first where it names what it
    found (a race, an access out of bounds, a read before a wait); else the first that is
    neither a step not begun (nothing written, as the GPU says too) nor one whose failure
    the GPU's run gave word for word (@p said_on_gpu: its failing cases' first lines, such as a
    launch configuration's check, which runs on the host). Empty when none adds anything."""
    reports = reports_of(output)
    found = [r for r in reports if any("the CPU backend found" in line for line in r)]
    if found:
        return found[0]
    words = lambda lines: " ".join(" ".join(lines).split())
    for report in reports:
        text = words(report)
        if "In every shape, every element of" in text:
            continue
        if any(line and words([line]) in text for line in said_on_gpu):
            continue
        return report
    return []


def report_window(report: list[str], count: int) -> list[str]:
    """The lines of @p report to show, at most @p count: its first ones, or, when the CPU
    backend's finding ("the CPU backend found") begins past them, the report's first two lines
    (where it failed), a "..." and the lines from just before the finding on: the finding is
    what the GPU's report lacks, and a sweep's summary of wrong elements above it says what the
    GPU's said already."""
    if len(report) <= count:
        return report
    at = next((i for i, line in enumerate(report) if "the CPU backend found" in line), None)
    if at is None or at + 3 <= count:
        return report[:count]
    start = max(2, at - 2)
    return report[:2] + ["..."] + report[start:start + count - 3]


def cpu_diagnosis(args, make, binary: Path, results: Path | None, lines: int | None = None,
                  after_pass: bool = False) -> int:
    """`make chapterN test` on a GPU, after its tests (or compute-sanitizer's pass after them)
    failed: the same tests on the CPU backend's checks, on their first shapes (every thread order
    it tries, every access bounds-checked), and its report, marked as the CPU backend's, when it
    finds something. It only adds to the GPU's report, and a chapter the CPU backend cannot
    build or run is one line. @p make is the verbs' (tools/tutorial/verbs.py): one more make,
    for the other backend's build. @p results: the GPU run's results file, whose failing tests
    are run (None: all the tests). @p lines: the most lines to print, what the screen has left
    (tools/tutorial/test_run.py); None: no limit. @p after_pass: the GPU's tests and the
    sanitizer passed, and this is the check `make status` and `make grade` make there too (a
    warp-synchronous call that not all its lanes reach passes on a GPU under every sanitizer
    tool). Returns 1 when the CPU backend's run fails, else 0."""
    chapter_name = binary.name[:-len("-tests")] if binary.name.endswith("-tests") else ""
    if not chapter_name.startswith("chapter"):
        return 0
    tests = failing_tests(results) if results else []
    failed_on_gpu = [case for case in grading.read_cases(results) if not case.passed] if results else []
    first_build = not (Path("build") / "emu" / "libcommon.a").exists()
    print(f"The CPU backend's checks on {'the failing tests' if tests else 'the tests'} (their first shapes"
          f"{' and those that failed' if tests else ''}), " +
          ("as make status and make grade check a passing run" if after_pass else "for the cause") +
          (" (its first build here takes a few minutes)" if first_build else "") + "...", flush=True)
    logs = Path("build") / "emu" / "cpu-diagnosis"
    logs.mkdir(parents=True, exist_ok=True)
    build_log, run_log = logs / f"{chapter_name}-build.log", logs / f"{chapter_name}-test.log"
    settings = ["BACKEND=emu"] + (["SOLUTIONS=1"] if args.tree == "solutions" else [])
    program = Build("emu", args.tree).bin / f"{chapter_name}-tests"
    if make(chapter_name, *settings, log=build_log) != 0 or not program.exists():
        print(f"  (the CPU backend could not build {chapter_name}: {build_log} says why)")
        return 0
    spec = ",".join(escape_test_name(name) for name in tests) if tests else CATCH_FILTER
    # The first shapes of each sweep, and the shapes that failed on the GPU past them.
    shapes = "\n".join(failing_shapes(results)) if results else ""

    def run_tests(spec: str, shapes: str):
        return subprocess.run([str(program), spec], capture_output=True, text=True, timeout=EMU_TIMEOUT_SECONDS,
                              env={**os.environ, "TUTORIAL_SANITIZER_PASS": "1", "TUTORIAL_RESULTS_FILE": "",
                                   "TUTORIAL_SHAPES": shapes})
    try:
        run = run_tests(spec, shapes)
        if (tests and CPU_TIME_LIMIT in " ".join(run.stdout.split()) and
                not any("time limit" in case.output for case in failed_on_gpu)):
            # The GPU's large tests: shapes the CPU backend cannot run within its time limit,
            # which it would report as a kernel that never ends. The chapter's other tests,
            # on their first shapes, instead.
            print("  (on the failing tests' shapes the CPU backend ran past its time limit, where the GPU did not: "
                  "they are too large for it; it runs the chapter's other tests, their first shapes)", flush=True)
            shapes = ""
            run = run_tests(CATCH_FILTER, shapes)
    except subprocess.TimeoutExpired:
        print(f"  (the CPU backend's run did not finish within {EMU_TIMEOUT_SECONDS} s)")
        return 0
    run_log.write_text(run.stdout + run.stderr)
    if run.returncode == 0 and after_pass:
        print("  clean.")
        return 0
    if run.returncode == 0:
        print("  They pass there: what fails on the GPU does not show on the CPU backend's run of "
              + ("its first shapes and the failing ones (a race its thread orders did not hit, or a limit of the GPU's)."
                 if shapes else "their first shapes (a race its thread orders did not hit, a shape past them, or a "
                                "limit of the GPU's)."))
        return 0
    said_on_gpu = [gpu_words(case.output) for case in failed_on_gpu if case.output]
    report = telling_report(run.stdout, said_on_gpu)
    if not report:
        print(f"  They fail there too, and its reports add nothing to the GPU's (the whole run: {run_log}).")
        return 1
    print("On the CPU backend (BACKEND=emu) they fail, though they pass on the GPU; its report:" if after_pass else
          "On the CPU backend (BACKEND=emu) they fail too; its report:")
    # Its first line, the report's and the last: what is left of the screen, and at least a few lines.
    shown = report_window(report, CPU_REPORT_LINES if lines is None else max(6, min(CPU_REPORT_LINES, lines - 3)))
    for line in shown:
        print("  | " + line)
    more = len(report) - sum(1 for line in shown if line != "...")
    more_lines = f", {more} line{'s' if more > 1 else ''} more" if more > 0 else ""
    print(f"  (the CPU backend's report{more_lines}, and the others: {run_log}; "
          f"make {chapter_name} test BACKEND=emu runs it all)")
    return 1
