"""The check that lessons, hints and TODO texts do not hand over the solution's code
(tools/tutorial/lesson_leaks.py, `python3 -m tools.tutorial lesson-leaks`), for `make check`:

- the tokens: spacing, line breaks, backticks and comments change nothing; prose apostrophes
  do not swallow the code after them;
- which solution lines count: short ones and braces do not; a declaration also counts by what
  follows its type;
- a leak is found in a lesson, in a hint before the last and in a TODO text; the last hint may
  hold the code; a line the skeleton shows anyway is no leak;
- on the real tree: a solution line of each chapter pasted into a copy of its lesson, or into
  its first hint, is found, and the chapter's own texts, as committed, hold none.

Run: python3 tests/lesson_leaks.py (exit status 1 and the failures on stderr).
"""

import shutil
import tempfile
from pathlib import Path


from tool_checks import check, finish  # noqa: E402 (puts the root on the path)
from tools.tutorial import lesson_leaks as leaks  # noqa: E402
from tools.tutorial import skeleton  # noqa: E402
from tools.tutorial.course import read_registry  # noqa: E402



# ---- tokens ------------------------------------------------------------------------------

line = "    const int col = blockIdx.x * blockDim.x + threadIdx.x;  // x along the columns"
check(leaks.telling_tokens(line) == tuple("const int col = blockIdx . x * blockDim . x + threadIdx . x".split()),
      f"the tokens of a solution line, without its comment and final ';': {leaks.telling_tokens(line)}")
check(leaks.tokens("`a*b+=c`") == ["a", "*", "b", "+=", "c"], "backticks are not tokens, += is one")
check(leaks.tokens("x  =\n  y") == leaks.tokens("x = y"), "spacing and line breaks do not matter")
check("blockIdx" in leaks.tokens("the chapter's loop `col = blockIdx.x` isn't here"),
      "an apostrophe in prose does not swallow the code after it")
check(leaks.strip_comments('a = "//"; // b /* c */') == 'a = "//"; ', "a // inside a string is not a comment")
check(leaks.telling_tokens("__syncthreads();") == (), "a barrier says nothing about a solution")
check(leaks.telling_tokens("    }") == (), "a brace says nothing")
check(leaks.telling_tokens("float sum = 0.0f;") == (), "five tokens are too few")
check(leaks.telling_tokens("if (row >= M || col >= N) {") != (), "a bounds check of 8 tokens counts")

needles = leaks.needles("const int col = blockIdx.x * blockDim.x + threadIdx.x;")
check(len(needles) == 2 and needles[1][:2] == ("col", "="),
      f"a declaration is also looked for from its name on: {needles}")
needles = leaks.needles("const dim3 grid(tutorial::ceil_div(N, 16), tutorial::ceil_div(M, 16));")
check(len(needles) == 2 and needles[1][0] == "(", f"a constructor's arguments are looked for: {needles}")
check(len(leaks.needles("return tutorial::ceil_div(n, 256) * 2;")) == 1, "a return is not a declaration")
check(leaks.contains(["a", "b", "c"], ("b", "c")) and not leaks.contains(["a", "b", "c"], ("a", "c")),
      "contains: next to each other, in order")

# ---- leaks in a made-up chapter ----------------------------------------------------------

SOLUTION = """// Reference solution.
__global__ void kernel(float* out, const float* in, int n) {
    // BEGIN SOLUTION: compute this thread's index; let x run along the columns.
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = 2.0f * in[i] + in[n - 1 - i];
    }
    // END SOLUTION
    const float given = in[0] * in[1] + in[2] * in[3];
}
"""
skeleton_text = skeleton.skeleton(SOLUTION, "1")


def found(texts):
    return [(leak.where, leak.line) for leak in leaks.leaks_in(SOLUTION, "made-up.cu", skeleton_text, texts)]


check(found({"lesson": "Compute the index from the block and the thread; guard the end."}) == [],
      "a lesson in words gives nothing away")
