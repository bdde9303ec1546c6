# The student's and instructor's tools in `make check` (grading, Classroom, watch, editor).
# Sourced by tools/check.sh, after the chapters were built and tested in both trees, whose
# pass, fail and skip functions, counters, $backend and $logs it uses.
#   - make grade: results.json is valid Gradescope output; the skeletons score 0, the
#     solutions full marks (100);
#   - every chapter's chapter.toml reads, and its reader refuses broken ones and fills the
#     templates as written (tests/manifest_reader.py); no import cycle, no Python in chapters/;
#   - .github/workflows/classroom.yml is what the registry makes, parses as YAML, and
#     names only commands that exist (make -n runs each) and the known actions;
#   - watch mode: started on chapter 1, its file touched during the first run (which must
#     be stopped and run again, unreported) and after a report (one more run), then stopped
#     by a signal, within a time limit;
#   - clangd --check on every chapter's student file and solution shows no diagnostic
#     (a named skip without clangd).

section "the instructor's and student's tools"

# ---- Grading -------------------------------------------------------------------------------
for tree in skeleton solution; do
    dir=build/check/grade-$tree
    # The solutions are checked without the allowance of their own objects (GRADE_BASELINE=none):
    # the object check's general rules must accept every one of them.
    if [ "$tree" = skeleton ]; then flags=(); expected=0; else flags=(SOLUTIONS=1 GRADE_BASELINE=none); expected=100; fi
    make grade "${flags[@]}" GRADE_DIR="$dir" >"$logs/grade-$tree.log" 2>&1
    if report=$(tutorial check-results --score "$expected" "$dir/results.json" "$dir"/chapter*.json 2>&1); then
        pass "make grade of the ${tree}s: valid results.json, overall and per chapter, scoring $expected"
    else
        fail "make grade of the ${tree}s: results.json is not valid or does not score $expected" \
            "$report$(printf '\nsee %s' "$logs/grade-$tree.log")"
    fi
    if python3 -c 'import sys, xml.etree.ElementTree as ET
for path in sys.argv[1:]:
    assert ET.parse(path).getroot().tag == "testsuites", path' "$dir/junit.xml" "$dir"/chapter*.xml 2>/dev/null; then
        pass "make grade of the ${tree}s: JUnit XML, overall and per chapter"
    else
        fail "make grade of the ${tree}s: a JUnit report is missing or not <testsuites>"
    fi
done

# ---- The chapters' manifests ---------------------------------------------------------------------
# Each chapter's chapter.toml, and what its one reader (tools/tutorial/manifest.py) refuses
# and fills in; the package has no import cycle, and no chapter folder holds Python.
if ! python3 -c 'import tomllib' 2>/dev/null; then
    skip "the chapters' manifests: reading them needs Python 3.11 or later (tomllib); this is $(python3 --version 2>&1)"
elif report=$(python3 tests/manifest_reader.py 2>&1); then
    pass "every chapter's chapter.toml reads; broken ones are refused by name; templates fill in as written; no import cycle"
else
    fail "the chapters' manifests or their reader" "$report"
fi

# ---- GitHub Classroom ----------------------------------------------------------------------------
workflow=.github/workflows/classroom.yml
if report=$(tutorial classroom 2>&1); then
    pass "$workflow is what chapters/registry makes"
else
    fail "$workflow is stale" "$report"
fi
if python3 -c 'import yaml' 2>/dev/null; then
    if report=$(python3 - "$workflow" <<'EOF' 2>&1
import sys, yaml
workflow = yaml.safe_load(open(sys.argv[1]))
known = {"actions/checkout@v4", "classroom-resources/autograding-command-grader@v1",
         "classroom-resources/autograding-grading-reporter@v1"}
steps = workflow["jobs"]["run-autograding-tests"]["steps"]
for step in steps:
    assert "uses" in step or "run" in step, f"step {step.get('name')} neither uses an action nor runs a command"
    assert step.get("uses", "actions/checkout@v4") in known, f"unknown action {step['uses']}"
graders = [s for s in steps if s.get("uses", "").startswith("classroom-resources/autograding-command-grader")]
runners = steps[-1]["with"]["runners"].split(",")
assert runners == [s["id"] for s in graders], f"the reporter's runners {runners} are not the graders' ids"
for s in graders:
    assert f"{s['id'].upper()}_RESULTS" in steps[-1]["env"], f"the reporter has no result for {s['id']}"
EOF
    ); then
        pass "$workflow parses as YAML, with a result for each grader"
    else
        fail "$workflow does not parse or is inconsistent" "$report"
    fi
else
    skip "$workflow as YAML: no PyYAML for python3 (make setup installs python3-yaml)"
fi
missing_commands=()
while read -r command; do
    # shellcheck disable=SC2086  # each command is a make command line, split into words
    set -- $command
    if [ "$1" != make ] || ! make -n "${@:2}" >/dev/null 2>&1; then missing_commands+=("$command"); fi
