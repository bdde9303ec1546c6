#!/usr/bin/env bash
# `make chapterN watch` and `make watch`: run a chapter's tests, then again each time one
# of its files is saved, as rustlings' watch mode does. Ctrl-C stops it.
#
#   bash tools/watch.sh N [make arguments...]     (the Makefile passes BACKEND, SOLUTIONS, SEED)
#
# Each run clears the screen and shows a short report: the test output up to a screenful
# (the first failures come first), then Catch2's summary. The full output is in
# build/watch/chapterN.log. When the chapter passes, it says what is next.
# A save is noticed with inotifywait (Debian's inotify-tools, which make setup installs),
# else entr, else by looking at the files' times twice a second. A save during a run stops
# that run and starts another: no report is shown of a file older than the one on disk.
# WATCH_RUNS=n stops after n runs (make check uses it), WATCH_QUIET=1 leaves the screen
# uncleared (for logs).
set -u
cd "$(dirname "$0")/.."

number=${1:?usage: tools/watch.sh CHAPTER [make arguments...]}
shift
make_arguments=("$@")
tutorial() { python3 -m tools.tutorial "$@"; }

folder=$(tutorial chapters --fields | awk -F'\t' -v n="$number" '$1 == n {print $2}')
if [ -z "$folder" ]; then
    echo "watch: there is no chapter$number." >&2
    exit 1
fi
tree=chapters
for argument in "${make_arguments[@]}"; do
    [ "$argument" = SOLUTIONS=1 ] && tree=solutions
done
# The files a save of which re-runs the tests: the student's (or, with SOLUTIONS=1, the
# solution's) .cu files, and the chapter's own sources.
watched=("$tree/$folder"/*.cu "chapters/$folder"/*.cpp "chapters/$folder"/*.h)
log=build/watch/chapter$number.log
mkdir -p "$(dirname "$log")"

# The run (make) in a session of its own, so that stopping it stops the test program too;
# the waiter for a save is one process of ours.
child=
waiter=
stop_run() {
    [ -n "$child" ] && kill -TERM -- "-$child" 2>/dev/null && wait "$child" 2>/dev/null
    child=
}
stop() {
    stop_run
    [ -n "$waiter" ] && kill "$waiter" 2>/dev/null && wait "$waiter" 2>/dev/null
    echo
    echo "Stopped watching chapter$number."
    exit 0
}
trap stop INT TERM

# What a save changes: each watched file's time (to the nanosecond), size and inode (an
# editor may move a new file over the old). A result is shown only while this is what it
# was when its run began, so a report is never older than the files on disk.
files_state() { stat -c '%n %y %s %i' "${watched[@]}" 2>&1; }

clear_screen() {
    if [ "${WATCH_QUIET:-0}" != 1 ] && [ -t 1 ]; then printf '\033[2J\033[H'; fi
}

# The report: the test output without Catch2's banner and make's own error line, as
# much as fits on the screen (the first failures come first), then the last lines,
# which are Catch2's summary.
short_report() {
    local rows total keep report
    rows=$(if [ -t 1 ]; then tput lines 2>/dev/null; fi)
    keep=$((${rows:-40} > 24 ? ${rows:-40} - 12 : 12))
    report=$(awk '/^~~~~~~~~~/ {banner = 1} !banner && !/^make(\[[0-9]+\])?: \*\*\*/ {print}
                  banner && /^Randomness seeded to/ {banner = 0; getline}' "$log")
    total=$(wc -l <<<"$report")
    if [ "$total" -le $((keep + 6)) ]; then
        printf '%s\n' "$report"
    else
        head -n "$keep" <<<"$report"
        echo "  ... $((total - keep - 4)) more lines: the whole output is in $log ..."
        tail -n 4 <<<"$report"
    fi
}

# Run in the background, so that Ctrl-C (or a TERM) reaches stop() at once. The waiter
# only wakes us sooner: the files' state, compared every half second, decides.
wait_for_save() {
    if command -v inotifywait >/dev/null 2>&1; then
        # Editors save by writing the file, or by moving a new one over it (the watched
        # file is then moved or deleted): either ends the wait. touch changes its times.
        inotifywait -qq -e close_write,attrib,move_self,delete_self "${watched[@]}" &
    elif command -v entr >/dev/null 2>&1; then
        printf '%s\n' "${watched[@]}" | entr -npz true >/dev/null 2>&1 &
    else
        poll_for_save &
    fi
}

poll_for_save() {
    local before
    before=$(files_state)
    while [ "$(files_state)" = "$before" ]; do
        sleep 0.5
    done
}

if command -v inotifywait >/dev/null 2>&1; then
    how="inotifywait"
elif command -v entr >/dev/null 2>&1; then
    how="entr"
else
    how="checked twice a second; make setup installs inotify-tools to be told at once"
fi
runs=0
notice=
while :; do
    clear_screen
    state=$(files_state)
    echo "== make chapter$number test ($(date +%H:%M:%S))"
    [ -n "$notice" ] && echo "$notice"
    notice=
    setsid make --no-print-directory "chapter$number" test "${make_arguments[@]}" >"$log" 2>&1 &
    child=$!
    # A save during the run stops it: its result would describe the file as it was.
    while kill -0 "$child" 2>/dev/null && [ "$(files_state)" = "$state" ]; do
        sleep 0.5
    done
    if [ "$(files_state)" != "$state" ]; then
        stop_run
        notice="(a file was saved during the last run, so its result would be out of date: this run replaces it)"
        continue
    fi
    wait "$child"
    result=$?
    child=
    if [ "$(files_state)" != "$state" ]; then
        notice="(a file was saved during the last run, so its result would be out of date: this run replaces it)"
        continue
    fi
    short_report
    echo
    if [ "$result" -eq 0 ]; then
        echo "chapter$number passes."
        tutorial next --after "$number" || true
    else
        echo "Not yet: fix what the report shows, and save. Stuck? make chapter$number hint"
    fi
    runs=$((runs + 1))
    if [ -n "${WATCH_RUNS:-}" ] && [ "$runs" -ge "$WATCH_RUNS" ]; then
        echo "Stopped after $runs runs (WATCH_RUNS=$WATCH_RUNS)."
        exit 0
    fi
    echo "Watching ${watched[0]} and the chapter's other files for saves ($how). Ctrl-C stops."
    # Against the state the run began with: a save made while the report was printed counts.
    wait_for_save
    waiter=$!
    while kill -0 "$waiter" 2>/dev/null && [ "$(files_state)" = "$state" ]; do
        sleep 0.5
    done
    kill "$waiter" 2>/dev/null
    wait "$waiter" 2>/dev/null
    waiter=
done
