# The learner's workflow items of `make check` (make status, hint, solution, reset,
# grade). Sourced by tools/check.sh, whose pass and fail functions and counters it uses.
#   - every chapter has hints (its hints.md), for `make chapterN hint`;
#   - a scripted learner's session, tests/workflow/learner_session.sh, goes as planned;
#   - mistakes planted in chapter 7's solution fail its tests, naming the cause
#     (tests/workflow/planted_mistakes.sh);
#   - a new chapter needs only its folders and one registry line
#     (tests/workflow/new_chapter.sh copies one and runs it through every verb).

section "the learner's workflow"
while IFS=$'\t' read -r number folder _; do
    hints=$(tutorial count-hints "$number")
    if [ "${hints:-0}" -gt 0 ]; then
        pass "chapter$number has $hints hints for make chapter$number hint"
    else
        fail "chapters/$folder/hints.md has no numbered list for make chapter$number hint"
    fi
done < <(tutorial chapters --fields)

# The scripted sessions play in a git clone of this tree: outside a git clone (an archive
# download) they are skipped, and say so.
if ! git rev-parse --git-dir >/dev/null 2>&1; then
    skip "a learner's session: it plays in a git clone of this tree, and this copy is not a git clone"
    skip "a new chapter: it is added in a git clone of this tree, and this copy is not a git clone"
    return 0
fi

log=build/check/learner-session-summary.log
if bash tests/workflow/learner_session.sh >"$log" 2>&1; then
    pass "a learner's session: $(tail -n 1 "$log" | sed 's/^learner session: //')"
else
    fail "a learner's session went wrong" "$(grep -A12 'FAIL' "$log" | head -40; echo "each step's output: build/check/learner-session.log")"
fi

log=build/check/planted-mistakes-summary.log
if bash tests/workflow/planted_mistakes.sh >"$log" 2>&1; then
    pass "mistakes planted in chapter 7 fail its tests: $(tail -n 1 "$log" | sed 's/^planted mistakes: //')"
else
    fail "a mistake planted in chapter 7 passes its tests, or fails for another reason" "$(grep -A12 'FAIL' "$log" | head -40; echo "each step's output: build/check/planted-mistakes.log")"
fi

log=build/check/new-chapter-summary.log
if bash tests/workflow/new_chapter.sh >"$log" 2>&1; then
    pass "a new chapter: $(tail -n 1 "$log" | sed 's/^new chapter: //')"
else
    fail "a copied chapter does not work in every verb" "$(grep -A8 'FAIL' "$log" | head -30; echo "full log: $log")"
fi
