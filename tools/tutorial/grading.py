"""`make grade`: scores, and the reports that CI systems and Gradescope read.

make builds each chapter and runs its tests (with TUTORIAL_RESULTS_FILE set); this module
only reads what that left: the build's log and status, and the results file, whose
`case=` lines (harness/results_file.cpp) give each case's outcome.

How a chapter is scored (docs/instructors.md says the same for instructors):
- A case is one run of a test case: one shape, one image, one signal, one path through
  its sections. Each case of a test case tagged [graded] is worth one point.
- The other test cases are counted apart and score nothing: argument checks and checks
  on failed launches, which the provided host code already passes, and the [reference]
  tests of the CPU references. An untouched skeleton therefore scores 0.
- A chapter's percentage is its points over its cases, rounded to the nearest integer;
  a chapter that does not build, whose run crashed, or whose [gpu] tests could not run,
  scores 0, with the reason in its notes.
- Only what the harness reported over the grading channel counts (tools/tutorial/judge.py),
  after the object check passed (tools/tutorial/guard.py): a chapter whose objects were
  refused, whose run ended before the harness reported its end, or whose channel carried
  anything else, scores 0 with the reason. The judge believes only a clean ending: one
  report of the run's end with nothing after it, and exit status 0 when that report has no
  failure. Its cases are those of the solution's run: a case the student's run did not
  report counts as failed, and a passed case that the solution's run does not have voids
  the run.
- Overall, every chapter weighs the same: the overall percentage is the mean of the
  chapters' (unrounded) shares. In results.json the chapters share 100 points equally,
  each of a chapter's cases worth an equal part of its share, so that Gradescope's total
  is the overall percentage.

Written to the grade folder (build/grade/): chapterN.xml and chapterN.json per chapter,
junit.xml and results.json for all the chapters graded, and summary.txt (the table).
"""

from __future__ import annotations

import collections
import dataclasses
import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from . import judge
from .course import BuildOutcome, Chapter, first_compile_error, read_results
from .workflow import table

# What the results file's kinds mean for the score.
GRADED, CHECK, REFERENCE, EXTRA = "graded", "check", "reference", "extra"

# Gradescope's values for a test's visibility; see docs/instructors.md.
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
# The CPU backend's line for a crash of host code that read or wrote device memory, which is
# closed to host code there as on a GPU: the grade's note quotes it.
HOST_TOUCHED_DEVICE_MEMORY = re.compile(r"^host code (read|wrote) device memory at \S+, \d+ bytes into a cudaMalloc "
                                        r"buffer of \d+ bytes", re.M)


def percent(share: float) -> int:
    """A share from 0 to 1 as a percentage rounded to the nearest integer, halves up
    (Python's round() would make 0.5% 0% and 2.5% 2%)."""
    return math.floor(100 * share + 0.5)


@dataclasses.dataclass
class Case:
    """One run of one test case, as the results file records it."""

    passed: bool
    kind: str  # GRADED, CHECK, REFERENCE or EXTRA (a going-further step: reported, not scored)
    name: str
    output: str  # the first failure, or "" when it passed


def read_cases(path: Path) -> list[Case]:
    cases = []
    try:
        lines = path.read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return []
    for line in lines:
        if not line.startswith("case="):
            continue
        fields = line[len("case="):].split("\t")
        fields += [""] * (4 - len(fields))
        outcome, kind, name, output = fields[:4]
        cases.append(Case(outcome == "passed", kind, name, output.replace("\\n", "\n")))
    return cases


