"""Write docs/results.md from the benchmarks' CSV files.

    python3 -m tools.tutorial results [--output docs/results.md] build/bench/chapter*-solutions.csv

`make results` runs it on build/bench/*-solutions.csv, and keeps them beside the page
(--record docs/results: the run's files, committed, from which the page and the lessons'
figures, tools/tutorial/lesson_figures.py, are written again on any machine); without files in
build/bench it reads docs/results/ instead. The page is generated, never
typed: its tables come from the files, and its one sentence per chapter comes from
the templates of the chapter's manifest (below), filled in with the measured numbers. With no files it writes
the page with no measurements, only the bars to compare with.

What the page says of a chapter comes from its manifest, chapters/NN-name/chapter.toml
(manifest.py reads it): the bars the reference solution must reach ([[results.bars]]), the
going-further goals ([[results.goals]]), and the sentence its numbers teach: templates
([[results.summary]]) whose named values ([results.values]) summary() computes here from the
chapter's rows. Its problem and variant names are the ones the chapter's bench.cpp writes.

With --output, each chapter also gets a chart, figures/results-chapterN.svg beside the page
(results_chart.py: bars of the share of the ceiling, per variant and size), which the page
shows above its table; charts of chapters no longer measured are removed.
Python 3 standard library only.
"""

import csv
import math
import os
import shutil
import sys

from . import results_chart, roofline
from .course import Refusal, read_registry
from .manifest import read_manifest


REQUIRED_COLUMNS = [
    "chapter", "folder", "tree", "kind", "problem", "variant", "median_ms", "min_ms", "max_ms",
    "repetitions", "unit", "rate", "ceiling", "percent_of_ceiling", "baseline", "speedup", "check",
    "note", "gpu", "compute_capability", "driver", "driver_cuda", "runtime_cuda", "date",
]

# The check of a library row whose library is not installed (common/benchmark/report.h).
ABSENT = "absent"

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


class MeasuredChapter:
    """The rows of one chapter's benchmark file, with lookups for the sentence templates."""

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

    def variant_named(self, problem, pattern):
        """`pattern` itself, or for "PREFIX*" the first variant measured whose name starts
        with PREFIX (None if there is none)."""
        if not pattern.endswith("*"):
            return pattern
        return next((row["variant"] for row in self.rows if row["problem"] == problem
                     and row["variant"].startswith(pattern[:-1]) and row["check"] == "ok"), None)


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


def format_library_ratio(value):
    """× the library in a sentence that says ahead or behind: as the goals table writes it
    against 1 (shown_against), so that 0.997× never reads as 1.00×."""
    return "n/a" if value is None else shown_against(value, 1.0, False)


def format_times(value):
    """A ratio of two times: 5.4×, or 12,190× from 100 on."""
    if value is None:
        return "n/a"
    return f"{value:,.0f}×" if value >= 100 else f"{value:.1f}×"


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

def read_bench_files(paths):
    """The chapters measured in the benchmarks' CSV files, in the course's order (the last file
    of a chapter and tree wins)."""
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
        chapter = MeasuredChapter(rows, path)
        key = (chapter.folder, chapter.tree)
        if key in chapters:
            print(f"make results: {path} replaces {chapters[key].source} for {key[0]} ({key[1]})", file=sys.stderr)
        chapters[key] = chapter

    def order(key):
        number = chapters[key].number
        return (int(number) if number.isdigit() else 999, key[0], key[1] != "solutions", key[1])

    return [chapters[key] for key in sorted(chapters, key=order)]


# ---- The summary: the manifest's templates, filled in --------------------------------------


