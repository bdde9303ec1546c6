#!/usr/bin/env bash
# A new learner's first session, played against a scratch clone of this repository:
#
#   make setup; make status; make chapter1 hint (to the last one, and again);
#   chapter 1 with a compile error, with a wrong answer, with the right one, and
#   make status, make chapter1 solution after each; make chapter1 reset (also on the
#   compile error, and in an archive download, which cannot); chapter 2 with a compile
#   error; make grade; make status.
#
# Each step's output is checked for the lines a learner needs; a failed check says what
# was expected and shows the step's output. Every step and its output go to a
# transcript, build/check/learner-session.log, to read how the session reads.
#
# It must hold on any machine: with a GPU, with the CPU backend, or with neither (the
# tests tagged [gpu] are skipped, so chapter 1 cannot count as passed). Where the
# outcome depends on which, the test run's own output says which, and the checks follow.
#
# Run by `make check`; alone: bash tests/workflow/learner_session.sh [--keep]
# (--keep leaves the scratch clone in place and says where).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/workflow/steps.sh"
start_session learner-session "${1:-}"
mapfile -t numbers < <(cut -f1 <<<"$registry")
one=chapters/$(folder_of 1)
mine=$(ls "$one"/*.cu | head -n 1)                # the learner's file in chapter 1
reference=solutions/$(folder_of 1)/$(basename "$mine")
skeleton=$scratch/skeleton.cu
cp "$mine" "$skeleton"

echo "learner session in a scratch clone (transcript: ${transcript#"$root"/})"

# ---- Setting up and looking around ---------------------------------------------------------
run "make setup" make setup
expect_status 0 "setup succeeds where everything is installed (CI ran it just before)"
expect "^setup: ready" "setup ends by saying the machine is ready"

run "make status, new clone" make status
expect_status 0 "status always succeeds"
expect "^Building each chapter first \(logs in build/[a-z]+/status/\).*: chapter1 " \
    "status says at once what it builds, chapter by chapter, before minutes of a first build"
for n in "${numbers[@]}"; do
    expect_row "chapter$n" "$(title_of "$n")" "every chapter of the registry has a row with its title"
    expect_row "chapter$n" "not started" "a fresh clone's chapters are untouched skeletons"
    expect_row "chapter$n" "not run" "no tests have run in a fresh clone"
done
expect_last_line "^Next: chapter1 .*make chapter1 test" "a new learner is sent to chapter 1"

# ---- Hints ---------------------------------------------------------------------------------------
count=$(python3 -m tools.tutorial count-hints 1)
first_words=$(awk '/^1\. / {print $2, $3, $4; exit}' "$one/hints.md")
run "make chapter1 hint, first" make chapter1 hint
expect_status 0 "a hint is no error"
expect "^chapter1, hint 1 of $count:" "the first call shows hint 1, out of the chapter's $count"
expect_text "$first_words" "the hint's text comes from the chapter's hints.md"
expect_not "NVCC|CXX|LINK" "asking for a hint builds nothing"
for ((i = 2; i <= count; i++)); do
    run "make chapter1 hint, call $i" make chapter1 hint
    expect "^chapter1, hint $i of $count:" "each call shows the next hint"
done
expect "last hint" "the last hint says it is the last"
run "make chapter1 hint, once more" make chapter1 hint
expect "seen all $count hints" "after the last, it says all are shown"
expect "RESTART=1" "and how to start over"
run "make chapter1 hint RESTART=1" make chapter1 hint RESTART=1
expect "^chapter1, hint 1 of $count:" "RESTART=1 starts again from the first hint"

# ---- Chapter 1: a compile error --------------------------------------------------------------
cp "$reference" "$mine"
echo "this is not C++;" >>"$mine"
bad_line=$(wc -l <"$mine")
run "make chapter1 test, a compile error" make chapter1 test
expect_status nonzero "a file that does not compile fails"
expect "$mine(\($bad_line\)|:$bad_line:).*error" "the compiler names the learner's file and line"

run "make status, a compile error" make status
expect_row chapter1 "in progress" "a changed file is work in progress"
expect_row chapter1 "NO" "the Builds column says it does not build"
expect "^chapter1 does not build: $mine:$bad_line: error" "status shows the first error, in the learner's file, as file:line"
expect_last_line "^Next: fix the compile error in chapter1" "the next step is that error"

run "make chapter1 solution, not compiling" make chapter1 solution
expect "^chapter1 is not passed yet" "no solution before a pass"
expect "FORCE=1" "it says how to see it anyway"
expect_not "NVCC|CXX|LINK|error" "naming the chapter for solution does not build it"

run "make chapter1 reset, not compiling" make chapter1 reset
expect_status 0 "a chapter that does not compile can be reset: naming it does not build it"
expect "^Saved your chapter1 files to build/backups/" "the broken file is saved too"
expect_not "NVCC|CXX|LINK|error" "reset builds nothing"
same_file "$mine" "$skeleton" "the skeleton is back"

# ---- Chapter 1: a wrong answer (the grid rounded down) ---------------------------------------
sed 's/tutorial::ceil_div(\([MN]\), kNaiveGemmBlock)/\1 \/ kNaiveGemmBlock/g' "$reference" >"$mine"
if cmp -s "$mine" "$reference"; then
    step_name="a wrong answer"
    out="$reference has no tutorial::ceil_div(M or N, kNaiveGemmBlock) left to break"
    fail "update this script's wrong answer to the new solution"
fi
run "make chapter1 test, a wrong answer" make chapter1 test
expect_status nonzero "the tests catch a grid that drops the last partial block"
expect "FAILED" "Catch2 reports the failure"
expect "test cases: .* failed" "and counts the failed test cases"

run "make status, a wrong answer" make status
expect_row chapter1 "in progress" "still in progress"
if grep -E "^chapter1 " <<<"$out" | grep -qE " ([0-9]+)/([0-9]+)" &&
    ! grep -E "^chapter1 " <<<"$out" | grep -qE " ([0-9]+)/\1([^0-9]|$)"; then ok; else
    fail "the chapter1 row should show fewer tests passed than run"; fi
expect_last_line "^Next: make chapter1 test, and fix what it reports" "the next step is chapter 1's failing tests"

run "make chapter1 solution, a wrong answer" make chapter1 solution
expect "^chapter1 is not passed yet: [0-9]+ of [0-9]+ tests pass" "it says how far the learner is"
expect "make chapter1 solution FORCE=1" "and how to see the solution anyway"
expect_not "^==== solutions/" "the solution stays hidden"

# ---- Chapter 1: the right answer ------------------------------------------------------------
cp "$reference" "$mine"
run "make chapter1 test, the right answer" make chapter1 test
expect_status 0 "the reference solution passes"
if grep -q "tests tagged \[gpu\] are skipped" <<<"$out"; then
    device=none
    echo "  (no CUDA device and no CPU backend here: chapter 1 cannot pass; checking that it says so)"
else
    device=yes
fi

run "make status, the right answer" make status
if [ "$device" = yes ]; then
    expect_row chapter1 "done" "a chapter whose every test passes is done, not in progress"
    expect_row chapter1 "passed" "every test passes"
else
    expect_row chapter1 "in progress" "the files differ from the skeleton"
    expect_row chapter1 "no GPU" "the row says the GPU tests did not run"
    expect "^chapter1: the tests tagged \[gpu\] did not run" "a note says why it does not count as passed"
fi
if [ "${#numbers[@]}" -gt 1 ]; then
    expect_last_line "^Next: chapter${numbers[1]} .*make chapter${numbers[1]} test" "the learner moves on"
fi
if [ "$device" = yes ]; then
    # On a GPU, compute-sanitizer's pass after passing tests writes what it found into the
    # results file (tools/tutorial/sanitizer.py): a finding keeps the chapter from done.
    results=$(ls build/*/chapters/bin/chapter1-tests.results | head -n 1)
    cp "$results" "$results.saved"
    echo "further=compute-sanitizer's racecheck reports an error (RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings))" >>"$results"
    touch -r "$results.saved" "$results"
    run "make status, the tests passed and a sanitizer then reported" make status
    expect_row chapter1 "sanitizer" "the row says the sanitizer's pass found something"
    expect "^chapter1: its tests pass, but then compute-sanitizer's racecheck reports an error" "a note says what it found"
    if grep -E "^chapter1 " <<<"$out" | grep -q "done"; then fail "a chapter a sanitizer refuted must not be done"; else ok; fi
    mv "$results.saved" "$results"