@dataclasses.dataclass
class ChapterGrade:
    """A chapter's score and why: its graded cases, the cases counted apart, and, when it
    scores 0 whatever its cases say, the reason (blocker) and the details (log)."""

    chapter: Chapter
    cases: list[Case]
    blocker: str = ""  # why the chapter scores 0 whatever its cases; "" when none
    details: str = ""  # the build or test log that explains the blocker
    run_state: str = "finished"
    unreported: int = 0  # graded cases of the solution's run that this run did not report
    unchecked: bool = False  # no solution's run to count the cases against
    further_taken: int = 0  # graded cases that passed on the GPU and failed the further checks
    further_notes: list[str] = dataclasses.field(default_factory=list)  # further checks that could not run

    @property
    def graded(self) -> list[Case]:
        return [c for c in self.cases if c.kind == GRADED]

    @property
    def apart(self) -> list[Case]:
        return [c for c in self.cases if c.kind != GRADED]

    @property
    def points(self) -> int:
        return 0 if self.blocker else sum(c.passed for c in self.graded)

    @property
    def share(self) -> float:
        """Points over cases, from 0 to 1."""
        return self.points / len(self.graded) if self.graded else 0.0

    @property
    def percent(self) -> int:
        return percent(self.share)

    def points_cell(self) -> str:
        if not self.cases and self.blocker:
            return "0/-"
        if self.run_state != "finished":
            return f"{sum(c.passed for c in self.graded)}/?"
        return f"{self.points}/{len(self.graded)}"

    def notes(self) -> str:
        notes = [self.blocker] if self.blocker else []
        checks = [c for c in self.apart if c.kind != EXTRA]
        failing = [c for c in checks if not c.passed]
        if failing and not self.blocker:
            notes.append(f"{len(failing)} of {len(checks)} unscored checks fail")
        extra = [c for c in self.apart if c.kind == EXTRA]
        if extra and not self.blocker:
            notes.append(f"extra steps: {sum(c.passed for c in extra)} of {len(extra)} cases pass (not counted)")
        if self.cases and not self.graded and not self.blocker:
            notes.append("no test is tagged [graded]")
        if self.unreported and not self.blocker:
            notes.append(f"{self.unreported} graded cases were not reported by the run and count as failed")
        if self.unchecked and not self.blocker:
            notes.append("number of cases not checked: no solution's run (solutions/ is missing or failed)")
        if self.further_taken and not self.blocker:
            notes.append(f"{self.further_taken} graded cases that passed on the GPU fail the further checks "
                         f"(compute-sanitizer, the CPU backend): {self.chapter.name}-further.txt says why")
        notes.extend(self.further_notes)
        return "; ".join(notes)


def findings_file(folder: Path, chapter: Chapter) -> Path:
    """What the further checks on a GPU found (tools/tutorial/further_checks.py): "SCOPE<tab>REASON"
    a line. SCOPE is a test case's name (all its cases), the start of the names of the cases it
    speaks for ("TEST / STEP, "), a case's name, "" for every case, or "?" for a check that
    could not run (a note, no points taken)."""
    return folder / f"{chapter.name}-further.txt"


def read_findings(folder: Path, chapter: Chapter) -> list[tuple[str, str]]:
    try:
        lines = findings_file(folder, chapter).read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return []
    return [tuple(line.split("\t", 1)) for line in lines if "\t" in line]


def _apply_findings(grade: ChapterGrade, folder: Path) -> ChapterGrade:
    """A graded case that passed on the GPU fails when the further checks found a problem in
    its test case: its output is the finding."""
    findings = read_findings(folder, grade.chapter)
    taken = 0
    for case in grade.cases:
        if case.kind != GRADED or not case.passed:
            continue
        test = case.name.split(" / ", 1)[0]
        reason = next((r for scope, r in findings
                       if scope != "?" and (scope == "" or scope == test or case.name.startswith(scope))), None)
        if reason is not None:
            case.passed, case.output = False, reason
            taken += 1
    grade.further_taken = taken
    grade.further_notes = [r for t, r in findings if t == "?"]
    return grade


def refusals_of(folder: Path, chapter: Chapter) -> list[str] | None:
    """The object check's findings (tools/tutorial/guard.py), or None when it did not run."""
    try:
        text = (folder / f"{chapter.name}-guard.txt").read_text(errors="replace")
    except FileNotFoundError:
        return None
    return [line[len("refused: "):] for line in text.splitlines() if line.startswith("refused: ")]


def _how_it_ended(facts: dict) -> str:
    if "signal" in facts:
        return f"killed by {facts['signal']}"
    return f"exit status {facts.get('exit', '?')}"