def value_of(value, values, chapter):
    """One value of a manifest's [results.values] (manifest.Value), measured in `chapter`:
    (the number or text the conditions see, or None when not measured; the text the page shows)."""
    kind, fields = value.kind, value.fields
    if kind == "difference":
        first, second = values[fields[0]][0], values[fields[1]][0]
        number = None if first is None or second is None else first - second
        return number, "n/a" if number is None else f"{number:.1f}"
    problem = fields[0]
    if kind == "variant":
        name = chapter.variant_named(problem, fields[1])
        return (None, "n/a") if name is None else (name[len(fields[1]) - 1:],) * 2
    if kind == "shares":
        shown = []
        for pattern in fields[1:]:
            name = chapter.variant_named(problem, pattern)
            share = chapter.number_of(problem, name, "percent_of_ceiling") if name else None
            if share is not None:
                shown.append(f"{name} {format_percent(share)}")
        return (", ".join(shown), ", ".join(shown)) if shown else (None, "n/a")
    if kind == "times":
        slower, faster = (chapter.variant_named(problem, p) for p in fields[1:])
        slow = chapter.number_of(problem, slower, "median_ms") if slower else None
        fast = chapter.number_of(problem, faster, "median_ms") if faster else None
        number = slow / fast if slow is not None and fast else None
        return number, format_times(number)
    column, shape = {"share": ("percent_of_ceiling", format_percent), "speedup": ("speedup", format_speedup),
                     "library": ("times_library", format_library_ratio)}[kind]
    name = chapter.variant_named(problem, fields[1])
    number = chapter.number_of(problem, name, column) if name else None
    return number, shape(number)