fi

run "make chapter1 solution, the right answer" make chapter1 solution
if [ "$device" = yes ]; then
    expect "^chapter1 passes" "after a pass the solution is shown"
    expect "^==== $reference" "with the solution file's name"
    expect "diff -u $mine build/solution/$(basename "$(dirname "$reference")")/$(basename "$reference")" \
        "and how to compare it with one's own: a copy without the solution markers"
    if grep -q "SOLUTION" "build/solution/$(basename "$(dirname "$reference")")/$(basename "$reference")"; then
        fail "the copy to compare with should hold no solution markers"; else ok; fi
else
    expect "^chapter1 is not passed yet: its tests tagged \[gpu\] did not run" "no pass without the GPU tests"
    run "make chapter1 solution FORCE=1" make chapter1 solution FORCE=1
    expect "^chapter1 does not pass yet; FORCE=1 shows" "FORCE=1 shows it, saying so"
    expect "^==== $reference" "with the solution file's name"
fi
if grep -qF -- "$(grep -m 1 -E '^\s*(const )?int col =' "$reference")" <<<"$out"; then ok; else
    fail "the solution's own code should be printed"; fi

# ---- Chapter 1: reset -----------------------------------------------------------------------
run "make chapter1 reset" make chapter1 reset
expect_status 0 "reset succeeds in a git clone"
expect "^Saved your chapter1 files to build/backups/chapter1-[0-9]{8}-[0-9]{6}/" "it says where the backup is"
backup=$(sed -n 's|^Saved your chapter1 files to \(build/backups/[^ ]*\)/:.*|\1|p' <<<"$out")
same_file "$backup/$(basename "$mine")" "$reference" "the backup holds the learner's version"
same_file "$mine" "$skeleton" "the skeleton is back"
restore=$(sed -n 's/^To get your version back: //p' <<<"$out")
expect "^To get your version back: cp " "it says how to undo"

