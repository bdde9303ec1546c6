#!/usr/bin/env bash
# `make check`: the maintainer's gate, and what CI runs.
#
# The project's own code is built with -Werror throughout (CXXFLAGS below). For every
# chapter of the registry it checks that
#   - the solution marks what the student writes (BEGIN SOLUTION) and the committed
#     skeleton is what those markers make (make skeletons), with TODO(chapterN) markers;
#   - skeleton and solution have the same files;
#   - the solution passes the chapter's tests;
#   - the skeleton compiles, and fails the chapter's tests (without crashing).
# The common/ library's own tests must pass too. With the CPU backend (BACKEND=emu, the
# default without a GPU) every test runs on it, and tools/check-emu.sh adds its own items:
# it catches each planted bug, and compile errors name the student's file and line.
# Then the course site (make docs): both editions build without a Doxygen warning, every
# link of each leads somewhere, and the student edition holds no line of solution code
# while the instructor edition holds them all. Without Doxygen (or Python 3) the site's
# checks are skipped, and say so. tools/check-profile.sh, tools/check-bench.sh,
# tools/check-workflow.sh, tools/check-tools.sh (grading, Classroom, watch, editor) and
# tools/check-grading.sh (planted forgeries, which must score 0) add their own items.
# The last line is "N passed, M failed", then ", K skipped" when K > 0. CHECK_PARTS="label ..."
# runs only the parts named (as the time line labels them), after the prebuild.
set -u
cd "$(dirname "$0")/.."
# --fast [N ...] (make check-fast, make chapterN check-fast): what a change to a chapter can
# break, for the chapters named, or else those whose files differ from the last commit (and
# from the upstream branch, when there is one): the common library, the skeletons, and each
# such chapter's items (its solution passes, its skeleton compiles and fails, its report, its
# hints, no solution line in its lesson). The whole gate is make check.
fast=no
fast_chapters=()
if [ "${1:-}" = --fast ]; then
    fast=yes
    shift
    fast_chapters=("$@")
fi
# No warning in the project's own code: every build below, and the builds the scripts it
# runs make, add -Werror to the usual flags.
export CXXFLAGS="${CXXFLAGS:--O2 -g} -Werror"
tutorial() { python3 -m tools.tutorial "$@"; }

logs=build/check
mkdir -p "$logs"
passed=0
failed=0
skipped=0
# Parts that do not depend on each other run side by side (CHECK_JOBS at a time: half the
# cores, at least 2, since most parts wait on a test run, a clone or Python as much as they
# compile; CHECK_JOBS=1 runs them in order): each writes its own output, printed in order
# afterwards, and the counters are read back from its ok/FAIL/skip lines.
cores=$(nproc 2>/dev/null || echo 2)
check_jobs=${CHECK_JOBS:-$([ "$cores" -ge 4 ] && echo $((cores / 2)) || { [ "$cores" -ge 2 ] && echo 2 || echo 1; })}
case $check_jobs in '' | *[!0-9]* | 0) echo "CHECK_JOBS=$check_jobs: give a number of parts to run at once (1 or more)" >&2; exit 2 ;; esac
pass() { echo "  ok    $1"; passed=$((passed + 1)); }
fail() { echo "  FAIL  $1"; [ -n "${2:-}" ] && sed 's/^/        /' <<<"$2"; failed=$((failed + 1)); }
skip() { echo "  skip  $1"; skipped=$((skipped + 1)); }
section() { echo "$1"; }
# in_parallel COMMAND...: each COMMAND (a function of this script and its arguments, or
# "source FILE"), check_jobs at a time, started in the order given. Each one's output comes
# out whole, in that order, as soon as it and those before it are done; their pass, fail and
# skip lines are counted, and their times go into part_times (the last line but one).
part_times=()
part_label() {
    case $1 in
        check_chapter* | profile_chapter*) echo "${1#* }" | awk '{print "chapter" $1}' ;;
        check_lesson*) echo "chapter${1#* } lesson" ;;
        source*) basename "${1#source }" .sh ;;
        *) echo "${1%% *}" ;;
    esac
}
in_parallel() {
    local command index=0 shown=0 out started label
    out=$(mktemp -d "$logs/parallel.XXXXXX")
    for command in "$@"; do
        if [ "$check_jobs" -le 1 ]; then
            # The label first: a sourced part runs in this function and may reuse its names.
            label=$(part_label "$command")
            started=$SECONDS
            eval "$command"
            part_times+=("$label $((SECONDS - started)) s")
            continue
        fi
        while [ "$(jobs -rp | wc -l)" -ge "$check_jobs" ]; do wait -n; done
        # The file names are fixed before the part runs: a sourced part may reuse any variable name.
        { part_seconds_file=$out/$index.seconds; started=$SECONDS
          eval "$command" >"$out/$index" 2>&1 </dev/null; echo $((SECONDS - started)) >"$part_seconds_file"; } &
        index=$((index + 1))
        show_finished "$@"
    done
    while [ "$shown" -lt "$index" ]; do sleep 1; show_finished "$@"; done
    wait
    rm -rf "$out"
}
# Prints the finished outputs of in_parallel that no unfinished one precedes.
show_finished() {
    local commands=("$@")
    while [ "$shown" -lt "$index" ] && [ -f "$out/$shown.seconds" ]; do
        cat "$out/$shown"
        passed=$((passed + $(grep -c '^  ok    ' "$out/$shown")))
        failed=$((failed + $(grep -c '^  FAIL  ' "$out/$shown")))
        skipped=$((skipped + $(grep -c '^  skip  ' "$out/$shown")))
        part_times+=("$(part_label "${commands[$shown]}") $(cat "$out/$shown.seconds") s")
        shown=$((shown + 1))
    done
}

