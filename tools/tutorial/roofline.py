"""A chapter's kernels on the roofline: an SVG written by hand.

    python3 -m tools.tutorial roofline N --profile FILE [--bench FILE] [--lesson] --output FILE.svg

`make chapterN roofline` runs it; `make roofline-figures` with --lesson, for each lesson's
figures/roofline.svg, whose title names no chapter. Each kernel of the chapter is a point:
  x  its arithmetic intensity: the flops of one run over the bytes it moves to and from DRAM,
     both from the profiler's table (make chapterN profile): the flops the chapter's
     profile.cpp declares, the DRAM bytes the profiler predicts (the unique bytes loaded plus
     the unique bytes stored: caches let a GPU move each about once) or, where ncu measured
     them on a GPU (chapterN-compared.csv), the DRAM bytes read that ncu counted;
  y  with --bench (the benchmark's CSV, written on a GPU): its measured rate, in GFLOP/s (a
     rate in GB/s of compulsory bytes times the intensity), under the roof of the GPU it ran
     on: min(FP32 peak, DRAM bandwidth × x), both from the device's properties;
     without --bench (the CPU backend): no measurement, so the point sits on the roof of an
     H100 SXM (67 TFLOP/s FP32, 3.35 TB/s): the most the kernel could reach there, which the
     title says.
A kernel that does no floating-point work (a transpose, an 8-bit box mean) has intensity 0,
off a logarithmic axis: it goes in a strip at the left, its DRAM rate against the bandwidth roof.

Which benchmark row is which profile variant comes from the [roofline] of the chapter's
manifest, chapters/NN-name/chapter.toml (manifest.py reads it):
  problem   the benchmark's problem the points are taken from, e.g. "4096 x 4096 x 4096"
  variants  [[the profile's variant name, the benchmark's variant name], ...]
The problem's library row (the column "× the library") is drawn too, as a square: at the
kernels' intensity when its rate counts the problem's flops (cuBLAS), else in the strip.
Python 3 standard library only.
"""

from __future__ import annotations

import csv
import math
import os
from xml.sax.saxutils import escape

from .course import Refusal
from .manifest import read_manifest
from .results_chart import COLOURS, FONT, wrapped

# An H100 SXM5: 132 SMs × 128 FP32 lanes × 2 flops × 1.98 GHz, and HBM3 at 3.35 TB/s.
H100_FP32_GFLOPS = 67_000.0
H100_DRAM_GBS = 3_350.0

WIDTH, HEIGHT = 820, 520
STRIP_LEFT, STRIP_WIDTH = 70, 90
PLOT_LEFT, PLOT_RIGHT = STRIP_LEFT + STRIP_WIDTH + 70, 20
PLOT_TOP, PLOT_HEIGHT = 64, 330
# The header's lines, wrapped to the figure's width as Chromium draws them (DejaVu Sans, the
# site-fit check's browser): about 8.8 px a character in 15-px bold, 6 px in 11-px regular.
TITLE_CHARACTERS, TITLE_LINE = 88, 18
SUBTITLE_CHARACTERS, SUBTITLE_LINE = 128, 14


class Point:
    def __init__(self, label, intensity, gflops=None, gbs=None, library=False, check="ok"):
        self.label, self.intensity, self.gflops, self.gbs = label, intensity, gflops, gbs
        self.library, self.check = library, check


def read_profile(path):
    """{variant name: (flops, DRAM bytes)} from chapterN-predicted.csv or -compared.csv.
    A variant of several launches (chapter 6's two passes) adds its launches' bytes."""
    if not os.path.exists(path):
        raise Refusal(f"roofline: {path} is missing: run `make chapterN profile` first")
    counters = {}
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            launches = counters.setdefault(row["variant"], [])
            key = (row["group"], row["counter"])
            if not launches or key in launches[-1]:
                launches.append({})
            value = row["measured"] if key == ("global loads", "DRAM bytes read") and row.get("measured") else row["predicted"]
            if not value:  # a counter only the GPU measures (achieved occupancy): nothing predicted
                continue
            launches[-1][key] = float(value)
    variants = {}
    for name, launches in counters.items():
        flops = 0.0
        first = launches[0]
        if ("arithmetic intensity", "flops per byte loaded") in first:
            flops = first["arithmetic intensity", "flops per byte loaded"] * first["global loads", "bytes requested"]
        dram = 0.0
        for launch in launches:
            loaded = launch.get(("global loads", "DRAM bytes read"), launch.get(("global loads", "unique bytes"), 0.0))
            dram += loaded + launch.get(("global stores", "unique bytes"), 0.0)
        variants[name] = (flops, dram)
    return variants


