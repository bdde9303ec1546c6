"""The verbs that run what make built: status, grade, bench, profile and roofline.

make is the build graph: it builds a verb's programs, then calls its verb here, once. A
verb calls make back only for what one make cannot build in the same call:
- status and grade build each chapter on its own, so that one that does not compile
  leaves the others alone, and its log (which the reports quote) is its own;
- grade builds the solutions (SOLUTIONS=1, another tree) for its baseline;
- on the GPU, profile and roofline need the CPU backend's predictions (BACKEND=emu).

Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from . import confine, further_checks, grading, guard, judge, results, workflow
from .course import Build, Chapter, Refusal

# The counters, with the names Nsight Compute uses on Hopper. The core ones were checked
# on an H200; the others (ncu's occupancy figures, the global side of cp.async (LDGSTS),
# shared and global atomics) are asked for too, and if ncu does not know one, the core
# ones are measured alone.
NCU_METRICS_CORE = [
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active", "dram__bytes_read.sum",
]
NCU_METRICS = NCU_METRICS_CORE + [
    "sm__maximum_warps_per_active_cycle_pct", "launch__registers_per_thread",
    "smsp__inst_executed_op_shared_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps", "launch__occupancy_limit_blocks",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum",
    "l1tex__t_requests_pipe_lsu_mem_dshared_op_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_dshared_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_dshared_op_st.sum",
]


def make(*arguments: str, log: Path | None = None, hide_solutions: bool = False) -> int:
    """Run make, its output to @p log or to ours, with the calling make's -j and settings.
    The verbs' recipes are not marked recursive (`+`), so that `make -n VERB` prints them
    rather than running them: the calling make's jobserver is closed to us, and the child
    make is its own, with as many jobs."""
    with open(log, "w") if log else contextlib.nullcontext() as out:
        command = ["make", *arguments]
        if hide_solutions:  # a student's compile (confine.py)
            command = confine.command(command, Path.cwd(), read_only=False)
        return subprocess.run(command, stdout=out, stderr=subprocess.STDOUT if out else None,
                              env=make_environment()).returncode


def make_environment() -> dict:
    """Ours, without the calling make's jobserver (closed to a recipe not marked `+`)."""
    flags = [f for f in os.environ.get("MAKEFLAGS", "").split(" ") if not f.startswith("--jobserver")]
    return {**os.environ, "MAKEFLAGS": " ".join(flags)}


def selected(args) -> list[Chapter]:
    return [c for c in args.chapters if c.number in args.numbers] if args.numbers else list(args.chapters)


def names(chapters) -> str:
    return " ".join(c.name for c in chapters)


def build_each(chapters, backend: str, folder: Path, hide_solutions: bool = False, progress: bool = False) -> None:
    """Build each chapter on its own; leave its log and exit status in @p folder (BuildOutcome reads them).
    @p hide_solutions: the compile cannot see solutions/ or what was built from it (make grade).
    With @p progress, say on stderr, at once and then chapter by chapter, what is being built:
    a first build takes minutes, and a verb that says nothing for that long looks hung."""
    folder.mkdir(parents=True, exist_ok=True)
    progress = progress and bool(chapters)
    if progress:
        first = not (Path("build") / backend / "libcommon.a").exists()
        print(f"Building {chapters[0].name if len(chapters) == 1 else 'each chapter'} first (logs in {folder}/)"
              + (": the first build here compiles the shared library too, a few minutes" if first else "") + ":",
              end="", file=sys.stderr, flush=True)
    for chapter in chapters:
        if progress:
            print(f" {chapter.name}", end="", file=sys.stderr, flush=True)
        if hide_solutions:
            forget_solution_dependencies(Build(backend, "chapters"), chapter)
        status = make(chapter.name, f"BACKEND={backend}", log=folder / f"{chapter.name}-build.log",
                      hide_solutions=hide_solutions)
        (folder / f"{chapter.name}-build.status").write_text(f"{status}\n")
        if progress and status != 0:
            print(" (does not build)", end="", file=sys.stderr, flush=True)
    if progress:
        print(".", file=sys.stderr, flush=True)


