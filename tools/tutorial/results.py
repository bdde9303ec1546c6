"""Write docs/results.md from the benchmarks' CSV files.

    python3 -m tools.tutorial results [--output docs/results.md] build/bench/chapter*-solutions.csv

`make results` runs it on build/bench/*-solutions.csv. The page is generated, never
typed: its tables come from the files, and its one sentence per chapter comes from
the templates below, filled in with the measured numbers. With no files it writes
the page with no measurements, only the bars to compare with.

What the page says of a chapter comes from the chapter's own results_page.py:
  BARS        [(what, the seed kernel's share of the ceiling in percent, problem,
              [variants])]: the bars the reference solution must reach;
  summary(c)  the sentence its numbers teach, from c.percent(problem, variant),
              c.speedup(problem, variant) and c.number_of(problem, variant, column).
Its problem and variant names are the ones the chapter's bench.cpp writes.

With --output, each chapter also gets a chart, figures/results-chapterN.svg beside the page
(results_chart.py: bars of the share of the ceiling, per variant and size), which the page
shows above its table; charts of chapters no longer measured are removed.
Python 3 standard library only.
"""

import csv
import math
import importlib.util
import os
import sys

from . import results_chart
from .course import ROOT
from .course import read_chapters as read_chapters_of_registry


REQUIRED_COLUMNS = [
    "chapter", "folder", "tree", "kind", "problem", "variant", "median_ms", "min_ms", "max_ms",
    "repetitions", "unit", "rate", "ceiling", "percent_of_ceiling", "baseline", "speedup", "check",
    "note", "gpu", "compute_capability", "driver", "driver_cuda", "runtime_cuda", "date",
]

# Why a "no" above is not a slower kernel. Measured by hand on an H200 on 2026-11-21
# (a scratch benchmark, median of 15 runs at 4096³), so written here, not generated.
BAR_NOTES = [
    "On the tiled GEMM's bars: the bar is the seed's kernel, which only works for multiples of the "
    "tile and has no bounds checks. Re-timed by hand beside the reference solution on an H200 on "
    "2026-11-21 (a scratch benchmark, median of 15 runs at 4096³), it took 16.94 ms at TILE 16 "
    "(ours: 16.93 ms) and 15.58 ms at TILE 32 (ours: 15.62 ms): the same speed, so a **no** by a "
    "few tenths of a point is the spread of the ceiling between runs (cuBLAS and the clocks), "
    "not a slower kernel.",
]


class Chapter:
    """The rows of one chapter's file, with lookups for the sentence templates."""

    def __init__(self, rows, source):
        self.rows = rows
        self.source = source
        first = rows[0]
        self.number, self.folder, self.tree = first["chapter"], first["folder"], first["tree"]

    def row(self, problem, variant):
        for row in self.rows:
            if row["problem"] == problem and row["variant"] == variant and row["check"] == "ok":
                return row
        return None

    def failed(self, problem, variant):
        """The check ("WRONG", "ERROR") of a variant that ran but failed, else None."""
        for row in self.rows:
            if row["problem"] == problem and row["variant"] == variant and row["check"] != "ok":
                return row["check"]
        return None

    def number_of(self, problem, variant, column):
        row = self.row(problem, variant)
        if row is None or row[column] == "":
            return None
        return float(row[column])

    def percent(self, problem, variant):
        return format_percent(self.number_of(problem, variant, "percent_of_ceiling"))

    def speedup(self, problem, variant):
        return format_speedup(self.number_of(problem, variant, "speedup"))

    # The formats, for the pages' own sentences: a chapter's results_page.py gets all it
    # needs through `c` and imports nothing from the tools.
    def format_percent(self, value):
        return format_percent(value)

    def format_speedup(self, value):
        return format_speedup(value)


def significant(value, digits):
    """`value` with `digits` significant digits, never in exponent form: a CPU row is
    thousands of times slower than a kernel, and 0.0% would say it did nothing."""
    if value == 0 or abs(value) >= 10 ** (digits - 1):
        return f"{value:.0f}"
    decimals = digits - 1 - int(math.floor(math.log10(abs(value))))
    return f"{value:.{decimals}f}"


def format_percent(value):
    if value is None:
        return "n/a"
    return f"{value:.1f}%" if value >= 0.1 else f"{significant(value, 2)}%"


def format_speedup(value):
    if value is None:
        return "n/a"
    return f"{value:.2f}×" if value >= 0.01 else f"{significant(value, 2)}×"


def format_ms(text):
    if text == "":
        return "–"
    ms = float(text)
    decimals = 1 if ms >= 100 else 2 if ms >= 10 else 3 if ms >= 1 else 4
    return f"{ms:.{decimals}f} ms"


def format_rate(row):
    if row["rate"] == "" or row["check"] != "ok":
        return "–"
    rate = float(row["rate"])
    if row["unit"] == "GB/s":
        return f"{rate:.1f} GB/s"
    return f"{rate:.0f} GFLOP/s" if rate >= 100 else f"{significant(rate, 2)} GFLOP/s"


