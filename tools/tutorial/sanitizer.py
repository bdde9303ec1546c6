"""compute-sanitizer's findings, in a few lines a student can act on, and its pass after a
chapter's passing tests on a GPU (`make chapterN test`, `make grade`).

A sanitizer's log is long: one block per thread that erred, each with its host backtrace. What
a student needs is the kind of error, the kernel, its file and line, the thread and block, and
where the address fell; the 4,095 other threads that made the same error are a count. This is
the one place that reads the logs (tools/sanitize.sh, make sanitize, calls `sanitizer-report`).

The text format read here is compute-sanitizer's, as its documentation shows it and as it has
changed between versions. Each report is a block of lines prefixed "========= ", ended by a line
"=========" alone; the program's own output lines carry no prefix:

    ========= Invalid __global__ read of size 4 bytes
    =========     at box_filter_kernel(const float *, float *, int, int)+0x1d0 in /src/box.cu:42
    =========     by thread (31,0,0) in block (7,0,0)
    =========     Address 0x7f3a00001000 is out of bounds
    =========     and is 4 bytes after the nearest allocation at 0x7f3a00000000 of size 4,096 bytes
    =========     Saved host backtrace up to driver entry point at kernel launch time
    =========         Host Frame: ...
    =========
    ========= Error: Race reported between Write access at k(float *)+0x70 in /src/k.cu:5
    =========     and Read access at k(float *)+0x90 in /src/k.cu:9 [12 hazards]
    ========= Barrier error detected. Divergent thread(s) in block
    =========     at reduce(const float *, float *, int)+0x4d0 in /src/reduce.cu:12
    =========     by thread (37,0,0) in block (0,0,0)
    ========= ERROR SUMMARY: 4096 errors
    ========= ERROR SUMMARY: 3996 errors were not printed. Use --print-limit option to adjust the number of printed errors

Older versions write a place as "at 0x1d0 in /src/box.cu:42:box_filter_kernel(...)"; without
-lineinfo the file and line are missing ("at box_filter_kernel(...)+0x1d0"), and the report
then says that the line is unknown rather than inventing one.

Python 3 standard library only.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from .judge import reports_of

# Any report makes compute-sanitizer exit with this status, which no test runner uses (as in
# tools/sanitize.sh, make sanitize's runs).
SANITIZER_EXIT = 86
# The shapes each sweep runs under the sanitizer (harness/sweep.h, kSanitizerShapes).
SANITIZER_SHAPES = 12
# The distinct findings shown; the others are counted.
SHOWN_FINDINGS = 3

PREFIX = re.compile(r"^=========(?: |$)")
# Lines of the tool's own that are no finding.
NOT_A_FINDING = re.compile(r"^(COMPUTE-SANITIZER|ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|Target application "
                           r"returned|This tool is|Internal Sanitizer|Error: No attachable process)")
# "at FUNC+0x1d0 in FILE:LINE", "at FUNC+0x1d0", "at 0x1d0 in FILE:LINE:FUNC", "at 0x1d0 in FUNC"
PLACE_NEW = re.compile(r"^(?P<function>.+?)\+0x[0-9a-fA-F]+(?: in (?P<file>\S+?):(?P<line>\d+))?$")
PLACE_OLD = re.compile(r"^0x[0-9a-fA-F]+ in (?:(?P<file>[^:\s]+):(?P<line>\d+):)?(?P<function>.+)$")
HAZARDS = re.compile(r"\s*\[([\d,]+) hazards?\]$")


@dataclasses.dataclass
class Place:
    """Where an instruction is: its function (a kernel or a device function it calls) and,
    with -lineinfo, its file and line."""
    function: str
    file: str = ""
    line: int = 0

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.file else "a line it does not know (built without -lineinfo)"
        return f"{self.function} at {where}"


@dataclasses.dataclass
class Finding:
    """One report of the log: its first line (the kind of error), where, which thread, and
    the access's address and allocation when the tool says them."""
    tool: str  # "memcheck", "racecheck", "synccheck", "initcheck": which kind of report it is
    kind: str  # "Invalid __global__ read of size 4 bytes", "Race reported between Write access ..."
    place: Place | None = None
    caller: Place | None = None  # the first device frame: the kernel that called place's function
    thread: str = ""  # "(31,0,0)"
    block: str = ""
    address: str = ""  # "Address 0x7f3a00001000 is out of bounds"
    allocation: str = ""  # "4 bytes after the nearest allocation at 0x7f3a00000000 of size 4,096 bytes"
    accesses: list[tuple[str, Place | None]] = dataclasses.field(default_factory=list)  # a race's accesses
    hazards: int = 0  # a race's count of hazards

    def key(self) -> tuple:
        """What makes two findings the same mistake: the kind of error at the same instruction
        (another thread or block making it is the same finding)."""
        return (self.tool, re.sub(r"\d[\d,]*", "N", self.kind) if self.tool == "racecheck" else self.kind,
                str(self.place), tuple((what, str(place)) for what, place in self.accesses))


