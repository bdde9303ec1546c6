"""What `make chapterN test` on a GPU shows of the CPU backend's run of the failing tests
(tools/tutorial/further_checks.py, cpu-diagnosis): the report that adds most to the GPU's.

- a report where the CPU backend names what it found comes first, wherever it is;
- a step not begun (nothing written) and a failure the GPU's run gave word for word (a host
  check such as a launch configuration's) add nothing, and are left out;
- when nothing is left, nothing is shown;
- a results file's message is known again without its place and expression;
- a report cut to the screen keeps the CPU backend's finding, wherever it begins;
- when the failing tests' shapes keep the CPU backend past its time limit where the GPU
  finished them (its large tests), it runs the chapter's other tests on their first shapes.

Run: python3 tests/cpu_diagnosis.py (exit status 1 and the failures on stderr).
"""



from tool_checks import check, finish  # noqa: E402 (puts the root on the path)
from tools.tutorial.further_checks import gpu_words, report_window, reports_of, telling_report  # noqa: E402



RULE = "-" * 79
LAUNCH = ["chapters/02-tiled-gemm/test.cpp:21: FAILED:", "explicitly with message:",
          "  For M=1 N=1 the launch is grid 1 x 1 x 1, block 1 x 1 x 1."]
UNTOUCHED = ["chapters/02-tiled-gemm/test.cpp:33: FAILED:", "explicitly with message:",
             "  tiled_gemm fails for 72 of 72 shapes.",
             "  In every shape, every element of C holds NaN, the poison the test wrote"]
COMPARED = ["chapters/09-histogram/test.cpp:275: FAILED:", "explicitly with message:",
            "  every wrong bin is off by the same -32: what a private histogram held before it was zeroed"]
FOUND = ["chapters/08-async-copies/test.cpp:312: FAILED:", "explicitly with message:",
         "  the probe failed: CUDA error cudaErrorLaunchFailure (unspecified launch failure; the CPU backend found:",
         "    shared memory read at solutions/08-async-copies/async_copy_gemm.cu:88"]


def output(*reports):
    return "\n".join("\n".join([RULE, "a test case", RULE, "file:1", "." * 79, "", *r, ""]) for r in reports) + \
        "\n" + "=" * 79 + "\ntest cases: 3 | 3 failed\n"


check(len(reports_of(output(LAUNCH, UNTOUCHED, FOUND))) == 3, "three failures are three reports")
check(reports_of(output(LAUNCH))[0] == LAUNCH, f"a report is its lines, from FAILED: {reports_of(output(LAUNCH))}")
check(telling_report(output(LAUNCH, UNTOUCHED, FOUND), []) == FOUND, "the CPU backend's finding comes first")
check(telling_report(output(UNTOUCHED, COMPARED), []) == COMPARED, "a step not begun adds nothing")
said = [gpu_words("chapters/02-tiled-gemm/test.cpp:21: For M=1 N=1 the launch is grid 1 x 1 x 1, block 1 x 1 x 1.")]
check(telling_report(output(LAUNCH, COMPARED), said) == COMPARED, "what the GPU said word for word adds nothing")
check(telling_report(output(LAUNCH, UNTOUCHED), said) == [], "nothing left: nothing shown")
check(gpu_words("a.cpp:3: CHECK( x ) with expansion 1 == 0; For M=1 the launch") == "For M=1 the launch",
      "a message is known without its place and expression")

# A sweep's summary (wrong elements, as the GPU said too) above a probe's finding: cut to the
# screen, the report keeps where it failed and the finding, not only the summary.
SUMMARY_THEN_FOUND = ["chapters/08-async-copies/test.cpp:408: FAILED:", "explicitly with message:"] + \
    [f"  summary line {i}" for i in range(30)] + ["  the probe failed: CUDA error (the CPU backend found:",
                                                   "    shared memory read at x.cu:116", "    before the copy was waited for"]
window = report_window(SUMMARY_THEN_FOUND, 10)
check(len(window) <= 10 and window[:3] == SUMMARY_THEN_FOUND[:2] + ["..."], f"the cut report keeps where it failed: {window}")
check(any("the CPU backend found" in line for line in window) and "    shared memory read at x.cu:116" in window,
      f"the cut report keeps the finding: {window}")
check(report_window(FOUND, 10) == FOUND, "a short report is shown whole")
check(report_window(SUMMARY_THEN_FOUND[:20], 10) == SUMMARY_THEN_FOUND[:10], "with no finding, the first lines")

# Only a GPU [large] test failed (a race that shows at 1536³): on its shapes the CPU backend
# runs past its time limit, which it reports as a kernel that never ends, where the GPU
# finished. It then runs the chapter's other tests on their first shapes, where its checks
# name the race.
import argparse, contextlib, io, os, stat, tempfile  # noqa: E401,E402
from pathlib import Path  # noqa: E402
from tools.tutorial import further_checks  # noqa: E402

TIME_LIMIT = ["chapters/07-register-tiled-gemm/test.cpp:217: FAILED:", "explicitly with message:",
              "  time limit: gemm_kernel (launched at x.cu:551) was still running after 20 s, so the CPU",
              "  backend stopped it (TIMEOUT=seconds sets the limit; the default is 20)."]
with tempfile.TemporaryDirectory() as folder:
    program = Path(folder, "chapter7-tests")
    found, stopped = (" ".join(repr(line) for line in output(r).splitlines()) for r in (FOUND, TIME_LIMIT))
    program.write_text("#!/bin/sh\n"
                       f"echo \"$1\" >> {folder}/specs\n"
                       f"if [ \"$1\" = '{further_checks.CATCH_FILTER}' ]; then printf '%s\\n' {found}; "
                       f"else printf '%s\\n' {stopped}; fi\nexit 1\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    results = Path(folder, "chapter7-tests.results")
    results.write_text("case=failed\tgraded\t7c and 7d are right on large shapes / M=1536 N=1536 K=1536\t"
                       "test.cpp:217: C is wrong at 12 elements\n")
    real_build, cwd = further_checks.Build, os.getcwd()
    further_checks.Build = lambda backend, tree: argparse.Namespace(bin=Path(folder))
    shown = io.StringIO()
    try:
        os.chdir(folder)
        with contextlib.redirect_stdout(shown):
            failed = further_checks.cpu_diagnosis(argparse.Namespace(tree="solutions"), lambda *a, **k: 0, program, results)
    finally:
        os.chdir(cwd)
        further_checks.Build = real_build
    specs = Path(folder, "specs").read_text().splitlines()
    check(specs == ["7c and 7d are right on large shapes", further_checks.CATCH_FILTER] and failed == 1,
          "the failing test first, then the chapter's other tests", (specs, failed))
    check("too large for it" in shown.getvalue() and "shared memory read at" in shown.getvalue()
          and "still running" not in shown.getvalue(), "it says so, then shows their finding, not the time limit",
          shown.getvalue())

finish("tests/cpu_diagnosis.py", "the CPU diagnosis picks the telling reports")
