#!/usr/bin/env bash
# Mistakes that can leave chapter 7's results right on a GPU, planted one at a time in the
# reference solution of a scratch clone (tests/workflow/plant_mistake.py): each must fail
# `make chapter7 test`, naming its cause. On the CPU backend, its own checks name it (the
# threads run in several orders; every access is bounds-checked); on a GPU, either the
# results are wrong or compute-sanitizer's pass after the tests names it.
#  - barrier-after-store: no __syncthreads() between storing a phase's tiles and reading them;
#  - barrier-at-end: none before the next phase overwrites them;
#  - float4-past-input: float4 loads of a tile's rows past its matrix, values that no output uses.
# And chapter 8's 8b reading the stage after the one waited for (stage-ahead), and reading
# stages never waited for (stage-not-waited: its one finding said once for every stage count).
# And two of chapter 6's 6c that a GPU's results and compute-sanitizer can miss: a warp's
# shuffles reached by only some of the lanes their full mask names (shuffle-some-lanes), and a
# float4 loop whose count ignores the scalar head, so its last load reads past the input
# (float4-ignores-head): each named, on a GPU by the CPU backend's checks that follow the run.
# Then, on a GPU, barrier-at-end in the student's file must not earn 100% from make grade.
#
# Run by `make check`; alone: bash tests/workflow/planted_mistakes.sh [--keep]; only some
# chapters' mistakes: PLANTED_CHAPTERS="6 8" bash tests/workflow/planted_mistakes.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/workflow/steps.sh"
start_session planted-mistakes "${1:-}"
backend=$(make -s print-backend | sed -n 1p)
solution=solutions/07-register-tiled-gemm/register_tiled_gemm.cu
cp "$solution" "$scratch/original.cu"
# want N: chapter N's mistakes are planted (all of them unless PLANTED_CHAPTERS names some).
want() { [ -z "${PLANTED_CHAPTERS:-}" ] || [[ " $PLANTED_CHAPTERS " == *" $1 "* ]]; }

# check_mistake KIND CPU_REGEX GPU_REGEX: plant KIND, run the tests, expect them to fail
# with the backend's reason.
check_mistake() {
    cp "$scratch/original.cu" "$solution"
    python3 "$root/tests/workflow/plant_mistake.py" "$solution" "$1" || { fail "could not plant $1"; return; }
    run "chapter 7 with the mistake $1 ($backend)" make chapter7 test SOLUTIONS=1
    expect_status nonzero "make chapter7 test must fail with the mistake $1"
    if [ "$backend" = emu ]; then expect "$2" "the CPU backend names the cause"; else expect "$3" "the results or compute-sanitizer name the cause"; fi
}
if want 7; then
check_mistake barrier-after-store "result depends on thread order|missing .__syncthreads" "FAILED|racecheck"
check_mistake barrier-at-end "result depends on thread order|missing .__syncthreads|race" "FAILED|racecheck"
check_mistake float4-past-input "past the end of (A|B)" "FAILED|memcheck"
cp "$scratch/original.cu" "$solution"
fi

# Chapter 8's 8b reading the stage after the one it waited for: caught at every stage count
# the tests use (on the CPU backend, at the read's line, in a helper that takes the tile),
# the CPU backend's finding said once for the stage counts it covers, on one screen. On a
# GPU, the results are wrong, and the CPU backend's checks that follow name the cause.
if want 8; then
pipeline_solution=solutions/08-async-copies/async_copy_gemm.cu
cp "$pipeline_solution" "$scratch/original8.cu"
python3 "$root/tests/workflow/plant_mistake.py" "$pipeline_solution" stage-ahead || fail "could not plant stage-ahead"
# 8b's sweep (the mistake is in 8b's kernel; the other steps' tests pass and only take time).
run "chapter 8 with the mistake stage-ahead ($backend)" make chapter8 test SOLUTIONS=1 ARGS="'8b: async_pipeline_gemm matches*'"
expect_status nonzero "make chapter8 test must fail with the mistake stage-ahead"
if [ "$backend" = emu ]; then
    expect "before (this thread waited for )?the asynchronous copy" "the CPU backend names a read of a stage not waited for"
    expect "With 2, 3 and 4 stages \(the same finding at each" "at 2, 3 and 4 stages, said once"
    expect_text "async_copy_gemm.cu:$(grep -n 'sum += A_tile\[threadIdx.y\]\[k\]' "$pipeline_solution" | cut -d: -f1)" \
        "the read's own line, in the helper multiply_tiles"
else
    expect "On the CPU backend \(BACKEND=emu\) they fail too; its report:" "the GPU's failure is followed by the CPU backend's"
fi
screen=$(grep -vcE "^  (CXX|NVCC|LINK|AR|CU2CPP|GEN) " <<<"$out")
if [ "$screen" -le 120 ]; then ok; else fail "the stage-ahead report should fit on a screen (120 lines), not $screen"; fi
cp "$scratch/original8.cu" "$pipeline_solution"