def forget_solution_dependencies(build: Build, chapter: Chapter) -> None:
    """A student object whose dependency file names a solution (an earlier build of a file
    that included one) is built afresh: with the solutions hidden, make could not remake
    that prerequisite, and the chapter would not build whatever its file holds now."""
    for obj in build.kernels(chapter):
        depfiles = [obj.with_suffix(".d"), obj.with_suffix(".nvcc-ok.d")]
        if any(d.is_file() and any("solutions" in Path(os.path.normpath(dependency)).parts
                                   for dependency in guard.dependencies(d)) for d in depfiles):
            for stale in [obj, *depfiles, obj.with_suffix(".nvcc-ok")]:
                stale.unlink(missing_ok=True)


# ---- make status, make grade ------------------------------------------------------------


def status(args) -> int:
    if args.tree != "chapters":
        raise Refusal("make status shows your own chapters: run it without SOLUTIONS=1.")
    logs = Path("build") / args.backend / "status"
    build_each(args.chapters, args.backend, logs, progress=True)
    if args.backend == "cuda":
        further_checks.status_checks(args.chapters, make, logs)
    return workflow.status(argparse.Namespace(**{**vars(args), "logs": str(logs)}))


def cpu_diagnosis(args) -> int:
    """make chapterN test on a GPU, when it fails: the CPU backend's checks of the failing tests."""
    return further_checks.cpu_diagnosis(args, make, Path(args.binary), Path(args.results) if args.results else None)


def grade(args) -> int:
    """Build each chapter, and its solution when solutions/ has it (the baseline); check the
    student's objects (guard) and run the solution's tests (the cases to expect) before any
    student code runs; then run the tests of each chapter whose objects passed, through the
    judge, which keeps only what the harness reports on its channel (grading the solutions,
    that run is the expected one, already made); then score."""
    folder, chapters = Path(args.dir), selected(args)
    build, solutions = Build(args.backend, args.tree), Build(args.backend, "solutions")
    shutil.rmtree(folder, ignore_errors=True)
    students = args.tree == "chapters"  # make grade SOLUTIONS=1 grades the solutions: nothing to hide
    build_each(chapters, args.backend, folder, hide_solutions=students)
    (folder / "confinement.txt").write_text(confine.how() + "\n" if students else "")
    expected_suffix = f".expected-seed{args.seed}"
    for chapter in chapters:
        if chapter.solution_dir.is_dir():
            status = make(str(solutions.bin / f"{chapter.name}-tests{expected_suffix}"), "SOLUTIONS=1",
                          f"BACKEND={args.backend}", log=folder / f"{chapter.name}-baseline-build.log")
            (folder / f"{chapter.name}-baseline-build.status").write_text(f"{status}\n")
    checked: dict[str, str] = {}  # chapter -> its test program's SHA-256 when its objects were checked
    for chapter in chapters:
        check_objects(args, chapter, build, solutions, folder)
        binary = build.bin / f"{chapter.name}-tests"
        if binary.is_file():
            checked[chapter.name] = judge.sha256_of(binary)
        if (folder / f"{chapter.name}-baseline-build.status").is_file() and \
                (folder / f"{chapter.name}-baseline-build.status").read_text().strip() == "0":
            shutil.copy(solutions.bin / f"{chapter.name}-tests{expected_suffix}", folder / f"{chapter.name}-expected.results")
    # What grading reads, as it was before any student code ran: each run starts from it and
    # cannot change a verdict, an expected run or an earlier chapter's results.
    kept = {path: path.read_bytes() for path in folder.iterdir() if path.is_file()}

    def restore() -> None:
        for path, content in kept.items():
            if not path.is_file() or path.read_bytes() != content:
                path.unlink(missing_ok=True)
                path.write_bytes(content)

    for chapter in chapters:
        binary, results = build.bin / f"{chapter.name}-tests", folder / f"{chapter.name}.results"
        binary.with_name(binary.name + ".results").unlink(missing_ok=True)
        refusals = folder / f"{chapter.name}-guard.txt"
        built = (folder / f"{chapter.name}-build.status").read_text().strip() == "0"
        if built and refusals.is_file() and refusals.stat().st_size == 0:
            log = folder / f"{chapter.name}-test.log"
            expected_run = solutions.bin / f"{chapter.name}-tests{expected_suffix}"
            if not students and _made_from(expected_run, binary, checked.get(chapter.name, "")):
                # Grading the solutions (make check does): their program, run through the judge
                # with this seed, is the expected run make just made; running it again would
                # repeat that run, so its record is the chapter's.
                for source, target in ((expected_run, results), (Path(f"{expected_run}.judge"), Path(f"{results}.judge")),
                                       (Path(f"{expected_run}.log"), log)):
                    shutil.copy(source, target)
            else:
                judge.run(binary, results, log, 1800, [], checked_sha256=checked.get(chapter.name, ""),
                          confine_in=Path.cwd() if students else None)
            restore()
            for path in (results, Path(f"{results}.judge"), log):
                if path.is_file():
                    kept[path] = path.read_bytes()
            if results.is_file():  # where make status reads the chapter's last results
                shutil.copy(results, binary.with_name(binary.name + ".results"))
    if args.backend == "cuda":
        further_checks.run(args, chapters, build, folder, make, check_objects)
        restore()
    return grading.grade(args)