def summary(manifest, chapter):
    """The page's sentence about the chapter: the manifest's texts whose condition holds, each
    {name} replaced by that value as measured in `chapter`."""
    values = {}
    for name, value in manifest.values.items():  # a difference's operands come before it
        if value.kind != "difference":
            values[name] = value_of(value, values, chapter)
    for name, value in manifest.values.items():
        if value.kind == "difference":
            values[name] = value_of(value, values, chapter)
    numbers = {name: number for name, (number, _) in values.items()}
    shown = {name: text for name, (_, text) in values.items()}

    def goals_met(problem=None):
        """Every goal on `problem` (on any problem, without one) is reached by all its variants."""
        return all((value or 0) >= goal.goal for goal in manifest.goals if problem in (None, goal.problem)
                   for _, value, _ in goal_figures(chapter, goal))

    functions = {"measured": lambda *values: all(v is not None for v in values), "goals_met": goals_met}
    return "".join(part.text.format_map(shown) for part in manifest.summary
                   if part.when is None or part.when.evaluate(numbers, functions))


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
    manifest = read_manifest(chapter.folder)
    lines = [f"## Chapter {chapter.number}: {title}", ""]
    if chapter.tree != "solutions":
        lines += [f"*These are the `{chapter.tree}` tree's kernels, not the reference solutions.*", ""]
    if manifest and manifest.summary:
        lines += [summary(manifest, chapter), ""]
    if chart_name(chapter) in charts:
        lines += [f"![{chart_title(chapter, titles)}](figures/{chart_name(chapter)})", ""]
    if roofline_name(chapter) in charts:
        lines += [f"![Chapter {chapter.number} on the roofline of the GPU it ran on](figures/{roofline_name(chapter)})",
                  "", "On the roofline: each kernel's measured rate (GFLOP/s) at its arithmetic intensity, flops per "
                  "DRAM byte from the profiler (`make chapterN roofline`); kernels that do no floating-point work "
                  "stand in the strip at the left, as a share of DRAM bandwidth.", ""]
    first = chapter.rows[0]
    lines += [f"Measured on {stamp_of(first)}, {first['date']}; from `{os.path.basename(chapter.source)}`.", ""]
    lines += ["| problem | variant | median | spread (min–max) | runs | rate | % of ceiling | speed-up | × the library | check |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    previous = None
    for row in chapter.rows:
        ok = row["check"] == "ok"
        spread = "–" if row["min_ms"] == "" else f"{format_ms(row['min_ms'])} – {format_ms(row['max_ms'])}"
        if row["kind"] == "ceiling":
            share = "ceiling"
        else:
            share = format_percent(float(row["percent_of_ceiling"])) if ok and row["percent_of_ceiling"] else "–"
        speedup = format_speedup(float(row["speedup"])) if ok and row["speedup"] else "–"
        if row.get("is_library") == "1":
            library = "library"
        else:
            library = format_speedup(float(row["times_library"])) if ok and row.get("times_library") else "–"
        check = "ok" if ok else row["check"] if row["check"] == ABSENT else f"**{row['check']}**"
        problem = "" if row["problem"] == previous else row["problem"]
        previous = row["problem"]
        lines.append(f"| {problem} | {row['variant']} | {format_ms(row['median_ms'])} | {spread} | "
                     f"{row['repetitions']} | {format_rate(row)} | {share} | {speedup} | {library} | {check} |")
    baselines = sorted({row["baseline"] for row in chapter.rows if row["baseline"]})
    ceilings = sorted({row["ceiling"] for row in chapter.rows if row["ceiling"]})
    libraries = sorted({row["variant"] for row in chapter.rows if row.get("is_library") == "1"})
    lines += ["", f"Speed-ups are over the baseline of the same problem ({'; '.join(baselines) or 'none'}); "
                  f"percentages are of {', '.join(ceilings) or 'nothing'}"
                  + (f"; × the library is the library row's time over the row's ({'; '.join(libraries)}: "
                     "above 1, faster than the library)." if libraries else ".")]
    notes = [row for row in chapter.rows if row["note"]]
    for row in notes:
        lines.append(f"- {row['problem']}, {row['variant']}: {row['note']}")
    return lines + [""]


def manifest_entries(field):
    """(folder, entry) for each entry of every chapter's manifest list `field` (bars or
    goals), in the course's order."""
    entries = []
    for c in read_registry():
        manifest = read_manifest(c.folder)
        for entry in getattr(manifest, field, []) if manifest else []:
            entries.append((c.folder, entry))
    return entries


def shown_against(value, bar, percent):
    """A figure as the tables write it (89.5%, 0.99×), with more decimals where that rounding
    would put it on the other side of the bar: 0.9955 against 1 is 0.996×, not 1.00×."""
    if not percent and value < 0.01:
        return format_speedup(value)
    digits = 1 if percent else 2
    while digits < 4 and (float(f"{value:.{digits}f}") >= bar) != (value >= bar):
        digits += 1
    return f"{value:.{digits}f}%" if percent else f"{value:.{digits}f}×"


def judged(figures, bar, percent):
    """The figures, (label, value, failed check) each, as the tables write them, and whether
    each reaches the bar."""
    ours, verdicts = [], []
    for label, value, failed in figures:
        if failed:
            ours.append(f"{label}**{failed}**")
            continue
        if value is None:
            continue
        ours.append(f"{label}{shown_against(value, bar, percent)}")
        verdicts.append(f"{label}{'yes' if value >= bar else '**no**'}")
    return ", ".join(ours) or "not measured", ", ".join(verdicts) or "–"


def variant_figures(chapter, problem, variants, column):
    """Each variant's figure in `column`, labelled with its name when there are several."""
    return [(f"{variant} " if len(variants) > 1 else "",
             chapter.number_of(problem, variant, column) if chapter else None,
             chapter.failed(problem, variant) if chapter else None) for variant in variants]


def step_name(variant):
    """A variant's short name: its first word when that holds a digit ("10b"), else its
    first two ("tiled 32")."""
    words = variant.split()
    return words[0] if any(ch.isdigit() for ch in words[0]) else " ".join(words[:2])


def goal_figures(chapter, goal):
    """The figures a goal is judged on: its variants' (variant_figures), or for the measure
    "over_previous" each variant's speed-up over the one before it, labelled "10b over 10a"
    by the variants' step names."""
    if goal.measure != "over_previous":
        return variant_figures(chapter, goal.problem, goal.variants, goal.column)
    figures = []
    for before, after in zip(goal.variants, goal.variants[1:]):
        label = f"{step_name(after)} over {step_name(before)} "
        failed = chapter and (chapter.failed(goal.problem, after) or chapter.failed(goal.problem, before))
        times = [chapter.number_of(goal.problem, v, goal.column) if chapter else None for v in (before, after)]
        value = times[0] / times[1] if None not in times and times[1] > 0 else None
        figures.append((label, value, failed or None))
    return figures


def measured_against(chapter, problem, variants, bar, column="percent_of_ceiling"):
    """The variants' measured figures in `column` (shares of the ceiling, or speed-ups over
    the baseline), and whether each reaches the bar."""
    return judged(variant_figures(chapter, problem, variants, column), bar, column == "percent_of_ceiling")


def goal_against(chapter, goal):
    """A goal's figures in this run, and whether each reaches the goal."""
    return judged(goal_figures(chapter, goal), goal.goal, goal.measure == "share")


def solution_rows(chapters, field, judge, row_of):
    """One table row per [[results.FIELD]] entry of every manifest: the reference solutions'
    figures and verdicts, (ours, verdicts) = judge(chapter, entry), as row_of(entry, ours,
    verdicts) writes them."""
    by_folder = {c.folder: c for c in chapters if c.tree == "solutions"}
    return [row_of(entry, *judge(by_folder.get(folder), entry)) for folder, entry in manifest_entries(field)]


def bars_section(chapters):
    lines = ["## Against the seed kernels", "",
             "The bars are the seed articles' own kernels, re-timed on an H200 on 2026-11-21, "
             "as a share of the same ceilings (cuBLAS FP32, or device-to-device copy bandwidth). "
             "The reference solutions must be no slower. Shares of a ceiling carry over between GPUs "
             "better than times do, but a bar measured on an H200 is only a guide on another GPU.", "",
             "| kernel | seed kernel, H200 | reference solution, this page | at or above the bar |",
             "|---|---:|---|---|"]
    lines += solution_rows(chapters, "bars",
                           lambda chapter, bar: measured_against(chapter, bar.problem, bar.variants, bar.seed_share),
                           lambda bar, ours, verdicts: f"| {bar.what} | {bar.seed_share:.1f}% | {ours} | {verdicts} |")
    return lines + [""] + BAR_NOTES + [""]


def goals_section(chapters):
    lines = ["## Going further: the goals", "",
             "The going-further kernels against the same ceilings: cuBLAS FP32 for the FP32 GEMMs, cuBLAS "
             "BF16 for the tensor cores' (chapter 10), copy bandwidth for the others, as a share of the "
             "ceiling measured in the same run; a goal "
             "written as N× is a speed-up over the library a user would call, measured in the same run, "
             "or, where the figures read \"8b over 8a\", each step's speed-up over the step before it "
             "(1× is as fast).", "",
             "| kernel | goal | aim | reference solution, this page | at or above the goal |",
             "|---|---:|---:|---|---|"]
    lines += solution_rows(chapters, "goals", goal_against,
                           lambda goal, ours, verdicts:
                           f"| {goal.what} | {goal.shown(goal.goal)} | {goal.shown(goal.aim)} | {ours} | {verdicts} |")
    return lines + [""]


def goals_report(csv_paths, folders):
    """What `make bench SOLUTIONS=1` prints after its tables: each goal of the chapters in
    `folders`, with the figure of the run just written to `csv_paths`, met or missed."""
    chapters = read_bench_files(csv_paths)
    lines = []
    for folder, goal in manifest_entries("goals"):
        if folder not in folders:
            continue
        chapter = next((c for c in chapters if c.folder == folder and c.tree == "solutions"), None)
        ours, verdicts = goal_against(chapter, goal)
        verdicts = verdicts.replace("**no**", "MISSED").replace("yes", "met")
        lines.append(f"  {goal.what}: goal {goal.shown(goal.goal)}, aim {goal.shown(goal.aim)}; "
                     f"this run {ours.replace('**', '')}: {verdicts}")
    return lines


def page(chapters, sources, charts=()):
    titles = {c.folder: c.title for c in read_registry()}
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
                  "column), each run timed with CUDA events and preceded by an L2 flush: a read of twice the "
                  "L2, which evicts everything in it, then a write of as many bytes as the run writes (up to "
                  "the L2's size), which leaves the dirty lines a run would find after a run of its own; "
                  "the median is the time, and the fastest and slowest runs are its spread. Each result is checked against the CPU reference after timing, so a kernel that "
                  "skips work cannot look fast. GEMM rates count 2·M·N·K flops; the other chapters' rates "
                  "count compulsory bytes (the input read once, the output written once). The ceilings are "
                  "measured in the same run on the same GPU: cuBLAS SGEMM in pure FP32 (pedantic math, no "
                  "TF32; for the tensor cores of chapter 10, cuBLAS with BF16 inputs and FP32 accumulation) and "
                  "a device-to-device `cudaMemcpy`, counting bytes read plus bytes written.", ""]
    for chapter in chapters:
        lines += chapter_section(chapter, titles, charts)
    lines += bars_section(chapters)
    lines += goals_section(chapters)
    return "\n".join(lines)


