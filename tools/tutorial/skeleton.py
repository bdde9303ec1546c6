"""The student's file, made from the reference solution: one source for both.

A solution file under solutions/NN-name/ marks what the student writes:

    // BEGIN SOLUTION: compute this thread's `row` and `col` in C from blockIdx,
    //   blockDim and threadIdx.
    //| return tutorial::LaunchConfig{dim3(1, 1), dim3(1, 1)};
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    ...
    // END SOLUTION

In the skeleton such a block becomes the task, `// TODO(chapterN): compute ...` with its
continuation lines (the comment lines right after the BEGIN line that start with `//  `),
followed by the block's `//| ` lines with that prefix removed: placeholder code that lets
the skeleton compile. Everything else in the block is the solution and is left out.
`// BEGIN SOLUTION` with no task text encloses solution-only lines (a comment that would
give the answer away); its `//| ` lines, if any, are kept as above.

The file's line `// Reference solution.` (one, near the top) becomes the skeleton's
standard opening paragraph. Everything outside the blocks is the same in both files.

The clean solution that `make chapterN solution` shows is the same file without the
markers, the task text and the `//| ` lines.
"""

from __future__ import annotations

import re
from pathlib import Path

BEGIN = re.compile(r"^(\s*)// BEGIN SOLUTION(?::\s?(.*))?$")
END = re.compile(r"^\s*// END SOLUTION\s*$")
SKELETON_ONLY = re.compile(r"^(\s*)//\| ?(.*)$")
CONTINUATION = re.compile(r"^\s*//  ")
INTRO = "// Reference solution."


class MarkerError(ValueError):
    """A solution file whose markers do not pair up; the message names the file and line."""


def _intro(chapter: str) -> list[str]:
    return [
        f"// Read README.md in this folder first. Then work through the TODO(chapter{chapter}) markers",
        f"// below, top to bottom, and run `make chapter{chapter} test` after each one.",
    ]


def _blocks(lines: list[str], where: str):
    """Yield ("text", line) outside blocks and ("block", (indent, task, body)) for each block."""
    i = 0
    while i < len(lines):
        begin = BEGIN.match(lines[i])
        if END.match(lines[i]):
            raise MarkerError(f"{where}:{i + 1}: END SOLUTION without a BEGIN SOLUTION before it")
        if not begin:
            yield "text", lines[i]
            i += 1
            continue
        start = i
        indent, first = begin.group(1), begin.group(2)
        task = [first] if first else []
        i += 1
        while first and i < len(lines) and CONTINUATION.match(lines[i]) and not SKELETON_ONLY.match(lines[i]):
            task.append(lines[i].strip()[2:])
            i += 1
        body = []
        while i < len(lines) and not END.match(lines[i]):
            if BEGIN.match(lines[i]):
                raise MarkerError(f"{where}:{i + 1}: BEGIN SOLUTION inside the block opened at line {start + 1}")
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise MarkerError(f"{where}:{start + 1}: BEGIN SOLUTION is never closed by END SOLUTION")
        i += 1
        yield "block", (indent, task, body)


def skeleton(solution_text: str, chapter: str, where: str = "solution") -> str:
    """The student's file for chapter @p chapter, from the text of its solution file."""
    lines = solution_text.split("\n")
    if sum(line.strip() == INTRO for line in lines) != 1:
        raise MarkerError(f"{where}: needs exactly one line '{INTRO}', where the skeleton's opening paragraph goes")
    out: list[str] = []
    for kind, item in _blocks(lines, where):
        if kind == "text":
            out.extend(_intro(chapter) if item.strip() == INTRO else [item])
            continue
        indent, task, body = item
        if task:
            out.append(f"{indent}// TODO(chapter{chapter}): {task[0]}")
            out.extend(f"{indent}//{line}" for line in task[1:])
        for line in body:
            stub = SKELETON_ONLY.match(line)
            if stub:
                out.append(stub.group(1) + stub.group(2))
    return "\n".join(out)


def clean_solution(solution_text: str, where: str = "solution") -> str:
    """The solution as a student reads it after solving: no markers, tasks or stubs."""
    out: list[str] = []
    for kind, item in _blocks(solution_text.split("\n"), where):
        if kind == "text":
            out.append(item)
            continue
        out.extend(line for line in item[2] if not SKELETON_ONLY.match(line))
    return "\n".join(out)


def solution_lines(solution_text: str, where: str = "solution") -> list[str]:
    """The lines only the solution has (inside blocks, not stubs): what the student edition
    of the site must never show."""
    lines: list[str] = []
    for kind, item in _blocks(solution_text.split("\n"), where):
        if kind == "block":
            lines.extend(line for line in item[2] if not SKELETON_ONLY.match(line))
    return lines


def skeleton_of(solution: Path, chapter: str) -> str:
    return skeleton(solution.read_text(encoding="utf-8"), chapter, str(solution))
