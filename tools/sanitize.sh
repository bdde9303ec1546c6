#!/usr/bin/env bash
# compute-sanitizer runs for `make sanitize` (see mk/bench.mk).
#
#   tools/sanitize.sh preflight
#       exit 1, with one line, if compute-sanitizer cannot be found
#   tools/sanitize.sh run TOOL TEST_BINARY LOG LABEL [CATCH2_ARGS...]
#       run the test binary under one tool, log everything to LOG, print one line
#       and record the verdict in LOG.verdict; exits 0 either way, so that the
#       other runs go on
#   tools/sanitize.sh summary LOG...
#       one line for all the runs; exit 1 if any failed or is missing
#   tools/sanitize.sh after-tests TEST_BINARY LOG_DIR [CATCH2_ARGS...]
#       `make chapterN test` on a GPU, once its tests passed: the same tests under memcheck
#       and racecheck, each sweep on its first shapes only (TUTORIAL_SANITIZER_PASS=1), so
#       that an access out of bounds or a race that left the results right still fails;
#       one line when clean, the first report when not (exit 1)
#
# A run fails on any sanitizer report (--error-exitcode), on failing tests, and
# when the tests found no GPU and skipped the kernels (nothing was checked then).
set -u

# Any report makes compute-sanitizer exit with this status, which no test runner uses.
readonly SANITIZER_EXIT=86

find_sanitizer() {
    local candidate
    for candidate in "$(command -v compute-sanitizer 2>/dev/null)" \
        "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
        "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")/compute-sanitizer" \
        /usr/local/cuda/bin/compute-sanitizer; do
        if [ -n "$candidate" ] && [ -x "$candidate" ]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

preflight() {
    if ! find_sanitizer >/dev/null; then
        echo "make sanitize: refused: compute-sanitizer not found (looked on PATH, in \$CUDA_HOME/bin, next to nvcc and in /usr/local/cuda/bin); it comes with the CUDA Toolkit."
        exit 1
    fi
}

