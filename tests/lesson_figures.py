"""The figures the lessons quote from the benchmark (tools/tutorial/lesson_figures.py,
`python3 -m tools.tutorial lesson-figures`), for `make check`:

- a marked figure is filled from the run's files, with the page's own formatting (the
  results page's format_percent, format_ms, format_rate, format_speedup, format_times);
- a figure that is not the run's is reported (lesson, line, marker, got, expected), and
  --write rewrites it;
- a marker naming a problem, variant, column or chapter the files lack is refused, naming it,
  unless its figure is `not yet measured` and the run lacks its problem or variant (a row the
  benchmark has only just gained): then it is left as it is, and named;
- on the real tree: every lesson's figures are those of docs/results/, and the site's
  pages show a figure without its marker.

Run: python3 tests/lesson_figures.py (exit status 1 and the failures on stderr).
"""

import csv
import tempfile
from pathlib import Path


from tool_checks import check, failures, finish  # noqa: E402 (puts the root on the path)
from tools.tutorial import lesson_figures as figures  # noqa: E402
from tools.tutorial import results  # noqa: E402
from tools.tutorial.course import Refusal  # noqa: E402



def row(variant, median, rate, share, speedup="", times_library="", check_="ok", kind="kernel"):
    return {"chapter": "7", "folder": "07-x", "tree": "solutions", "kind": kind, "problem": "4096 x 4096 x 4096",
            "variant": variant, "median_ms": median, "min_ms": median, "max_ms": median, "repetitions": "51",
            "unit": "GFLOP/s", "rate": rate, "ceiling": "cuBLAS", "percent_of_ceiling": share, "baseline": "naive",
            "speedup": speedup, "times_library": times_library, "is_library": "0", "check": check_, "note": "",
            "gpu": "NVIDIA H200", "compute_capability": "9.0", "driver": "580", "driver_cuda": "13.0",
            "runtime_cuda": "13.0", "date": "2026-11-28T20:44:50Z"}


