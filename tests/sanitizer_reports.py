"""What `make chapterN test` on a GPU says of compute-sanitizer's findings
(tools/tutorial/sanitizer.py): the finding itself, never only a log path.

- memcheck: the kind of access, the kernel as written, its file and line, the thread and
  block, the address and how far past its allocation; 4,096 threads making one error are one
  finding and a count; at most three distinct findings, the others counted;
- the places of every format compute-sanitizer has written: "at KERNEL+0x1d0 in FILE:LINE",
  wrapped onto two lines, the older "at 0x1d0 in FILE:LINE:KERNEL", and without -lineinfo;
- racecheck's races (both formats, and its hazard mode), synccheck's barrier errors,
  initcheck's reads, a helper's caller;
- the pass after passing tests (with stand-ins for compute-sanitizer and the test program): an
  error is reported with its finding; tests that fail under the sanitizer with no error of its
  own are a race, named so, and racecheck's finding follows when it has one.

The fixtures follow the format of compute-sanitizer's documentation and of reports it printed.

Run: python3 tests/sanitizer_reports.py (exit status 1 and the failures on stderr).
"""

import os
import stat
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.chdir(ROOT)

from tools.tutorial import sanitizer  # noqa: E402

failures = []


def check(condition, what, shown=None):
    if not condition:
        failures.append(what + (f"\n    got: {shown}" if shown is not None else ""))


FILE = f"{ROOT}/chapters/03-box-filter/box_filter.cu"


def memcheck_block(thread, after, line=57):
    return f"""========= Invalid __global__ read of size 4 bytes
=========     at void box_filter_shared<(int)3>(const float *, float *, int, int)+0x1d0 in {FILE}:{line}
=========     by thread ({thread},0,0) in block (7,0,0)
=========     Address 0x7f3a{0x1000 + after:08x} is out of bounds
=========     and is {after} bytes after the nearest allocation at 0x7f3a00000000 of size 4,096 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2e6000] in libcuda.so.1
=========         Host Frame: tutorial::box_filter(float const*, float*, int, int) [0x1234] in chapter3-tests
=========
"""


MEMCHECK = ("========= COMPUTE-SANITIZER\nKernels run on: NVIDIA H200.\n" +
            "".join(memcheck_block(31 + t, 4 + 4 * t) for t in range(100)) +
            "test cases: 3 | 3 passed\n========= ERROR SUMMARY: 4096 errors\n"
            "========= ERROR SUMMARY: 3996 errors were not printed. Use --print-limit option to adjust the number of "
            "printed errors\n")

lines = sanitizer.report(MEMCHECK)
text = "\n".join(lines)
check(len(lines) <= 4, "4,096 threads making one error are one finding and a count", lines)
check(lines and lines[0] == "Invalid __global__ read of size 4 bytes, in box_filter_shared<3> at "
      "chapters/03-box-filter/box_filter.cu:57", "the kind, the kernel as written, its file and line", lines[:1])
check("by thread (31,0,0) in block (7,0,0)" in text, "the first thread and block", text)
check("Address 0x7f3a00001004 is out of bounds, 4 bytes after the nearest allocation at 0x7f3a00000000 of size "
      "4,096 bytes" in text, "the address, and how far past which allocation", text)
check("and 4,095 more errors; the 100 the log prints are all like this one" in text, "the others are a count", text)
check("Kernels run on" not in text and "test cases" not in text, "the program's own output is no finding", text)
check(sanitizer.report("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n") == [],
      "a clean log has no finding")

# Several distinct findings: three shown, the others counted; a helper names its kernel.
SHARED = f"""========= Invalid __shared__ write of size 4 bytes
=========     at load_tile(float *, const float *, int)+0x90 in {FILE}:31
=========     by thread (3,0,0) in block (0,0,0)
=========     Address 0x1010 is out of bounds
=========     Device Frame:void box_filter_shared<(int)3>(const float *, float *, int, int)+0x120 in {FILE}:50
=========     Saved host backtrace up to driver entry point at kernel launch time
=========
"""
SEVERAL = SHARED + memcheck_block(0, 4, 57) + memcheck_block(1, 4, 58) + memcheck_block(2, 4, 59) + \
    memcheck_block(3, 8, 57) + "========= ERROR SUMMARY: 5 errors\n"
lines = sanitizer.report(SEVERAL)
check(lines and lines[0] == "Invalid __shared__ write of size 4 bytes, in load_tile at "
      "chapters/03-box-filter/box_filter.cu:31, called from box_filter_shared<3> at "
      "chapters/03-box-filter/box_filter.cu:50", "a helper's access names the kernel that called it", lines[:1])