# ---- Reading -----------------------------------------------------------------------------

def chapter_page_module(folder):
    """The chapter's results_page.py (BARS and summary), or None if it has none."""
    path = ROOT / "chapters" / folder / "results_page.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"results_page_{folder.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_chapters(paths):
    chapters = {}
    for path in paths:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit(f"make results: {path} lacks the columns {', '.join(missing)}: "
                         "was it written by this version of the benchmarks?")
            rows = list(reader)
        if not rows:
            print(f"make results: {path} has no rows; left out", file=sys.stderr)
            continue
        chapter = Chapter(rows, path)
        key = (chapter.folder, chapter.tree)
        if key in chapters:
            print(f"make results: {path} replaces {chapters[key].source} for {key[0]} ({key[1]})", file=sys.stderr)
        chapters[key] = chapter

    def order(key):
        number = chapters[key].number
        return (int(number) if number.isdigit() else 999, key[0], key[1] != "solutions", key[1])

    return [chapters[key] for key in sorted(chapters, key=order)]


# ---- Writing -----------------------------------------------------------------------------

def stamp_of(row):
    return (f"{row['gpu']} (compute capability {row['compute_capability']}), driver {row['driver']} "
            f"(CUDA {row['driver_cuda']}), runtime CUDA {row['runtime_cuda']}")


def chart_name(chapter):
    """The chart's file name: one per chapter and tree, so a student's run never hides the reference's."""
    return f"results-chapter{chapter.number}" + ("" if chapter.tree == "solutions" else f"-{chapter.tree}") + ".svg"


def chart_title(chapter, titles):
    return f"Chapter {chapter.number}: {titles.get(chapter.folder, chapter.folder)}, share of the ceiling"


def chapter_section(chapter, titles, charts=()):
    title = titles.get(chapter.folder, chapter.folder)
    module = chapter_page_module(chapter.folder)
    lines = [f"## Chapter {chapter.number}: {title}", ""]
    if chapter.tree != "solutions":
        lines += [f"*These are the `{chapter.tree}` tree's kernels, not the reference solutions.*", ""]
    if module and hasattr(module, "summary"):
        lines += [module.summary(chapter), ""]
    if chart_name(chapter) in charts:
        lines += [f"![{chart_title(chapter, titles)}](figures/{chart_name(chapter)})", ""]
    first = chapter.rows[0]
    lines += [f"Measured on {stamp_of(first)}, {first['date']}; from `{os.path.basename(chapter.source)}`.", ""]
    lines += ["| problem | variant | median | spread (min–max) | runs | rate | % of ceiling | speed-up | check |",
              "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    previous = None
    for row in chapter.rows:
        ok = row["check"] == "ok"
        spread = "–" if row["min_ms"] == "" else f"{format_ms(row['min_ms'])} – {format_ms(row['max_ms'])}"
        if row["kind"] == "ceiling":
            share = "ceiling"
        else:
            share = format_percent(float(row["percent_of_ceiling"])) if ok and row["percent_of_ceiling"] else "–"
        speedup = format_speedup(float(row["speedup"])) if ok and row["speedup"] else "–"
        check = "ok" if ok else f"**{row['check']}**"
        problem = "" if row["problem"] == previous else row["problem"]
        previous = row["problem"]
        lines.append(f"| {problem} | {row['variant']} | {format_ms(row['median_ms'])} | {spread} | "
                     f"{row['repetitions']} | {format_rate(row)} | {share} | {speedup} | {check} |")
    baselines = sorted({row["baseline"] for row in chapter.rows if row["baseline"]})
    ceilings = sorted({row["ceiling"] for row in chapter.rows if row["ceiling"]})
    lines += ["", f"Speed-ups are over the baseline of the same problem ({'; '.join(baselines) or 'none'}); "
                  f"percentages are of {', '.join(ceilings) or 'nothing'}."]
    notes = [row for row in chapter.rows if row["note"]]
    for row in notes:
        lines.append(f"- {row['problem']}, {row['variant']}: {row['note']}")
    return lines + [""]


def registry_goals(name):
    """Every chapter's list `name` (BARS or GOALS) from its results_page.py, each entry
    with the chapter's folder put in after its first two fields."""
    entries = []
    for c in read_chapters_of_registry():
        for entry in getattr(chapter_page_module(c.folder), name, []):
            entries.append((c.folder, entry))
    return entries


def measured_against(chapter, problem, variants, bar):
    """The measured shares of the variants, and whether each reaches the bar."""
    ours, verdicts = [], []
    for variant in variants:
        label = f"{variant} " if len(variants) > 1 else ""
        failed = chapter.failed(problem, variant) if chapter else None
        if failed:
            ours.append(f"{label}**{failed}**")
            continue
        value = chapter.number_of(problem, variant, "percent_of_ceiling") if chapter else None
        if value is None:
            continue
        ours.append(f"{label}{value:.1f}%")
        verdicts.append(f"{label}{'yes' if value >= bar else '**no**'}")
    return ", ".join(ours) or "not measured", ", ".join(verdicts) or "–"


def bars_section(chapters):
    lines = ["## Against the seed kernels", "",
             "The bars of issue 5: the seed articles' own kernels, re-timed on an H200 on 2026-11-21, "
             "as a share of the same ceilings (cuBLAS FP32, or device-to-device copy bandwidth). "
             "The reference solutions must be no slower. Shares of a ceiling carry over between GPUs "
             "better than times do, but a bar measured on an H200 is only a guide on another GPU.", "",
             "| kernel | seed kernel, H200 | reference solution, this page | at or above the bar |",
             "|---|---:|---|---|"]
    by_folder = {c.folder: c for c in chapters if c.tree == "solutions"}
    for folder, (what, bar, problem, variants) in registry_goals("BARS"):
        ours, verdicts = measured_against(by_folder.get(folder), problem, variants, bar)
        lines.append(f"| {what} | {bar:.1f}% | {ours} | {verdicts} |")
    return lines + [""] + BAR_NOTES + [""]


def goals_section(chapters):
    lines = ["## Going further: the goals of issue 14", "",
             "The going-further kernels against the same ceilings: cuBLAS FP32 for the GEMM, copy "
             "bandwidth for the others, as a share of the ceiling measured in the same run.", "",
             "| kernel | goal | aim | reference solution, this page | at or above the goal |",
             "|---|---:|---:|---|---|"]
    by_folder = {c.folder: c for c in chapters if c.tree == "solutions"}
    for folder, (what, goal, aim, problem, variants) in registry_goals("GOALS"):
        ours, verdicts = measured_against(by_folder.get(folder), problem, variants, goal)
        lines.append(f"| {what} | {goal:.0f}% | {aim:.0f}% | {ours} | {verdicts} |")
    return lines + [""]


def page(chapters, sources, charts=()):
    titles = {c.folder: c.title for c in read_chapters_of_registry()}
    lines = ["# Measured results", "",
             "<!-- Generated by tools/tutorial/results.py (make results) from "
             + (", ".join(os.path.basename(s) for s in sources) or "no measurements")
             + ". Do not edit: run `make bench SOLUTIONS=1` on a GPU, then `make results`. -->", ""]
    if not chapters:
        lines += ["No measurements yet. On a machine with an NVIDIA GPU, `make bench SOLUTIONS=1` times "
                  "every chapter's reference solution and `make results` writes this page from its files.", ""]
    else:
        lines += ["Every number here comes from the benchmarks' own files, written by `make bench SOLUTIONS=1` "
                  "(`make chapterN bench` on your own kernels).", "",
                  "How they are measured: after warm-up runs, each variant runs several times (the runs "
                  "column), each run timed with CUDA events and preceded by a write that flushes the L2 cache; "
                  "the median is the time, and the fastest and slowest runs are its spread. Each result is checked against the CPU reference after timing, so a kernel that "
                  "skips work cannot look fast. GEMM rates count 2·M·N·K flops; the other chapters' rates "
                  "count compulsory bytes (the input read once, the output written once). The ceilings are "
                  "measured in the same run on the same GPU: cuBLAS SGEMM in pure FP32 (pedantic math, no "
                  "TF32) and a device-to-device `cudaMemcpy`, counting bytes read plus bytes written.", ""]
    for chapter in chapters:
        lines += chapter_section(chapter, titles, charts)
    lines += bars_section(chapters)
    lines += goals_section(chapters)
    return "\n".join(lines)


def write_charts(chapters, folder):
    """Write each chapter's chart into `folder`; remove the charts of chapters not measured now.
    Returns the names written."""
    titles = {c.folder: c.title for c in read_chapters_of_registry()}
    os.makedirs(folder, exist_ok=True)
    written = set()
    for chapter in chapters:
        svg = results_chart.chart(chart_title(chapter, titles), chapter.rows, format_percent)
        if svg is None:
            continue
        name = chart_name(chapter)
        with open(os.path.join(folder, name), "w", encoding="utf-8") as out:
            out.write(svg)
        written.add(name)
    for stale in os.listdir(folder):
        if stale.startswith("results-chapter") and stale.endswith(".svg") and stale not in written:
            os.remove(os.path.join(folder, stale))
    return written


def write(output, csv_paths):
    sources = [os.path.abspath(path) for path in csv_paths]
    chapters = read_chapters(sources)
    charts = write_charts(chapters, os.path.join(os.path.dirname(os.path.abspath(output)), "figures")) if output else set()
    text = page(chapters, sources, charts)
    if output:
        temporary = output + ".tmp"
        with open(temporary, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, output)
        print(f"Wrote {output} from {len(sources)} file(s), with {len(charts)} chart(s) in "
              f"{os.path.join(os.path.dirname(output) or '.', 'figures')}.")
    else:
        sys.stdout.write(text)
    return 0