def grade_chapter(folder: Path, backend: str, tree: str, chapter: Chapter) -> ChapterGrade:
    """Read what make left of one chapter in @p folder and score it: the build, the object
    check, and what the judge kept of the run (only what the harness sent on its channel)."""
    name = chapter.name
    built = BuildOutcome.read(folder, chapter)
    guard_file = folder / f"{name}-guard.txt"
    refusals = refusals_of(folder, chapter)
    # The object check reads the student's objects even when the link failed: a replaced
    # function often makes it fail, and the check names what was replaced.
    if refusals:
        more = f" (and {len(refusals) - 1} more, in {guard_file})" if len(refusals) > 1 else ""
        return ChapterGrade(chapter, [], f"refused, the tests were not run: {refusals[0]}{more}",
                            "\n".join(refusals))
    if not built.builds:
        error = first_compile_error(built.log, chapter)
        return ChapterGrade(chapter, [], f"does not build: {error}", built.log)
    if refusals is None:
        return ChapterGrade(chapter, [], "the object check of your files did not run: counts as 0", "")
    log_file = folder / f"{name}-test.log"
    output = log_file.read_text(errors="replace") if log_file.exists() else ""
    path = folder / f"{name}.results"
    facts = judge.read_facts(path)
    if facts is None:
        return ChapterGrade(chapter, [], f"the tests did not run (see {log_file})", output)
    if facts.get("changed_after_check"):
        return ChapterGrade(chapter, [], f"the test program changed after the object check passed it (see "
                                         f"{log_file}): it was not run; counts as 0", output)
    if int(facts.get("foreign_lines", 0)):
        return ChapterGrade(chapter, [], f"something other than the test harness wrote to the grading channel "
                                         f"({facts['foreign_lines']} lines): the run is void", output)
    endings, after_ending = int(facts.get("endings", 0)), int(facts.get("after_ending", 0))
    if endings > 1 or after_ending:
        return ChapterGrade(chapter, [], f"the harness reports the end of a run once, but the grading channel carried "
                                         f"{endings} {'report' if endings == 1 else 'reports'} of its end and "
                                         f"{after_ending} lines after the first: something other than the harness "
                                         f"reported; the run is void", output)
    if facts.get("timed_out"):
        return ChapterGrade(chapter, [], f"the tests ran past the time limit and were stopped (see {log_file})", output)
    r = read_results(path, backend)
    if r is None:
        return ChapterGrade(chapter, [], f"the test program ended ({_how_it_ended(facts)}) before its harness "
                                         f"reported any result (see {log_file})", output)
    cases = read_cases(path)
    if r.state == "running":
        where = f" during the test '{r.current}'" if r.current else ""
        return ChapterGrade(chapter, cases, f"the test program ended ({_how_it_ended(facts)}){where}, before its "
                                            f"harness reported the end of the run: counts as 0", output, r.state)
    if r.state != "finished":
        # The CPU backend names a crash of host code that touched device memory (emu/src/memory.cpp).
        explained = HOST_TOUCHED_DEVICE_MEMORY.search(output)
        why = f": {explained.group(0)}" if explained else ""
        return ChapterGrade(chapter, cases, f"{r.crash_story()}{why}: counts as 0 (see {log_file})", output, r.state)
    if r.gpu_tests == "skipped":
        return ChapterGrade(
            chapter, cases,
            "GPU tests not run (no CUDA device): counts as 0; grade with BACKEND=emu or on a GPU", output,
        )
    if r.failed == 0 and facts.get("exit") != "0":
        return ChapterGrade(chapter, cases, f"the run reported no failure, but the test program ended with "
                                            f"{_how_it_ended(facts)}, not 0 (the harness exits 0 when nothing "
                                            f"failed): the report is not the harness's; the run is void", output)
    return _apply_findings(_against_expected(ChapterGrade(chapter, cases), folder / f"{name}-expected.results"), folder)


def _against_expected(grade: ChapterGrade, expected_path: Path) -> ChapterGrade:
    """The graded cases that the solution's run reported (the expected ones) are the
    chapter's cases: one the student's run did not report counts as failed, and a run that
    reports more than there are is void. Without the solution's run (no solutions/), the
    run's own count stands, and the notes say so."""
    r = read_results(expected_path, "")
    expected = [c for c in read_cases(expected_path) if c.kind == GRADED] if r and r.state == "finished" else None
    if expected is None:
        grade.unchecked = True
        return grade
    got = grade.graded
    if len(got) > len(expected):
        grade.blocker = (f"the run reported {len(got)} graded cases, but the tests have {len(expected)} "
                         f"(the solution's run): the run is void")
        return grade
    # A passed case must be one of the chapter's cases, each passed at most as often as the
    # solution's run has it. (A failed case of another name scores nothing: a run that
    # stopped early in a test case may name it "#k" where the solution's names it by its
    # shape.)
    registry = collections.Counter(c.name for c in expected)
    passed = collections.Counter(c.name for c in got if c.passed)
    foreign = sorted(name for name, count in passed.items() if count > registry[name])
    if foreign:
        name, more = foreign[0], (f" (and {len(foreign) - 1} more such cases)" if len(foreign) > 1 else "")
        if registry[name]:
            what = (f"the case '{name}' passed {passed[name]} times, but the chapter's cases (the solution's run) "
                    f"have it {registry[name]} {'time' if registry[name] == 1 else 'times'}")
        else:
            what = f"a passed case that is not one of the chapter's cases (the solution's run): '{name}'"
        grade.blocker = f"the run reported {what}{more}: the run is void"
        return grade
    seen = {c.name for c in got}
    missing = [c for c in expected if c.name not in seen][:len(expected) - len(got)]
    missing += [Case(False, GRADED, f"(a case the run did not report, #{i + 1})", "")
                for i in range(len(expected) - len(got) - len(missing))]
    for c in missing:
        grade.cases.append(Case(False, GRADED, c.name, "the run did not report this case: it counts as failed"))
    grade.unreported = len(missing)
    return grade


