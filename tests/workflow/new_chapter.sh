#!/usr/bin/env bash
# A maintainer adds a chapter: in a scratch clone, copy chapter 2 (a GEMM chapter, whose
# benchmark borrows chapter 1) and chapter 5 (a chapter with its own CPU reference and a
# demo that writes images) to new numbers, add their registry lines, write their skeletons
# from the solutions' markers (make skeletons), and nothing else. Then
#  - each copy is a chapter of its own: an #error put into every header of the original's
#    folder does not reach it (its build sees its own folder only), its test tags are
#    [chapterN] of its new number, its demo and profile write files of its own name, and
#    its lesson's profile table (written by make skeletons, and what make chapterN
#    profile-tables makes from the chapter.toml it came with) shows its own rows;
#  - every verb knows the chapter-2 copy: make help, its tests (the solution passes, the
#    skeleton fails), hint, status, grade, solution, reset, the benchmark build and the
#    course site's pages, where both copies' figures (the roofline they came with among
#    them) have names of their own, with no command run for them first.
#
# Run by `make check`; alone: bash tests/workflow/new_chapter.sh [--keep]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/workflow/steps.sh"
start_session new-chapter "${1:-}"
last=$(cut -f1 <<<"$registry" | sort -n | tail -n 1)
backend=$(make -s print-backend | sed -n 1p)
# copy_chapter SOURCE NUMBER: copy chapter SOURCE's two folders to chapter NUMBER, with a
# registry line of the same settings (borrows=...) and a title that says what it is.
# Sets $folder, and $source_folder.
copy_chapter() {
    source_folder=$(folder_of "$1")
    folder=$(printf '%02d' "$2")-copy-of-${source_folder#*-}
    local settings
    settings=$(awk -v n="$1" '!/^#/ && $1 == n { for (i = 3; i <= NF && $i ~ /=/; i++) printf "%s  ", $i }' chapters/registry)
    cp -r "chapters/$source_folder" "chapters/$folder"
    cp -r "solutions/$source_folder" "solutions/$folder"
    printf '%s  %s  %s%s\n' "$2" "$folder" "$settings" "A copy of chapter $1, added by tests/workflow/new_chapter.sh" >>chapters/registry
    echo "new chapter: chapter$2 in $folder, a copy of $source_folder"
}

# ---- Adding the chapters: two folders and one line each ---------------------------------------
gemm=$((last + 1))
copy_chapter 2 "$gemm"
gemm_folder=$folder gemm_source=$source_folder
other=$((last + 2))
copy_chapter 5 "$other"
other_folder=$folder other_source=$source_folder
number=$gemm folder=$gemm_folder

run "make skeletons" make skeletons
expect_status 0 "the skeletons are written from the solutions' markers"
expect "^wrote chapters/$gemm_folder/" "it writes the GEMM copy's skeleton"
expect "^wrote chapters/$other_folder/" "it writes the other copy's skeleton"
if [ "$(grep -c '^wrote chapters/.*\.cu$' <<<"$out")" = 2 ]; then ok; else
    fail "only the new chapters' skeletons should be written: the others are already what their solutions make"; fi
expect "^wrote .github/workflows/classroom.yml" "the Classroom workflow gains the new chapters' steps"
expect "^wrote chapters/$other_folder/README.md \(its profile table's rows under its own number\)" \
    "the copy's lesson gets its profile table's rows under its own number, with no profile run"
expect_not "^wrote chapters/$other_source/README.md" "and the original's lesson is left alone"
changed=$(git status --porcelain | grep -vE "^( M chapters/registry| M .github/workflows/classroom.yml|\?\? (chapters|solutions)/($gemm_folder|$other_folder)/)$")
if [ -z "$changed" ]; then ok; else
    out=$changed; fail "nothing but the new folders and the registry lines may change"; fi

# ---- A copy sees nothing of its original ---------------------------------------------------------
# From here on, anything that reads an original's header fails to compile.
for header in "chapters/$gemm_source"/*.h "chapters/$other_source"/*.h; do
    printf '#error "a copied chapter read its original'"'"'s header %s"\n' "$header" >>"$header"
done

for n in "$gemm" "$other"; do
    run "make chapter$n test SOLUTIONS=1" make "chapter$n" test SOLUTIONS=1
    expect_status 0 "the solution passes chapter$n's tests, built against the copy's headers alone"
    expect "All tests passed" "and says so"
    expect_not "read its original's header" "no file of the copy reaches the original's headers"

    run "chapter$n's test tags" "build/$backend/solutions/bin/chapter$n-tests" --list-tags
    expect "\[chapter$n\]" "the copy's tests are tagged with its own number"
    expect_not "\[chapter(2|5)\]" "and with no tag of the original"
done

# Its steps carry no number in its files (STEP("d"), "@d" in chapter.toml): the copy names
# its own, with nothing renamed.
run "chapter$other's test names" "build/$backend/solutions/bin/chapter$other-tests" --list-tests
expect "${other}d: transpose_wide" "the copy's going-further tests are named for its own step, ${other}d"
expect_not "(^| )5d: " "and none for the original's"

run "make chapter$other run SOLUTIONS=1" make "chapter$other" run SOLUTIONS=1
expect_status 0 "the copy's demo runs"
expect "wrote build/chapter$other-input.png" "its files are named after its own number"
expect_not "chapter5" "nothing it prints names the original"

# Its manifest (chapter.toml) came with the folder and names no chapter number of its own:
# `make chapterN profile-tables` profiles the copy alone, and finds the table make skeletons
# wrote already what the copy's predictions make.
run "make chapter$other profile-tables" make "chapter$other" profile-tables
expect_status 0 "the copy's profile runs and its lesson's table is checked"
expect "^Chapter $other" "it is the new chapter's profile"
expect "^The profile table of chapters/$other_folder/README.md is already what the predictions make" \
    "the table make skeletons wrote is the copy's own, as its profile makes it"
expect_not "^Wrote the profile table of" "no table needed writing, the original's least of all"
if ls build/profile/solutions | grep -q "^chapter$other-"; then ok; else
    out=$(ls build/profile/solutions); fail "the profile's files should be named chapter$other-..."; fi
if grep -qE "^\| $other \| " "chapters/$other_folder/README.md" && ! grep -qE '^\| 5 \| ' "chapters/$other_folder/README.md"; then
    ok; else out=$(grep -E '^\| [0-9]+ \|' "chapters/$other_folder/README.md"); fail "the copy's profile table should have chapter $other's rows, and no chapter 5's"; fi
if grep -qE "^\| $other \| ${other}d: " "chapters/$other_folder/README.md"; then ok; else
    out=$(grep -E '^\| [0-9]+ \|' "chapters/$other_folder/README.md"); fail "the copy's profile rows should name its own step ${other}d"; fi

# ---- Every verb knows it ---------------------------------------------------------------------------
run "make help" make help
expect "^  chapter$number +A copy of chapter 2" "make help lists the new chapter"

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
expect_status 0 "the new chapter's benchmark compiles and links, with chapter 1's solution it borrows"

run "the site's pages" python3 -m tools.tutorial docs "$scratch/pages"
expect_status 0 "the site's pages are written, with no command for the copies' figures first"
if ls "$scratch/pages" | grep -q "chapter$number-lesson.md"; then ok; else
    out=$(ls "$scratch/pages"); fail "the site should have a page for the new chapter's lesson"; fi
# The copy's figures (its roofline among them) came with its folder; on the site they have
# names of their own, so that they are not the original's pictures under the same name.
for n in "$number" "$other"; do
    step_name="chapter$n's figures on the site"
    images=$(cat "$scratch"/pages/*-chapter$n-lesson.md | grep -oE '!\[[^]]*\]\([^) ]+' | sed 's/.*(//')
    out=$images
    if grep -qx "chapter$n-roofline.svg" <<<"$images"; then ok; else fail "the lesson should show chapter$n-roofline.svg"; fi
    if [ -z "$(grep -v "^chapter$n-" <<<"$images")" ]; then ok; else fail "every figure of chapter$n's page should be named chapter$n-..."; fi
    missing=$(while read -r image; do [ -f "$scratch/pages/figures/$image" ] || echo "$image"; done <<<"$images")
    if [ -z "$missing" ]; then ok; else out=$missing; fail "the site's pages/figures/ should hold every figure the page shows"; fi
done

# The site itself, strict as make check builds it. Doxygen refuses two headers of one name, so
# the copies' headers are renamed first, as docs/maintainers.md's steps say; their lessons'
# figures and tables need no other command.
if command -v "${DOXYGEN:-doxygen}" >/dev/null 2>&1; then
    for f in "$gemm_folder" "$other_folder"; do
        for header in "chapters/$f"/*.h; do
            name=$(basename "$header")
            mv "$header" "chapters/$f/copy_$name"
            find "chapters/$f" "solutions/$f" -type f \( -name '*.h' -o -name '*.cu' -o -name '*.cpp' \) -exec \
                sed -i "s|#include \"$name\"|#include \"copy_$name\"|; s|@file $name\$|@file copy_$name|" {} +
        done
    done
    run "make docs DOCS_STRICT=1" make docs DOCS_STRICT=1
    expect_status 0 "the site builds without a Doxygen warning, with both copies' lessons"
    run "the site's links" python3 -m tools.tutorial site-links build/docs/html
    expect_status 0 "every link of the site leads somewhere"
    for n in "$number" "$other"; do
        if [ -f "build/docs/html/chapter$n-roofline.svg" ]; then ok; else
            out=$(ls build/docs/html | grep roofline); fail "the site should show chapter$n's roofline figure"; fi
    done
else
    echo "new chapter: the site's build left out: Doxygen is not installed ('make setup' installs it)"
fi

echo "new chapter: $passed checks passed, $failed failed"
[ "$failed" -eq 0 ]
