#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: run every benchmark and every compute-sanitizer
# run on the reference solutions, regenerate docs/results.md, and gather what came
# out under OUT, in few files, so that it can be copied back from a remote machine.
#
#   bash tools/bench-and-sanitize.sh OUT [bench] [sanitize]    (both when neither is named)
#
# OUT receives, as each phase ends (a run cut short still leaves the earlier ones):
#   gpu.txt                  nvidia-smi's name, driver, memory and compute capability
#   bench.log, bench.tar.gz  the benchmark tables; build/bench/*.csv and *.json
#   results.md               docs/results.md, regenerated from those CSV files
#   sanitize.log, sanitize.tar.gz   one line per run and the summary; every run's log
# Back on the development machine: tar xzf OUT/bench.tar.gz (it holds build/bench/),
# then `make results`, or copy results.md to docs/results.md.
set -u
cd "$(dirname "$0")/.."

out=${1:?usage: bash tools/bench-and-sanitize.sh OUT [bench] [sanitize]}
shift
phases=" ${*:-bench sanitize} "
mkdir -p "$out"
jobs=$(nproc 2>/dev/null || echo 4)
status=0

# step LOG COMMAND...: run the command, its output to the screen and to LOG; note a failure.
step() {
    local log=$1
    shift
    echo "== $*" | tee -a "$log"
    "$@" 2>&1 | tee -a "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}

nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv >"$out/gpu.txt" 2>&1 || true
echo "== GPU: $(tail -n +2 "$out/gpu.txt" | head -n 1)"

if [[ $phases == *" bench "* ]]; then
    start=$(date +%s)
    rm -f "$out/bench.log"
    # results after bench: it reads the CSV files bench writes (mk/bench.mk orders them).
    step "$out/bench.log" make -j"$jobs" bench results SOLUTIONS=1
    cp docs/results.md "$out/results.md"
    [ -d build/bench ] && tar czf "$out/bench.tar.gz" build/bench
    echo "== bench phase: $(($(date +%s) - start)) s" | tee -a "$out/bench.log"
fi

if [[ $phases == *" sanitize "* ]]; then
    start=$(date +%s)
    rm -f "$out/sanitize.log"
    # Four runs side by side: each is one process on the GPU, mostly busy with the
    # tests' CPU references and the sanitizer's bookkeeping.
    step "$out/sanitize.log" make -j4 sanitize SOLUTIONS=1
    [ -d build/sanitize ] && tar czf "$out/sanitize.tar.gz" build/sanitize
    echo "== sanitize phase: $(($(date +%s) - start)) s" | tee -a "$out/sanitize.log"
fi

echo "== summary"
echo "GPU: $(tail -n +2 "$out/gpu.txt" | head -n 1)"
if [ -f "$out/bench.log" ]; then
    # The tables: from each "chapterN (folder, tree) on GPU" heading to its "Wrote" line.
    awk '/^chapter[0-9]+ \(/ {show = 1} show {print} /^Wrote / {show = 0} /^bench: / {print}' "$out/bench.log"
fi
[ -f "$out/sanitize.log" ] && grep -E '^  (memcheck|racecheck|synccheck|initcheck) |^sanitize: ' "$out/sanitize.log"
echo "files in $out: $(cd "$out" && ls | tr '\n' ' ')"
echo "overall: $([ "$status" -eq 0 ] && echo "everything passed" || echo "SOMETHING FAILED (see above)")"
exit $status
