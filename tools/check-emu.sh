# The CPU backend's items of `make check`. Sourced by tools/check.sh, whose pass and fail
# functions, counters and $backend it uses; runs only when the chosen backend is emu.

if [ "$backend" = emu ]; then
    section "emu/ (the CPU backend)"
    log="$logs/emu.log"
    if make test-emu >"$log" 2>&1; then
        pass "it reports every planted bug, and passes their correct twins"
    else
        fail "it misses a planted bug, or fails a correct kernel" "$(grep -E 'FAILED|error' "$log" | head -5; echo "full log: $log")"
    fi
    # The student's view: a test written like a chapter's fails, with the diagnostic.
    log="$logs/emu-planted.log"
    make test-emu ARGS='"[planted]"' >"$log" 2>&1
    status=$?
    diagnostics=$(grep -cE "^ *(result depends on thread order|(out-of-bounds|misaligned) (global|shared) memory access|crash in|divergent (__syncthreads|cluster\.sync)|shared memory (read|written) at |expected transaction bytes that never arrive|distributed shared memory used before the cluster barrier|shared memory of a block that has exited|cluster\.map_shared_rank\(\) with a rank outside the cluster|race in [^ ]+ \(launched at )" "$log")
    # 17 bugs in 11 test cases: a test case of several runs each in a section that fails on its own.
    if [ "$status" -ne 0 ] && ! crashed "$log" && grep -q "test cases: 11 | 11 failed" "$log" &&
        grep -q "assertions: 18 | 1 passed | 17 failed" "$log" && [ "$diagnostics" -eq 17 ]; then
        pass "a chapter-style test of each planted bug fails with the diagnostic"
    else
        fail "a planted bug's test does not fail with its diagnostic ($diagnostics of 17 found)" "full log: $log"
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
    if grep -q "^$broken:5:.*not_declared" "$log" || grep -q "^$broken(5): error: identifier \"not_declared\"" "$log"; then
        pass "a compile error in a kernel names the .cu file and line"
    else
        fail "a compile error in a kernel does not name $broken:5" "full log: $log"
    fi
    # What g++ accepts and nvcc refuses: a kernel that calls a host-only function.
    host_call=build/check/compile-error/host_call.cu
    printf '%s\n' 'int host_only(int x) { return x + 1; }' '__global__ void calls_host(int* out) {' \
        '    out[threadIdx.x] = host_only(out[threadIdx.x]);' '}' >"$host_call"
    log="$logs/emu-nvcc-check.log"
    make "build/emu/${host_call%.cu}.o" >"$log" 2>&1
    status=$?
    if ! command -v "${NVCC:-nvcc}" >/dev/null 2>&1 && ! [ -x /usr/local/cuda/bin/nvcc ]; then
        skip "nvcc refuses a kernel calling a host function on the CPU backend: nvcc is not installed"
    elif [ "$status" -ne 0 ] && grep -q "^$host_call(3): error: calling a __host__ function" "$log"; then
        pass "on the CPU backend, nvcc still checks the .cu files: a kernel calling a host function fails with nvcc's file(line)"
    else
        fail "a kernel calling a host function builds on the CPU backend: nvcc did not check it" "full log: $log"
    fi
fi