def roofline_name(chapter):
    return f"roofline-chapter{chapter.number}" + ("" if chapter.tree == "solutions" else f"-{chapter.tree}") + ".svg"


def profile_table(chapter, profile_dir):
    """The profile's table for the chapter's tree (ncu's comparison if there is one), or None."""
    folder = os.path.join(profile_dir, chapter.tree)
    for name in (f"chapter{chapter.number}-compared.csv", f"chapter{chapter.number}-predicted.csv"):
        if os.path.exists(os.path.join(folder, name)):
            return os.path.join(folder, name)
    return None


def write_roofline(chapter, titles, folder, profile_dir):
    """The chapter's roofline from its CSV and its profile, or None without either."""
    manifest = read_manifest(chapter.folder)
    profile = profile_table(chapter, profile_dir)
    if profile is None or manifest is None or not manifest.roofline_variants:
        return None
    if not chapter.rows[0].get("peak_fp32_gflops"):
        return None  # a file from before the roofline: no peaks to draw the roof with
    try:
        points, roof = roofline.points_of(manifest, roofline.read_profile(profile), chapter.rows)
    except Refusal as refusal:
        print(f"make results: no roofline for chapter {chapter.number}: {refusal}", file=sys.stderr)
        return None
    name = roofline_name(chapter)
    title = f"Chapter {chapter.number}: {titles.get(chapter.folder, chapter.folder)}, on the roofline"
    with open(os.path.join(folder, name), "w", encoding="utf-8") as out:
        out.write(roofline.chart(title, points, roof))
    return name