def function_name(text: str) -> str:
    """A function as the kernel's source names it: "void tile<(int)16, (bool)1>(const float *,
    int)" is "tile<16, 1>"; its parameters, return type and casts left out."""
    text = re.sub(r"^(void|static|__global__|__device__)\s+", "", text.strip())
    depth, end = 0, len(text)
    for i, c in enumerate(text):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0 and i > 0:
            end = i
            break
    name = text[:end].strip()
    return re.sub(r"\((?:unsigned |signed |long |short )*[A-Za-z_]\w*\)(?=[-\w])", "", name)


def relative(file: str) -> str:
    """A source file as the student knows it: relative to the repository when it is in it."""
    try:
        return os.path.relpath(file) if os.path.isabs(file) and Path(file).resolve().is_relative_to(Path.cwd()) else file
    except (OSError, ValueError):
        return file


def place_of(text: str) -> Place | None:
    text = text.strip()
    for pattern in (PLACE_NEW, PLACE_OLD):
        match = pattern.match(text)
        if match:
            file = match.group("file") or ""
            return Place(function_name(match.group("function")), relative(file) if file else "",
                         int(match.group("line") or 0))
    return Place(function_name(text)) if text else None


def report_blocks(log: str) -> list[list[str]]:
    """The tool's reports in @p log: each a list of its lines without the prefix, from a line
    that starts at the margin to the next such line or a line "=========" alone. A place that
    the tool wrapped onto a second line ("in FILE:LINE") is joined to its first."""
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for raw in log.splitlines():
        if not PREFIX.match(raw):
            continue  # the program's own output
        text = PREFIX.sub("", raw, count=1).rstrip()
        if not text.strip():
            current = None
            continue
        if not text.startswith(" "):
            if NOT_A_FINDING.match(text):
                current = None
                continue
            current = [text]
            blocks.append(current)
        elif current is not None:
            stripped = text.strip()
            if re.match(r"^in \S+:\d+$", stripped) and current:
                current[-1] += " " + stripped
            elif re.match(r"^\[[\d,]+ hazards?\]$", stripped) and current:
                current[-1] += " " + stripped
            else:
                current.append(stripped)
    return blocks


def tool_of(kind: str) -> str:
    if "Race reported" in kind or re.search(r"hazard detected", kind):
        return "racecheck"
    if kind.startswith("Barrier error") or "barrier" in kind.lower():
        return "synccheck"
    if kind.startswith("Uninitialized"):
        return "initcheck"
    return "memcheck"


