"""One-off: docs/results.md's tables (the H200 run of 2026-11-28) back into the benchmarks' CSV rows.

    python3 tools/reconstruct_results_csv.py docs/results.md docs/results/   (from the root; run once, then removed)

The page shows each number as format_ms/format_rate/format_percent/format_speedup write it, so a
reconstructed number is the shown one, which those functions write back unchanged. Where the
page's chart drew a bar from more digits than the table shows (the bar's height, 0.1 px), the
share is moved inside the table's rounding so that the chart is drawn as it was. Columns the
page does not show are left empty (q1_ms, q3_ms, ceiling_rate, peak_fp32_gflops, peak_dram_gbs)
or rebuilt from the table's structure (kind, ceiling, baseline, library, is_library, unit).
"""
import csv, math, os, re, sys

COLUMNS = ["chapter", "folder", "tree", "kind", "problem", "variant", "median_ms", "min_ms", "max_ms", "q1_ms",
           "q3_ms", "repetitions", "unit", "rate", "ceiling", "ceiling_rate", "percent_of_ceiling", "baseline",
           "speedup", "library", "times_library", "is_library", "check", "note", "gpu", "compute_capability",
           "driver", "driver_cuda", "runtime_cuda", "date", "peak_fp32_gflops", "peak_dram_gbs"]


def number(cell, suffix):
    cell = cell.strip()
    if cell in ("–", ""):
        return ""
    assert cell.endswith(suffix), (cell, suffix)
    return cell[: -len(suffix)].strip().replace(",", "")


# Medians that the summary's ratios (the manifest's "times" values) need with more digits than the
# table shows, each inside the table's rounding: chapter 1's sentence has 11,666× and 33.4×.
FINER_MEDIANS = {("1", "1024 x 1024 x 1024", "naive"): "0.42497",
                 ("1", "1024 x 1024 x 1024", "CPU: OpenBLAS SGEMM, 16 threads"): "2.1204",
                 ("1", "1024 x 1024 x 1024", "cuBLAS SGEMM (FP32)"): "0.06357"}


def bars_of(svg_path):
    """[(bar top y, height)] of the chart's bars with a share, in the chart's order (None for a stub)."""
    bars = []
    for rect in re.finditer(r'<rect x="[^"]*" y="([^"]*)" width="[^"]*" height="([^"]*)"( fill="none")?[^>]*><title>',
                            open(svg_path, encoding="utf-8").read()):
        bars.append(None if rect.group(3) else (rect.group(1), rect.group(2)))
    return bars


def finer_share(shown, top, bar):
    """A share of 6 significant digits that the table shows as `shown` and the chart draws as `bar`."""
    y = lambda p: 40 + 220 * (1 - p / top)
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    base, step = float(shown), 0.5 * 10 ** -decimals / 500
    fits = [candidate for candidate in (float(f"{base + k * step:.6g}") for k in range(-500, 501))
            if f"{candidate:.{decimals}f}" == shown
            and f"{y(candidate):.1f}" == bar[0] and f"{max(y(0) - y(candidate), 0.5):.1f}" == bar[1]]
    assert fits, (shown, bar)
    return f"{fits[len(fits) // 2]:.6g}"


def sections(page):
    chapters = re.split(r"^## Chapter (\d+): .*$", page, flags=re.M)
    for i in range(1, len(chapters), 2):
        yield chapters[i], chapters[i + 1]


