"""The tutorial's tools, one program with a subcommand per verb:

  python3 -m tools.tutorial [--backend B] [--tree T] COMMAND ...

  chapters            the chapters, one per line (make help); --fields: "number folder title",
                      tab-separated, for scripts
  help                make help: the chapters and the targets (tools/tutorial/help.txt)
  status              build each chapter, then a row per chapter: your files, whether it
                      builds, its last test results
  hint N              the chapter's next hint (--restart: from the first)
  count-hints N       (make check) how many hints the chapter has
  next                the next chapter to work on, as a sentence (--after N: after chapter N)
                      or its number (--number, for make watch)
  watch [N]           run the chapter's tests (make's BACKEND, SOLUTIONS, --seed), then again
                      on each save of its files (make watch; tools/tutorial/watch.py)
  solution N          the reference solution, once the chapter passes (--force: before)
  reset N             the skeleton back, after a timestamped backup of your files
  grade --dir DIR N.. build each chapter and its solution, check the objects, run the tests
                      through the judge, then the score table, JUnit XML and Gradescope's
                      results.json in DIR (--visibility V for Gradescope; tools/tutorial/verbs.py)
  release --dir DIR [N..]  the student repository in DIR: without solutions/, each chapter's
                      files its skeleton; then checks that it holds no solution code and that
                      the chapters N (default all) build, test red and grade 0% there
                      (--no-check: write only; tools/tutorial/release.py)
  judge --binary B .. (make grade's baseline) run a test program, keeping only what its harness reports
                      over the grading channel (tools/tutorial/judge.py)
  test B.. [-- ARGS]  make test, make chapterN test: run each test program, the run kept to one
                      screen; on a GPU, compute-sanitizer after passing tests, the CPU backend's
                      checks after a failure (--sanitize-output DIR; tools/tutorial/test_run.py)
  cpu-diagnosis --binary B [--results R]
                      make chapterN test on a GPU, when it fails: the failing tests (R's) on the
                      CPU backend's checks, their first shapes, and its report when it finds one
  sanitizer-report LOG
                      (make sanitize) a compute-sanitizer log's findings, a few lines
                      (tools/tutorial/sanitizer.py)
  check-results F..   (make check) each file is valid Gradescope results.json (--score S:
                      and scores S)
  classroom           (make check) .github/workflows/classroom.yml is what the registry
                      makes; --write: write it (make classroom); --commands: its commands
  skeletons           (make check) every skeleton is what its solution's markers make;
                      --write: write them (make skeletons)
  results CSV..       docs/results.md from the benchmarks' files (--output FILE; --record DIR:
                      the files kept in DIR, the page's run, committed: make results)
  roofline N          the chapter's kernels on the roofline, an SVG (--profile FILE: the profiler's
                      table; --bench FILE: the benchmark's CSV, measured on a GPU; --output FILE;
                     --lesson: a lesson's figure, its title naming no chapter)
  profile-tables N..  (make check) each lesson's profile table is what the predictions make;
                      --write: write them (make profile-tables); --dir: the predicted tables;
                      --needed: name the chapters whose predictions those tables read
  rooflines N..       make chapterN roofline: profile, (on a GPU) bench, then draw each
                      (--figures: each lesson's figure from the solutions' predictions)
  bench N.. --args A  run the benchmarks make built, with the options A (make's ARGS)
  sass FILE..         make chapterN sass: the memory and barrier instructions of each kernel of the
                      compiled files, counted (.cubin: SASS, by --cuobjdump; .ptx: PTX, said so)
  profile N..         run the profilers make built (--probe: the profiler's probe), on a GPU
                      under ncu, the prediction beside (--arch, --ncu, --measured)
  site STEP           make docs: the Doxyfile, the site, or the report (tools/tutorial/site.py)
  probe-check CSV     (make check, on a GPU) the profiler's probe counts equal ncu's
  docs OUT            the course site's pages for Doxygen (--solutions: instructor edition)
  site-links SITE..   every link of a built site leads somewhere
  site-search SITE    the site's searches find the API's names and the lessons' text
  site-fit SITE       (in Chromium, where installed) tables and figures fit a 1280-px page,
                      every label inside its figure; screenshots kept (--shots DIR)
  site-solutions      --absent/--present SITE: solution code is absent from / present in a site
  figures             (make check) the lessons' drawn figures are what tools/tutorial/figures.py
                      draws; --write: draw them
  lesson-figures [N..]  (make check) each figure a lesson quotes from the benchmark is that of
                      the results page's run, docs/results/*.csv; --write: write them (make
                      results does; tools/tutorial/lesson_figures.py)
  lesson-leaks [N..]  (make check) no solution line is in a lesson, its hints but the last, or
                      a TODO text (tools/tutorial/lesson_leaks.py)
  issue-numbers       (make check) no lesson, hint or guide of the site names one of the
                      project's issues, but docs/maintainers.md (tools/tutorial/docs.py)

make builds; the verbs of tools/tutorial/verbs.py run what it built, and call make back
only for what one make cannot build in the same call.
Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from . import classroom, docs, figures, grading, guard, judge, lesson_figures, lesson_leaks, profile_tables, ptxas_header, release, results, roofline, sanitizer, sass, site, site_fit, site_links, site_search, site_solutions, test_run, verbs, watch, workflow
from .course import Refusal, find, read_hints, read_registry


def list_chapters(args) -> int:
    for chapter in args.chapters:
        print(f"{chapter.number}\t{chapter.folder}\t{chapter.title}" if args.fields else f"  chapter{chapter.number:<3} {chapter.title}")
    return 0


def show_help(args) -> int:
    print("CUDA shared-memory tutorial. The chapters:")
    list_chapters(argparse.Namespace(chapters=args.chapters, fields=False))
    print()
    print("Targets:")
    print((pathlib.Path(__file__).parent / "help.txt").read_text(encoding="utf-8"), end="")
    print()
    print(f"Building for {args.arch}; Catch2 version {args.catch2}.")
    return 0


def count_hints(args) -> int:
    print(len(read_hints(find(args.chapters, args.numbers, "hint"))))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tools.tutorial", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="emu", choices=["cuda", "emu"])
    parser.add_argument("--tree", default="chapters", choices=["chapters", "solutions"])
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name, function, numbers=False):
        sub = commands.add_parser(name)
        sub.set_defaults(function=function)
        if numbers:
            sub.add_argument("numbers", nargs="*", help="chapter numbers")
        return sub

    command("chapters", list_chapters).add_argument("--fields", action="store_true")
    sub = command("help", show_help)
    sub.add_argument("--arch", required=True)
    sub.add_argument("--catch2", required=True)
    command("status", verbs.status)
    command("hint", workflow.hint, numbers=True).add_argument("--restart", action="store_true")
    command("count-hints", count_hints, numbers=True)
    sub = command("next", workflow.next_chapter)
    sub.add_argument("--after")
    sub.add_argument("--number", action="store_true")
    command("solution", workflow.solution, numbers=True).add_argument("--force", action="store_true")
    command("reset", workflow.reset, numbers=True)
    command("watch", watch.watch, numbers=True).add_argument("--seed")
    sub = command("grade", verbs.grade, numbers=True)
    sub.add_argument("--dir", required=True)
    sub.add_argument("--seed", default="default", help="the seed of the solution's run to expect")
    sub.add_argument("--no-baseline", action="store_true", help="no allowance for the solution's objects")
    sub.add_argument("--visibility", default="visible", choices=grading.VISIBILITIES)
    sub.add_argument("--full-marks", action="store_true")
    sub = command("release", release.release, numbers=True)
    sub.add_argument("--dir", required=True)
    sub.add_argument("--no-check", action="store_true")
    sub = command("guard", guard.guard)
    for name in ("student", "parts"):
        sub.add_argument(f"--{name}", nargs="+", required=True)
    sub.add_argument("--baseline", nargs="*", default=[])
    sub.add_argument("--backend-parts", nargs="*", default=[])
    sub.add_argument("--callable-parts", nargs="*", default=[])
    sub.add_argument("--headers", nargs="*", default=[], help="the exercise's headers: the names it declares")
    sub.add_argument("--depfiles", nargs="*", default=[], help="the compiler's dependency files of the student's objects")
    sub.add_argument("--chapter-dir", help="the chapter's folder, whose headers the student's files may include")
    sub.add_argument("--driver-entry", action="store_true",
                     help="the exercise asks for driver functions by name (registry: driver=yes)")
    sub.add_argument("--source-dir", help="the folder of the files compiled (default: --chapter-dir)")
    sub.add_argument("--binary", required=True)
    sub.add_argument("--out", required=True)
    sub = command("judge", judge.judge)
    sub.add_argument("--binary", required=True)
    sub.add_argument("--results", required=True)
    sub.add_argument("--log", required=True)
    sub.add_argument("--timeout", type=float, default=1800)
    sub.add_argument("arguments", nargs="*")
    sub = command("test", test_run.test)
    sub.add_argument("binaries", nargs="+")
    sub.add_argument("--sanitize-output", default="build/sanitize", help="on a GPU: the folder of the sanitizer's logs")
    sub.add_argument("--args", default="", help="the programs' options, as one shell string (make's ARGS)")
    sub.add_argument("--build-lines", type=int, default=0,
                     help="the build lines make printed before the run (they count against the screen)")
    command("sanitizer-report", sanitizer.sanitizer_report).add_argument("log")
    sub = command("cpu-diagnosis", verbs.cpu_diagnosis)
    sub.add_argument("--binary", required=True)
    sub.add_argument("--results", help="the GPU run's results file: its failing tests are run; none: all")
    sub = command("check-results", grading.check_results)
    sub.add_argument("--score", type=float)
    sub.add_argument("files", nargs="+")
    command("skeletons", workflow.skeletons).add_argument("--write", action="store_true")
    sub = command("ptxas-header", ptxas_header.write)
    sub.add_argument("--source", required=True)
    sub.add_argument("--report", help="ptxas' report of the source; none without nvcc")
    sub.add_argument("--out", required=True)
    sub = command("classroom", classroom.classroom)
    sub.add_argument("--write", action="store_true")
    sub.add_argument("--commands", action="store_true")
    sub = command("results", lambda a: results.write(a.output, a.csv, a.record))
    sub.add_argument("--output")
    sub.add_argument("--record", help="keep a copy of the files read here, the run's record beside the page")
    sub.add_argument("csv", nargs="*")
    sub = command("profile-tables", profile_tables.run, numbers=True)
    sub.add_argument("--write", action="store_true")
    sub.add_argument("--dir", default="build/profile/solutions")
    sub.add_argument("--needed", action="store_true", help="print the chapters whose predictions the tables read")
    sub = command("roofline", roofline.write)
    sub.add_argument("number")
    sub.add_argument("--profile", required=True)
    sub.add_argument("--bench")
    sub.add_argument("--output", required=True)
    sub.add_argument("--lesson", action="store_true", help="a lesson's figure: its title names no chapter")
    sub = command("rooflines", verbs.rooflines, numbers=True)
    sub.add_argument("--figures", action="store_true")
    sub = command("bench", verbs.bench, numbers=True)
    sub.add_argument("--args", default="", help="the programs' options, as one shell string (make's ARGS)")
    sub = command("profile", verbs.profile, numbers=True)
    sub.add_argument("--arch", required=True)
    sub.add_argument("--ncu", default="ncu")
    sub.add_argument("--measured")
    sub.add_argument("--probe", action="store_true")
    sub = command("sass", sass.run)
    sub.add_argument("--arch", required=True)
    sub.add_argument("--cuobjdump", default="", help="cuobjdump's path; without it the files are PTX")
    sub.add_argument("--no-nvcc", action="store_true")
    sub.add_argument("files", nargs="*", help="the compiled files: .cubin (their SASS) or .ptx")
    sub = command("site", site.site)
    sub.add_argument("step", choices=["doxyfile", "build", "report"])
    sub.add_argument("--solutions", action="store_true")
    sub.add_argument("--strict", action="store_true")
    sub.add_argument("--doxygen", default="doxygen")
    sub.add_argument("--dot", default="dot")
    sub.add_argument("--css-dir", default="/usr/share/doxygen-awesome-css")
    command("probe-check", profile_tables.probe_check).add_argument("csv")
    sub = command("docs", lambda a: docs.write_pages(a.out, a.solutions))
    sub.add_argument("out")
    sub.add_argument("--solutions", action="store_true")
    command("site-links", lambda a: site_links.check_sites(a.sites)).add_argument("sites", nargs="+")
    command("site-search", lambda a: site_search.check(a.site)).add_argument("site", type=pathlib.Path)
    sub = command("site-fit", site_fit.run)
    sub.add_argument("site", type=pathlib.Path)
    sub.add_argument("--shots", default="build/check/site-fit")
    sub = command("site-solutions", site_solutions.check)
    mode = sub.add_mutually_exclusive_group(required=True)
    mode.add_argument("--absent", action="store_true", help="no solution line may appear (student edition)")
    mode.add_argument("--present", action="store_true", help="every solution line must appear (instructor edition)")
    sub.add_argument("site", type=pathlib.Path)

    command("lesson-leaks", lesson_leaks.check, numbers=True)
    command("issue-numbers", docs.check_issue_numbers)
    command("figures", figures.check).add_argument("--write", action="store_true")
    sub = command("lesson-figures", lesson_figures.check, numbers=True)
    sub.add_argument("--write", action="store_true")
    sub.add_argument("--results", help="the run's files (default: docs/results, beside the page)")

    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # in order with make's output
    try:
        args.chapters = read_registry()
        return args.function(args)
    except Refusal as refusal:
        print(refusal, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
