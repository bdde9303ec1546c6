"""Check that the texts a student reads before solving do not hand over the solution's code.

  python3 -m tools.tutorial lesson-leaks [N ...]

A student reads, before the answer, a chapter's lesson (README.md), its hints but the last
(`make chapterN hint` shows them gentlest first; the last may give the code away) and the
TODO texts of its skeleton. None of them may hold a line of the reference solution: a line
inside a SOLUTION block of solutions/NN-name/*.cu, compared as C++ tokens, so that spacing,
line breaks and Markdown's backticks change nothing.

A solution line counts only when it says something: MIN_TOKENS tokens or more once its
comment, braces and a final `;` are left out (`__syncthreads();` or `return;` give nothing
away), and only when the skeleton itself does not show the same tokens (code written for the
student elsewhere in the file is no secret). A line counts as leaked when its tokens appear,
in order and next to each other, in the tokens of one of the texts; a declaration also
when what follows its type does (`col = blockIdx.x * blockDim.x + threadIdx.x` gives away
`const int col = blockIdx.x * blockDim.x + threadIdx.x;`).

The texts are tokenized as C++ too; prose becomes identifiers and punctuation, which never
matches a line of code by chance at this length.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from . import skeleton
from .course import Chapter, read_hints

# Fewer tokens than this (a barrier, `float sum = 0.0f`) say nothing about a solution.
MIN_TOKENS = 6

_TOKEN = re.compile(r"""
      "(?:\\.|[^"\\\n])*"                       # a string literal, on one line
    | '(?:\\.|[^'\\\n]){1,4}'                   # a character literal (prose's apostrophes are not)
    | \d[\w.]*(?:[eEpP][+-]\d+)?\w*             # a number: 16, 0.0f, 1e-3, 0xffffffff
    | [A-Za-z_]\w*                              # an identifier or keyword
    | <<=|>>=|->\*|\.\.\.                       # three-character operators
    | ::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=   # two-character operators
    | \S                                        # any other character, on its own
""", re.VERBOSE)
# Characters that are markup in the lessons, never part of the code they quote.
_MARKUP = str.maketrans({"`": " ", "\u2026": " "})
_TRIVIAL = {"{", "}"}


def strip_comments(code: str) -> str:
    """The code without its // and /* */ comments (string literals are left alone)."""
    out, i, n = [], 0, len(code)
    while i < n:
        if code.startswith("//", i):
            end = code.find("\n", i)
            i = n if end < 0 else end
        elif code.startswith("/*", i):
            end = code.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
        elif code[i] in "\"'":
            match = re.compile(r"%s(?:\\.|[^%s\\])*%s" % ((code[i],) * 3)).match(code, i)
            piece = match.group(0) if match else code[i]
            out.append(piece)
            i += len(piece)
        else:
            out.append(code[i])
            i += 1
    return "".join(out)


def tokens(text: str) -> list[str]:
    """The C++ tokens of a text (code or prose), less braces, which are compared nowhere:
    Markdown's backticks are not tokens."""
    return [t for t in _TOKEN.findall(text.translate(_MARKUP)) if t not in _TRIVIAL]


def telling_tokens(line: str) -> tuple[str, ...]:
    """The tokens of a solution line that say something, or () when they are too few."""
    found = tokens(strip_comments(line))
    while found and found[-1] == ";":
        found.pop()
    return tuple(found) if len(found) >= MIN_TOKENS else ()


# What may stand before a declared name: qualifiers, a type's names, `::`, template
# brackets and their arguments, pointers and references.
_DECLARATION_PART = re.compile(r"^(?:[A-Za-z_]\w*|::|<|>|,|\*|&|\d\w*)$")
_STATEMENT_KEYWORDS = {"return", "if", "for", "while", "switch", "case", "else", "do", "throw", "goto"}


