"""The learner's workflow: status, hint, solution, reset (grade is in grading.py), and
the skeletons that the maintainers generate from the solutions.

make builds what needs building (and records each chapter's build in a log); these
functions only read: the registry, the files, the logs and the results of test runs.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
import time
from pathlib import Path

from . import profile_tables, skeleton
from .course import (
    BuildOutcome,
    Chapter,
    Progress,
    Refusal,
    all_results,
    find,
    first_compile_error,
    read_hints,
    read_results,
    results_path,
)

HINTS_SHOWN = Path("build/hints")
BACKUPS = Path("build/backups")


def table(header: list[str], rows: list[list[str]], numbers: tuple[int, ...] = ()) -> str:
    """Columns padded to their widest cell; the columns in `numbers` aligned right."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(row):
        cells = [c.rjust(w) if i in numbers else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()

    return "\n".join(line(row) for row in [header, *rows])


# ---- make status -------------------------------------------------------------------------


def status(args) -> int:
    if args.tree != "chapters":
        raise Refusal("make status shows your own chapters: run it without SOLUTIONS=1.")
    rows, notes, progress, no_gpu = [], [], [], []
    for chapter in args.chapters:
        built = BuildOutcome.read(Path(args.logs), chapter)
        builds, log = built.builds, built.log
        p = Progress.of(chapter)
        progress.append((p, builds))
        rows.append([
            chapter.name,
            chapter.title,
            "done" if p.passed else p.files,
            "yes" if builds else "NO",
            p.tests_cell(),
            p.results.backend if p.results else "-",
        ])
        if not builds:
            notes.append(f"{chapter.name} does not build: {first_compile_error(log, chapter)}")
        if not p.passed:
            for kind, why in p.blockers():
                if kind == Progress.NO_GPU:
                    no_gpu.append(chapter.name)
                elif kind not in Progress.IN_TABLE:
                    notes.append(f"{chapter.name}: {why}")
        if p.files == "unknown":
            notes.append(f"{chapter.name}: no {chapter.solution_dir}/, so whether you started it is unknown.")
    if no_gpu:
        notes.append(
            f"{', '.join(no_gpu)}: the tests tagged [gpu] did not run (no CUDA device), so "
            f"{'this chapter' if len(no_gpu) == 1 else 'these chapters'} cannot count as passed here."
        )
    print(table(["Chapter", "Title", "Your files", "Builds", "Tests", "Backend"], rows))
    print()
    for note in notes:
        print(note)
    print(next_step(progress))
    return 0


def next_step(progress: list[tuple[Progress, bool]]) -> str:
    """The last line of `make status`: where to go next. A chapter whose only blocker is
    that no CUDA device ran its [gpu] tests is done for now: that is no reason to stop."""
    for p, builds in progress:
        if builds and (p.passed or p.passed_but_gpu_tests_skipped):
            continue
        name, r = p.chapter.name, p.results
        if not builds:
            return f"Next: fix the compile error in {name} (above), then run make {name} test"
        if r is None:
            return (
                f"Next: {name} ({p.chapter.title}). Read {p.chapter.lesson}, "
                f"then run make {name} test"
            )
        if r.state != "finished":
            return f"Next: fix the crash in {name} (above), then run make {name} test"
        if p.stale or r.selection == "chosen":
            return f"Next: run make {name} test"
        return (
            f"Next: make {name} test, and fix what it reports "
            f"({r.required_passed} of {r.required_total} tests pass; stuck? make {name} hint)"
        )
    if not all(p.passed for p, _ in progress):
        return "Next: every test that can run here passes; run the [gpu] tests where there is a CUDA device"
    return (
        f"Next: all {len(progress)} chapters pass. make chapterN solution shows a reference "
        f"to compare with; make grade writes a report."
    )


# ---- make watch: what comes next ------------------------------------------------------------


def chapter_to_do(chapters: list[Chapter], after: str | None = None) -> Chapter | None:
    """The first chapter after @p after (then from the start) whose tests have not all
    passed on the current files; None when every chapter passes."""
    if after:
        later = [c for c in chapters if int(c.number) > int(after)]
        chapters = later + [c for c in chapters if c not in later]
    for chapter in chapters:
        p = Progress.of(chapter)
        if after and chapter.number == after:
            continue
        if not (p.passed or p.passed_but_gpu_tests_skipped):
            return chapter
    return None


def next_chapter(args) -> int:
    """The chapter to work on next (chapter_to_do). --number prints its number only, else a
    sentence (make watch, once a chapter passes)."""
    chapter = chapter_to_do(list(args.chapters), args.after)
    if chapter is not None:
        if args.number:
            print(chapter.number)
        else:
            print(f"Next: {chapter.name} ({chapter.title}). Read {chapter.lesson}, then: make {chapter.name} watch")
        return 0
    if args.number:
        print(args.chapters[-1].number)
    else:
        print("Every chapter passes. make chapterN solution shows a reference to compare with; "
              "make grade writes a report.")
    return 0


# ---- make chapterN hint ------------------------------------------------------------------


def show_hint(text: str) -> str:
    """A hint as paragraphs wrapped to 88 columns, fenced code kept as written."""
    out, paragraph, fenced = [], [], False

    def flush():
        if paragraph:
            # Break lines between words, never inside a `code span`.
            text = re.sub(r"`[^`]*`", lambda span: span[0].replace(" ", "\0"), " ".join(paragraph))
            wrapped = textwrap.fill(text, 88, initial_indent="  ", subsequent_indent="  ", break_long_words=False)
            out.append(wrapped.replace("\0", " "))
            paragraph.clear()

    for line in text.splitlines():
        if line.startswith("```") or fenced:
            flush()
            fenced = fenced != line.startswith("```")
            out.append("    " + line)
        elif line.strip():
            paragraph.append(line)
        else:
            flush()
            out.append("")
    flush()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")


def hint(args) -> int:
    chapter = find(args.chapters, args.numbers, "hint")
    hints = read_hints(chapter)
    if not hints:
        raise Refusal(f"{chapter.hints_file} has no numbered list of hints.")
    progress_file = HINTS_SHOWN / f"{chapter.name}.txt"
    shown = 0 if args.restart or not progress_file.exists() else int(progress_file.read_text() or 0)
    name, count = chapter.name, len(hints)
    if shown >= count:
        print(f"You have seen all {count} hints for {name}. Here they are together:\n")
        for number, text in enumerate(hints, 1):
            print(f"Hint {number}:\n{show_hint(text)}\n")
        print(f"To see them one at a time again, from the first: make {name} hint RESTART=1")
        return 0
    shown += 1
    progress_file.parent.mkdir(parents=True, exist_ok=True)
    progress_file.write_text(f"{shown}\n")
    print(f"{name}, hint {shown} of {count}:\n\n{show_hint(hints[shown - 1])}\n")
    if shown < count:
        print(f"Still stuck after trying it? make {name} hint shows hint {shown + 1} of {count}.")
    else:
        print(f"That was the last hint. To start again from the first: make {name} hint RESTART=1")
    return 0


# ---- make chapterN solution ----------------------------------------------------------------


def solution(args) -> int:
    chapter = find(args.chapters, args.numbers, "solution")
    name = chapter.name
    p = Progress.of(chapter)
    if not p.passed and not args.force:
        print(f"{name} is not passed yet: {p.blockers()[0][1]}")
        print(f"Once all its tests pass, make {name} solution shows the reference solution.")
        print(f"Stuck? make {name} hint. To see the solution now anyway: make {name} solution FORCE=1")
        return 0
    if p.passed:
        print(f"{name} passes. The reference solution:\n")
    else:
        print(f"{name} does not pass yet; FORCE=1 shows the reference solution anyway:\n")
    files = chapter.solution_files()
    if not files:
        raise Refusal(f"This copy has no {chapter.solution_dir}/: your instructor keeps the solutions.")
    # The files in solutions/ hold the markers the skeletons are generated from; the
    # clean copies written here are what a diff against the student's file should see.
    clean_dir = Path("build") / "solution" / chapter.solution_dir.name
    clean_dir.mkdir(parents=True, exist_ok=True)
    clean_paths = []
    for path in files:
        text = skeleton.clean_solution(path.read_text(), str(path))
        print(f"==== {path} " + "=" * max(0, 78 - len(str(path))))
        print(text.rstrip("\n"))
        print()
        clean = clean_dir / path.name
        clean.write_text(text)
        clean_paths.append((path, clean))
    print("Compare it with yours:")
    for path, clean in clean_paths:
        print(f"  diff -u {chapter.student_dir / path.name} {clean}")
    return 0


# ---- make chapterN reset -----------------------------------------------------------------


def git(*command: str):
    return subprocess.run(["git", *command], capture_output=True, text=True)


def skeleton_from_git(path: Path) -> str | None:
    """The committed version of a student file, for a copy without solutions/."""
    if shutil.which("git") is None or git("rev-parse", "--git-dir").returncode != 0:
        return None
    shown = git("show", f"HEAD:{path}")
    return shown.stdout if shown.returncode == 0 else None


def reset(args) -> int:
    chapter = find(args.chapters, args.numbers, "reset")
    name = chapter.name
    files = chapter.student_files()
    # Every skeleton must be known before anything is touched. It is generated from the
    # solution; a student copy without solutions/ takes it from git's last commit.
    skeletons = {}
    for path in files:
        if (chapter.solution_dir / path.name).exists():
            skeletons[path] = chapter.skeleton_of(path)
        else:
            committed = skeleton_from_git(path)
            if committed is None:
                raise Refusal(
                    f"Cannot reset {name}: this copy has no {chapter.solution_dir}/ to make the skeleton "
                    f"from, and is not a git clone to take it from. Your files are unchanged. To start "
                    f"over, copy {path} from a fresh download of the course."
                )
            skeletons[path] = committed
    if all(path.exists() and path.read_text() == text for path, text in skeletons.items()):
        print(f"{name} is already the untouched skeleton: nothing to reset.")
        return 0

    stamp = f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"
    backup, n = BACKUPS / stamp, 1
    while backup.exists():  # a second reset within the same second
        n += 1
        backup = BACKUPS / f"{stamp}-{n}"
    backup.mkdir(parents=True)
    saved = [f for f in files if f.exists()]
    for path in saved:
        shutil.copy2(path, backup / path.name)
    for path, content in skeletons.items():
        path.write_text(content)
    # The cached test results were of the student's version: a reset chapter has none.
    for results in all_results("chapters", chapter):
        results.path.unlink()

    print(f"Saved your {name} files to {backup}/: {', '.join(p.name for p in saved)}")
    print(f"Restored the skeleton of {', '.join(str(p) for p in files)}.")
    print(f"To get your version back: cp {backup}/* {chapter.student_dir}/")
    print("(make clean keeps build/backups; deleting build/ by hand would lose it.)")
    return 0


# make grade: tools/tutorial/grading.py.


# ---- The skeletons, generated from the solutions -------------------------------------------------


def skeletons(args) -> int:
    """--write: write every chapter's skeleton files from the solutions' markers.
    Otherwise (make check): list the skeletons that differ from what the generator makes."""
    stale = []
    for chapter in args.chapters:
        for solution in chapter.solution_files():
            student = chapter.student_dir / solution.name
            text = skeleton.skeleton_of(solution, chapter.number)
            if student.exists() and student.read_text() == text:
                continue
            if args.write:
                student.write_text(text)
                print(f"wrote {student}")
            else:
                stale.append(student)
    # A copied chapter's lesson: its profile table's rows under its own number.
    renumbered = profile_tables.renumber_tables(args.chapters, args.write)
    for readme in renumbered:
        print(f"wrote {readme} (its profile table's rows under its own number)" if args.write else
              f"{readme}: its profile table's rows are another chapter's number: run make skeletons and commit it.")
    for path in stale:
        print(f"{path} is not what its solution's markers make: run make skeletons and commit it.")
    return 1 if stale or (renumbered and not args.write) else 0
