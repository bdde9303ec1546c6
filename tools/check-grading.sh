# Grades a student cannot forge, in `make check`. Sourced by tools/check.sh, after the
# chapters were built in both trees, whose pass, fail and skip functions, counters,
# $backend and $logs it uses, on the backend of the check (with a GPU, nvcc's objects):
#   - an instructor's copy of the course whose chapter 1 holds solved work grades, with
#     tools/grade-submissions.sh, a student who submitted nothing at 0% (the missing file
#     is the skeleton made from the solution, not the instructor's file);
#   - each planted forgery of tests/grading/forgeries/ (one class of attack per file,
#     added to chapter 1's skeleton) scores 0% with the reason its `// expect:` lines name
#     (and its `// expect (emu):` or `// expect (cuda):` lines on that backend); one with a
#     line `// chapter: N` is chapter N's whole file, graded in a run per such chapter;
#   - a legitimate submission using helpers, templates, printf in a kernel, <cmath>,
#     std::min/max, a __shared__ array and cudaFuncSetAttribute scores 100%.
# (tools/check-tools.sh grades every solution at 100% with GRADE_BASELINE=none: the object
# check passes them on its general rules alone.) FORGERIES='tests/grading/forgeries/a.cu ...'
# grades only those (while working on one). Last, tests/grading/judge_endings.py: the judge
# believes only a clean ending.

section "grading that a submission cannot forge"

grading_root=build/check/grading
course_copy=$grading_root/course
submissions=$grading_root/submissions
graded=$grading_root/graded
rm -rf "$grading_root"
mkdir -p "$course_copy" "$submissions"
chapter1_folder=$(tutorial chapters --fields | awk -F'\t' '$1 == 1 {print $2}')
student_file=chapters/$chapter1_folder/$(basename "$(ls solutions/"$chapter1_folder"/*.cu | head -n 1)")

# The instructor's copy: this course with chapter 1 solved in chapters/, and its emu build.
tar --exclude=./build --exclude=./.git -cf - . | tar -C "$course_copy" -xf -
cp "solutions/$chapter1_folder/$(basename "$student_file")" "$course_copy/$student_file"
mkdir -p "$course_copy/build"
tar -C build --exclude="./$backend/chapters/bin" --exclude="./$backend/compile_commands" --exclude='*.results' \
    --exclude='*.expected-seed*' -cf - "./$backend" | tar -C "$course_copy/build" -xf -