# A test run "fails" when the runner reports failed tests; a crash (a signal, or a
# Catch2 fatal error) is a defect of its own, never a pass.
crashed() { grep -qE "fatal error condition|Segmentation fault|Aborted|core dumped|terminate called" "$1"; }

choice=$(make -s print-backend)
backend=$(sed -n 1p <<<"$choice")
sed -n 2p <<<"$choice"
# The one architecture the benchmarks' nvcc builds are checked for (the prebuild makes them,
# tools/check-bench.sh checks them): the Makefile's, the GPU's here or else sm_90a.
check_arch=$(sed -n 3p <<<"$choice")

section "common/"
if make test-common >"$logs/common.log" 2>&1; then
    pass "the common library passes its tests"
else
    fail "the common library fails its tests" "see $logs/common.log"
fi

# Nothing generated is tracked: what the build and Python write is made again from the sources.
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    skip "no generated file is tracked: this tree is not a git clone"
elif generated=$(git ls-files | grep -E '(^|/)__pycache__/|\.pyc$|\.o$|^build/|(^|/)compile_commands\.json$'); then
    fail "generated files are tracked (git rm --cached them)" "$generated"
else
    pass "no generated file is tracked (Python bytecode, objects, build/, compile_commands.json)"
fi

section "chapters/ and solutions/"
if report=$(tutorial skeletons 2>&1); then
    pass "every skeleton is what its solution's markers make"
else
    fail "a skeleton is not what its solution's markers make" "$report"
fi