def _made_from(expected_run: Path, binary: Path, checked_sha256: str) -> bool:
    """Whether @p expected_run is the judge's record of a run of @p binary as it is now: made
    after the program was (make's rule), with its .judge facts and log, and the program still
    the one the object check passed."""
    parts = [expected_run, Path(f"{expected_run}.judge"), Path(f"{expected_run}.log")]
    return (binary.is_file() and all(p.is_file() for p in parts) and bool(checked_sha256)
            and expected_run.stat().st_mtime_ns >= binary.stat().st_mtime_ns
            and judge.sha256_of(binary) == checked_sha256)


def check_objects(args, chapter: Chapter, build: Build, solutions: Build, folder: Path) -> None:
    """The object check, whenever the student's files compiled (each object newer than its
    file), even if the link failed (a replaced function often fails it): its reason is the
    better one. It reads the shared libraries from the solution's program when there is one;
    --no-baseline leaves the solution's objects out (make check: the solutions pass on the
    general rules alone)."""
    sources, objects = build.kernel_sources(chapter), build.kernels(chapter)
    if not all(o.exists() and o.stat().st_mtime_ns > s.stat().st_mtime_ns for o, s in zip(objects, sources)):
        return
    solution_program = solutions.bin / f"{chapter.name}-tests"
    has_solution = solution_program.exists()
    baseline = solutions.kernels(chapter) if has_solution and not args.no_baseline else []
    arguments = argparse.Namespace(
        student=objects, baseline=baseline, backend=args.backend,
        parts=build.program_parts(chapter),
        callable_parts=build.callable_parts(chapter), backend_parts=build.backend_parts(chapter),
        binary=solution_program if has_solution else build.bin / f"{chapter.name}-tests",
        headers=sorted(p for p in chapter.student_dir.iterdir() if p.suffix in guard.HEADER_SUFFIXES),
        depfiles=[d for o in objects for d in (o.with_suffix(".d"), o.with_suffix(".nvcc-ok.d"))],
        chapter_dir=str(chapter.student_dir), source_dir=str(Path(args.tree) / chapter.folder),
        driver_entry=chapter.driver, out=folder / f"{chapter.name}-guard.txt")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        guard.guard(arguments)


# ---- make bench ---------------------------------------------------------------------------


