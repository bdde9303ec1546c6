"""Fill the figures that the lessons quote from the benchmark, from the run of the results page.

  python3 -m tools.tutorial lesson-figures [--write] [--results DIR] [N ...]

docs/results.md is written by `make results` from one run of `make bench SOLUTIONS=1`, whose
files it keeps beside the page: docs/results/chapterN-solutions.csv. A figure a lesson takes
from that run (a share of the ceiling, a rate, a time, a speed-up, the GPU, the day) is never
typed: the lesson marks it, and this verb writes it from the same files with the page's own
formatting (results.format_percent and the rest), so that the lesson and the page agree.

A marked figure is an HTML comment, the figure, and a closing comment, on one line; GitHub
shows the figure alone, and the site's pages (docs.py) hold the figure alone, unmarked
(Doxygen drops the space after an HTML comment):

  <!-- bench: 4096 x 4096 x 4096; naive; percent_of_ceiling -->10.4%<!-- /bench -->
  <!-- bench: gpu -->NVIDIA H200<!-- /bench -->, <!-- bench: date -->2026-11-28<!-- /bench -->

The fields, separated by `;` (a `|` would split a Markdown table's cell):

  PROBLEM; VARIANT; COLUMN   one row of the file (its problem and variant, as the page's table
                             names them) and one of its columns, written as the page writes it:
                             percent_of_ceiling (10.4%), speedup and times_library (1.52×),
                             median_ms, min_ms, max_ms (25.77 ms), rate (5332 GFLOP/s,
                             4117.1 GB/s), repetitions (51)
  PROBLEM; VARIANT; times OTHER
                             how many times as fast VARIANT is as OTHER: OTHER's median over
                             VARIANT's, written as the page's summary writes it (4.8×)
  PROBLEM; VARIANT; over OTHER
                             the same ratio written as the page writes a speed-up (1.02×): for
                             ratios near 1, where one decimal would say nothing
  gpu, date                  the run's GPU (NVIDIA H200) and its day (2026-11-28)
  chapter N; ...             first, any of the above from chapter N's file rather than the
                             lesson's own chapter's

Without --write, each figure that is not what the files say is reported (lesson, line, marker,
what the lesson has, what the run has) and the status is 1; `make check` runs it so. With
--write, the figures are rewritten (`make results` does it after writing the page). A marker
that names a problem, variant, column or chapter that the files lack is an error that names it,
with or without --write. A row that failed its check has no figure to quote.

A row the benchmark has only just gained (a new variant, before the GPU run that measures it)
is quoted with the figure `not yet measured`, as it stands until then:

  <!-- bench: 2^28 floats; strided index (Harris 2); median_ms -->not yet measured<!-- /bench -->

Such a marker is accepted while the run lacks its problem or variant, and each is named in a
note (so that a misspelt variant does not pass unseen); once `make results` has a run with the
row, --write fills it like any other, and the check reports it until then. A lesson whose
chapter the run did not measure (a copied chapter, before its first run) is left as it is,
with a note; `chapter N;` naming such a chapter is an error.
Python 3 standard library only.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from . import results
from .course import ROOT, Refusal, read_registry

RESULTS_DIR = Path("docs/results")

MARKED = re.compile(r"<!-- bench: (?P<fields>[^>]*?) -->(?P<figure>.*?)<!-- /bench -->")
OPENING, CLOSING = "<!-- bench:", "<!-- /bench -->"
NOT_YET = "not yet measured"

# The page's own formats (results.py), for each column a lesson may quote.
COLUMNS = {
    "percent_of_ceiling": lambda row: results.format_percent(float(row["percent_of_ceiling"])),
    "speedup": lambda row: results.format_speedup(float(row["speedup"])),
    "times_library": lambda row: results.format_speedup(float(row["times_library"])),
    "median_ms": lambda row: results.format_ms(row["median_ms"]),
    "min_ms": lambda row: results.format_ms(row["min_ms"]),
    "max_ms": lambda row: results.format_ms(row["max_ms"]),
    "rate": results.format_rate,
    "repetitions": lambda row: row["repetitions"],
}
STAMP = {"gpu": lambda row: row["gpu"], "date": lambda row: row["date"][:10]}


def unmarked(text: str) -> str:
    """`text` with each marked figure as the figure alone: the site's pages, where Doxygen
    would drop the space after an HTML comment ("4117.1 GB/s(read plus written)")."""
    return MARKED.sub(lambda match: match["figure"], text)


@dataclass
class Figure:
    lesson: Path
    line: int
    marker: str
    has: str
    expected: str

    def where(self) -> str:
        return f"{shown(self.lesson)}:{self.line}"


class Unmeasured(Refusal):
    """The run's file lacks the marker's problem or variant: a row not measured yet, or a misspelt one."""


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def read_run(folder: Path) -> dict[str, results.MeasuredChapter]:
    """The reference solutions' files of the run in `folder`, by chapter number."""
    paths = sorted(str(p) for p in folder.glob("chapter*-solutions.csv"))
    return {c.number: c for c in results.read_bench_files(paths) if c.tree == "solutions"}


