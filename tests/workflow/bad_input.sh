#!/usr/bin/env bash
# Bad input gets a clear error that names it, and exit status 2 (make's own for an error):
# an unknown BACKEND, BACKEND=cuda without a GPU, no Catch2, a TIMEOUT that is not a
# number of seconds, an ARCH that is not one sm_XY, an unknown chapter, a SEED that is not a whole number in range (for
# test, run, bench, profile, grade and watch alike), test
# options that select no test; and `make check` outside a git clone skips, and
# names, only the items that need git. Runs in this tree (nothing here builds anything).
#
# Run by `make check`; alone: bash tests/workflow/bad_input.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
transcript=$root/build/check/bad-input.log
mkdir -p "$(dirname "$transcript")"
: >"$transcript"
source tests/workflow/steps.sh
unset MAKEFLAGS MFLAGS MAKELEVEL

run "an unknown backend" make chapter1 test BACKEND=gpu
expect_status 2 "an unknown backend is an error"
expect "BACKEND=gpu is not a backend" "the message names the setting and its value"

if bash tools/require-gpu.sh probe cuda >/dev/null; then
    echo "  (this machine has a GPU: BACKEND=cuda without one is not tried)"
else
    run "BACKEND=cuda without a GPU" make chapter1 test BACKEND=cuda
    expect_status 2 "the tests cannot run their kernels"
    expect "No CUDA device here.*use BACKEND=emu" "it says why, and what to use instead"
fi

run "no Catch2" make chapter1 test CATCH_VERSION=none
expect_status 2 "without the test framework there is nothing to run"
expect "Catch2.*is not installed: run .make setup." "it says what to do"

for bad in abc -5 1e3 "1 2"; do
    run "TIMEOUT=$bad" make chapter1 test "TIMEOUT=$bad"
    expect_status 2 "a time limit must be a number of seconds"
    expect "TIMEOUT=$bad is not a number of seconds \(0: no limit" "the message names the setting and its value"
done

for bad in compute_90 90a "sm_80 sm_90a"; do
    run "ARCH=$bad" make chapter1 test "ARCH=$bad"
    expect_status 2 "an architecture is one sm_XY"
    expect "ARCH=$bad: name one architecture, sm_ and its compute capability, as in ARCH=sm_90a" "the message names the setting and its value"
done

run "an unknown chapter" make chapter99 test
expect_status 2 "there is no such chapter"
expect "There is no chapter99; the chapters are: chapter1" "it lists the chapters there are"

# make checks each setting once, for every verb that takes it.
for bad in abc 1.5 12abc -5 4294967296; do
    run "SEED=$bad" make chapter1 test SEED=$bad
    expect_status 2 "a seed must be a whole number in range"
    expect "SEED=$bad is not a whole number from 0 to 4294967295" "the message names the setting and its value"
    expect_not "^All tests passed" "no test runs with a seed nobody asked for"
done
for verb in run bench profile grade watch; do
    run "make chapter2 $verb SEED=abc" make chapter2 $verb SEED=abc
    expect_status 2 "make chapter2 $verb refuses a bad seed too"
    expect "SEED=abc is not a whole number" "with the same message"
    run "make chapter2 $verb TIMEOUT=abc" make chapter2 $verb TIMEOUT=abc
    expect_status 2 "make chapter2 $verb refuses a bad time limit too"
    expect "TIMEOUT=abc is not a number of seconds" "with the same message"
done
run "ARGS that select no test" make chapter1 test "ARGS=[nonexistent]"
expect_status 2 "a filter that selects nothing is an error, not a green run"
expect "selects none|No test case ran" "it says that no test ran"

# make check outside a git clone: only the git items are skipped, by name.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bad-input.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -xf - -C "$scratch"
run "make check's workflow items, outside a git clone" bash -c "cd '$scratch' && GIT_CEILING_DIRECTORIES='$scratch/..' bash -c '
    passed=0; failed=0; skipped=0; logs=build/check; mkdir -p \$logs
    pass() { echo \"  ok    \$1\"; }; fail() { echo \"  FAIL  \$1\"; }; skip() { echo \"  skip  \$1\"; }
    tutorial() { python3 -m tools.tutorial \"\$@\"; }; section() { echo \"\$1\"; }
    source tools/check-workflow.sh
    workflow_hints; workflow_learner; workflow_planted; workflow_new_chapter'"
expect "^  skip  a learner's session: .*not a git clone" "the learner's session is skipped, and says why"
expect "^  skip  a new chapter: .*not a git clone" "so is the new-chapter test"
expect "^  ok    chapter1 has [0-9]+ hints" "the items that do not need git still run"
expect_not "FAIL" "nothing fails for want of git"

echo "bad input: $passed checks passed, $failed failed"
[ "$failed" -eq 0 ]