def write_charts(chapters, folder, profile_dir=os.path.join("build", "profile")):
    """Write each chapter's chart (and its roofline, where its profile is in `profile_dir`) into
    `folder`; remove the charts of chapters not measured now. Returns the names written."""
    titles = {c.folder: c.title for c in read_registry()}
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
        roof = write_roofline(chapter, titles, folder, profile_dir)
        if roof:
            written.add(roof)
    for stale in os.listdir(folder):
        if stale.startswith(("results-chapter", "roofline-chapter")) and stale.endswith(".svg") and stale not in written:
            os.remove(os.path.join(folder, stale))
    return written


def record(csv_paths, folder):
    """Keep the run's files in `folder` (docs/results/), in place of the last run's: the page's
    source, committed with it, from which the page and the lessons' figures (lesson_figures.py)
    are written again on any machine. Files already there are left as they are."""
    os.makedirs(folder, exist_ok=True)
    kept = set()
    for path in csv_paths:
        target = os.path.join(folder, os.path.basename(path))
        kept.add(os.path.basename(path))
        if os.path.abspath(path) != os.path.abspath(target):
            shutil.copyfile(path, target)
    for stale in os.listdir(folder):
        if stale.endswith(".csv") and stale not in kept:
            os.remove(os.path.join(folder, stale))


def write(output, csv_paths, record_folder=None):
    sources = [os.path.abspath(path) for path in csv_paths]
    if record_folder:
        record(sources, record_folder)
    chapters = read_bench_files(sources)
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