def figure_of(fields: str, own: str, run: dict[str, results.MeasuredChapter], folder: Path) -> str:
    """The text of one marker's figure, as the page writes it; Refusal naming what the files lack."""
    parts = [part.strip() for part in fields.split(";")]
    number = own
    if re.fullmatch(r"chapter \d+", parts[0]):
        number, parts = parts[0].split()[1], parts[1:]
    chapter = run.get(number)
    if chapter is None:
        raise Refusal(f"no file of chapter {number} in {folder}/ (chapter{number}-solutions.csv): "
                      "run make bench SOLUTIONS=1 and make results")
    source = f"{folder}/{Path(chapter.source).name}"
    if len(parts) == 1 and parts[0] in STAMP:
        return STAMP[parts[0]](chapter.rows[0])
    if len(parts) != 3:
        raise Refusal(f"'{fields}' is not a marker's fields: PROBLEM; VARIANT; COLUMN, or gpu, or date, "
                      "after an optional 'chapter N;'")
    problem, variant, column = parts
    problems = list(dict.fromkeys(row["problem"] for row in chapter.rows))
    if problem not in problems:
        raise Unmeasured(f"{source} has no problem '{problem}' (it has: {', '.join(problems)})")
    variants = [row["variant"] for row in chapter.rows if row["problem"] == problem]

    def row_of(name):
        if name not in variants:
            raise Unmeasured(f"{source} has no variant '{name}' of '{problem}' (it has: {', '.join(variants)})")
        row = chapter.row(problem, name)
        if row is None:
            raise Refusal(f"{source}: '{problem}', '{name}' failed its check "
                          f"({chapter.failed(problem, name)}): it has no figure to quote")
        return row

    row = row_of(variant)
    for prefix, shape in (("times ", results.format_times), ("over ", results.format_speedup)):
        if column.startswith(prefix):
            other = row_of(column[len(prefix):].strip())
            return shape(float(other["median_ms"]) / float(row["median_ms"]))
    if column not in COLUMNS:
        raise Refusal(f"'{column}' is not a column a lesson quotes: {', '.join(COLUMNS)}, or 'times VARIANT' or 'over VARIANT'")
    if row[column] == "":
        raise Refusal(f"{source}: '{problem}', '{variant}' has no {column}")
    return COLUMNS[column](row)


def fill(text: str, lesson: Path, own: str, run, folder: Path, pending=None) -> tuple[str, list[Figure]]:
    """`text` with every marked figure as the run has it, and the figures that were not. A
    figure `not yet measured` whose row the run lacks is left as it is, and named in `pending`
    (a list) when one is given."""
    stale = []
    lines = text.split("\n")
    for index, line in enumerate(lines):
        marked = list(MARKED.finditer(line))
        if line.count(OPENING) != len(marked) or line.count(CLOSING) != len(marked):
            raise Refusal(f"{shown(lesson)}:{index + 1}: a marker '{OPENING} ... -->FIGURE{CLOSING}' is not closed "
                          "on its line (or a closing one has no opening)")

        def replace(match):
            try:
                expected = figure_of(match["fields"], own, run, folder)
            except Unmeasured as missing:
                if match["figure"] != NOT_YET:
                    raise Refusal(f"{shown(lesson)}:{index + 1}: {missing}; a row the run has not measured yet "
                                  f"is quoted as '{NOT_YET}'") from None
                if pending is not None:
                    pending.append(f"{shown(lesson)}:{index + 1}: {match['fields']}")
                return match[0]
            except Refusal as refusal:
                raise Refusal(f"{shown(lesson)}:{index + 1}: {refusal}") from None
            if match["figure"] != expected:
                stale.append(Figure(lesson, index + 1, match["fields"], match["figure"], expected))
            return f"<!-- bench: {match['fields']} -->{expected}{CLOSING}"

        lines[index] = MARKED.sub(replace, line)
    return "\n".join(lines), stale


def lessons(numbers=()):
    """(chapter number, lesson path) for the registry's chapters (those named, if any)."""
    chapters = [c for c in read_registry() if not numbers or c.number in numbers]
    unknown = sorted(set(numbers) - {c.number for c in chapters})
    if unknown:
        raise Refusal(f"no chapter {', '.join(unknown)} in the registry")
    return [(c.number, ROOT / c.lesson) for c in chapters]


def check(args) -> int:
    folder = Path(args.results) if args.results else RESULTS_DIR
    try:
        run = read_run(ROOT / folder if not folder.is_absolute() else folder)
        stale, pending, count = [], [], 0
        for number, lesson in lessons(args.numbers):
            text = lesson.read_text(encoding="utf-8")
            if number not in run and OPENING in text:
                # A chapter the run did not measure (a copy not yet benchmarked): its figures
                # stay as they are until make results has its file.
                print(f"lesson-figures: chapter {number} is not in {folder}/: the figures of {shown(lesson)} "
                      "are left as they are", file=sys.stderr)
                continue
            count += len(MARKED.findall(text))
            filled, differ = fill(text, lesson, number, run, folder, pending)
            stale += differ
            if args.write and filled != text:
                lesson.write_text(filled, encoding="utf-8")
                print(f"lesson-figures: wrote {len(differ)} figure(s) of {shown(lesson)}")
    except Refusal as refusal:
        print(f"lesson-figures: {refusal}", file=sys.stderr)
        return 1
    if pending:
        print(f"lesson-figures: {len(pending)} figure(s) '{NOT_YET}', whose rows {folder}/ lacks (make bench "
              "SOLUTIONS=1 on a GPU, then make results, fills them):", file=sys.stderr)
        for where in pending:
            print(f"  {where}", file=sys.stderr)
    if args.write:
        print(f"lesson-figures: the lessons' {count} figures are those of {folder}/")
        return 0
    for figure in stale:
        print(f"  {figure.where()}: <!-- bench: {figure.marker} --> has {figure.has}, the run has {figure.expected}",
              file=sys.stderr)
    if stale:
        print(f"lesson-figures: {len(stale)} of the lessons' {count} figures are not those of {folder}/: "
              "python3 -m tools.tutorial lesson-figures --write (make results does it)", file=sys.stderr)
        return 1
    print(f"lesson-figures: the lessons' {count} figures are those of {folder}/")
    return 0