def parse(log: str) -> list[Finding]:
    """Every finding of a compute-sanitizer log, in its order."""
    findings = []
    for block in report_blocks(log):
        head = block[0]
        race = re.match(r"^(?:Error|ERROR|Warning|WARNING): Race reported between (\w+) access at (.+)$", head)
        if race:
            finding = Finding("racecheck", "Race reported between")
            rest = [f"{race.group(1)} access at {race.group(2)}"] + [line[4:] for line in block[1:] if line.startswith("and ")]
            for access in rest:
                hazards = HAZARDS.search(access)
                if hazards:
                    finding.hazards += int(hazards.group(1).replace(",", ""))
                    access = access[:hazards.start()]
                what, _, where = access.partition(" access at ")
                finding.accesses.append((what, place_of(where)))
            finding.kind = f"Race reported between {finding.accesses[0][0]} access and {finding.accesses[1][0] if len(finding.accesses) > 1 else '?'} access"
            findings.append(finding)
            continue
        finding = Finding(tool_of(head), re.sub(r"^(?:Error|ERROR|Warning|WARNING): ", "", head).rstrip(" :"))
        hazard = re.match(r"^(?:Error|ERROR|Warning|WARNING): Potential (\w+) hazard detected at (\S+ 0x[0-9a-fA-F]+) in block \(([^)]*)\)", head)
        if hazard:
            finding.kind = f"Potential {hazard.group(1)} hazard at {hazard.group(2)}"
            finding.block = f"({hazard.group(3)})"
        for line in block[1:]:
            if line.startswith("Saved host backtrace") or line.startswith("Host Frame"):
                break
            if line.startswith("at "):
                finding.place = place_of(line[3:])
            elif line.startswith("Device Frame:") and finding.caller is None:
                finding.caller = place_of(line[len("Device Frame:"):])
            elif (thread := re.match(r"^by thread (\([^)]*\)) in block (\([^)]*\))", line)):
                finding.thread, finding.block = thread.groups()
            elif re.match(r"^(Address|Access to|Access at) 0x", line):
                finding.address = line
            elif line.startswith("and is "):
                finding.allocation = line[len("and is "):]
            elif (access := re.match(r"^(Read|Write) Thread (\([^)]*\)) at (.+)$", line)):
                finding.accesses.append((f"{access.group(1)} by thread {access.group(2)}", place_of(access.group(3))))
        if finding.tool == "racecheck" and finding.accesses and finding.place is None:
            finding.place = finding.accesses[0][1]
        findings.append(finding)
    return findings


def summary_errors(log: str) -> tuple[int, int]:
    """The tool's own counts: the errors it found and those it did not print (its print limit)."""
    found = re.findall(r"ERROR SUMMARY: ([\d,]+) errors?\s*$", log, re.M)
    unprinted = re.findall(r"ERROR SUMMARY: ([\d,]+) errors? were not printed", log)
    number = lambda s: int(s.replace(",", ""))
    return (number(found[-1]) if found else 0), (number(unprinted[-1]) if unprinted else 0)


def grouped(findings: list[Finding]) -> list[tuple[Finding, int]]:
    """The distinct findings, each the first of its kind, and how many made it."""
    groups: dict[tuple, list] = {}
    for finding in findings:
        groups.setdefault(finding.key(), [finding, 0])[1] += 1
    return [(first, count) for first, count in groups.values()]


def describe(finding: Finding) -> list[str]:
    """One finding in a line or two."""
    if finding.tool == "racecheck" and finding.accesses:
        # One side per instruction line: a line's several instructions are one access to a student.
        sides: list[tuple[str, Place | None]] = []
        for what, place in finding.accesses:
            if (what, str(place)) not in [(w, str(p)) for w, p in sides]:
                sides.append((what, place))
        functions = {place.function for _, place in sides if place}
        one = functions.pop() if len(functions) == 1 else ""
        def side(what: str, place: Place | None) -> str:
            where = "" if place is None else f" at {place.file}:{place.line}" if one and place.file else f" in {place}"
            return f"a {what.lower()}{where}"
        shown = [side(*s) for s in sides[:3]]
        line = "Race on shared memory" + (f" in {one}" if one else "") + f": {shown[0]}"
        if len(shown) > 1:
            line += " and " + ", ".join(shown[1:])
        if len(sides) > 3:
            line += f", and {len(sides) - 3} more accesses"
        line += ", with no barrier or wait between"
        if finding.hazards:
            line += f" [{finding.hazards:,} hazards]"
        if finding.block:
            line += f", in block {finding.block}"
        return [line]
    line = finding.kind.rstrip(".")  # "... in warp." ends with a period of its own
    if finding.place:
        line += f", in {finding.place}"
    if finding.caller and finding.caller.function != (finding.place.function if finding.place else ""):
        line += f", called from {finding.caller}"
    lines = [line]
    who = f"by thread {finding.thread} in block {finding.block}" if finding.thread else ""
    where = finding.address + (f", {finding.allocation}" if finding.allocation else "")
    if who or where:
        lines.append("  " + ": ".join(part for part in (who, where) if part))
    return lines