def needles(line: str) -> list[tuple[str, ...]]:
    """The token sequences whose presence in a text gives the line away: the line itself and,
    for a declaration, what follows its type (`col = blockIdx.x * ...` of
    `const int col = blockIdx.x * ...`, the arguments of `const dim3 grid(...)`), since a
    text that quotes those has given the code away just the same."""
    whole = telling_tokens(line)
    if not whole:
        return []
    found = [whole]
    opening = next((i for i, t in enumerate(whole) if t in ("=", "(", "{")), None)
    if (opening is not None and whole[0] not in _STATEMENT_KEYWORDS
            and sum(bool(re.match(r"[A-Za-z_]", t)) for t in whole[:opening]) >= 2
            and all(_DECLARATION_PART.match(t) for t in whole[:opening])):
        tail = whole[opening - 1:] if whole[opening] == "=" else whole[opening:]
        if len(tail) >= MIN_TOKENS and tail != whole:
            found.append(tail)
    return found


def contains(haystack: list[str], needle: tuple[str, ...]) -> bool:
    """Whether the tokens of needle appear in haystack, in order and next to each other."""
    first, n = needle[0], len(needle)
    return any(haystack[i] == first and tuple(haystack[i:i + n]) == needle
               for i in range(len(haystack) - n + 1))


@dataclass
class Leak:
    solution: str   # the solution file
    line: str       # the solution line, as written
    where: str      # the text it appears in


def task_texts(solution_text: str, where: str) -> list[str]:
    """The TODO texts a skeleton made from this solution shows, one per block."""
    return ["\n".join(item[1]) for kind, item in skeleton._blocks(solution_text.split("\n"), where)
            if kind == "block" and item[1]]


def leaks_in(solution_text: str, solution_name: str, skeleton_text: str,
             texts: dict[str, str]) -> list[Leak]:
    """The solution lines whose tokens appear in one of the texts ({name: text}), less those
    that the skeleton shows anyway."""
    shown = tokens(strip_comments(skeleton_text))
    searched = {name: tokens(text) for name, text in texts.items()}
    found: list[Leak] = []
    seen: set[tuple[str, ...]] = set()
    for line in skeleton.solution_lines(solution_text, solution_name):
        for needle in needles(line):
            if needle in seen or contains(shown, needle):
                continue
            seen.add(needle)
            where = [name for name, haystack in searched.items() if contains(haystack, needle)]
            found.extend(Leak(solution_name, line.strip(), name) for name in where)
            if where:
                break  # one report per line
    return found


def chapter_leaks(chapter: Chapter) -> tuple[list[Leak], int]:
    """The chapter's leaks, and how many solution lines were looked for."""
    texts = {str(chapter.lesson): chapter.lesson.read_text(encoding="utf-8")}
    hints = read_hints(chapter)
    for number, hint in enumerate(hints[:-1], start=1):
        texts[f"{chapter.hints_file}, hint {number} of {len(hints)}"] = hint
    leaks: list[Leak] = []
    looked_for = 0
    for path in chapter.solution_files():
        text = path.read_text(encoding="utf-8")
        skeleton_text = skeleton.skeleton(text, chapter.number, str(path))
        file_texts = dict(texts)
        for number, task in enumerate(task_texts(text, str(path)), start=1):
            file_texts[f"{path}, TODO text {number}"] = task
        looked_for += sum(bool(telling_tokens(line)) for line in skeleton.solution_lines(text, str(path)))
        leaks.extend(leaks_in(text, str(path), skeleton_text, file_texts))
    return leaks, looked_for


def check(args) -> int:
    chapters = [c for c in args.chapters if not args.numbers or c.number in args.numbers]
    unknown = sorted(set(args.numbers) - {c.number for c in chapters})
    if unknown:
        print(f"lesson-leaks: no chapter {', '.join(unknown)} in the registry", file=sys.stderr)
        return 1
    total_leaks, total_lines = [], 0
    for chapter in chapters:
        leaks, looked_for = chapter_leaks(chapter)
        if looked_for == 0:
            print(f"lesson-leaks: {chapter.name} has no solution line of {MIN_TOKENS} tokens or more to look for",
                  file=sys.stderr)
            return 1
        total_leaks += leaks
        total_lines += looked_for
    for leak in total_leaks:
        print(f"  {leak.where}: gives away `{leak.line}` ({leak.solution})")
    verdict = "none appears" if not total_leaks else f"{len(total_leaks)} appear"
    print(f"lesson-leaks: {total_lines} solution lines of {len(chapters)} chapters looked for in their lessons, "
          f"hints before the last and TODO texts: {verdict}")
    return 1 if total_leaks else 0