def bench(args) -> int:
    chapters = [c for c in selected(args) if (c.student_dir / "bench.cpp").is_file()]
    if not chapters:
        raise Refusal(f"No benchmark for {names(selected(args))}: its folder has no bench.cpp.")
    binary = Build(args.backend, args.tree).bin
    failed = 0
    for c in chapters:
        failed |= subprocess.run([f"./{binary}/{c.name}-bench",
                                  "--tree", args.tree, "--output-dir", "build/bench", *shlex.split(args.args)]).returncode != 0
    # The issues' goals are set for the reference solutions: after their run, each met or missed.
    written = [Path("build/bench") / f"{c.name}-solutions.csv" for c in chapters]
    goals = results.goals_report([str(p) for p in written if p.is_file()], {c.folder for c in chapters}) \
        if args.tree == "solutions" else []
    if goals:
        print("\nThe goals (issues 14, 20, 21, 22, 31 and 32), for this run:")
        print("\n".join(goals))
    return int(failed)


# ---- make profile, make profile-probe, make roofline ------------------------------------------


def predictor(args, program: str, ptxas: Path, *options: str) -> list[str]:
    """The CPU backend's predicting program and its options. One order of threads is enough:
    the counts do not depend on it."""
    command = [program, "--arch", args.arch, "--out", str(args.out), *options]
    if ptxas.is_file() and ptxas.stat().st_size:  # empty without nvcc
        command += ["--ptxas", str(ptxas)]
    return command


def run_predictor(command: list[str], more: list[str] = ()) -> int:
    return subprocess.run([*command, *more], env={**os.environ, "EMU_SCHEDULE": "forward"}).returncode


def measure_and_predict(args, name: str, program: list[str], prediction: list[str]) -> int:
    """Measure a profile program with ncu and print the prediction beside it. ncu's table goes
    to OUT/NAME-ncu.csv; the GPU program writes what the occupancy API says to
    OUT/NAME-occupancy-api.csv. When ncu is missing or cannot read the counters, one line says
    so and the prediction stands beside the occupancy API alone."""
    out = Path(args.out)
    csv, log, api = out / f"{name}-ncu.csv", out / f"{name}-ncu.log", out / f"{name}-occupancy-api.csv"
    api.unlink(missing_ok=True)
    program = [*program, "--out", str(out)]

    def ncu(metrics, mode) -> bool:
        with open(log, mode) as output:
            status = subprocess.run([args.ncu, "--csv", "--print-units", "base", "--log-file", str(csv),
                                     "--metrics", ",".join(metrics), *program], stdout=output, stderr=subprocess.STDOUT)
        return status.returncode == 0 and csv.is_file() and '"Metric Name"' in csv.read_text(errors="replace")

    measured = []
    if not shutil.which(args.ncu):
        print("Nsight Compute (ncu) is not installed: showing the prediction beside the occupancy API alone.")
        with open(log, "w") as output:
            if subprocess.run(program, stdout=output, stderr=subprocess.STDOUT).returncode != 0:
                print(f"{' '.join(program[:-2])} failed (log: {log})")
    elif ncu(NCU_METRICS, "w"):
        measured = ["--measured", str(csv)]
    elif ncu(NCU_METRICS_CORE, "a"):
        print(f"ncu did not take every metric asked for (see {log}); measured the core counters only.")
        measured = ["--measured", str(csv)]
    else:
        first = [next((l for l in f.read_text(errors="replace").splitlines() if "ERR" in l or "rror" in l), None)
                 for f in (log, csv) if f.is_file()]
        reason = "\n".join(l for l in first if l is not None)[:200]
        print(f"ncu could not read the GPU's counters ({reason}); showing the prediction alone (log: {log}).")
    if api.is_file() and api.stat().st_size:
        measured += ["--occupancy", str(api)]
    return run_predictor(prediction, measured)


