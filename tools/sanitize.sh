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
#
# The pass after `make chapterN test`'s passing tests on a GPU, and the reading of every
# sanitizer log, are the Python package's (tools/tutorial/sanitizer.py).
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
    # A count of errors says nothing of where they are: the findings themselves (the access or
    # barrier, the kernel, its file and line) follow the verdict.
    if sanitizer_reported; then
        python3 -m tools.tutorial sanitizer-report "$log" | sed 's/^/      /'
    fi
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

command=${1:-}
shift || true
case $command in
    preflight) preflight ;;
    run) run "$@" ;;
    summary) summary "$@" ;;
    *)
        echo "usage: tools/sanitize.sh preflight | run TOOL BINARY LOG LABEL [ARGS...] | summary LOG..." >&2
        exit 2
        ;;
esac
