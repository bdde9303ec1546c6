# The benchmark and sanitizer items of `make check`. Sourced by tools/check.sh, whose
# pass and fail functions and counters it uses; runs on machines with or without a GPU.

section "benchmarks, sanitizer, results page"
bench_logs=build/check/bench
mkdir -p "$bench_logs"

while IFS=$'\t' read -r number folder _; do
    if [ -f "chapters/$folder/bench.cpp" ]; then
        pass "chapter$number has a benchmark (chapters/$folder/bench.cpp)"
    else
        fail "chapter$number has no benchmark: write chapters/$folder/bench.cpp (see chapters/01-naive-gemm/bench.cpp)"
    fi
done < <(tutorial chapters --fields)

# The benchmarks link cuBLAS and run only on a GPU, but they must compile everywhere: with
# nvcc for one architecture ($check_arch, from tools/check.sh: the prebuild made them for it),
# which is enough to catch what nvcc refuses and keeps the check quick.
for tree_flag in SOLUTIONS=1 SOLUTIONS=0; do
    log="$bench_logs/build-$tree_flag.log"
    if make bench-binaries BACKEND=cuda ARCH="$check_arch" "$tree_flag" >"$log" 2>&1; then
        pass "the benchmarks compile and link ($tree_flag)"
    else
        fail "the benchmarks do not build ($tree_flag)" "$(grep -m5 -E 'error|undefined' "$log"; echo "full log: $log")"
    fi
done

# The harness's statistics and files; its example files then go through the generator
# of docs/results.md, so that writer and reader cannot drift apart.
example="$bench_logs/example"
rm -rf "$example"
log="$bench_logs/harness-tests.log"
if TUTORIAL_BENCH_EXAMPLE_DIR="$example" make test-benchmark BACKEND=cuda ARCH="$check_arch" >"$log" 2>&1; then
    pass "the benchmark harness passes its tests"
else
    fail "the benchmark harness fails its tests" "full log: $log"
fi
page="$bench_logs/example-results.md"
if tutorial results "$example"/chapter2-solutions.csv >"$page" 2>"$page.err" &&
    grep -q '^## Chapter 2: ' "$page" && grep -q '^| .*| tiled 16 | 20.00 ms |.*| 15.0% | 1.50× | 0.15× | ok |$' "$page" &&
    grep -q '^| tiled GEMM, TILE 16, at 4096³ | 15.9% | 15.0% | \*\*no\*\* |$' "$page" &&
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$example"/chapter2-solutions.json 2>>"$page.err"; then
    pass "make results reads the harness's CSV, and its JSON parses"
else
    fail "make results cannot read what the harness writes" "$(cat "$page.err"; echo "page: $page")"
fi
# The page's chart of the same file: valid SVG, a bar per variant that ran right, with its
# share, and a marked stub, not a bar, for the one the example makes WRONG.
chart_page="$bench_logs/example-page/results.md"
rm -rf "$bench_logs/example-page"
mkdir -p "$bench_logs/example-page"
if tutorial results --output "$chart_page" "$example"/chapter2-solutions.csv >"$chart_page.log" 2>&1 &&
    grep -q '^!\[Chapter 2: .*\](figures/results-chapter2.svg)$' "$chart_page" &&
    python3 - "$bench_logs/example-page/figures/results-chapter2.svg" >>"$chart_page.log" 2>&1 <<'PY'
import sys
import xml.etree.ElementTree as ET
svg = "{http://www.w3.org/2000/svg}"
titles = [t.text for t in ET.parse(sys.argv[1]).getroot().iter(svg + "title")]
want = ["naive (chapter 1 solution): 10.0%", "tiled 16: 15.0%", "tiled 32: WRONG"]
missing = [w for w in want if w not in titles]
sys.exit(f"the chart lacks {missing}; it has {titles}" if missing else 0)
PY
then
    pass "make results draws a chart per chapter (SVG: a bar per variant, WRONG rows marked)"
else
    fail "make results' chart is missing or wrong" "$(tail -5 "$chart_page.log"; echo "page: $chart_page")"
