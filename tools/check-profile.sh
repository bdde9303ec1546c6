# The memory-traffic profiler's items of `make check` (mk/profile.mk). Sourced by
# tools/check.sh, whose pass, fail and skip functions and counters it uses. They run on the
# CPU backend whatever the chosen backend, since the prediction always comes from it.

section "the profiler (make profile)"
log="$logs/profile-tests.log"
if make test-profile BACKEND=emu >"$log" 2>&1; then
    pass "it counts requests, sectors, wavefronts and occupancy as worked out by hand"
else
    fail "its counts are off" "$(grep -E 'FAILED|error' "$log" | head -5; echo "full log: $log")"
fi
# Every chapter with a profile.cpp, on its own: `make chapterN profile` on the CPU, for the
# reference solution (the skeleton's kernels are unfinished; their counts mean nothing).
profile_chapter() {
    local number=$1 log="$logs/profile-chapter$1.log"
    if make "chapter$number" profile BACKEND=emu SOLUTIONS=1 >"$log" 2>&1 && grep -q '^Table written to' "$log"; then
        pass "make chapter$number profile predicts the traffic of its kernels on the CPU"
    else
        fail "make chapter$number profile does not print its table" "$(grep -E 'error|Error' "$log" | head -5; echo "full log: $log")"
    fi
}
profiled=()
while IFS=$'\t' read -r number folder _; do
    [ -f "chapters/$folder/profile.cpp" ] && profiled+=("profile_chapter $number")
done < <(tutorial chapters --fields)
# Side by side on a many-core machine (tools/check.sh's in_parallel; it built what they share).
in_parallel "${profiled[@]}"
# The lessons quote their profile: the tables in the READMEs must be what the predictions
# make. Registers (hence occupancy) come from nvcc, so without it the tables cannot be made.
if ! command -v "${NVCC:-nvcc}" >/dev/null 2>&1 && ! [ -x /usr/local/cuda/bin/nvcc ]; then
    skip "the lessons' profile tables are current: nvcc is not installed (registers per thread come from it)"
elif report=$(tutorial profile-tables --dir build/profile/solutions 2>&1); then
    pass "every lesson's profile table is what the predictions make"
else
    fail "a lesson's profile table is out of date" "$report"
fi
# The probe (tests/profile_probe.cpp): on the CPU it must run; on a GPU whose counters ncu
# can read, every count of every purpose-written kernel must be what ncu measures
# (tools/tutorial/probe_check.py says which are compared, and which differ on purpose).
log="$logs/profile-probe.log"
if [ "$backend" = cuda ] && command -v "${PROFILE_NCU:-ncu}" >/dev/null 2>&1; then
    if make profile-probe BACKEND=cuda >"$log" 2>&1 && [ -f build/profile/chapters/profiler-probe-compared.csv ]; then
        if report=$(tutorial probe-check build/profile/chapters/profiler-probe-compared.csv 2>&1); then
            pass "the profiler's probe: every count equals what ncu measures ($report)"
        else
            fail "the profiler's probe: counts differ from ncu's" "$report"
        fi
    else
        fail "make profile-probe BACKEND=cuda did not measure the probe" "$(grep -E 'error|Error|ncu' "$log" | head -5; echo "full log: $log")"
    fi
elif make profile-probe BACKEND=emu >"$log" 2>&1 && grep -q '^Table written to' "$log"; then
    pass "make profile-probe predicts the traffic of the profiler's own kernels on the CPU"
else
    fail "make profile-probe does not print its table" "$(grep -E 'error|Error' "$log" | head -5; echo "full log: $log")"
fi