check(found({"lesson": "Write\n```cpp\nout[i] = 2.0f * in[i]\n    + in[n - 1 - i];\n```"})
      == [("lesson", "out[i] = 2.0f * in[i] + in[n - 1 - i];")],
      "a solution line quoted over two lines, without its ';', is found")
check(found({"hint 1": "`i = blockIdx.x * blockDim.x + threadIdx.x`"})
      == [("hint 1", "const int i = blockIdx.x * blockDim.x + threadIdx.x;")],
      "a declaration quoted without its type is found")
check(found({"lesson": "given = in[0] * in[1] + in[2] * in[3]"}) == [],
      "a line the skeleton shows anyway is no leak")
todo = leaks.task_texts(SOLUTION.replace("let x run along the columns.",
                                         "i = blockIdx.x * blockDim.x + threadIdx.x."), "made-up.cu")
check(todo == ["compute this thread's index; i = blockIdx.x * blockDim.x + threadIdx.x."],
      f"the TODO texts of a solution: {todo}")
check(found({"TODO text 1": todo[0]}) != [], "a TODO text that holds the line is found")

# ---- the real tree -----------------------------------------------------------------------


class CopiedChapter:
    """A chapter's texts and solution, copied to a folder where a test may change them."""

    def __init__(self, chapter, folder: Path):
        self.number, self.name = chapter.number, chapter.name
        self.lesson = folder / "README.md"
        self.hints_file = folder / "hints.md"
        shutil.copy(chapter.lesson, self.lesson)
        if chapter.hints_file.exists():
            shutil.copy(chapter.hints_file, self.hints_file)
        self.solutions = []
        for path in chapter.solution_files():
            shutil.copy(path, folder / path.name)
            self.solutions.append(folder / path.name)

    def solution_files(self):
        return self.solutions


for chapter in read_registry():
    committed, looked_for = leaks.chapter_leaks(chapter)
    check(looked_for > 0, f"{chapter.name}: no solution line to look for")
    check(committed == [], f"{chapter.name}: its texts give away {[(l.where, l.line) for l in committed][:3]}")
    # The longest telling line of the chapter's solutions that its skeleton does not show,
    # pasted into its lesson, then into its first hint.
    candidates = []
    for path in chapter.solution_files():
        text = path.read_text(encoding="utf-8")
        shown = leaks.tokens(leaks.strip_comments(skeleton.skeleton(text, chapter.number)))
        candidates += [(len(leaks.telling_tokens(l)), l.strip()) for l in skeleton.solution_lines(text)
                       if leaks.telling_tokens(l) and not leaks.contains(shown, leaks.telling_tokens(l))]
    pasted = max(candidates)[1]
    with tempfile.TemporaryDirectory() as temporary:
        copy = CopiedChapter(chapter, Path(temporary))
        copy.lesson.write_text(copy.lesson.read_text(encoding="utf-8") + f"\n```cpp\n{pasted}\n```\n",
                               encoding="utf-8")
        pasted_leaks, _ = leaks.chapter_leaks(copy)
        check(any(leak.line == pasted and leak.where == str(copy.lesson) for leak in pasted_leaks),
              f"{chapter.name}: `{pasted}` pasted into the lesson is not found")
        shutil.copy(chapter.lesson, copy.lesson)
        hints = copy.hints_file.read_text(encoding="utf-8") if copy.hints_file.exists() else ""
        if hints.count("\n1. ") or hints.startswith("1. "):
            copy.hints_file.write_text(hints.replace("1. ", f"1. `{pasted}` ", 1), encoding="utf-8")
            pasted_leaks, _ = leaks.chapter_leaks(copy)
            check(any(leak.line == pasted and "hint 1 of" in leak.where for leak in pasted_leaks),
                  f"{chapter.name}: `{pasted}` pasted into the first hint is not found")

finish("tests/lesson_leaks.py", "the lesson-leaks check finds pasted solution lines and passes on the tree")