done < <(tutorial classroom --commands)
if [ ${#missing_commands[@]} -eq 0 ]; then
    pass "every command of $workflow exists (make -n runs it)"
else
    fail "$workflow runs commands that do not exist" "$(printf '%s\n' "${missing_commands[@]}")"
fi

# ---- Watch mode ------------------------------------------------------------------------------------
# Chapter 1's skeleton, in a scratch clone of this tree (with its build), so that the touched
# file and what make rebuilds are never this tree's: its tests fail fast. The file is touched
# while the first run is under way (make is still starting when the run's header line
# appears): that run must be stopped, never reported, and a second one started. Once its
# report is shown, the file is touched again: a third run. A TERM (as Ctrl-C, which a
# background job cannot receive) stops it cleanly. 300 s in all at most.
watch_log=$PWD/$logs/watch.log
watch_outcome=$PWD/$logs/watch.outcome
rm -f "$watch_outcome"
(
    root=$PWD
    # shellcheck source=tests/workflow/steps.sh
    source tests/workflow/steps.sh  # clone_tree_under_test, reuse_build_of (its counters stay in this subshell)
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/watch.XXXXXX")
    trap 'rm -rf "$scratch"' EXIT
    clone_tree_under_test "$root" >/dev/null && reuse_build_of "$root" || exit 1
    student_file=$(ls chapters/"$(python3 -m tools.tutorial chapters --fields | awk -F'\t' 'NR == 1 {print $2}')"/*.cu | head -n 1)
    WATCH_QUIET=1 timeout 300 python3 -m tools.tutorial --backend "$backend" watch 1 >"$watch_log" 2>&1 &
    watcher=$!
    waited=0
    until [ "$(grep -c '^== make chapter1 test' "$watch_log")" -ge 1 ] || [ $waited -ge 240 ] || ! kill -0 $watcher 2>/dev/null; do
        sleep 0.1; waited=$((waited + 1))
    done
    touch "$student_file"
    reports_during_first_run=$(grep -c '^Watching ' "$watch_log")
    waited=0
    until [ "$(grep -c '^Watching ' "$watch_log")" -ge 1 ] || [ $waited -ge 240 ] || ! kill -0 $watcher 2>/dev/null; do
        sleep 1; waited=$((waited + 1))
    done
    sleep 1
    touch "$student_file"
    until [ "$(grep -c '^Watching ' "$watch_log")" -ge 2 ] || [ $waited -ge 280 ] || ! kill -0 $watcher 2>/dev/null; do
        sleep 1; waited=$((waited + 1))
    done
    # TERM to the watcher itself, as Ctrl-C reaches it (timeout, its parent, would pass it
    # on and then report the signal as its own exit status).
    pkill -TERM -P "$watcher" 2>/dev/null || kill -TERM "$watcher" 2>/dev/null
    wait $watcher
    echo "$reports_during_first_run $?" >"$watch_outcome"
)
read -r reports_during_first_run watch_status <"$watch_outcome" 2>/dev/null || { reports_during_first_run=-; watch_status="none (the scratch clone failed)"; }
runs=$(grep -c '^== make chapter1 test' "$watch_log" 2>/dev/null)
reports=$(grep -c '^Not yet: \|^chapter1 passes\.' "$watch_log" 2>/dev/null)
if [ "$reports_during_first_run" = 0 ] && [ "$runs" -eq 3 ] && [ "$reports" -eq 2 ] && [ "$watch_status" = 0 ] &&
    grep -q '^(a file was saved during the last run' "$watch_log" && grep -q '^Stopped watching chapter1\.' "$watch_log"; then
    pass "make chapter1 watch: a save during a run stopped it unreported and ran the tests again; a save after a report ran them again; stopped cleanly"
else
    fail "make chapter1 watch: expected 3 runs (the first stopped by a save), 2 reports and a clean stop; got $runs runs, $reports reports, exit status $watch_status" \
        "$(tail -n 15 "$watch_log" 2>/dev/null)"
fi

# ---- Editor support ------------------------------------------------------------------------------------
if ! command -v clangd >/dev/null 2>&1; then
    skip "clangd on every student file: clangd is not installed (Debian: apt-get install clangd)"
elif [ ! -f compile_commands.json ]; then
    fail "compile_commands.json is missing after the builds: the compile rules should write it"
else
    # The editor's database of this check's backend, made apart from the tree's own (which the
    # latest link writes, of whichever backend: parts run side by side).
    clangd_database=build/check/clangd
    python3 tools/compile_db.py "build/$backend/compile_commands" "$clangd_database"
    noisy=()
    while IFS=$'\t' read -r _ folder _; do
        for file in chapters/"$folder"/*.cu solutions/"$folder"/*.cu; do
            [ -f "$file" ] || continue
            clangd_output=$(timeout 300 clangd --compile-commands-dir="$clangd_database" --check="$file" 2>&1)
            diagnostics=$(grep -E '^[EW]\[[^]]*\] \[[^]]+\] Line [0-9]+:' <<<"$clangd_output")
            # Its count of errors includes its own refactorings' self-tests failing
            # (clangd 14 on a `break`), which say nothing of the file: count diagnostics.
            if [ -n "$diagnostics" ] || ! grep -q 'All checks completed' <<<"$clangd_output"; then
                noisy+=("$file: ${diagnostics:-$(tail -n 1 <<<"$clangd_output")}")
            fi
        done
    done < <(tutorial chapters --fields)
    if [ ${#noisy[@]} -eq 0 ]; then
        pass "clangd --check finds no diagnostic in any student file or solution ($backend backend)"
    else
        fail "clangd --check reports diagnostics" "$(printf '%s\n' "${noisy[@]}")"
    fi
fi
