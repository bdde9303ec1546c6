#!/usr/bin/env python3
"""The learner's and instructor's workflow, behind mk/workflow.mk's targets:

  status        a row per chapter: your files, whether it builds, its last test results
  hint          the chapter's next hint, from the `## Hints` list of its README
  count-hints   (make check) how many hints the chapter's README has
  solution      the reference solution, once the chapter passes (--force: before)
  reset         the skeleton back, after a timestamped backup of your files
  grade         test every chapter: JUnit XML per chapter and a score table
  skeleton-ids  (maintainers) record the skeletons' git blob ids in chapters/skeletons.txt
  check-skeleton-ids   (make check) fail when chapters/skeletons.txt is out of date

make passes what it knows: the chapter list, the binaries' folder, the backend, its
own command, and the chapters named on its command line (`make chapter2 hint`).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from course import (
    SKELETON_IDS,
    Chapter,
    Progress,
    all_results,
    blob_id,
    build,
    files_state,
    first_compile_error,
    read_chapters,
    read_hints,
    read_results,
    read_skeleton_ids,
    results_path,
    student_files,
)

HINTS_SHOWN = Path("build/hints")
BACKUPS = Path("build/backups")
GRADE_REPORTS = Path("build/grade")


class Refusal(Exception):
    """A request the workflow cannot carry out; its message says why and what to do."""


def table(header: list[str], rows: list[list[str]], numbers: tuple[int, ...] = ()) -> str:
    """Columns padded to their widest cell; the columns in `numbers` aligned right."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(row):
        cells = [c.rjust(w) if i in numbers else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()

    return "\n".join(line(row) for row in [header, *rows])


def one_chapter(args) -> Chapter:
    if len(args.chapter) != 1:
        raise Refusal(f"Name one chapter, for example: make chapter1 {args.command}")
    return next(c for c in args.all_chapters if c.number == args.chapter[0])


# ---- make status -------------------------------------------------------------------------


def status(args) -> int:
    if args.tree != "chapters":
        raise Refusal("make status shows your own chapters: run it without SOLUTIONS=1.")
    skeleton_ids = read_skeleton_ids()
    rows, notes, progress, no_gpu = [], [], [], []
    for chapter in args.all_chapters:
        builds, log = build(args.make, chapter)
        p = Progress.of(chapter, args.bin, args.backend, skeleton_ids)
        progress.append((p, builds))
        rows.append([
            chapter.name,
            chapter.title,
            p.files,
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
            notes.append(
                f"{chapter.name}: {SKELETON_IDS} has no record of its skeleton "
                f"(maintainers: make skeleton-ids)."
            )
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
            f"({r.passed} of {r.total} tests pass; stuck? make {name} hint)"
        )
    if not all(p.passed for p, _ in progress):
        return "Next: every test that can run here passes; run the [gpu] tests where there is a CUDA device"
    return (
        f"Next: all {len(progress)} chapters pass. make chapterN solution shows a reference "
        f"to compare with; make grade writes a report."
    )


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


def count_hints(args) -> int:
    print(len(read_hints(one_chapter(args).lesson)))
    return 0


def hint(args) -> int:
    chapter = one_chapter(args)
    hints = read_hints(chapter.lesson)
    if not hints:
        raise Refusal(f"{chapter.lesson} has no numbered list under '## Hints'.")
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
    chapter = one_chapter(args)
    name = chapter.name
    p = Progress.of(chapter, args.bin, args.backend, read_skeleton_ids())
    if not p.passed and not args.force:
        print(f"{name} is not passed yet: {p.blockers()[0][1]}")
        print(f"Once all its tests pass, make {name} solution shows the reference solution.")
        print(f"Stuck? make {name} hint. To see the solution now anyway: make {name} solution FORCE=1")
        return 0
    if p.passed:
        print(f"{name} passes. The reference solution:\n")
    else:
        print(f"{name} does not pass yet; FORCE=1 shows the reference solution anyway:\n")
    files = sorted(chapter.solution_dir.glob("*.cu"))
    for path in files:
        print(f"==== {path} " + "=" * max(0, 78 - len(str(path))))
        print(path.read_text().rstrip("\n"))
        print()
    print("Compare it with yours:")
    for path in files:
        print(f"  diff -u {chapter.student_dir / path.name} {path}")
    return 0


# ---- make chapterN reset -----------------------------------------------------------------


def git(*command: str, binary: bool = False):
    return subprocess.run(["git", *command], capture_output=True, text=not binary)


def reset(args) -> int:
    chapter = one_chapter(args)
    name = chapter.name
    skeleton_ids = read_skeleton_ids()
    files = student_files(chapter, skeleton_ids)
    unknown = [str(f) for f in files if str(f) not in skeleton_ids]
    if not files or unknown:
        raise Refusal(
            f"Cannot reset {name}: {SKELETON_IDS} has no record of the skeleton of "
            f"{', '.join(unknown) or chapter.student_dir} (maintainers: make skeleton-ids). "
            f"Nothing was changed."
        )
    if files_state(chapter, skeleton_ids) == "not started":
        print(f"{name} is already the untouched skeleton: nothing to reset.")
        return 0

    # Every skeleton must come out of git before anything is touched.
    if shutil.which("git") is None or git("rev-parse", "--git-dir").returncode != 0:
        paths = " ".join(str(f) for f in files)
        raise Refusal(
            f"Cannot reset {name}: this copy of the tutorial is not a git clone (an archive "
            f"download?), and reset takes the skeleton from git's history. Your files are "
            f"unchanged. To start over, copy {paths} from a fresh download, or work in a "
            f"git clone of the tutorial."
        )
    skeletons = {}
    for path in files:
        blob = git("cat-file", "blob", skeleton_ids[str(path)], binary=True)
        if blob.returncode != 0:
            raise Refusal(
                f"Cannot reset {name}: git has no copy of the skeleton of {path} (object "
                f"{skeleton_ids[str(path)]}), so this is not a full clone of the tutorial (if it "
                f"is a shallow one: git fetch --unshallow). Your files are unchanged."
            )
        skeletons[path] = blob.stdout

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
        path.write_bytes(content)
    # The cached test results were of the student's version: a reset chapter has none.
    for results in all_results(args.bin, args.backend, chapter):
        results.path.unlink()

    print(f"Saved your {name} files to {backup}/: {', '.join(p.name for p in saved)}")
    print(f"Restored the skeleton of {', '.join(str(p) for p in files)}.")
    print(f"To get your version back: cp {backup}/* {chapter.student_dir}/")
    print("(make clean keeps build/backups; deleting build/ by hand would lose it.)")
    return 0


# ---- make grade ------------------------------------------------------------------------------


def junit_failure(path: Path, chapter: Chapter, test: str, message: str, details: str) -> None:
    """A JUnit report of one failed test, for a chapter whose tests could not run."""
    suites = ET.Element("testsuites")
    suite = ET.SubElement(suites, "testsuite", name=f"{chapter.name}-tests", tests="1", failures="0", errors="1")
    case = ET.SubElement(suite, "testcase", classname=f"{chapter.name}-tests", name=test, time="0")
    ET.SubElement(case, "error", message=message, type="error").text = details
    ET.indent(suites)
    ET.ElementTree(suites).write(path, encoding="UTF-8", xml_declaration=True)


def grade_chapter(args, chapter: Chapter) -> list[str]:
    """Grade one chapter: [chapter, passed/total, percent, notes]."""
    name = chapter.name
    report = GRADE_REPORTS / f"{name}.xml"
    log_file = GRADE_REPORTS / f"{name}.log"
    results_file = results_path(args.bin, chapter)
    for stale in (report, log_file, results_file):
        stale.unlink(missing_ok=True)

    builds, log = build(args.make, chapter)
    if not builds:
        error = first_compile_error(log, chapter)
        log_file.write_text(log)
        junit_failure(report, chapter, f"{name} compiles", error, log)
        return [name, "0/-", "0%", f"does not build: {error}"]

    _, output = build(args.make, chapter, "test", variables=(f"ARGS=-r junit -o {report}",))
    log_file.write_text(log + output)
    r = read_results(results_file, args.backend)
    try:  # Catch2's own report, when the run got far enough to write it
        ET.parse(report)
        catch2_wrote_report = True
    except (OSError, ET.ParseError):
        catch2_wrote_report = False
    if r is None:
        last = [line for line in output.splitlines() if line.strip()][-1:] or ["no output"]
        junit_failure(report, chapter, f"{name} tests run", "the tests did not run", output)
        return [name, "0/-", "0%", f"the tests did not run: {last[0]} (see {log_file})"]
    if r.state != "finished":
        if not catch2_wrote_report:
            junit_failure(report, chapter, f"{name} tests run", r.crash_story(), output)
        return [name, f"{r.passed}/?", "0%", f"{r.crash_story()}: counts as 0 (see {log_file})"]
    percent = 100 * r.passed // r.total if r.total else 0
    notes = "GPU tests not run (no CUDA device)" if r.gpu_tests == "skipped" else ""
    return [name, f"{r.passed}/{r.total}", f"{percent}%", notes]


def grade(args) -> int:
    GRADE_REPORTS.mkdir(parents=True, exist_ok=True)
    chapters = [c for c in args.all_chapters if not args.chapter or c.number in args.chapter]
    print(f"Grading {args.tree}/ with the {args.backend} backend; reports go to {GRADE_REPORTS}/.")
    rows = [grade_chapter(args, chapter) for chapter in chapters]
    percents = [int(row[2].rstrip("%")) for row in rows]
    summary = table(["Chapter", "Passed", "Percent", "Notes"], rows, numbers=(1, 2))
    overall = f"Overall: {sum(percents) // len(percents)}% (the mean of the chapters' percentages)"
    (GRADE_REPORTS / "summary.txt").write_text(f"{summary}\n{overall}\n")
    print()
    print(summary)
    print(overall)
    print(f"JUnit XML: {', '.join(str(GRADE_REPORTS / f'{c.name}.xml') for c in chapters)}")
    return 0


# ---- chapters/skeletons.txt ------------------------------------------------------------------

SKELETON_IDS_HEADER = """\
# The git blob id (`git hash-object`) of each skeleton file as published. make status
# compares the student's files with it (not started / in progress), and make chapterN
# reset takes the skeleton back out of git by it. Maintainers: after changing a
# skeleton, run `make skeleton-ids` and commit this file; make check fails until then.
"""


def current_skeleton_ids(chapters: list[Chapter]) -> dict[str, str]:
    return {str(f): blob_id(f) for c in chapters for f in sorted(c.student_dir.glob("*.cu"))}


def skeleton_ids(args) -> int:
    ids = current_skeleton_ids(args.all_chapters)
    lines = [f"{blob}  {path}" for path, blob in ids.items()]
    SKELETON_IDS.write_text(SKELETON_IDS_HEADER + "\n".join(lines) + "\n")
    print(f"Wrote {SKELETON_IDS}: {len(lines)} skeleton files. Commit it with the skeletons.")
    return 0


def check_skeleton_ids(args) -> int:
    recorded, current = read_skeleton_ids(), current_skeleton_ids(args.all_chapters)
    wrong = sorted(p for p in recorded.keys() | current.keys() if recorded.get(p) != current.get(p))
    for path in wrong:
        print(f"{path}: recorded {recorded.get(path, 'nothing')}, the file is {current.get(path, 'missing')}")
    if wrong:
        print(f"{SKELETON_IDS} is out of date: run make skeleton-ids and commit it.")
    return 1 if wrong else 0


# ---- main ---------------------------------------------------------------------------------------

COMMANDS = {
    "status": status,
    "hint": hint,
    "count-hints": count_hints,
    "solution": solution,
    "reset": reset,
    "grade": grade,
    "skeleton-ids": skeleton_ids,
    "check-skeleton-ids": check_skeleton_ids,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=COMMANDS)
    parser.add_argument("--chapters", default="chapters/chapters.txt", help="the chapter list")
    parser.add_argument("--bin", default="build/cuda/chapters/bin", help="where the test binaries are")
    parser.add_argument("--backend", default="cuda")
    parser.add_argument("--make", default="make", help="the make command, for builds")
    parser.add_argument("--chapter", action="append", default=[], help="a chapter named on make's command line")
    parser.add_argument("--force", action="store_true", help="solution: show it even before a pass")
    parser.add_argument("--restart", action="store_true", help="hint: start again from the first")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # in order with make's and the builds' output
    args.all_chapters = read_chapters(args.chapters)
    parts = Path(args.bin).parts
    args.tree = parts[parts.index(args.backend) + 1] if args.backend in parts[:-1] else "chapters"
    try:
        return COMMANDS[args.command](args)
    except Refusal as refusal:
        print(refusal, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