def main(page_path, out_dir):
    page = open(page_path, encoding="utf-8").read()
    registry = {line.split()[0]: line.split()[1] for line in open("chapters/registry", encoding="utf-8")
                if line.strip() and not line.startswith("#")}
    os.makedirs(out_dir, exist_ok=True)
    for number_, body in sections(page):
        body = body.split("\n## ")[0]
        stamp = re.search(r"^Measured on (.*) \(compute capability (.*)\), driver (.*) \(CUDA (.*)\), runtime CUDA (.*), "
                          r"(\S+); from `(.*)`\.$", body, flags=re.M)
        gpu, cc, driver, driver_cuda, runtime_cuda, date, source = stamp.groups()
        footnote = re.search(r"^Speed-ups are over the baseline of the same problem \((.*?)\); percentages are of (.*?)(;|\.$)",
                             body, flags=re.M)
        baselines = footnote.group(1).split("; ")
        rows, problem = [], None
        for line in body.splitlines():
            if not line.startswith("| ") or line.startswith("| problem"):
                continue
            cells = [c.strip() for c in line.strip()[1:-1].split(" | ")]
            assert len(cells) == 10, line
            p, variant, median, spread, runs, rate, share, speedup, library, check = cells
            problem = p or problem
            low, high = spread.split(" – ") if spread != "–" else ("–", "–")
            unit = "GB/s" if rate.endswith("GB/s") else "GFLOP/s" if rate.endswith("GFLOP/s") else ""
            rows.append({
                "chapter": number_, "folder": registry[number_], "tree": "solutions",
                "kind": "ceiling" if share == "ceiling" else "library" if library == "library" else "kernel",
                "problem": problem, "variant": variant,
                "median_ms": number(median, "ms"), "min_ms": number(low, "ms"), "max_ms": number(high, "ms"),
                "q1_ms": "", "q3_ms": "", "repetitions": runs, "unit": unit, "rate": number(rate, unit) if unit else "",
                "ceiling": "", "ceiling_rate": "",
                "percent_of_ceiling": "" if share == "ceiling" else number(share, "%"),
                "baseline": "", "speedup": number(speedup, "×"), "library": "",
                "times_library": "" if library == "library" else number(library, "×"),
                "is_library": "1" if library == "library" else "0",
                "check": check.strip("*"), "note": "", "gpu": gpu, "compute_capability": cc, "driver": driver,
                "driver_cuda": driver_cuda, "runtime_cuda": runtime_cuda, "date": date,
                "peak_fp32_gflops": "", "peak_dram_gbs": ""})
        # The copy row is a ceiling of its own problem; a GEMM problem's ceiling is its cuBLAS row.
        ceilings = {r["problem"]: r["variant"] for r in rows if r["kind"] == "ceiling"}
        copy = next(r["variant"] for r in rows if r["kind"] == "ceiling" and r["unit"] == "GB/s")
        libraries = {r["problem"]: r["variant"] for r in rows if r["is_library"] == "1"}
        base_of = {}
        for r in rows:
            if r["speedup"] == "1.00" and r["variant"] in baselines and r["problem"] not in base_of:
                base_of[r["problem"]] = r["variant"]
        for r in rows:
            if r["kind"] != "ceiling":
                r["ceiling"] = ceilings.get(r["problem"], copy)
                r["baseline"] = base_of.get(r["problem"], "")
            if r["problem"] in libraries and libraries[r["problem"]] != r["variant"]:
                r["library"] = libraries[r["problem"]]
            if not r["unit"]:  # a row without a rate: its problem's unit
                r["unit"] = next(o["unit"] for o in rows if o["problem"] == r["problem"] and o["unit"])
        for r in rows:
            r["median_ms"] = FINER_MEDIANS.get((number_, r["problem"], r["variant"]), r["median_ms"])
        # The chart's bars: the shares with the digits the chart drew them with.
        charted = [r for r in rows if r["kind"] in ("kernel", "library")]
        bars = bars_of(os.path.join(os.path.dirname(page_path), "figures", f"results-chapter{number_}.svg"))
        assert len(bars) == len(charted), (number_, len(bars), len(charted))
        shares = [float(r["percent_of_ceiling"]) for r in charted if r["check"] == "ok" and r["percent_of_ceiling"]]
        top = 100 if max(shares) <= 100 else int((max(shares) + 19) // 20 * 20)
        for r, bar in zip(charted, bars):
            if bar is not None and r["check"] == "ok" and r["percent_of_ceiling"]:
                r["percent_of_ceiling"] = finer_share(r["percent_of_ceiling"], top, bar)
        for note in re.finditer(r"^- (.*)$", body, flags=re.M):
            for r in rows:
                prefix = f"{r['problem']}, {r['variant']}: "
                if note.group(1).startswith(prefix):
                    r["note"] = note.group(1)[len(prefix):]
        with open(os.path.join(out_dir, source), "w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        print(f"{source}: {len(rows)} rows")


if __name__ == "__main__":
    main(*sys.argv[1:])
