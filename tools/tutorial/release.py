"""`make release DIR=...`: the student ("release") repository, as nbgrader calls it: this
course without its reference solutions, for the GitHub Classroom template or the students'
own clones.

Written to DIR (which must not exist, or be empty):
- every file of the course that git knows (tracked, or new and not ignored), except
  solutions/, what make built (build/), tests/grading/legitimate/ (a solved chapter 1 that
  make check grades) and .ci/ (the maintainers' CI, whose make check needs solutions/);
- each chapter's student files as the skeleton that its solution's markers make (never
  this copy's chapters/ files, which may hold the instructor's solved work).

Then the checks (--no-check skips them; chapter numbers restrict the last one):
- no file of the release holds a solution: half or more of the lines inside a solution's
  markers, of 16 characters or more, that the skeletons, the chapters' other files, common/
  and docs/ do not have anyway (tools/tutorial/site_solutions.py looks for the same lines
  in the course site);
- in DIR, `make grade` on the CPU backend (the shared code's objects copied from this
  build, none built from a solution): every chapter builds, its tests are red (graded cases
  fail) and it grades 0%, with no solution's run to count against.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from . import skeleton
from .course import ROOT, Refusal, read_results

# What the release leaves out, as paths from the course's root: the solutions, what make
# built, git's history (which holds the solutions), a solved chapter 1 that make check
# grades, and the maintainers' CI, whose `make check` needs the solutions.
LEFT_OUT = ("solutions", "build", ".git", "tests/grading/legitimate", ".ci")
MIN_LINE_LENGTH = 16  # as site_solutions: shorter lines (a brace, `return;`) say nothing


def course_files() -> list[Path]:
    """The course's files, relative to its root: those git knows, else every file."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, text=True)
    if listed.returncode == 0:
        paths = [Path(p) for p in listed.stdout.split("\0") if p]
    else:
        paths = [p.relative_to(ROOT) for p in ROOT.rglob("*") if p.is_file()]
    return sorted(p for p in paths if (ROOT / p).is_file() and not any(
        p == Path(left) or Path(left) in p.parents for left in LEFT_OUT))


def write_release(target: Path, chapters) -> list[Path]:
    """Copy the course into @p target without its solutions; the student files are skeletons."""
    written = []
    for path in course_files():
        (target / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / path, target / path)
        written.append(path)
    for chapter in chapters:
        for solution in chapter.solution_files():
            student = target / chapter.student_dir / solution.name
            student.parent.mkdir(parents=True, exist_ok=True)
            student.write_text(skeleton.skeleton_of(solution, chapter.number))
    return written


def normalise(text: str) -> str:
    return " ".join(text.split())


def leaks(target: Path, chapters) -> list[str]:
    """The files of the release that hold a solution: "FILE holds N of the M lines of SOLUTION".
    A solution's telling lines are those inside its markers, 16 characters or more, that the
    release's chapters/, common/ and docs/ do not have anyway; a file that holds half of them
    or more holds the solution. (A test of the CPU backend shares a few lines with a solution,
    `__pipeline_commit();`: that gives nothing away.)"""
    visible = "\n".join(normalise(p.read_text(errors="replace"))
                        for folder in ("chapters", "common", "docs") for p in sorted((target / folder).rglob("*"))
                        if p.is_file())
    telling: dict[Path, set[str]] = {}
    for chapter in chapters:
        for solution in chapter.solution_files():
            lines = {normalise(line) for line in skeleton.solution_lines(solution.read_text(encoding="utf-8"),
                                                                         str(solution))}
            telling[solution] = {line for line in lines if len(line) >= MIN_LINE_LENGTH and line not in visible}
    found = []
    for path in sorted(p for p in target.rglob("*") if p.is_file() and p.relative_to(target).parts[0] != "build"):
        text = normalise(path.read_text(errors="replace"))
        for solution, lines in telling.items():
            held = sum(line in text for line in lines)
            if lines and held >= max(3, len(lines) / 2):
                found.append(f"{path.relative_to(target)} holds {held} of the {len(lines)} lines of {solution} "
                             f"that students do not see")
    return found


def check_grade(target: Path, chapters, backend: str) -> list[str]:
    """`make grade` in the release: each chapter builds, tests red and grades 0%. Returns the problems."""
    built = ROOT / "build" / backend
    if built.is_dir():  # the shared code's objects: nothing under build/BACKEND/{chapters,solutions}
        shutil.copytree(built, target / "build" / backend, symlinks=True,
                        ignore=lambda folder, names: [n for n in names if Path(folder) == built and
                                                      n in ("solutions", "chapters", "compile_commands")])
    folder = Path("build/release-check")
    command = ["make", "grade", f"BACKEND={backend}", f"GRADE_DIR={folder}", *(c.name for c in chapters)]
    done = subprocess.run(command, cwd=target, capture_output=True, text=True)
    (target / folder).mkdir(parents=True, exist_ok=True)
    (target / folder / "make-grade.log").write_text(done.stdout + done.stderr)
    problems = [] if done.returncode == 0 else [f"make grade failed with exit status {done.returncode}"]
    summary = (target / folder / "summary.txt")
    rows = {line.split()[0]: line for line in summary.read_text().splitlines()} if summary.is_file() else {}
    for chapter in chapters:
        status = target / folder / f"{chapter.name}-build.status"
        results = read_results(target / folder / f"{chapter.name}.results", backend)
        row = rows.get(chapter.name, "")
        if not status.is_file() or status.read_text().strip() != "0":
            problems.append(f"{chapter.name} does not build (see {target / folder / (chapter.name + '-build.log')})")
        elif results is None or results.state != "finished" or results.failed == 0:
            problems.append(f"{chapter.name}'s tests are not red: "
                            + ("no finished run" if results is None or results.state != "finished" else "none fails"))
        elif len(row.split()) < 3 or row.split()[2] != "0%":
            problems.append(f"{chapter.name} does not grade 0%: {row}")
        elif (target / folder / f"{chapter.name}-expected.results").exists():
            problems.append(f"{chapter.name} was graded against a solution's run: the release has a solution")
    return problems


def release(args) -> int:
    if not args.dir:
        raise Refusal("Name the folder to write: make release DIR=../course-release")
    target = Path(args.dir).resolve()
    if target.exists() and any(target.iterdir()):
        raise Refusal(f"{target} exists and is not empty: name a new folder (DIR=...).")
    if target == ROOT or ROOT in target.parents:
        raise Refusal(f"{target} is inside this course: name a folder outside it.")
    every = list(args.chapters)
    written = write_release(target, every)
    print(f"Wrote the student repository to {target}: {len(written)} files, without "
          f"{', '.join(p + '/' for p in LEFT_OUT[:1] + LEFT_OUT[3:])}; each chapter's files are its skeleton.")
    if args.no_check:
        return 0
    problems = leaks(target, every)
    print(f"Files that hold a solution: {len(problems) or 'none'} (half or more of the lines inside its markers "
          f"that students do not see otherwise).")
    checked = [c for c in every if not args.numbers or c.number in args.numbers]
    print(f"Checking that {', '.join(c.name for c in checked)} build, test red and grade 0% there "
          f"(make grade BACKEND={args.backend})...", flush=True)
    problems += check_grade(target, checked, args.backend)
    for problem in problems:
        print(f"  {problem}")
    if problems:
        print(f"The release is not ready: {len(problems)} problems.")
        return 1
    print(f"The release builds, tests red and grades 0% in every chapter checked; its grade is in "
          f"{target / 'build/release-check'}/.")
    return 0