# Chapter 8's 8b reading a stage it never waited for, at every stage count (only 8b's sweep
# runs): the CPU backend's finding, the same at all 126 shapes but for the stage count and
# thread it names, is shown in full once, then one line names the cases it covers, and the
# probe points to it instead of repeating it.
python3 "$root/tests/workflow/plant_mistake.py" "$pipeline_solution" stage-not-waited || fail "could not plant stage-not-waited"
run "chapter 8's 8b with the mistake stage-not-waited ($backend)" make chapter8 test SOLUTIONS=1 \
    ARGS="'8b: async_pipeline_gemm matches*'"
expect_status nonzero "make chapter8 test must fail with the mistake stage-not-waited"
if [ "$backend" = emu ]; then
    findings=$(grep -c "the CPU backend found:" <<<"$out")
    if [ "$findings" -eq 1 ]; then ok; else fail "the CPU backend's finding should be shown once, not $findings times"; fi
    expect "The same finding, but for the thread, block, stage or size it names, at all" "the other shapes said in one line"
    expect "125 other failing shape\(s\) \(stages = 2, 3 and 4; copy bytes = 4 and 16\)" "naming the stage counts it covers"
    expect "the probe failed with the finding shown above" "the probe points to the finding shown"
fi
screen=$(grep -vcE "^  (CXX|NVCC|LINK|AR|CU2CPP|GEN) " <<<"$out")
if [ "$screen" -le 120 ]; then ok; else fail "the stage-not-waited report should fit on a screen (120 lines), not $screen"; fi
cp "$scratch/original8.cu" "$pipeline_solution"
fi

# Chapter 6's 6c (only its sum test runs): the cause named, on one screen. On a GPU the run
# passes or fails by chance, and the CPU backend's report follows it either way.
if want 6; then
reduction_solution=solutions/06-reduction/reduction.cu
cp "$reduction_solution" "$scratch/original6.cu"
check_reduction_mistake() {
    cp "$scratch/original6.cu" "$reduction_solution"
    python3 "$root/tests/workflow/plant_mistake.py" "$reduction_solution" "$1" || { fail "could not plant $1"; return; }
    run "chapter 6 with the mistake $1 ($backend)" make chapter6 test SOLUTIONS=1 ARGS="'reduce_warp sums random floats*'"
    expect_status nonzero "make chapter6 test must fail with the mistake $1"
    if [ "$backend" != emu ]; then
        expect "On the CPU backend \(BACKEND=emu\) they fail" "the GPU's run is followed by the CPU backend's report"
    fi
    expect "$2" "the cause is named"
    screen=$(grep -vcE "^  (CXX|NVCC|LINK|AR|CU2CPP|GEN) " <<<"$out")
    if [ "$screen" -le 120 ]; then ok; else fail "the $1 report should fit on a screen (120 lines), not $screen"; fi
}
check_reduction_mistake shuffle-some-lanes "__shfl_down_sync\(\) whose mask names lanes that (have exited|do not reach)"
check_reduction_mistake float4-ignores-head "a 16-byte float4 access at byte offset [0-9]+ of input, a cudaMalloc buffer"
cp "$scratch/original6.cu" "$reduction_solution"
fi

# The grade the barrier-at-end mistake earns, as a student's file, on a GPU: below 100%. Its
# tests pass there, and make grade's further checks (compute-sanitizer, then the CPU backend,
# on the first shapes) must take the points back. (On the CPU backend its tests fail, as
# above, and a failing test's lost points are what make check's grade of the skeletons and
# its forgeries check: grading it again here would only repeat them.)
if [ "$backend" = cuda ] && want 7; then
    student=chapters/07-register-tiled-gemm/register_tiled_gemm.cu
    cp "$scratch/original.cu" "$student"
    python3 "$root/tests/workflow/plant_mistake.py" "$student" barrier-at-end || fail "could not plant barrier-at-end in $student"
    run "make chapter7 grade, chapter 7 with the mistake barrier-at-end ($backend)" make chapter7 grade GRADE_DIR=build/grade-planted
    percent=$(awk '$1 == "chapter7" {print $3}' build/grade-planted/summary.txt 2>/dev/null)
    if [ -n "$percent" ] && [ "${percent%\%}" -lt 100 ]; then ok; else fail "chapter 7 with the mistake barrier-at-end must score below 100%, got '${percent:-no grade}'"; fi
    expect "fail the further checks" "the notes say the further checks took the points"
    if grep -q "racecheck\|CPU backend" build/grade-planted/chapter7-further.txt 2>/dev/null; then ok; else
        fail "chapter7-further.txt should name racecheck or the CPU backend: $(head -c 300 build/grade-planted/chapter7-further.txt 2>/dev/null)"; fi
fi

echo "planted mistakes: $passed checks passed, $failed failed"
[ "$failed" -eq 0 ]
