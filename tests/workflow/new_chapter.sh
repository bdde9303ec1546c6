#!/usr/bin/env bash
# A maintainer adds a chapter: in a scratch clone, copy chapter 2 (folder and solution)
# to a new number, add its one registry line, write its skeleton from the solution's
# markers (make skeletons), and nothing else. Then every verb must know the new chapter:
# make help, its tests (the solution passes, the skeleton fails), hint, status, grade,
# solution, reset, the benchmark build and the course site's pages.
#
# Run by `make check`; alone: bash tests/workflow/new_chapter.sh [--keep]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/workflow/steps.sh"
start_session new-chapter "${1:-}"
reuse_build_of "$root"

registry=$(python3 -m tools.tutorial chapters --fields)
source_folder=$(awk -F'\t' '$1 == 2 {print $2}' <<<"$registry")
number=$(($(cut -f1 <<<"$registry" | sort -n | tail -n 1) + 1))
folder=$(printf '%02d' "$number")-copy-of-${source_folder#*-}
echo "new chapter: chapter$number in $folder, a copy of $source_folder"

# ---- Adding the chapter: two folders and one line ---------------------------------------------
cp -r "chapters/$source_folder" "chapters/$folder"
cp -r "solutions/$source_folder" "solutions/$folder"
printf '%s  %s  %s\n' "$number" "$folder" "A copy of chapter 2, added by tests/workflow/new_chapter.sh" >>chapters/registry
run "make skeletons" make skeletons
expect_status 0 "the skeleton is written from the solution's markers"
expect "^wrote chapters/$folder/" "it writes the new chapter's skeleton"
if [ "$(grep -c '^wrote chapters/' <<<"$out")" = 1 ]; then ok; else
    fail "only the new chapter's skeleton should be written: the others are already what their solutions make"; fi
expect "^wrote .github/workflows/classroom.yml" "the Classroom workflow gains the new chapter's step"
changed=$(git status --porcelain | grep -vE "^( M chapters/registry| M .github/workflows/classroom.yml|\?\? chapters/$folder/|\?\? solutions/$folder/)$")
if [ -z "$changed" ]; then ok; else
    out=$changed; fail "nothing but the two folders and the registry line may change"; fi

# ---- Every verb knows it ---------------------------------------------------------------------------
run "make help" make help
expect "^  chapter$number +A copy of chapter 2" "make help lists the new chapter"

run "make chapter$number test SOLUTIONS=1" make "chapter$number" test SOLUTIONS=1
expect_status 0 "the solution passes the new chapter's tests"
expect "All tests passed" "and says so"

run "make chapter$number test" make "chapter$number" test
expect_status nonzero "the skeleton fails the new chapter's tests"
expect "test cases:.*failed" "with failed test cases, not a build error"

run "make chapter$number hint" make "chapter$number" hint
expect_status 0 "a hint is no error"
expect "^chapter$number, hint 1 of [0-9]+:" "its hints come from its hints.md"

run "make status" make status
expect_status 0 "status always succeeds"
expect_row "chapter$number" "A copy of chapter 2" "status has a row for the new chapter"
expect_row "chapter$number" "not started" "its files are the skeleton"

run "make chapter$number grade" make "chapter$number" grade
expect_status 0 "grading completes"
expect "^chapter$number +[0-9]+/[0-9]+ +[0-9]+%" "the new chapter has a row with a score"
if [ -f "build/grade/chapter$number.xml" ]; then ok; else
    fail "build/grade/chapter$number.xml, its JUnit report, is missing"; fi

run "make chapter$number solution FORCE=1" make "chapter$number" solution FORCE=1
expect "^==== solutions/$folder/" "it shows the new chapter's solution"
expect_not "BEGIN SOLUTION" "without the markers"

echo "// my work" >>"chapters/$folder/$(ls "solutions/$folder" | head -n 1)"
run "make chapter$number reset" make "chapter$number" reset
expect_status 0 "reset works on the new chapter"
if python3 -m tools.tutorial skeletons >/dev/null; then ok; else
    fail "after reset, the new chapter's skeleton should be what its solution makes"; fi

check_arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
run "make chapter$number bench-binaries BACKEND=cuda SOLUTIONS=1" make "chapter$number" bench-binaries BACKEND=cuda SOLUTIONS=1 ARCH=sm_${check_arch:-90}
expect_status 0 "the new chapter's benchmark compiles and links"

run "the site's pages" python3 -m tools.tutorial docs "$scratch/pages"
expect_status 0 "the site's pages are written"
if ls "$scratch/pages" | grep -q "chapter$number-lesson.md"; then ok; else
    out=$(ls "$scratch/pages"); fail "the site should have a page for the new chapter's lesson"; fi

echo "new chapter: $passed checks passed, $failed failed"
[ "$failed" -eq 0 ]