run "make status, after the reset" make status
expect_row chapter1 "not started" "a reset chapter is an untouched skeleton"
expect_row chapter1 "not run" "its old results are gone with its old files"

run "make chapter1 reset, again" make chapter1 reset
expect "already the untouched skeleton" "a second reset changes nothing"

# The undo command, exactly as reset printed it.
run "the undo command printed by reset" bash -c "$restore"
same_file "$mine" "$reference" "the printed command brings the learner's version back"

# ---- A copy downloaded as an archive: no git; reset makes the skeleton from solutions/ ---------
mkdir "$scratch/archive"
git archive HEAD | tar -x -C "$scratch/archive"
echo "// my work" >>"$scratch/archive/$mine"
run "make chapter1 reset, in an archive download" make -C "$scratch/archive" chapter1 reset
expect_status 0 "without git, the skeleton comes from the solution's markers"
same_file "$scratch/archive/$mine" "$skeleton" "the skeleton is back"

# ---- A student copy without solutions/ and without git: no skeleton to restore -----------------
rm -rf "$scratch/archive/solutions"
echo "// my work" >>"$scratch/archive/$mine"
cp "$scratch/archive/$mine" "$scratch/archive-mine.cu"
run "make chapter1 reset, no solutions/ and no git" make -C "$scratch/archive" chapter1 reset
expect_status nonzero "without solutions/ and git there is no skeleton to restore"
expect "not a git clone" "it says why"
expect "Your files are unchanged" "and that nothing was touched"
same_file "$scratch/archive/$mine" "$scratch/archive-mine.cu" "the learner's file is untouched"

# ---- make grade ------------------------------------------------------------------------------
if [ "${#numbers[@]}" -gt 1 ]; then
    two=$(ls chapters/"$(folder_of "${numbers[1]}")"/*.cu | head -n 1)
    echo "int broken = ;" >>"$two"
    two_line=$(wc -l <"$two")
fi
run "make grade" make grade
expect_status 0 "grading completes, whatever the scores, so CI collects the reports"
for n in "${numbers[@]}"; do
    expect "^chapter$n +[0-9]+/([0-9]+|-|\?) +[0-9]+%" "every chapter has a row: passed/total, percent"
    if python3 -c 'import sys, xml.etree.ElementTree as ET; sys.exit(ET.parse(sys.argv[1]).getroot().tag != "testsuites")' \
        "build/grade/chapter$n.xml" 2>/dev/null; then ok; else
        fail "build/grade/chapter$n.xml should be a JUnit report (<testsuites>)"; fi
done
if [ "$device" = yes ]; then
    expect "^chapter1 +([0-9]+)/\1 +100%" "chapter 1 scores full marks"
else
    expect "^chapter1 +[0-9]+/[0-9]+ +0% +GPU tests not run" "chapter 1 cannot be graded without its GPU tests, and says so"
fi
if [ "${#numbers[@]}" -gt 1 ]; then
    expect "^chapter${numbers[1]} +0/- +0% +does not build: $two:$two_line: error" \
        "a chapter that does not compile scores 0, with its first error in the learner's file"
    if grep -q "<error" "build/grade/chapter${numbers[1]}.xml"; then ok; else
        fail "the JUnit report of a chapter that does not compile should hold an error"; fi
fi
expect "^Overall: [0-9]+%" "an overall score"

run "make status, after grading" make status
if [ "$device" = yes ]; then
    expect_row chapter1 "passed" "grading's test run counts for status too"
else
    expect_row chapter1 "no GPU" "grading's test run counts for status too"
fi

echo "learner session: $passed checks passed, $failed failed"
[ "$failed" -eq 0 ]