def report(log: str, shown: int = SHOWN_FINDINGS) -> list[str]:
    """A log's findings for a student: at most @p shown distinct ones, each followed by how many
    others made the same error, then how many the log holds beyond them. Empty when it holds none."""
    findings = parse(log)
    if not findings:
        return []
    groups = grouped(findings)
    errors, unprinted = summary_errors(log)
    lines = []
    for finding, count in groups[:shown]:
        lines += describe(finding)
        if unprinted and len(groups) == 1:
            lines.append(f"  and {errors - 1:,} more errors; the {count:,} the log prints are all like this one "
                         "(other threads or blocks, the same instruction)")
        elif count > 1:
            lines.append(f"  and {count - 1:,} more like it (other threads or blocks, the same instruction)")
    others = len(groups) - shown
    if others > 0:
        lines.append(f"and {others} other kind{'' if others == 1 else 's'} of report in the log")
    if unprinted and len(groups) > 1:
        lines.append(f"({errors:,} errors in all, of which the log prints the first {errors - unprinted:,})")
    return lines


def headline(log: str) -> str:
    """The first finding in one line (a results file's further=, make grade's reason)."""
    groups = grouped(parse(log))
    if not groups:
        return ""
    first, count = groups[0]
    more = count - 1 + sum(c for _, c in groups[1:])
    return describe(first)[0] + (f" (and {more:,} more)" if more else "")


def sanitizer_report(args) -> int:
    """`python3 -m tools.tutorial sanitizer-report LOG`: the log's findings (make sanitize)."""
    text = Path(args.log).read_text(errors="replace")
    for line in report(text) or ["(no finding in the log: it holds only the tool's summary; see it in full)"]:
        print(line)
    return 0


# ---- The pass after a chapter's passing tests on a GPU ---------------------------------------------