# One student per forgery: chapter 1's skeleton with the forgery added (or the forgery as
# the whole file); one who solved it legitimately; one who submitted nothing.
skeleton_text=$(python3 -c 'import sys; from pathlib import Path; sys.path.insert(0, ".")
from tools.tutorial.skeleton import skeleton_of
print(skeleton_of(Path(sys.argv[1]), "1"))' "solutions/$chapter1_folder/$(basename "$student_file")")
forgeries=(${FORGERIES:-tests/grading/forgeries/*.cu})
# A forgery with a line `// chapter: N` (a whole file) is chapter N's: those are graded in a
# run of their own, one per chapter, in $submissions-chapterN.
chapter_of() { sed -n 's|^// chapter: \([0-9]*\).*|\1|p' "$1" | sed -n '1p' | grep . || echo 1; }
other_chapters=()
for forgery in "${forgeries[@]}"; do
    name=forgery-$(basename "$forgery" .cu)
    chapter=$(chapter_of "$forgery")
    if [ "$chapter" != 1 ]; then
        folder=$(tutorial chapters --fields | awk -F'\t' -v n="$chapter" '$1 == n {print $2}')
        file=chapters/$folder/$(basename "$(ls solutions/"$folder"/*.cu | head -n 1)")
        mkdir -p "$submissions-chapter$chapter/$name/chapters/$folder"
        cp "$forgery" "$submissions-chapter$chapter/$name/$file"
        [[ " ${other_chapters[*]} " == *" $chapter "* ]] || other_chapters+=("$chapter")
        continue
    fi
    mkdir -p "$submissions/$name/chapters/$chapter1_folder"
    if grep -q '^// whole file' "$forgery"; then
        cp "$forgery" "$submissions/$name/$student_file"
    else
        printf '%s\n\n' "$skeleton_text" | cat - "$forgery" >"$submissions/$name/$student_file"
    fi
done
mkdir -p "$submissions/legitimate/chapters/$chapter1_folder" "$submissions/empty/chapters"
cp tests/grading/legitimate/"$(basename "$student_file")" "$submissions/legitimate/$student_file"

log=$logs/grade-submissions.log
if GRADE_BACKEND=$backend GRADE_CHAPTERS=1 GRADE_TIMEOUT=900 bash "$course_copy/tools/grade-submissions.sh" "$PWD/$submissions" "$PWD/$graded" 2 >"$log" 2>&1; then
    pass "tools/grade-submissions.sh ($backend backend) graded $(find "$submissions" -mindepth 1 -maxdepth 1 -type d | wc -l) submissions of chapter 1"
else
    fail "tools/grade-submissions.sh failed" "$(tail -n 5 "$log"; echo "full log: $log")"
fi
for chapter in "${other_chapters[@]}"; do
    log=$logs/grade-submissions-chapter$chapter.log
    if GRADE_BACKEND=$backend GRADE_CHAPTERS=$chapter GRADE_TIMEOUT=900 bash "$course_copy/tools/grade-submissions.sh" \
        "$PWD/$submissions-chapter$chapter" "$PWD/$graded-chapter$chapter" 2 >"$log" 2>&1; then
        pass "tools/grade-submissions.sh ($backend backend) graded the forgeries of chapter $chapter"
    else
        fail "tools/grade-submissions.sh failed on the forgeries of chapter $chapter" "$(tail -n 5 "$log"; echo "full log: $log")"
    fi
done

# chapterN's percentage in a student's reports (N: the second argument, 1 if none), and what
# explains it: the row's notes and the object check's findings.
graded_of() { if [ "${2:-1}" = 1 ]; then echo "$graded/$1"; else echo "$graded-chapter$2/$1"; fi; }
percent_of() { awk -v c="chapter${2:-1}" '$1 == c {print $3}' "$(graded_of "$@")/summary.txt" 2>/dev/null; }
reasons_of() { cat "$(graded_of "$@")/summary.txt" "$(graded_of "$@")/chapter${2:-1}-guard.txt" 2>/dev/null; }

if [ "$(percent_of empty)" = 0% ] && grep -q "missing (graded as the skeleton): $student_file" "$graded/empty/files.txt"; then
    pass "a student who submitted nothing scores 0% although the instructor's chapters/ holds solved work"
else
    fail "a student who submitted nothing scored $(percent_of empty), not 0% (the instructor's solved file was graded?)" \
        "$(cat "$graded/empty/summary.txt" "$graded/empty/files.txt" 2>&1 | head -n 8)"
fi
if [ "$(percent_of legitimate)" = 100% ]; then
    pass "a legitimate submission (helpers, templates, printf in a kernel, <cmath>, __shared__, cudaFuncSetAttribute) scores 100%"
else
    fail "the legitimate submission scored $(percent_of legitimate), not 100%" "$(reasons_of legitimate | head -n 12)"
fi
for forgery in "${forgeries[@]}"; do
    name=forgery-$(basename "$forgery" .cu)
    chapter=$(chapter_of "$forgery")
    what=$(sed -n '/^\/\/ whole file/d; /^\/\/ chapter: /d; s|^// ||p' "$forgery" | sed -n '1p')
    unmet=()
    while IFS= read -r expected; do
        reasons_of "$name" "$chapter" | grep -Eq -- "$expected" || unmet+=("$expected")
    done < <(sed -n "s|^// expect: ||p; s|^// expect ($backend): ||p" "$forgery")
    if [ "$(percent_of "$name" "$chapter")" = 0% ] && [ ${#unmet[@]} -eq 0 ]; then
        pass "forgery $(basename "$forgery"): 0%, $(awk -v c="chapter$chapter" '$1 == c {$1 = $2 = $3 = ""; print}' \
            "$(graded_of "$name" "$chapter")/summary.txt" | sed 's/^ *//' | cut -c1-110)"
    else
        fail "forgery $(basename "$forgery") ($what) scored $(percent_of "$name" "$chapter")${unmet[*]:+, or its reason is not named: ${unmet[*]}}" \
            "$(reasons_of "$name" "$chapter" | head -n 12)"
    fi
done

# ---- (issue 33) The judge believes only a clean ending: stand-in programs that report on the
# grading channel as the harness does, then report again, exit 1 after "no failures", or name
# cases the solution's run does not have, or changed after the object check
# (tests/grading/judge_endings.py; nothing to build).
if judge_log=$(python3 tests/grading/judge_endings.py 2>&1); then
    pass "the judge believes only a clean ending ($(grep -c '^  ok' <<<"$judge_log") stand-in runs: the honest one at 100%, run from an empty folder; the others 0% with their reason)"
else
    fail "the judge believed a run that did not end cleanly" "$judge_log"
fi
