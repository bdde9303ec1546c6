"""Going-further steps ([extra]) in the score and in `make status`, for `make check`:

- make grade (tools/tutorial/grading.py): a chapter whose graded cases all pass scores 100%
  whatever its [extra] cases do; they are listed apart, worth 0 points, and the note says
  how many pass; Gradescope's results.json is valid and totals 100;
- make status (tools/tutorial/course.py): the Tests cell counts the required test cases and
  shows the [extra] ones apart; a chapter whose required cases pass is done with its [extra]
  ones failing, and one whose required case fails says so, not counting its extra steps.

Both read one results file as the harness writes it (harness/results_file.cpp): its
`case=` lines for make grade, its summary lines for make status.

Run: python3 tests/extra_steps.py (exit status 1 and the failures on stderr).
"""

import tempfile
from pathlib import Path

from tool_checks import check, finish  # noqa: E402 (puts the root on the path)
from tools.tutorial import grading  # noqa: E402
from tools.tutorial.course import Progress, read_registry, read_results  # noqa: E402

chapter = next(c for c in read_registry() if c.number == "8")

with tempfile.TemporaryDirectory() as folder:
    folder = Path(folder)

    # 8a and 8b done (three graded test cases, one argument check), 8c and 8d not started:
    # their two [extra] test cases fail. One case each (no shapes), so that the summary's
    # test cases and the case lines agree.
    results_file = folder / "chapter8-tests.results"
    summary = "state=finished\npassed=4\nfailed=2\nextra_passed=0\nextra_failed=2\ngpu_tests=run\nselection=all\n"
    case_lines = "\n".join([
        "case=passed\tgraded\t8a: async_double_buffered_gemm matches the CPU reference for every shape\t",
        "case=passed\tgraded\t8b: async_pipeline_gemm matches the CPU reference at 2, 3 and 4 stages\t",
        "case=passed\tgraded\tasync_gemm_launch_config gives one 32 x 32 block per tile of C\t",
        "case=passed\tcheck\t8a: async_double_buffered_gemm rejects bad sizes\t",
        "case=failed\textra\t8c: tma_gemm matches the CPU reference\tC is wrong at 16 of 16 elements",
        "case=failed\textra\t8d: async_warptile_gemm is right at 512³ and on a large awkward shape\tC is wrong",
    ]) + "\n"
    results_file.write_text(summary + case_lines)

    # ---- make grade ---------------------------------------------------------------------------
    grade = grading.ChapterGrade(chapter, grading.read_cases(results_file))
    check(grade.percent == 100 and grade.share == 1.0,
          "required work all done, going further not: 100% of the chapter", (grade.percent, grade.share))
    check(grade.points_cell() == "3/3", "the points count the graded cases only", grade.points_cell())
    check(grade.notes() == "extra steps: 0 of 2 cases pass (not counted)",
          "the note reports the extra steps apart, as not counted", grade.notes())

    results = grading.gradescope([grade])
    check(grading.gradescope_problems(results) == [], "Gradescope's results.json is valid",
          grading.gradescope_problems(results))
    check(results["score"] == 100 and results["max_score"] == 100, "Gradescope's total is 100 of 100",
          (results["score"], results["max_score"]))
    extra_tests = [t for t in results["tests"] if "(extra, not scored)" in t["name"]]
    check(len(extra_tests) == 2 and all(t["max_score"] == 0 and t["status"] == "failed" for t in extra_tests),
          "each [extra] case is a test of its own, failed, worth 0 points", extra_tests)
    check(results["output"] == "chapter8: 3/3 cases, 100% (extra steps: 0 of 2 cases pass (not counted))",
          "Gradescope's summary line", results["output"])

    # A graded case failing: the score counts it, the [extra] ones still do not.
    grade.cases[0].passed = False
    check(grade.percent == 67 and grade.points_cell() == "2/3",
          "one of three graded cases failing: 67%, whatever the [extra] cases", (grade.percent, grade.points_cell()))

    # ---- make status ---------------------------------------------------------------------------
    progress = Progress(chapter, "in progress", read_results(results_file, "emu"), stale=False)
    check(progress.passed, "required cases all passing, [extra] ones failing: the chapter is done")
    check(progress.tests_cell() == "4/4 passed, extra 0/2", "the Tests cell of a done chapter", progress.tests_cell())
    check(progress.blockers() == [], "nothing blocks a chapter whose required cases pass", progress.blockers())
    check(progress.results.extra_note() == "extra steps: 0 of 2 tests pass", "the results' note on the extra steps",
          progress.results.extra_note())

    # A required test case failing too (status reads the summary lines alone).
    results_file.write_text(summary.replace("passed=4\nfailed=2", "passed=3\nfailed=3") + case_lines)
    progress = Progress(chapter, "in progress", read_results(results_file, "emu"), stale=False)
    check(not progress.passed, "a required case failing: not done")
    check(progress.tests_cell() == "3/4, extra 0/2", "the Tests cell counts required and extra apart",
          progress.tests_cell())
    check(progress.blockers() == [(Progress.FAILING, "3 of 4 tests pass in the last run (not counting its extra "
                                                     "steps) (make chapter8 test).")],
          "the blocker counts the required tests only", progress.blockers())

finish("tests/extra_steps.py", "a chapter's score and status count its required cases; [extra] ones are shown apart")
