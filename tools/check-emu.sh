# The CPU backend's items of `make check`. Sourced by tools/check.sh, whose pass and fail
# functions, counters and $backend it uses; runs only when the chosen backend is emu.

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
    # The memory-traffic profiler (mk/profile.mk): exact counts on purpose-written kernels,
    # occupancy against hand-computed values, and a predicted table for every chapter.
    log="$logs/profile-tests.log"
    if make test-profile >"$log" 2>&1; then
        pass "the profiler counts requests, sectors, wavefronts and occupancy as worked out by hand"
    else
        fail "the profiler's counts are off" "$(grep -E 'FAILED|error' "$log" | head -5; echo "full log: $log")"
    fi
    log="$logs/profile-solutions.log"
    if make profile SOLUTIONS=1 >"$log" 2>&1 && [ "$(grep -c '^Table written to' "$log")" -eq "$(grep -cvE '^#|^ *$' chapters/chapters.txt)" ]; then
        pass "make profile predicts the traffic of every chapter's kernels"
    else
        fail "make profile does not print a table for every chapter" "$(grep -E 'error|Error' "$log" | head -5; echo "full log: $log")"
    fi
fi