fi
# The roofline of the same file, with a profile table made up for chapter 2's two tiles: each
# kernel that ran right at its intensity with its measured rate, the WRONG one marked, not drawn.
roof_dir="$bench_logs/example-roofline"
rm -rf "$roof_dir" && mkdir -p "$roof_dir"
{
    echo 'chapter,variant,kernel,group,counter,predicted,measured,relative_difference'
    for tile in 16 32; do
        name="$tile x $tile tiles in shared memory"
        echo "2,\"$name\",\"tiled_gemm_kernel<$tile>\",\"global loads\",\"bytes requested\",1048576,,"
        echo "2,\"$name\",\"tiled_gemm_kernel<$tile>\",\"global loads\",\"unique bytes\",131072,,"
        echo "2,\"$name\",\"tiled_gemm_kernel<$tile>\",\"global stores\",\"unique bytes\",65536,,"
        echo "2,\"$name\",\"tiled_gemm_kernel<$tile>\",\"arithmetic intensity\",\"flops per byte loaded\",4,,"
    done
} >"$roof_dir/chapter2-predicted.csv"
if tutorial roofline 2 --profile "$roof_dir/chapter2-predicted.csv" --bench "$example"/chapter2-solutions.csv \
        --output "$roof_dir/gpu.svg" >"$roof_dir/log" 2>&1 &&
    tutorial roofline 2 --profile "$roof_dir/chapter2-predicted.csv" --output "$roof_dir/cpu.svg" >>"$roof_dir/log" 2>&1 &&
    python3 - "$roof_dir/gpu.svg" "$roof_dir/cpu.svg" >>"$roof_dir/log" 2>&1 <<'PY'
import sys
import xml.etree.ElementTree as ET
svg = "{http://www.w3.org/2000/svg}"
def texts(path):
    root = ET.parse(path).getroot()
    return [t.text for t in root.iter(svg + "title")] + [t.text for t in root.iter(svg + "text")]
gpu, cpu = texts(sys.argv[1]), texts(sys.argv[2])
# 2·4096³ flops over (131072 + 65536) bytes... of the made-up 128³ profile: 4 × 1048576 / 196608
want_gpu = ["tiled 16: intensity 21.3 flops/byte, 6,872 GFLOP/s", "tiled 32: WRONG",
            "cuBLAS SGEMM (FP32): intensity 21.3 flops/byte, 45,813 GFLOP/s"]
want_cpu = ["tiled 16: intensity 21.3 flops/byte (predicted)"]
missing = [w for w in want_gpu if not any(w in (t or "") for t in gpu)]
missing += [w for w in want_cpu if not any(w in (t or "") for t in cpu)]
if not any("H100" in (t or "") and "predicted" in (t or "") for t in cpu):
    missing.append("the CPU roofline's title saying it is an H100's, predicted")
sys.exit(f"the rooflines lack {missing}" if missing else 0)
PY
then
    pass "make chapterN roofline's drawing: measured kernels on the GPU's roof, predicted ones on an H100's"
else
    fail "the roofline drawing is missing or wrong" "$(tail -5 "$roof_dir/log")"
fi
if head -n 3 docs/results.md | grep -q 'Generated by tools/tutorial/results.py'; then
    pass "docs/results.md is generated by make results"
else
    fail "docs/results.md lacks the generator's header: regenerate it with 'make results'"
fi

# Timings and sanitizer reports mean nothing on the CPU: both must refuse, in one line.
refuses() {  # refuses LOG COMMAND...: the command fails, having printed one line with "refused"
    local log=$1
    shift
    ! "$@" >"$log" 2>/dev/null && [ "$(wc -l <"$log")" -eq 1 ] && grep -q 'refused' "$log"
}
for target in bench sanitize; do
    if refuses "$bench_logs/$target-emu.log" make "$target" BACKEND=emu; then
        pass "make $target refuses on the CPU emulator (BACKEND=emu)"
    else
        fail "make $target BACKEND=emu does not refuse in one line" "$(head -5 "$bench_logs/$target-emu.log")"
    fi
    if bash tools/require-gpu.sh probe cuda >/dev/null; then
        skip "make $target without a GPU: this machine has one"
    elif refuses "$bench_logs/$target-no-gpu.log" make "$target" BACKEND=cuda; then
        pass "make $target refuses without a GPU"
    else
        fail "make $target does not refuse without a GPU" "$(head -5 "$bench_logs/$target-no-gpu.log")"
    fi
done