# One chapter's items.
check_chapter() {  # NUMBER FOLDER
    local number=$1 folder=$2 log skeleton_files solution_files report_text lines
    echo "chapter$number ($folder)"

    if grep -q "TODO(chapter$number)" chapters/"$folder"/*.cu 2>/dev/null; then
        pass "the skeleton has TODO(chapter$number) markers"
    else
        fail "the skeleton chapters/$folder has no TODO(chapter$number) marker"
    fi
    if grep -q "BEGIN SOLUTION" solutions/"$folder"/*.cu 2>/dev/null; then
        pass "the solution marks what the student writes (BEGIN SOLUTION)"
    else
        fail "the solution solutions/$folder has no BEGIN SOLUTION marker"
    fi
    skeleton_files=$(cd chapters/"$folder" && ls ./*.cu)
    solution_files=$(cd solutions/"$folder" && ls ./*.cu)
    if [ "$skeleton_files" = "$solution_files" ]; then
        pass "skeleton and solution have the same files"
    else
        fail "skeleton and solution differ in files" "chapters: $skeleton_files; solutions: $solution_files"
    fi

    log="$logs/chapter$number-solution.log"
    local program="build/$backend/solutions/bin/chapter$number-tests"
    local expected_run="$program.expected-seeddefault"
    if [ "$fast" = no ] && [ -f "$expected_run" ] && [ "$expected_run" -nt "$program" ]; then
        # The prebuild ran the solution's tests once already, through the judge, for make grade
        # (the cases every run must report): its results say whether they passed, and running
        # them a second time here would only repeat that run.
        if grep -qx 'state=finished' "$expected_run" && grep -qx 'failed=0' "$expected_run" &&
            grep -qx 'extra_failed=0' "$expected_run" && ! grep -qx 'passed=0' "$expected_run"; then
            pass "the solution passes its tests (the run make grade compares with, $expected_run)"
        else
            fail "the solution fails its tests" "$(grep -E '^(state|passed|failed|extra_failed)=' "$expected_run"; echo "full log: $expected_run.log")"
        fi
    elif make "chapter$number" test SOLUTIONS=1 >"$log" 2>&1; then
        pass "the solution passes its tests"
    else
        fail "the solution fails its tests" "$(grep -E 'FAILED|error' "$log" | head -5; echo "full log: $log")"
    fi

    # Every chapter has a demo (make chapterN run), and the solution's runs and is right (a
    # demo checks its own results and exits 1 when one is wrong). The chapter's goal built it.
    local demo="build/$backend/solutions/bin/chapter$number-demo"
    log="$logs/chapter$number-demo.log"
    if [ ! -f "chapters/$folder/demo.cpp" ]; then
        fail "chapter$number has no demo (chapters/$folder/demo.cpp, for make chapter$number run)"
    elif [ ! -x "$demo" ]; then
        fail "the solution's demo was not built" "expected $demo; the prebuild's log: $logs/prebuild.log"
    elif "$demo" >"$log" 2>&1; then
        pass "the solution's demo runs and its results are right (make chapter$number run SOLUTIONS=1)"
    else
        fail "the solution's demo fails (make chapter$number run SOLUTIONS=1)" "$(tail -n 5 "$log"; echo "full log: $log")"
    fi

    log="$logs/chapter$number-skeleton.log"
    if ! make "chapter$number" >"$log" 2>&1; then
        fail "the skeleton does not compile" "$(grep -m5 error "$log"; echo "full log: $log")"
    else
        pass "the skeleton compiles"
        # A student's first build shows no warning about code the course gave them (the
        # prebuild's log has the compile's messages when it built the skeleton first).
        local warnings
        warnings=$(grep -hE "^chapters/$folder/[^ ]+(\([0-9]+\)|:[0-9]+:).*warning" "$log" "$logs/prebuild.log" 2>/dev/null | sort -u)
        if [ -z "$warnings" ]; then
            pass "the skeleton builds without a warning"
        else
            fail "the skeleton's build warns (about code the student did not write?)" "$(head -n 5 <<<"$warnings")"
        fi
        if make "chapter$number" test >>"$log" 2>&1; then
            fail "the skeleton passes its tests: they cannot tell an unsolved exercise from a solved one" "full log: $log"
        elif crashed "$log"; then
            fail "the skeleton crashes instead of failing its tests" "full log: $log"
        else
            pass "the skeleton fails its tests"
            # The failing run says which file to edit and how to get a hint.
            # (The report wraps its lines: read the log as one line.)
            report_text=$(tr -s '\n ' '  ' <"$log")
            if [[ $report_text == *"Your code for chapter $number is in chapters/$folder/"* && $report_text == *"make chapter$number hint"* ]]; then
                pass "the skeleton's report names the file to edit and make chapter$number hint"
            else
                fail "the skeleton's report names neither the file to edit nor make chapter$number hint" "full log: $log"
            fi
            # Its first report in full, the rest a line each: the whole run, build lines
            # included, stays short enough to read (harness/sweep.h).
            lines=$(wc -l <"$log")
            if [ "$lines" -le 120 ]; then
                pass "the skeleton's failing run prints $lines lines (at most 120)"
            else
                fail "the skeleton's failing run prints $lines lines, more than 120" "full log: $log"
            fi
        fi
    fi
}
# A chapter's hints, its lesson's leaks and figures (make check-fast; make check has them for every chapter).
check_lesson() {  # NUMBER
    local hints report
    echo "chapter$1's lesson"
    hints=$(tutorial count-hints "$1")
    if [ "${hints:-0}" -gt 0 ]; then
        pass "chapter$1 has $hints hints for make chapter$1 hint"
    else
        fail "chapter$1's hints.md has no numbered list for make chapter$1 hint"
    fi
    if report=$(tutorial lesson-leaks "$1" 2>&1); then
        pass "no solution line of chapter$1 is in its lesson, a hint before the last or a TODO text"
    else
        fail "chapter$1's lesson, a hint before the last or a TODO text gives a solution line away" "$report"
    fi
    if report=$(tutorial lesson-figures "$1" 2>&1); then
        pass "each figure chapter$1's lesson quotes from the benchmark is the results page's run's"
    else
        fail "chapter$1's lesson quotes a figure that is not the results page's run's" "$report"
    fi
}
if [ "$fast" = yes ]; then
    if [ ${#fast_chapters[@]} -eq 0 ] && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        # The chapters whose files changed: uncommitted, untracked, or committed since the upstream.
        upstream=$(git rev-parse --verify -q '@{upstream}' 2>/dev/null || git rev-parse HEAD)
        mapfile -t fast_chapters < <({ git diff --name-only "$(git merge-base HEAD "$upstream")" -- chapters solutions
                                       git ls-files --others --exclude-standard -- chapters solutions; } |
            awk -F/ 'NF > 2 {print $2}' | sort -u | while read -r folder; do
                tutorial chapters --fields | awk -F'\t' -v f="$folder" '$2 == f {print $1}'; done)
    fi
    if [ ${#fast_chapters[@]} -eq 0 ]; then
        echo "No chapter's files changed since the last commit: only the shared items ran. Name one: make chapter3 check-fast"
    fi
    fast_parts=()
    for number in "${fast_chapters[@]}"; do
        folder=$(tutorial chapters --fields | awk -F'\t' -v n="$number" '$1 == n {print $2}')
        fast_parts+=("check_chapter $number $folder" "check_lesson $number")
    done
    [ ${#fast_parts[@]} -gt 0 ] && in_parallel "${fast_parts[@]}"
    echo
    [ ${#part_times[@]} -gt 0 ] && echo "time: $(IFS=,; echo "${part_times[*]}" | sed 's/,/, /g')"
    echo "$passed passed, $failed failed$([ "$skipped" -gt 0 ] && echo ", $skipped skipped") (make check-fast: chapters ${fast_chapters[*]:-none}; make check runs everything)"
    [ "$failed" -eq 0 ]
    exit
fi

part_docs() {
    local edition log options site report mode good bad
    section "docs/ (the course site)"
    if ! command -v "${DOXYGEN:-doxygen}" >/dev/null 2>&1; then
        skip "the course site: Doxygen is not installed ('make setup' installs it)"
    elif ! command -v "${PYTHON:-python3}" >/dev/null 2>&1; then
        skip "the course site: Python 3 is not installed ('make setup' installs it)"
    else
        for edition in student instructor; do
            log="$logs/docs-$edition.log"
            if [ "$edition" = student ]; then options=(); site=build/docs/html; else options=(SOLUTIONS=1); site=build/docs-instructor/html; fi
            if make docs DOCS_STRICT=1 "${options[@]}" >"$log" 2>&1; then
                pass "the $edition edition builds without a Doxygen warning"
            else
                fail "the $edition edition does not build cleanly" "$(grep -m8 -E 'warning|error|make docs' "$log"; echo "full log: $log")"
                continue
            fi
            if report=$(tutorial site-links "$site" 2>&1); then
                pass "every link of the $edition edition leads somewhere"
            else
                fail "the $edition edition has broken links" "$report"
            fi
            # Both searches: Doxygen's for the API's names, the lesson search for the lessons' text
            # (run in headless Chromium when it is installed; the report names what it skipped).
            if report=$(tutorial site-search "$site" 2>&1); then
                pass "the $edition edition's searches find the API and the lessons' text${report:+ ($report)}"
            else
                fail "the $edition edition's searches miss something" "$report"
            fi
            # Tables and figures that fit the page, in a browser (where Chromium is installed).
            report=$(tutorial site-fit "$site" --shots "$logs/site-fit-$edition" 2>&1)
            if [ $? -ne 0 ]; then
                fail "the $edition edition has tables or figures that do not fit" "$report"
            elif [[ $report == note:* ]]; then
                skip "the $edition edition's fit in a browser: Chromium is not installed"
            else
                pass "the $edition edition's tables and figures fit a 1280-pixel page, every label inside its figure"
            fi
            if [ "$edition" = student ]; then
                mode=--absent; good="has no line of solution code"; bad="contains solution code"
            else
                mode=--present; good="shows every line of solution code"; bad="is missing solution code"
            fi
            if report=$(tutorial site-solutions "$mode" "$site" 2>&1); then
                pass "the $edition edition $good"
            else
                fail "the $edition edition $bad" "$report"
            fi
        done
    fi
}

# The lessons: the student does the thinking (no solution line in the lesson, the hints before
# the last, or a TODO text), and their drawn figures are what the code draws now.
part_lessons() {
    local report
    section "the lessons"
    if report=$(tutorial lesson-leaks 2>&1); then
        pass "no solution line of 6 or more tokens is in a lesson, a hint before the last or a TODO text"
    else
        fail "a lesson, a hint before the last or a TODO text gives a solution line away" "$report"
    fi
    # The lessons and the site's guides state what is: the project's history (its issues)
    # belongs in docs/maintainers.md.
    if report=$(tutorial issue-numbers 2>&1); then
        pass "no lesson, hint or guide of the site names one of the project's issues (docs/maintainers.md may)"
    else
        fail "a lesson, its hints or a guide of the site names one of the project's issues (history goes to docs/maintainers.md)" "$report"
    fi
    if report=$(tutorial lesson-figures 2>&1); then
        pass "each figure a lesson quotes from the benchmark is that of the results page's run (docs/results/)"
    else
        fail "a lesson quotes a figure that is not the results page's run's (python3 -m tools.tutorial lesson-figures --write)" "$report"
    fi
    if report=$(tutorial figures 2>&1); then
        pass "the lessons' drawn figures are what tools/tutorial/figures.py draws"
    else
        fail "a lesson's drawn figure is out of date (python3 -m tools.tutorial figures --write)" "$report"
    fi
}
# The Python package's own unit tests, each a program of tests/ that exits 0.
part_tool_units() {
    local test report
    section "the tools' unit tests"
    for test in tests/lesson_leaks.py tests/lesson_figures.py tests/figures.py tests/instruction_counts.py tests/cpu_diagnosis.py \
        tests/sanitizer_reports.py tests/one_screen.py tests/site_fit.py tests/guard_rules.py tests/extra_steps.py \
        tests/site_pages.py; do
        report=$(python3 "$test" 2>&1)
        status=$?
        if [ "$status" -eq 0 ]; then
            pass "$test"
        elif [ "$status" -eq 2 ]; then  # it needs what this machine lacks, and says what
            skip "$test: $report"
        else
            fail "$test fails" "$(tail -n 15 <<<"$report")"
        fi
    done
}

part_bad_input() {
    local log=build/check/bad-input-summary.log
    section "bad input"
    if bash tests/workflow/bad_input.sh >"$log" 2>&1; then
        pass "bad input: $(tail -n 1 "$log" | sed 's/^bad input: //')"
    else
        fail "bad input is not refused as it should be" "$(grep -A8 'FAIL' "$log" | head -30; echo "full log: $log")"
    fi
}

source tools/check-workflow.sh  # its parts: workflow_hints, workflow_learner, workflow_planted, workflow_new_chapter

parts=()
chapter_goals=()
profile_programs=()
while IFS=$'\t' read -r number folder _; do
    parts+=("check_chapter $number $folder")
    chapter_goals+=("chapter$number")
    [ -f "chapters/$folder/profile.cpp" ] && profile_programs+=("build/emu/solutions/bin/chapter$number-profile")
done < <(tutorial chapters --fields)
parts+=("source tools/check-emu.sh" part_docs "source tools/check-profile.sh" "source tools/check-bench.sh"
        workflow_hints workflow_learner workflow_planted workflow_new_chapter
        "source tools/check-tools.sh" "source tools/check-grading.sh" part_bad_input part_lessons part_tool_units)
if [ "$check_jobs" -gt 1 ]; then
    # Side by side, no two parts may build the same file at once: what they share is built
    # first, one make at a time (what fails to build is reported by its part). The scratch
    # clones copy this build, and the longest parts start first.
    echo "building what the parts share (log: $logs/prebuild.log)"
    started=$SECONDS
    {
        make -k SOLUTIONS=1 "${chapter_goals[@]}"
        make -k "${chapter_goals[@]}"
        make -k BACKEND=emu SOLUTIONS=1 shared build/emu/bin/profile-tests build/emu/bin/profile-probe "${profile_programs[@]}"
        [ "$backend" = emu ] && make -k build/emu/bin/emu-tests
        make -k BACKEND=cuda ARCH="$check_arch" SOLUTIONS=1 bench-binaries build/cuda/bin/benchmark-tests
        make -k BACKEND=cuda ARCH="$check_arch" SOLUTIONS=0 bench-binaries
        # The solutions' runs that make grade expects (the cases every run must report), made
        # once here for the default seed: the grades below and the scratch sessions' copies
        # of this build find them made, instead of each running every solution again.
        make -k SOLUTIONS=1 $(for goal in "${chapter_goals[@]}"; do echo "build/$backend/solutions/bin/$goal-tests.expected-seeddefault"; done)
    } >"$logs/prebuild.log" 2>&1
    part_times+=("prebuild $((SECONDS - started)) s")
    # The later chapters are the longer ones (more steps, larger sweeps).
    chapter_parts_longest_first=()
    for ((i = ${#chapter_goals[@]} - 1; i >= 0; i--)); do chapter_parts_longest_first+=("${parts[$i]}"); done
    # The longest first (each part's time on CI's 2 cores, from the last line of a run), so
    # that the last to finish are short and both cores finish together.
    parts=("source tools/check-tools.sh" "source tools/check-grading.sh" workflow_planted
           "source tools/check-profile.sh" workflow_new_chapter workflow_learner part_docs
           "source tools/check-emu.sh" "${chapter_parts_longest_first[@]}" workflow_hints part_bad_input
           part_tool_units "source tools/check-bench.sh" part_lessons)
    echo "running ${#parts[@]} parts, $check_jobs at a time (CHECK_JOBS); each part's lines appear once it and the parts above it are done"
fi
# CHECK_PARTS="check-grading workflow_planted": only those parts (their labels, as the time
# line names them), after the prebuild: while working on one, or to run one on another machine.
if [ -n "${CHECK_PARTS:-}" ]; then
    chosen=()
    for part in "${parts[@]}"; do
        [[ " $CHECK_PARTS " == *" $(part_label "$part") "* ]] && chosen+=("$part")
    done
    [ ${#chosen[@]} -gt 0 ] || { echo "CHECK_PARTS=$CHECK_PARTS names no part; the parts: $(for p in "${parts[@]}"; do part_label "$p"; done | tr '\n' ' ')" >&2; exit 2; }
    parts=("${chosen[@]}")
    echo "only the parts CHECK_PARTS names: $CHECK_PARTS"
fi
in_parallel "${parts[@]}"

echo
echo "time: $(IFS=,; echo "${part_times[*]}" | sed 's/,/, /g')"
echo "$passed passed, $failed failed$([ "$skipped" -gt 0 ] && echo ", $skipped skipped")"
[ "$failed" -eq 0 ]
