#!/usr/bin/env bash
# `make check`: the maintainer's gate, and what CI runs.
#
# For every chapter in chapters/chapters.txt it checks that
#   - the skeleton has TODO(chapterN) markers and the solution has no TODO;
#   - skeleton and solution have the same files;
#   - the solution passes the chapter's tests;
#   - the skeleton compiles, and fails the chapter's tests (without crashing).
# The common/ library's own tests must pass too. With the CPU backend (BACKEND=emu, the
# default without a GPU) every test runs on it, and its own checks are added: it catches
# each planted bug, and compile errors name the student's file and line.
# The last line is "N passed, M failed".
set -u
cd "$(dirname "$0")/.."

logs=build/check
mkdir -p "$logs"
passed=0
failed=0
pass() { echo "  ok    $1"; passed=$((passed + 1)); }
fail() { echo "  FAIL  $1"; [ -n "${2:-}" ] && sed 's/^/        /' <<<"$2"; failed=$((failed + 1)); }

# A test run "fails" when the runner reports failed tests; a crash (a signal, or a
# Catch2 fatal error) is a defect of its own, never a pass.
crashed() { grep -qE "fatal error condition|Segmentation fault|Aborted|core dumped|terminate called" "$1"; }

choice=$(make -s print-backend)
backend=$(head -n 1 <<<"$choice")
tail -n 1 <<<"$choice"

echo "common/"
if make test-common >"$logs/common.log" 2>&1; then
    pass "the common library passes its tests"
else
    fail "the common library fails its tests" "see $logs/common.log"
fi

while read -r number folder _; do
    case "$number" in ''|'#'*) continue ;; esac
    echo "chapter$number ($folder)"

    if grep -q "TODO(chapter$number)" chapters/"$folder"/*.cu 2>/dev/null; then
        pass "the skeleton has TODO(chapter$number) markers"
    else
        fail "the skeleton chapters/$folder has no TODO(chapter$number) marker"
    fi
    if todo=$(grep -rn "TODO" solutions/"$folder"); then
        fail "the solution still has TODO markers" "$todo"
    else
        pass "the solution has no TODO markers"
    fi
    skeleton_files=$(cd chapters/"$folder" && ls ./*.cu)
    solution_files=$(cd solutions/"$folder" && ls ./*.cu)
    if [ "$skeleton_files" = "$solution_files" ]; then
        pass "skeleton and solution have the same files"
    else
        fail "skeleton and solution differ in files" "chapters: $skeleton_files; solutions: $solution_files"
    fi

    log="$logs/chapter$number-solution.log"
    if make "chapter$number" test SOLUTIONS=1 >"$log" 2>&1; then
        pass "the solution passes its tests"
    else
        fail "the solution fails its tests" "$(grep -E 'FAILED|error' "$log" | head -5; echo "full log: $log")"
    fi

    log="$logs/chapter$number-skeleton.log"
    if ! make "chapter$number" >"$log" 2>&1; then
        fail "the skeleton does not compile" "$(grep -m5 error "$log"; echo "full log: $log")"
    else
        pass "the skeleton compiles"
        if make "chapter$number" test >>"$log" 2>&1; then
            fail "the skeleton passes its tests: they cannot tell an unsolved exercise from a solved one" "full log: $log"
        elif crashed "$log"; then
            fail "the skeleton crashes instead of failing its tests" "full log: $log"
        else
            pass "the skeleton fails its tests"
        fi
    fi
done <chapters/chapters.txt

if [ "$backend" = emu ]; then
    echo "emu/ (the CPU backend)"
    log="$logs/emu.log"
    if make test-emu >"$log" 2>&1; then
        pass "it reports every planted bug, and passes their correct twins"
    else
        fail "it misses a planted bug, or fails a correct kernel" "$(grep -E 'FAILED|error' "$log" | head -5; echo "full log: $log")"
    fi
    # The student's view: a test written like a chapter's fails, with the diagnostic.
    log="$logs/emu-planted.log"
    build/emu/bin/emu-tests "[planted]" >"$log" 2>&1
    status=$?
    diagnostics=$(grep -cE "^ *(result depends on thread order|out-of-bounds (global|shared) memory access|divergent __syncthreads)" "$log")
    if [ "$status" -eq 1 ] && ! crashed "$log" && grep -q "test cases: 6 | 6 failed" "$log" && [ "$diagnostics" -eq 6 ]; then
        pass "a chapter-style test of each planted bug fails with the diagnostic"
    else
        fail "a planted bug's test does not fail with its diagnostic ($diagnostics of 6 found)" "full log: $log"
    fi
    # A compile error in a kernel must point at the .cu file and line the student wrote,
    # not at the translated source.
    broken=build/check/compile-error/broken.cu
    mkdir -p "$(dirname "$broken")"
    printf '%s\n' '__global__ void broken(float* out) {' '    __shared__ float tile[32];' \
        '    tile[threadIdx.x] = out[threadIdx.x];' '    __syncthreads();' \
        '    out[threadIdx.x] = tile[threadIdx.x] + not_declared;' '}' >"$broken"
    log="$logs/emu-compile-error.log"
    make "build/emu/${broken%.cu}.o" >"$log" 2>&1
    if grep -q "^$broken:5:.*not_declared" "$log"; then
        pass "a compile error in a kernel names the .cu file and line"
    else
        fail "a compile error in a kernel does not name $broken:5" "full log: $log"
    fi
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