def profile(args) -> int:
    args.out = Path("build/profile") / args.tree
    args.out.mkdir(parents=True, exist_ok=True)
    if args.probe:
        probe = predictor(args, "./build/emu/bin/profile-probe", Path(f"build/profile/probe-{args.arch}.ptxas.txt"))
        if args.backend == "emu":
            return run_predictor(probe)
        return measure_and_predict(args, "profiler-probe", [f"./build/{args.backend}/bin/profile-probe"], probe)
    chapters = [c for c in selected(args) if (c.student_dir / "profile.cpp").is_file()]
    if not chapters:
        raise Refusal(f"No profile for {names(selected(args))}: its folder has no profile.cpp.")
    failed = 0
    for c in chapters:
        prediction = predictor(args, f"./build/emu/{args.tree}/bin/{c.name}-profile",
                               args.out / f"{c.name}-{args.arch}.ptxas.txt")
        if args.backend == "emu":
            failed |= run_predictor(prediction, ["--measured", args.measured] if args.measured else []) != 0
        else:
            gpu_program = [f"./{Build(args.backend, args.tree).bin}/{c.name}-profile"]
            failed |= measure_and_predict(args, c.name, gpu_program, prediction) != 0
    return int(failed)


def rooflines(args) -> int:
    """make chapterN roofline (--figures: each lesson's figure, from the solutions' predictions).
    Intensity comes from the profile (the CPU backend's prediction, or chapterN-compared.csv
    where ncu measured on a GPU); on a GPU, the rates from the benchmark's CSV (its bench runs
    first when it is missing) and the roof from the device's properties."""
    from . import manifest as manifests, roofline
    chapters = [c for c in selected(args)
                if (c.student_dir / "profile.cpp").is_file() and (c.student_dir / "bench.cpp").is_file()]
    # A chapter whose manifest draws no roofline (chapter 10: its kernels run on the tensor
    # cores, above the FP32 roof the drawing has) is left out, in one line.
    undrawn = [c for c in chapters if not getattr(manifests.read_manifest(c.folder), "roofline_variants", None)]
    for c in undrawn:
        print(f"  {c.name}: no roofline (its chapter.toml has no [roofline] section)")
    chapters = [c for c in chapters if c not in undrawn]
    if not chapters:
        raise Refusal(f"No roofline for {names(selected(args))}: it needs profile.cpp, bench.cpp and a [roofline] "
                      "section in its chapter.toml.")
    tree = "solutions" if args.figures else args.tree
    solutions = f"SOLUTIONS={1 if tree == 'solutions' else ''}"
    out = Path(f"build/roofline/{tree}")
    log = Path("build/roofline-figures.log") if args.figures else out / "profile.log"
    out.mkdir(parents=True, exist_ok=True)
    measured = args.backend == "cuda" and not args.figures
    if measured:
        if subprocess.run(["bash", "tools/require-gpu.sh", "make roofline", args.backend]).returncode != 0:
            return 1
        missing = [c.name for c in chapters if not Path(f"build/bench/{c.name}-{tree}.csv").is_file()]
        if missing and make("bench", *missing, solutions) != 0:
            return 1
    if not args.figures:
        print(f"  PROFILE {names(chapters)} (CPU backend, for the intensity; log: {log})")
    if make("BACKEND=emu", solutions, *(c.name for c in chapters), "profile", log=log) != 0:
        print("\n".join(log.read_text(errors="replace").splitlines()[-20:]))
        return 1
    failed = 0
    for c in chapters:
        profile = Path(f"build/profile/{tree}/{c.name}-compared.csv")
        if args.figures or not profile.is_file():
            profile = profile.with_name(f"{c.name}-predicted.csv")
        drawn = argparse.Namespace(
            chapters=args.chapters, number=c.number, profile=str(profile),
            bench=f"build/bench/{c.name}-{tree}.csv" if measured else None, lesson=args.figures,
            output=str(c.student_dir / "figures" / "roofline.svg" if args.figures else out / f"{c.name}.svg"))
        try:
            failed |= roofline.write(drawn) != 0
        except (Refusal, OSError, ValueError) as error:
            print(error, file=sys.stderr)
            failed = 1
    return int(failed)