with tempfile.TemporaryDirectory() as scratch:
    folder = Path(scratch)
    rows = [row("cuBLAS", "2.675", "51375.2", "", kind="ceiling"),
            row("naive", "25.7731", "5332.46", "10.3795", "1", "0.1038"),
            row("7d warp tiles", "3.14512", "43703.1", "85.0667", "8.19463", "0.850524"),
            row("broken", "1.0", "1.0", "1.0", check_="WRONG")]
    with open(folder / "chapter7-solutions.csv", "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    run = figures.read_run(folder)
    lesson = folder / "README.md"

    def fill(text, own="7"):
        return figures.fill(text, lesson, own, run, folder)

    # ---- filled, with the page's formatting ------------------------------------------------
    marked = "At <!-- bench: 4096 x 4096 x 4096; 7d warp tiles; percent_of_ceiling -->?<!-- /bench --> of cuBLAS."
    filled, stale = fill(marked)
    check(filled == "At <!-- bench: 4096 x 4096 x 4096; 7d warp tiles; percent_of_ceiling -->85.1%<!-- /bench --> of cuBLAS.",
          f"a share is filled as the page writes it: {filled}")
    check(len(stale) == 1 and stale[0].line == 1 and stale[0].has == "?" and stale[0].expected == "85.1%",
          f"the figure that was not the run's is reported: {stale}")
    check(fill(filled)[1] == [], "a filled figure is no longer reported")
    for column, expected in [("percent_of_ceiling", results.format_percent(85.0667)),
                             ("median_ms", results.format_ms("3.14512")),
                             ("rate", results.format_rate(rows[2])),
                             ("speedup", results.format_speedup(8.19463)),
                             ("times_library", results.format_speedup(0.850524)),
                             ("times naive", results.format_times(25.7731 / 3.14512)),
                             ("over naive", "8.19×")]:
        text = f"<!-- bench: 4096 x 4096 x 4096; 7d warp tiles; {column} -->x<!-- /bench -->"
        got = fill(text)[1][0].expected
        check(got == expected, f"{column}: {got!r}, where the page's formatting writes {expected!r}")
    check(fill("<!-- bench: gpu -->x<!-- /bench --> on <!-- bench: date -->x<!-- /bench -->")[0]
          == "<!-- bench: gpu -->NVIDIA H200<!-- /bench --> on <!-- bench: date -->2026-11-28<!-- /bench -->",
          "the run's GPU and day")
    check(fill("<!-- bench: chapter 7; gpu -->x<!-- /bench -->", own="2")[0].endswith("NVIDIA H200<!-- /bench -->"),
          "'chapter N;' quotes another chapter's file")
    check(figures.unmarked(filled) == "At 85.1% of cuBLAS.", f"the site's text: {figures.unmarked(filled)}")

    # ---- refused, naming what is missing ------------------------------------------------------
    def refused(text, *words, own="7"):
        try:
            fill(text, own)
        except Refusal as refusal:
            message = str(refusal)
            check(all(word in message for word in words), f"the refusal of {text!r} names {words}: {message}")
            return
        failures.append(f"{text!r} is not refused")

    refused("<!-- bench: 8192 x 8192 x 8192; 7d warp tiles; rate -->x<!-- /bench -->", "no problem '8192 x 8192 x 8192'",
            "README.md:1")
    refused("<!-- bench: 4096 x 4096 x 4096; 7e; rate -->x<!-- /bench -->", "no variant '7e'")
    refused("<!-- bench: 4096 x 4096 x 4096; naive; flops -->x<!-- /bench -->", "'flops'")
    refused("<!-- bench: 4096 x 4096 x 4096; broken; rate -->x<!-- /bench -->", "failed its check", "WRONG")
    refused("<!-- bench: gpu -->x<!-- /bench -->", "no file of chapter 3", own="3")
    refused("<!-- bench: 4096 x 4096 x 4096; 7e; rate -->x<!-- /bench -->", "'not yet measured'")

    # ---- a row not measured yet: 'not yet measured' stands, and is named ------------------------
    for fields in ["4096 x 4096 x 4096; 7e; rate", "8192 x 8192 x 8192; naive; rate", "4096 x 4096 x 4096; naive; times 7e"]:
        unmeasured = f"| <!-- bench: {fields} -->not yet measured<!-- /bench --> |"
        pending = []
        kept, stale = figures.fill(unmeasured, lesson, "7", run, folder, pending)
        check(kept == unmeasured and stale == [] and len(pending) == 1 and fields in pending[0],
              f"a row the run lacks, quoted as not yet measured, stands and is named: {kept} {stale} {pending}")
    refused("<!-- bench: 4096 x 4096 x 4096; naive; flops -->not yet measured<!-- /bench -->", "'flops'")
    refused("<!-- bench: 4096 x 4096 x 4096; broken; rate -->not yet measured<!-- /bench -->", "failed its check")
    measured_now = "<!-- bench: 4096 x 4096 x 4096; naive; percent_of_ceiling -->not yet measured<!-- /bench -->"
    filled_now, stale = fill(measured_now)
    check(filled_now.endswith("-->10.4%<!-- /bench -->") and len(stale) == 1,
          f"once the run has the row, 'not yet measured' is stale and --write fills it: {filled_now} {stale}")
    refused("<!-- bench: gpu -->x", "not closed")

    # ---- --write rewrites, the check reports ----------------------------------------------------
    lesson.write_text("line one\n" + marked + "\n", encoding="utf-8")
    fixed, _ = fill(lesson.read_text(encoding="utf-8"))
    check("85.1%" in fixed.split("\n")[1], "the stale figure is rewritten on its own line")

# ---- a chapter the run did not measure: its lesson is left as it is -----------------------------
import argparse  # noqa: E402
import contextlib  # noqa: E402
import io  # noqa: E402

with tempfile.TemporaryDirectory() as scratch:
    noted = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(noted):
        status = figures.check(argparse.Namespace(write=False, results=scratch, numbers=["1"]))
    check(status == 0 and "chapter 1 is not in" in noted.getvalue(),
          f"a lesson of a chapter the run lacks is left as it is, with a note: {status} {noted.getvalue()}")

# ---- the real tree: every lesson's figures are the run's ---------------------------------------
quiet = io.StringIO()
with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
    status = figures.check(argparse.Namespace(write=False, results=None, numbers=[]))
check(status == 0, f"the lessons' figures are those of docs/results/: {quiet.getvalue()}")

finish("tests/lesson_figures.py", "all passed")