# ---- JUnit XML ---------------------------------------------------------------------------------


def junit_suite(parent: ET.Element, grade: ChapterGrade) -> None:
    """One <testsuite> per chapter: a <testcase> per case, named with its kind, and one
    <error> test case when the chapter could not be graded (no build, a crash)."""
    name = f"{grade.chapter.name}-tests"
    failures = sum(not c.passed for c in grade.cases)
    errors = 1 if grade.blocker else 0
    suite = ET.SubElement(parent, "testsuite", name=name, tests=str(len(grade.cases) + errors),
                          failures=str(failures), errors=str(errors))
    if grade.blocker:
        case = ET.SubElement(suite, "testcase", classname=name, name=f"{grade.chapter.name} can be graded", time="0")
        ET.SubElement(case, "error", message=grade.blocker, type="error").text = grade.details
    for c in grade.cases:
        label = "" if c.kind == GRADED else f" [{c.kind}, not scored]"
        case = ET.SubElement(suite, "testcase", classname=name, name=c.name + label, time="0")
        if not c.passed:
            ET.SubElement(case, "failure", message=c.output.split("\n", 1)[0], type="failure").text = c.output


def write_junit(path: Path, grades: list[ChapterGrade]) -> None:
    suites = ET.Element("testsuites")
    for grade in grades:
        junit_suite(suites, grade)
    ET.indent(suites)
    ET.ElementTree(suites).write(path, encoding="UTF-8", xml_declaration=True)


# ---- Gradescope's results.json -------------------------------------------------------------------


def gradescope(grades: list[ChapterGrade], visibility: str = "visible", note: str = "") -> dict:
    """Gradescope's results.json for @p grades: the chapters share 100 points."""
    weight = 100 / len(grades) if grades else 0
    tests = []
    for grade in grades:
        title = f"{grade.chapter.name} ({grade.chapter.title})"
        if grade.blocker:
            tests.append({
                "name": f"{title}: can be graded",
                "score": 0,
                "max_score": round(weight, 4),
                "status": "failed",
                "output": f"{grade.blocker}\n\n{grade.details[-4000:]}".strip(),
                "visibility": visibility,
            })
        graded = grade.graded
        for c in graded:
            each = 0 if grade.blocker else weight / len(graded)
            tests.append({
                "name": f"{title}: {c.name}",
                "score": round(each if c.passed else 0, 4),
                "max_score": round(each, 4),
                "status": "passed" if c.passed else "failed",
                "output": c.output or "passed",
                "visibility": visibility,
            })
        for c in grade.apart:
            tests.append({
                "name": f"{title}: {c.name} ({c.kind}, not scored)",
                "score": 0,
                "max_score": 0,
                "status": "passed" if c.passed else "failed",
                "output": c.output or "passed",
                "visibility": visibility,
            })
    score = round(sum(weight * g.share for g in grades), 2)
    summary = "\n".join(f"{g.chapter.name}: {g.points_cell()} cases, {g.percent}%"
                        + (f" ({g.notes()})" if g.notes() else "") for g in grades) + (f"\n{note}" if note else "")
    return {"score": score, "max_score": 100 if grades else 0, "output": summary,
            "visibility": visibility, "tests": tests}


