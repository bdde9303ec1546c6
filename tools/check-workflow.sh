# The learner's workflow items of `make check` (make status, hint, solution, reset,
# grade). Sourced by tools/check.sh, whose pass, fail and skip functions and counters it
# uses; it defines four parts, which tools/check.sh runs (side by side on a many-core machine):
#   - workflow_hints: every chapter has hints (its hints.md), for `make chapterN hint`;
#   - workflow_learner: a scripted learner's session, tests/workflow/learner_session.sh, goes as planned;
#   - workflow_planted: mistakes planted in chapter 7's solution fail its tests, naming the
#     cause (tests/workflow/planted_mistakes.sh);
#   - workflow_new_chapter: a new chapter needs only its folders and one registry line
#     (tests/workflow/new_chapter.sh copies one and runs it through every verb).
# The scripted ones play in a scratch git clone of this tree: outside a git clone (an
# archive download) they are skipped, and say so.

workflow_hints() {
    section "the learner's workflow"
    local number folder hints
    while IFS=$'\t' read -r number folder _; do
        hints=$(tutorial count-hints "$number")
        if [ "${hints:-0}" -gt 0 ]; then
            pass "chapter$number has $hints hints for make chapter$number hint"
        else
            fail "chapters/$folder/hints.md has no numbered list for make chapter$number hint"
        fi
    done < <(tutorial chapters --fields)
}

# workflow_script WHAT SCRIPT NAME PASS_TEXT FAIL_TEXT: one scripted session; its summary goes to
# build/check/NAME-summary.log, its steps to build/check/NAME.log; its last line starts "WHAT: ".
workflow_script() {
    local what=$1 script=$2 name=$3 good=$4 bad=$5
    local log=build/check/$name-summary.log prefix
    prefix=$(sed 's/^a //; s/.s session$/ session/' <<<"$what")
    if ! git rev-parse --git-dir >/dev/null 2>&1; then
        skip "$what: it plays in a git clone of this tree, and this copy is not a git clone"
    elif bash "$script" >"$log" 2>&1; then
        pass "$good: $(tail -n 1 "$log" | sed "s/^$prefix: //")"
    else
        fail "$bad" "$(grep -A12 'FAIL' "$log" | head -40; echo "each step's output: build/check/$name.log")"
    fi
}
workflow_learner() {
    workflow_script "a learner's session" tests/workflow/learner_session.sh learner-session \
        "a learner's session" "a learner's session went wrong"
}
workflow_planted() {
    workflow_script "planted mistakes" tests/workflow/planted_mistakes.sh planted-mistakes \
        "mistakes planted in chapter 7 fail its tests" \
        "a mistake planted in chapter 7 passes its tests, or fails for another reason"
}
workflow_new_chapter() {
    workflow_script "a new chapter" tests/workflow/new_chapter.sh new-chapter \
        "a new chapter" "a copied chapter does not work in every verb"
}