check(sum(line.startswith("Invalid") for line in lines) == 3, "at most three distinct findings", lines)
check("  and 1 more like it (other threads or blocks, the same instruction)" in lines,
      "the same instruction in another thread is the same finding", lines)
check(lines and lines[-1] == "and 1 other kind of report in the log", "the others are counted", lines)

# The formats of a place.
WRAPPED = """========= Invalid __global__ read of size 4 bytes
=========     at cuda_mul2_kernel_buggy(const float*, float*, int)+0x70
=========        in /src/vector_mul2/cuda_mul2.cu:53
=========     by thread (232,0,0) in block (3,0,0)
=========     Address 0x7c5838a00fa0 is out of bounds
"""
OLD = """========= Invalid __global__ write of size 2 bytes
=========     at 0xd80 in /src/kernels/attention.cu:162:void add_bias<(bool)1, __half>(T2 *, const T2 *, int)
=========     by thread (63,0,0) in block (506,0,0)
=========     Address 0x7fcd07a0312c is out of bounds
=========     and is 12589 bytes after the nearest allocation at 0x7fcd079ffc00 of size 1024 bytes
"""
NO_LINE = """========= Invalid __global__ write of size 4 bytes
=========     at transpose_naive(const float *, float *, int, int)+0x70
=========     by thread (5,7,0) in block (22,127,0)
=========     Access to 0x7f0012 is out of bounds
=========     and is 1,234 bytes after the nearest allocation at 0x7f0000 of size 2,993,572 bytes
"""
for log, expected, what in [
        (WRAPPED, "in cuda_mul2_kernel_buggy at /src/vector_mul2/cuda_mul2.cu:53", "a place wrapped onto two lines"),
        (OLD, "in add_bias<1, __half> at /src/kernels/attention.cu:162", "the older format of a place"),
        (NO_LINE, "in transpose_naive at a line it does not know (built without -lineinfo)",
         "without -lineinfo, no line is made up")]:
    first = sanitizer.report(log)[:1]
    check(first and first[0].endswith(expected), what, first)

# racecheck: its analysis (the default), in both formats, and its hazard mode.
GEMM = f"{ROOT}/chapters/02-tiled-gemm/tiled_gemm.cu"
KERNEL = "void tiled_gemm<(int)16>(const float *, const float *, float *, int, int, int)"
RACE = f"""========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at {KERNEL}+0x580 in {GEMM}:44
=========     and Read access at {KERNEL}+0x890 in {GEMM}:51 [4,080 hazards]
=========     and Read access at {KERNEL}+0x8a0 in {GEMM}:51 [16 hazards]
=========
========= WARNING: Race reported between Read access at 0xcc0 in {GEMM}:51:{KERNEL}
=========     and Write access at 0xa60 in {GEMM}:40:{KERNEL} [28 hazards]
=========
========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)
"""
lines = sanitizer.report(RACE)
check(lines[:1] == ["Race on shared memory in tiled_gemm<16>: a write at chapters/02-tiled-gemm/tiled_gemm.cu:44 "
                    "and a read at chapters/02-tiled-gemm/tiled_gemm.cu:51, with no barrier or wait between "
                    "[4,096 hazards]"], "a race names its kernel, both lines and its hazards", lines)
check(len(lines) == 2 and "a read at chapters/02-tiled-gemm/tiled_gemm.cu:51 and a write at "
      "chapters/02-tiled-gemm/tiled_gemm.cu:40" in lines[1], "the older format of a race", lines)
check(sanitizer.headline(RACE).startswith("Race on shared memory in tiled_gemm<16>"), "a race's headline",
      sanitizer.headline(RACE))
HAZARD = f"""========= Error: Potential WAW hazard detected at __shared__ 0x0 in block (0,0,0) :
=========     Write Thread (31,0,0) at sumKernel(int *, int *)+0xe0 in {GEMM}:41
=========     Write Thread (0,0,0) at sumKernel(int *, int *)+0xe0 in {GEMM}:41
=========     Current Value : 13, Incoming Value : 0
=========
"""
lines = sanitizer.report(HAZARD)
check(lines and lines[0].startswith("Race on shared memory in sumKernel: a write by thread (31,0,0) at "
                                    "chapters/02-tiled-gemm/tiled_gemm.cu:41") and "in block (0,0,0)" in lines[0],
      "racecheck's hazard mode names the threads and the line", lines)

# synccheck and initcheck.
SYNC = f"""========= Barrier error detected. Divergent thread(s) in block
=========     at reduce_shared(const float *, float *, int)+0x4d0 in {ROOT}/chapters/06-reduction/reduction.cu:88
=========     by thread (37,0,0) in block (0,0,0)
=========
"""
lines = sanitizer.report(SYNC)
check(lines[:2] == ["Barrier error detected. Divergent thread(s) in block, in reduce_shared at "
                    "chapters/06-reduction/reduction.cu:88", "  by thread (37,0,0) in block (0,0,0)"],
      "a barrier error names its line and thread", lines)