def gradescope_problems(results: dict) -> list[str]:
    """What makes @p results not valid Gradescope results.json (used by make check)."""
    problems = []

    def number(value):
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    if not number(results.get("score")):
        problems.append("score is missing or not a number")
    if "max_score" in results and not number(results["max_score"]):
        problems.append("max_score is not a number")
    if results.get("visibility", "visible") not in VISIBILITIES:
        problems.append(f"visibility {results.get('visibility')!r} is not one of {VISIBILITIES}")
    tests = results.get("tests")
    if not isinstance(tests, list):
        return problems + ["tests is not a list"]
    for i, test in enumerate(tests):
        where = f"tests[{i}]"
        if not isinstance(test, dict):
            problems.append(f"{where} is not an object")
            continue
        if not isinstance(test.get("name"), str) or not test["name"]:
            problems.append(f"{where} has no name")
        if not number(test.get("score")) or not number(test.get("max_score")):
            problems.append(f"{where} ({test.get('name')}): score and max_score must be numbers")
        elif not 0 <= test["score"] <= test["max_score"] + 1e-9:
            problems.append(f"{where} ({test.get('name')}): score {test['score']} is not within 0..{test['max_score']}")
        if not isinstance(test.get("output", ""), str):
            problems.append(f"{where}: output is not a string")
        if test.get("visibility", "visible") not in VISIBILITIES:
            problems.append(f"{where}: visibility {test.get('visibility')!r} is not one of {VISIBILITIES}")
        if test.get("status", "passed") not in ("passed", "failed"):
            problems.append(f"{where}: status {test.get('status')!r} is not passed or failed")
    if not problems and number(results.get("max_score")):
        total = sum(t["max_score"] for t in tests)
        if abs(total - results["max_score"]) > 0.01 * max(1, len(tests)):
            problems.append(f"the tests' max_score add up to {total}, not max_score {results['max_score']}")
        if abs(sum(t["score"] for t in tests) - results["score"]) > 0.01 * max(1, len(tests)):
            problems.append("the tests' scores do not add up to score")
    return problems


def write_json(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


# ---- make grade --------------------------------------------------------------------------------


def grade(args) -> int:
    folder = Path(args.dir)
    chapters = [c for c in args.chapters if not args.numbers or c.number in args.numbers]
    print(f"Graded {args.tree}/ with the {args.backend} backend; reports are in {folder}/.")
    grades = [grade_chapter(folder, args.backend, args.tree, chapter) for chapter in chapters]
    confinement = folder / "confinement.txt"
    where = confinement.read_text().strip() if confinement.is_file() else ""
    note = f"Your code was compiled and its tests ran {where}." if where else ""
    for g in grades:
        write_junit(folder / f"{g.chapter.name}.xml", [g])
        write_json(folder / f"{g.chapter.name}.json", gradescope([g], args.visibility, note))
    write_junit(folder / "junit.xml", grades)
    write_json(folder / "results.json", gradescope(grades, args.visibility, note))

    rows = [[g.chapter.name, g.points_cell(), f"{g.percent}%", g.notes()] for g in grades]
    summary = table(["Chapter", "Points", "Percent", "Notes"], rows, numbers=(1, 2))
    overall_share = sum(g.share for g in grades) / len(grades) if grades else 0
    overall = (f"Overall: {percent(overall_share)}% (every chapter weighs the same; a point is one case "
               f"of a [graded] test: one shape, image or signal)")
    if note:
        overall += f"\n{note}"
    (folder / "summary.txt").write_text(f"{summary}\n{overall}\n")
    print()
    print(summary)
    print(overall)
    print(f"JUnit XML: {folder / 'junit.xml'} (all), {folder}/chapterN.xml (each)")
    print(f"Gradescope: {folder / 'results.json'} (all), {folder}/chapterN.json (each)")
    if args.full_marks:
        short = [g.chapter.name for g in grades if g.blocker or g.points < len(g.graded) or not g.graded]
        if short:
            print(f"Not full marks: {', '.join(short)} (FULL_MARKS=1 makes this a failure).")
            return 1
    return 0


def check_results(args) -> int:
    """(make check) Each file is valid results.json; --score S: its score is S."""
    bad = 0
    for path in args.files:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            print(f"{path}: not readable JSON: {error}")
            bad += 1
            continue
        problems = gradescope_problems(data)
        if args.score is not None and not problems and abs(data["score"] - args.score) > 0.01:
            problems.append(f"score is {data['score']}, expected {args.score}")
        for problem in problems:
            print(f"{path}: {problem}")
        bad += bool(problems)
        if not problems:
            print(f"{path}: valid, score {data['score']} of {data.get('max_score')}, {len(data['tests'])} tests")
    return 1 if bad else 0