def find_sanitizer() -> str | None:
    """compute-sanitizer: on PATH, in $CUDA_HOME/bin, next to nvcc, or in /usr/local/cuda/bin."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    for candidate in (shutil.which("compute-sanitizer"),
                      os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "compute-sanitizer"),
                      os.path.join(os.path.dirname(nvcc), "compute-sanitizer"), "/usr/local/cuda/bin/compute-sanitizer"):
        if candidate and os.access(candidate, os.X_OK) and os.path.isfile(candidate):
            return candidate
    return None


@dataclasses.dataclass
class Pass:
    """What the pass after the tests found: its exit status (0: clean), the lines to print, and
    the one line its results file records (further=)."""
    status: int
    lines: list[str]
    record: str


def run_tool(sanitizer: str, tool: str, binary: Path, log: Path, arguments: list[str]) -> tuple[int, int]:
    """One run of the test program under @p tool, everything to @p log: its exit status and seconds."""
    limit = float(os.environ.get("SANITIZE_TIMEOUT") or 900)
    # --report-api-errors no: the tests provoke CUDA API errors on purpose (a refused launch, a
    # failed allocation) and check them themselves; kernel errors are still all reported.
    command = [sanitizer, "--tool", tool, "--error-exitcode", str(SANITIZER_EXIT), "--report-api-errors", "no",
               str(binary), *arguments]
    start = time.monotonic()
    with open(log, "w") as out:
        out.write("$ " + " ".join(command) + "\n")
        out.flush()
        try:
            status = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, timeout=limit,
                                    env={**os.environ, "TUTORIAL_SANITIZER_PASS": "1"}).returncode
        except subprocess.TimeoutExpired:
            status = 124
    return status, round(time.monotonic() - start)


def racecheck_warnings(log: str) -> int:
    found = re.findall(r"RACECHECK SUMMARY.*, ([\d,]+) warnings?", log)
    return int(found[-1].replace(",", "")) if found else 0


def first_failure(log: str, most: int = 5) -> list[str]:
    """The program's first failure report in a sanitizer's log (its own lines, unprefixed)."""
    own = "\n".join(line for line in log.splitlines() if not PREFIX.match(line) and not line.startswith("$ "))
    reports = reports_of(own)
    return reports[0][:most] if reports else []


def after_tests(binary: Path, logs: Path, arguments: list[str], chapter: str) -> Pass:
    """compute-sanitizer's memcheck, then racecheck, over the tests that just passed, each sweep
    on its first shapes (TUTORIAL_SANITIZER_PASS=1): an access out of bounds or a race that
    left the results right on this run fails the chapter still."""
    sanitizer = find_sanitizer()
    if sanitizer is None:
        return Pass(0, ["compute-sanitizer was not found (it comes with the CUDA Toolkit): the kernels were not "
                        "checked for races and accesses out of bounds."], "")
    logs.mkdir(parents=True, exist_ok=True)
    arguments = arguments or ["~[large]"]
    done, timing_failure = [], None
    for tool in ("memcheck", "racecheck"):
        log = logs / f"{binary.name}-after-tests-{tool}.log"
        status, seconds = run_tool(sanitizer, tool, binary, log, arguments)
        text = log.read_text(errors="replace")
        shapes = f"run on the first {SANITIZER_SHAPES} shapes of each test"
        if status == SANITIZER_EXIT or racecheck_warnings(text) > 0:
            found = report(text)
            first = headline(text) or "see the log"
            if tool == "racecheck":
                lines = (["The tests fail under compute-sanitizer's memcheck, which reports no error of its own: "
                          "the results changed under its timing, a race. racecheck finds it:"] if timing_failure else
                         [f"The results are right, but compute-sanitizer's racecheck, {shapes}, reports a race:"])
                why = ("Threads read shared memory that others write with no barrier between (__syncthreads() "
                       "between the warps of a block, __syncwarp() between the lanes of one warp): the results can "
                       "be right on one run and wrong on the next.")
                record = f"compute-sanitizer's racecheck reports a race: {first}"
            else:
                lines = [f"The results are right, but compute-sanitizer's {tool}, {shapes}, reports an error:"]
                why = "An access outside an allocation can return harmless values on one GPU and crash on another."
                record = f"compute-sanitizer's {tool} reports an error: {first}"
            lines += ["  " + line for line in found] + [why, f"make {chapter} test BACKEND=emu tries other thread orders "
                                                         f"on the CPU; the whole log: {log}"]
            return Pass(1, lines, record)
        if status == 124:
            return Pass(1, [f"compute-sanitizer's {tool} did not finish within {os.environ.get('SANITIZE_TIMEOUT') or 900} s "
                            f"(SANITIZE_TIMEOUT=seconds); the whole log: {log}"], f"compute-sanitizer's {tool} did not finish")
        if status != 0 and timing_failure is None:
            # The tests failed under the tool, which found nothing: its slower, reordered run
            # changed the results. That is a race, wherever it is; racecheck may still name it.
            failure = first_failure(text)
            timing_failure = ([f"The tests pass alone but fail under compute-sanitizer's {tool} (exit status {status}), "
                               "which reports no error of its own: the results changed under its timing. That is a race: "
                               "threads (or blocks) that read what others write, with no barrier or wait between, "
                               "read it early or late as the timing goes."] +
                              (["What failed under it:"] + ["  | " + line for line in failure] if failure else []) +
                              [f"make {chapter} test BACKEND=emu tries other thread orders on the CPU; the whole log: {log}"])
            continue
        if status != 0:
            timing_failure[-1] += f" (racecheck's: {log})"
            break
        done.append(f"{tool} clean ({seconds} s)")
    if timing_failure and done:  # racecheck ran to the end, clean
        timing_failure.insert(-1, "racecheck, which sees races on shared memory within a block, finds none: look at what "
                                  "blocks share through global memory, or at a warp's lanes.")
    if timing_failure:
        return Pass(1, timing_failure, "compute-sanitizer's memcheck changed the results: a race (the tests fail "
                                       "under its timing, with no error of its own)")
    return Pass(0, [f"compute-sanitizer, on the first {SANITIZER_SHAPES} shapes of each test: {', '.join(done)}."], "clean")
