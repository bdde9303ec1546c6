# The learner's workflow items of `make check` (make status, hint, solution, reset,
# grade). Sourced by tools/check.sh, whose pass and fail functions and counters it uses.
#   - chapters/skeletons.txt records every skeleton as it is (status and reset need it);
#   - every lesson has a `## Hints` list, for `make chapterN hint`;
#   - a scripted learner's session, tests/workflow/learner_session.sh, goes as planned.

echo "the learner's workflow"
if ids=$(python3 tools/workflow.py check-skeleton-ids 2>&1); then
    pass "chapters/skeletons.txt records every skeleton as it is"
else
    fail "chapters/skeletons.txt is out of date" "$ids"
fi

while read -r number folder _; do
    case "$number" in ''|'#'*) continue ;; esac
    hints=$(python3 tools/workflow.py count-hints --chapter "$number")
    if [ "${hints:-0}" -gt 0 ]; then
        pass "chapter$number's lesson has $hints hints for make chapter$number hint"
    else
        fail "chapters/$folder/README.md has no numbered list under '## Hints' for make chapter$number hint"
    fi
done <chapters/chapters.txt

log=build/check/learner-session-summary.log
if bash tests/workflow/learner_session.sh >"$log" 2>&1; then
    pass "a learner's session: $(tail -n 1 "$log" | sed 's/^learner session: //')"
else
    fail "a learner's session went wrong" "$(grep -A12 'FAIL' "$log" | head -40; echo "each step's output: build/check/learner-session.log")"
fi