def read_bench(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def points_of(manifest, profile, bench_rows):
    """The points to draw, and the roof (peak GFLOP/s, GB/s, whether measured)."""
    problem, pairs = manifest.roofline_problem, manifest.roofline_variants
    if not pairs:
        raise Refusal(f"roofline: the chapter's manifest ({manifest.path.name}) has no [roofline]")
    missing = [name for name, _ in pairs if name not in profile]
    if missing:
        raise Refusal(f"roofline: the profile has no variant {missing[0]!r} (the manifest's roofline.variants): "
                      f"it has {', '.join(repr(n) for n in profile)}")
    rows = {r["variant"]: r for r in bench_rows if r["problem"] == problem} if bench_rows else {}
    if bench_rows and not rows:
        raise Refusal(f"roofline: the benchmark's file has no rows of the problem {problem!r} (the manifest's roofline.problem)")
    points = []
    for name, variant in pairs:
        flops, dram = profile[name]
        if dram <= 0:  # an unfinished kernel (a skeleton's) moves nothing: no intensity to draw
            points.append(Point(variant, 0.0, check="moved no bytes"))
            continue
        intensity = flops / dram
        points.append(measured_point(variant, intensity, rows.get(variant)) if bench_rows else Point(variant, intensity))
    library = next((r for r in rows.values() if r.get("is_library") == "1"), None)
    if library is not None:
        # A library's flops are the problem's when its rate counts flops (cuBLAS: 2·M·N·K, as
        # the kernels'), so it stands at their intensity; a rate in bytes says nothing of its
        # flops (CUB's scan does other arithmetic than the chapter's kernels), so it stands in
        # the strip, as a share of DRAM bandwidth.
        intensity = points[0].intensity if library["unit"] == "GFLOP/s" else 0.0
        point = measured_point(library["variant"], intensity, library)
        point.library = True
        points.append(point)
    if bench_rows:
        first = next(iter(rows.values()))
        peak, bandwidth = float(first.get("peak_fp32_gflops") or 0), float(first.get("peak_dram_gbs") or 0)
        if peak <= 0 or bandwidth <= 0:
            raise Refusal("roofline: the benchmark's file has no peak_fp32_gflops or peak_dram_gbs: "
                          "run the benchmark again with this version (make chapterN bench)")
        return points, (peak, bandwidth, True, first["gpu"])
    return points, (H100_FP32_GFLOPS, H100_DRAM_GBS, False, "NVIDIA H100 SXM")


def measured_point(label, intensity, row):
    if row is None:
        return Point(label, intensity, check="not measured")
    if row["check"] != "ok" or row["rate"] == "":
        return Point(label, intensity, check=row["check"])
    rate = float(row["rate"])
    if row["unit"] == "GFLOP/s":
        # A GEMM's rate counts flops; its DRAM rate is the flops over the intensity.
        return Point(label, intensity, gflops=rate, gbs=rate / intensity if intensity > 0 else None)
    return Point(label, intensity, gflops=rate * intensity if intensity > 0 else None, gbs=rate)


def decade_range(low, high):
    return math.floor(math.log10(low)), math.ceil(math.log10(high))


def chart(title, points, roof):
    peak, bandwidth, measured, gpu = roof
    ridge = peak / bandwidth
    with_flops = [p for p in points if p.intensity > 0]
    without = [p for p in points if p.intensity <= 0]
    intensities = [p.intensity for p in with_flops] + [ridge]
    x_low, x_high = decade_range(min(intensities) / 3, max(intensities) * 3)
    x_low = min(x_low, -2)
    rates = [p.gflops for p in with_flops if p.gflops] + [bandwidth * 10 ** x_low, peak]
    y_low, y_high = decade_range(min(rates) / 2, peak * 2)
    plot_width = WIDTH - PLOT_LEFT - PLOT_RIGHT

    def x_of(intensity):
        return PLOT_LEFT + plot_width * (math.log10(intensity) - x_low) / (x_high - x_low)

    def y_of(gflops):
        return PLOT_TOP + PLOT_HEIGHT * (1 - (math.log10(gflops) - y_low) / (y_high - y_low))

    def roof_at(intensity):
        return min(peak, bandwidth * intensity)

    colour = {p.label: COLOURS[i % len(COLOURS)] for i, p in enumerate(points)}
    subtitle = (f"measured on {gpu}: FP32 peak {peak / 1000:.1f} TFLOP/s, DRAM {bandwidth / 1000:.2f} TB/s "
                "(from the device's properties)" if measured else
                "CPU backend: predicted intensity against an H100's roofline (67 TFLOP/s FP32, 3.35 TB/s); "
                "no kernel was timed, so each sits on the roof: the most it could reach")
    description = "; ".join(describe(p, measured) for p in points)
    titles, subtitles = wrapped(title, TITLE_CHARACTERS), wrapped(subtitle, SUBTITLE_CHARACTERS)
    # Each line past the first of either moves the plot and everything below it down.
    drop = (len(titles) - 1) * TITLE_LINE + (len(subtitles) - 1) * SUBTITLE_LINE
    height = HEIGHT + drop
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
           f'height="{height}" role="img" aria-labelledby="title desc">',
           f'<title id="title">{escape(title)}</title>',
           f'<desc id="desc">{escape(subtitle + ". " + description)}</desc>',
           f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>']
    out += [f'<text x="16" y="{24 + i * TITLE_LINE}" {FONT} font-size="15" font-weight="bold">{escape(line)}</text>'
            for i, line in enumerate(titles)]
    first_subtitle = 44 + (len(titles) - 1) * TITLE_LINE
    out += [f'<text x="16" y="{first_subtitle + i * SUBTITLE_LINE}" {FONT} font-size="11">{escape(line)}</text>'
            for i, line in enumerate(subtitles)]
    out.append(f'<g transform="translate(0 {drop})">')
    # The main plot: decades, the roof, the ridge.
    for decade in range(x_low, x_high + 1):
        gx = x_of(10 ** decade)
        out.append(f'<line x1="{gx:.1f}" y1="{PLOT_TOP}" x2="{gx:.1f}" y2="{PLOT_TOP + PLOT_HEIGHT}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{gx:.1f}" y="{PLOT_TOP + PLOT_HEIGHT + 16}" {FONT} font-size="11" '
                   f'text-anchor="middle">{format_number(10 ** decade)}</text>')
    for decade in range(y_low, y_high + 1):
        gy = y_of(10 ** decade)
        out.append(f'<line x1="{PLOT_LEFT}" y1="{gy:.1f}" x2="{WIDTH - PLOT_RIGHT}" y2="{gy:.1f}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{PLOT_LEFT - 6}" y="{gy + 4:.1f}" {FONT} font-size="11" text-anchor="end">'
                   f'{format_number(10 ** decade)}</text>')
    out.append(f'<text x="{PLOT_LEFT + plot_width / 2:.1f}" y="{PLOT_TOP + PLOT_HEIGHT + 34}" {FONT} font-size="12" '
               'text-anchor="middle">arithmetic intensity: flops per DRAM byte (from the profiler)</text>')
    middle = PLOT_TOP + PLOT_HEIGHT / 2
    out.append(f'<text x="{PLOT_LEFT - 46}" y="{middle:.1f}" {FONT} font-size="12" text-anchor="middle" '
               f'transform="rotate(-90 {PLOT_LEFT - 46} {middle:.1f})">GFLOP/s</text>')
    start = 10 ** x_low
    roof = [(start, roof_at(start)), (ridge, peak), (10 ** x_high, peak)]
    path = " ".join(f"{x_of(i):.1f},{y_of(max(g, 10 ** y_low)):.1f}" for i, g in roof)
    out.append(f'<polyline points="{path}" fill="none" stroke="#222222" stroke-width="2"/>')
    # Above the flat roof, ending at the plot's right edge: begun at the ridge, it ran past
    # the figure's edge whenever the ridge lay right of the middle.
    out.append(f'<text x="{WIDTH - PLOT_RIGHT:.1f}" y="{y_of(peak) - 6:.1f}" {FONT} font-size="11" text-anchor="end">'
               f'FP32 peak {peak:,.0f} GFLOP/s; ridge at {ridge:.1f} flops/byte</text>')
    for p in with_flops:
        y = p.gflops if measured else roof_at(p.intensity)
        if y is None:  # measured, but wrong or not timed: marked on the axis, never as a rate
            out.append(f'<text x="{x_of(p.intensity):.1f}" y="{PLOT_TOP + PLOT_HEIGHT - 4}" {FONT} font-size="10" '
                       f'fill="#cc0000" text-anchor="middle">{escape(p.label)}: {escape(p.check)}</text>')
            continue
        out.append(marker(x_of(p.intensity), y_of(y), colour[p.label], p, measured, describe(p, measured)))
    # The strip: kernels without floating-point work, their DRAM rate against the bandwidth.
    if without:
        out.append(f'<rect x="{STRIP_LEFT}" y="{PLOT_TOP}" width="{STRIP_WIDTH}" height="{PLOT_HEIGHT}" '
                   'fill="#f6f6f6" stroke="#cccccc"/>')
        strip_y = lambda gbs: PLOT_TOP + PLOT_HEIGHT * (1 - gbs / bandwidth)  # noqa: E731
        out.append(f'<line x1="{STRIP_LEFT}" y1="{PLOT_TOP}" x2="{STRIP_LEFT + STRIP_WIDTH}" y2="{PLOT_TOP}" '
                   'stroke="#222222" stroke-width="2"/>')
        for share in (0, 25, 50, 75, 100):
            sy = strip_y(bandwidth * share / 100)
            out.append(f'<text x="{STRIP_LEFT - 4}" y="{sy + 4:.1f}" {FONT} font-size="10" text-anchor="end">'
                       f'{share}%</text>')
        out.append(f'<text x="{STRIP_LEFT + STRIP_WIDTH / 2}" y="{PLOT_TOP + PLOT_HEIGHT + 16}" {FONT} font-size="10" '
                   'text-anchor="middle">no flops, or</text>')
        out.append(f'<text x="{STRIP_LEFT + STRIP_WIDTH / 2}" y="{PLOT_TOP + PLOT_HEIGHT + 28}" {FONT} font-size="10" '
                   'text-anchor="middle">a library: % of</text>')
        out.append(f'<text x="{STRIP_LEFT + STRIP_WIDTH / 2}" y="{PLOT_TOP + PLOT_HEIGHT + 40}" {FONT} font-size="10" '
                   'text-anchor="middle">DRAM bandwidth</text>')
        for i, p in enumerate(without):
            sx = STRIP_LEFT + STRIP_WIDTH * (i + 1) / (len(without) + 1)
            gbs = p.gbs if measured else bandwidth if p.check == "ok" else None
            if gbs is None:
                out.append(f'<text x="{sx:.1f}" y="{PLOT_TOP + PLOT_HEIGHT - 4}" {FONT} font-size="9" fill="#cc0000" '
                           f'text-anchor="middle">{escape(p.check)}</text>')
                continue
            out.append(marker(sx, strip_y(min(gbs, bandwidth)), colour[p.label], p, measured, describe(p, measured)))
    # The legend.
    legend_top = PLOT_TOP + PLOT_HEIGHT + 64
    for i, p in enumerate(points):
        lx = 16 + (i % 3) * (WIDTH - 32) / 3
        ly = legend_top + (i // 3) * 18
        out.append(marker(lx + 6, ly - 4, colour[p.label], p, measured, None, radius=5))
        out.append(f'<text x="{lx + 16:.1f}" y="{ly}" {FONT} font-size="11">{escape(p.label)}'
                   f'{" (library)" if p.library else ""}</text>')
    out += ["</g>", "</svg>"]
    return "\n".join(out) + "\n"


def marker(x, y, colour, point, measured, tooltip, radius=6):
    shape = (f'<rect x="{x - radius:.1f}" y="{y - radius:.1f}" width="{2 * radius}" height="{2 * radius}"'
             if point.library else f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius}"')
    fill = f'fill="{colour}"' if measured else f'fill="#ffffff" stroke="{colour}" stroke-width="2"'
    title = f"<title>{escape(tooltip)}</title>" if tooltip else ""
    return f"{shape} {fill}>{title}</{'rect' if point.library else 'circle'}>"


def describe(point, measured):
    where = (f"intensity {point.intensity:.3g} flops/byte" if point.intensity > 0
             else "its flops not counted" if point.library else "no flops")
    if point.check != "ok":
        return f"{point.label}: {point.check}"
    if not measured:
        return f"{point.label}: {where} (predicted)"
    if point.gflops is None and point.gbs is None:
        return f"{point.label}: {where}, {point.check}"
    rate = f"{point.gflops:,.0f} GFLOP/s" if point.gflops else f"{point.gbs:,.0f} GB/s"
    return f"{point.label}: {where}, {rate}"


def format_number(value):
    if value >= 1000:
        return f"{value / 1000:g}k" if value < 1e6 else f"{value / 1e6:g}M"
    return f"{value:g}"


def write(args) -> int:
    chapter = next((c for c in args.chapters if str(c.number) == str(args.number)), None)
    if chapter is None:
        raise Refusal(f"roofline: there is no chapter {args.number}")
    manifest = read_manifest(chapter.folder)
    if manifest is None:
        raise Refusal(f"roofline: chapter {args.number} has no manifest (chapters/{chapter.folder}/chapter.toml)")
    bench_rows = read_bench(args.bench) if args.bench else None
    points, roof = points_of(manifest, read_profile(args.profile), bench_rows)
    # A lesson's figure (figures/roofline.svg) names no chapter: it shows what the chapter's code
    # does, so that the figure a copied chapter comes with is already the copy's own.
    title = "The kernels on the roofline" if getattr(args, "lesson", False) else f"Chapter {chapter.number}: {chapter.title}, on the roofline"
    if not roof[2]:
        title += " (predicted, H100)"
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as out:
        out.write(chart(title, points, roof))
    print(f"Wrote {args.output}: {len(points)} kernels, "
          + (f"measured on {roof[3]}" if roof[2] else "predicted intensity against an H100's roofline") + ".")
    return 0