INIT = """========= Uninitialized __global__ memory read of size 4 bytes
=========     at uninitialized_access_kernel+0x2a0 in memory_errors.cu:49
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f0000
"""
finding = sanitizer.parse(INIT)
check(finding and finding[0].tool == "initcheck" and finding[0].place.line == 49, "initcheck's read", finding)

# The pass after passing tests, with stand-ins for compute-sanitizer and the test program.
with tempfile.TemporaryDirectory() as folder:
    folder = Path(folder)
    fake = folder / "compute-sanitizer"
    fake.write_text(f"""#!/usr/bin/env bash
tool=$2; shift 6
case "$FAKE:$tool" in
  error:memcheck) cat '{folder}/memcheck.log'; exit 86;;
  race:memcheck|timing:memcheck) "$@"; echo "========= ERROR SUMMARY: 0 errors"; exit 1;;
  race:racecheck) cat '{folder}/racecheck.log'; exit 86;;
  *) echo "========= ERROR SUMMARY: 0 errors"; exit 0;;
esac
""")
    (folder / "memcheck.log").write_text(MEMCHECK)
    (folder / "racecheck.log").write_text(RACE)
    program = folder / "chapter3-tests"
    program.write_text("#!/usr/bin/env bash\necho 'chapters/03-box-filter/test.cpp:40: FAILED:'\n"
                       "echo 'explicitly with message:'\necho '  box_filter fails for 2 of 12 shapes'\n"
                       "echo; echo '====='; exit 1\n")
    for script in (fake, program):
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    os.environ["PATH"] = f"{folder}:{os.environ['PATH']}"

    def after_tests(mode):
        os.environ["FAKE"] = mode
        return sanitizer.after_tests(program, folder / "logs", [], "chapter3")

    found = after_tests("error")
    text = "\n".join(found.lines)
    check(found.status == 1 and "box_filter_shared<3> at chapters/03-box-filter/box_filter.cu:57" in text and
          "chapter3-tests-after-tests-memcheck.log" in text, "an error is reported with its finding, then its log", text)
    check(found.record.startswith("compute-sanitizer's memcheck reports an error: Invalid __global__ read"),
          "the results file records the finding", found.record)
    found = after_tests("race")
    text = "\n".join(found.lines)
    check(found.status == 1 and "the results changed under its timing, a race. racecheck finds it" in text and
          "tiled_gemm.cu:44" in text, "tests that fail only under the sanitizer are a race, and racecheck names it", text)
    check(found.record.startswith("compute-sanitizer's racecheck reports a race"), "recorded as a race", found.record)
    found = after_tests("timing")
    text = "\n".join(found.lines)
    check(found.status == 1 and "the results changed under its timing. That is a race" in text and
          "box_filter fails for 2 of 12 shapes" in text and "racecheck, which sees races on shared memory" in text,
          "with racecheck clean, the race is still named, with what failed under the sanitizer", text)
    found = after_tests("clean")
    check(found.status == 0 and found.record == "clean" and "memcheck clean" in found.lines[0], "a clean pass", found)

# Printed by compute-sanitizer 2025 (CUDA 13.0) on an H200, for a kernel built with -lineinfo
# that reads a shared tile without a barrier, and one whose barrier only some threads reach.
H200_RACE = """========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at racy_tile_sum(const float *, float *)+0x100 in san.cu:10
=========     and Read access at racy_tile_sum(const float *, float *)+0x110 in san.cu:12 [4096 hazards]
=========
no error
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
"""
H200_BARRIER = "========= COMPUTE-SANITIZER\n" + "".join(f"""========= Barrier error detected. Divergent thread(s) in warp.
=========     at divergent_barrier(float *)+0x70 in san.cu:15
=========     by thread ({t},0,0) in block (0,0,0)
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x8e4c] in san
=========
""" for t in range(32, 39)) + "no error\n========= ERROR SUMMARY: 24 errors\n"
text = "\n".join(sanitizer.report(H200_RACE))
check("racy_tile_sum" in text and "san.cu:10" in text and "san.cu:12" in text, "an H200 race names both lines", text)
lines = sanitizer.report(H200_BARRIER)
check(lines and lines[0] == "Barrier error detected. Divergent thread(s) in warp, in divergent_barrier at san.cu:15", "an H200 barrier error names kernel and line", lines)
check(sum(line.startswith("Barrier") for line in lines) == 1, "seven threads at one barrier are one finding", lines)

for failure in failures:
    print(f"sanitizer reports: {failure}", file=sys.stderr)
sys.exit(1 if failures else 0)