# sanitize_once SANITIZER TOOL BINARY LOG TIMEOUT [OPTION...] -- [CATCH2_ARGS...]: one run of
# the test binary under TOOL, everything to LOG. Sets status (the exit status), seconds, summary
# (the tool's own: "ERROR SUMMARY: 0 errors", or for racecheck "RACECHECK SUMMARY: 0 hazards
# displayed (0 errors, 0 warnings)") and warnings (racecheck's count, else empty).
sanitize_once() {
    local sanitizer=$1 tool=$2 binary=$3 log=$4 limit=$5
    shift 5
    # --report-api-errors no: the tests provoke CUDA API errors on purpose (a refused
    # launch, a failed allocation) and check them themselves; reported by the
    # sanitizer, they would fail every run. Kernel errors are still all reported.
    local options=(--tool "$tool" --error-exitcode "$SANITIZER_EXIT" --report-api-errors no)
    while [ $# -gt 0 ] && [ "$1" != -- ]; do options+=("$1"); shift; done
    shift
    local start
    start=$(date +%s)
    {
        echo "\$ $sanitizer ${options[*]} $binary $*"
        timeout --foreground "$limit" "$sanitizer" "${options[@]}" "$binary" "$@"
    } >"$log" 2>&1
    status=$?
    seconds=$(($(date +%s) - start))
    summary=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$log" | tail -n 1 | sed 's/^=* *//')
    warnings=$(sed -n 's/.*RACECHECK SUMMARY.*, \([0-9]*\) warnings.*/\1/p' "$log" | tail -n 1)
}

# True when the last sanitize_once found something: an error, or a racecheck warning.
sanitizer_reported() { [ "$status" -eq "$SANITIZER_EXIT" ] || { [ -n "$warnings" ] && [ "$warnings" -gt 0 ]; }; }

run() {
    local tool=$1 binary=$2 log=$3 label=$4
    shift 4
    local sanitizer
    sanitizer=$(find_sanitizer) || { preflight; }
    mkdir -p "$(dirname "$log")"
    rm -f "$log.verdict"

    local options=()
    [ "$tool" = memcheck ] && options=(--leak-check full)  # device memory never freed counts too

    # Tests tagged [large] (chapter 6's sums of 2^28 floats) take seconds on a GPU but
    # far longer under a sanitizer, and check nothing the smaller cases do not: leave
    # them out unless the run names its own tests.
    [ $# -eq 0 ] && set -- "~[large]"
    local status seconds summary warnings
    sanitize_once "$sanitizer" "$tool" "$binary" "$log" "${SANITIZE_TIMEOUT:-3600}" "${options[@]}" -- "$@"

    local verdict
    if grep -q "No CUDA device found" "$log"; then
        verdict="FAIL  no GPU: the tests skipped every kernel, nothing was checked"
    elif [ "$status" -eq "$SANITIZER_EXIT" ]; then
        verdict="FAIL  ${summary:-the sanitizer reported errors}"
    elif [ "$status" -eq 124 ]; then
        verdict="FAIL  timed out after ${SANITIZE_TIMEOUT:-3600} s"
    elif [ "$status" -ne 0 ]; then
        verdict="FAIL  the tests failed or crashed (exit status $status); ${summary:-no sanitizer summary}"
    elif [ -n "$warnings" ] && [ "$warnings" -gt 0 ]; then
        verdict="FAIL  $summary"
    else
        verdict="clean ${summary:-(exit status 0)}"
    fi
    echo "$verdict" >"$log.verdict"
    printf '  %-10s %-22s %-64s %5d s  %s\n' "$tool" "$label" "$verdict" "$seconds" "$log"
    # A count of errors says nothing of where they are: the first report in full (the
    # access or barrier, the kernel, its file and line) follows the verdict.
    if sanitizer_reported; then
        first_report "$log" | sed 's/^/      /'
    fi
}

# The first error a compute-sanitizer log reports: from the first line "========= <text>"
# that is not the tool's banner, its summary or the exit notice, to the host backtrace or
# the line "=========" that ends the error's block. Shortened to be read: a function is
# named without its template and parameter lists ("at fetch_tile in file.cu:218"), and
# a race's further accesses after the first three are counted, not listed.
first_report() {
    awk '
        /^========= (COMPUTE-SANITIZER|ERROR SUMMARY|RACECHECK SUMMARY|Target application)/ { next }
        !started && /^========= [^ ]/ { started = 1 }
        started {
            if ($0 ~ /^=========[ ]*$/ || $0 ~ /Saved host backtrace/ || printed > 25) exit
            line = $0
            sub(/^========= /, "", line)
            if (match(line, /(at|Frame:) (void )?[A-Za-z_][A-Za-z0-9_:]*[<(].*\+0x[0-9a-f]+ in /)) {
                head = substr(line, 1, RSTART - 1)
                call = substr(line, RSTART, RLENGTH)
                tail = substr(line, RSTART + RLENGTH)
                sub(/^(at|Frame:) (void )?/, "", call)
                name = call
                sub(/[<(].*$/, "", name)
                word = (substr(line, RSTART, 6) == "Frame:") ? "Frame: " : "at "
                line = head word name " in " tail
            }
            if (line ~ /^ *and (Read|Write) access/ && ++further > 3) { hidden++; next }
            print line
            printed++
        }
        END { if (hidden) printf "    and %d more accesses\n", hidden }' "$1"
}

summary() {
    local total=0 failed=0 log
    for log in "$@"; do
        total=$((total + 1))
        if [ ! -f "$log.verdict" ] || ! grep -q '^clean' "$log.verdict"; then
            failed=$((failed + 1))
        fi
    done
    if [ "$failed" -eq 0 ]; then
        echo "sanitize: all $total runs clean (memcheck, racecheck, synccheck, initcheck)."
    else
        echo "sanitize: $failed of $total runs FAILED; their logs are named above."
        exit 1
    fi
}

after_tests() {
    local binary=$1 output=$2
    shift 2
    # A chapter's tests only (chapterN-tests), not the library's.
    local chapter
    chapter=$(basename "$binary" -tests)
    [[ $chapter == chapter* ]] || return 0
    [ $# -eq 0 ] && set -- "~[large]"
    local sanitizer
    if ! sanitizer=$(find_sanitizer); then
        echo "compute-sanitizer was not found (it comes with the CUDA Toolkit): the kernels were not checked for races and accesses out of bounds."
        return 0
    fi
    mkdir -p "$output"
    # What this pass found goes into the tests' results file too (a line "further=..."), so
    # that make status does not call the chapter done on results a sanitizer then refuted.
    local results=$binary.results
    record() { [ -f "$results" ] && echo "further=$1" >>"$results"; }
    local tool log status seconds summary warnings done_tools=()
    for tool in memcheck racecheck; do
        log=$output/$(basename "$binary")-after-tests-$tool.log
        TUTORIAL_SANITIZER_PASS=1 sanitize_once "$sanitizer" "$tool" "$binary" "$log" "${SANITIZE_TIMEOUT:-900}" -- "$@"
        if sanitizer_reported; then
            echo "The results are right, but compute-sanitizer's $tool, run on the first $SANITIZER_SHAPES shapes of each test, reports an error: ${summary:-see the log}."
            first_report "$log" | sed 's/^/  /'
            if [ "$tool" = racecheck ]; then
                echo "A race (threads reading shared memory that others write, with no __syncthreads() between) can leave the results right on one run and not the next."
            else
                echo "An access outside an allocation can return harmless values on one GPU and crash on another."
            fi
            echo "make $chapter test BACKEND=emu names the line on the CPU; the whole log: $log"
            record "compute-sanitizer's $tool reports an error (${summary:-see $log})"
            return 1
        elif [ "$status" -eq 124 ]; then
            echo "compute-sanitizer's $tool did not finish within ${SANITIZE_TIMEOUT:-900} s (SANITIZE_TIMEOUT=seconds); the whole log: $log"
            record "compute-sanitizer's $tool did not finish"
            return 1
        elif [ "$status" -ne 0 ]; then
            echo "The tests fail under compute-sanitizer's $tool (exit status $status), though they passed without it; the whole log: $log"
            record "the tests fail under compute-sanitizer's $tool"
            return 1
        fi
        done_tools+=("$tool clean ($seconds s)")
    done
    record clean
    local joined
    joined=$(printf '%s, ' "${done_tools[@]}")
    echo "compute-sanitizer, on the first $SANITIZER_SHAPES shapes of each test: ${joined%, }."
}

# The shapes each sweep runs under the sanitizer (tests/harness/sweep.h, kSanitizerShapes).
readonly SANITIZER_SHAPES=12

command=${1:-}
shift || true
case $command in
    preflight) preflight ;;
    run) run "$@" ;;
    summary) summary "$@" ;;
    after-tests) after_tests "$@" ;;
    *)
        echo "usage: tools/sanitize.sh preflight | run TOOL BINARY LOG LABEL [ARGS...] | summary LOG... | after-tests BINARY LOG_DIR [ARGS...]" >&2
        exit 2
        ;;
esac
