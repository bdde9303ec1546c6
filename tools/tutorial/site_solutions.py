"""Check which edition of the course site holds the reference solutions.

`make check` runs it twice:
  python3 -m tools.tutorial site-solutions --absent  build/docs/html             (student edition)
  python3 -m tools.tutorial site-solutions --present build/docs-instructor/html  (instructor edition)

The solution lines looked for are those inside the SOLUTION markers of every file in
solutions/ (for each chapter of the registry), less those a student may see anyway: a
line that also appears in the student's own files (skeletons, API headers, lessons and
their hints), in common/, tests/ or docs/ is left out. The rest gives a solution away.

Every file of the site is searched as text: HTML without its tags (Doxygen's source
listings split a line of code into many tags), scripts and SVG as they are, with runs
of white space made one space.
  --absent   fails if any such line appears anywhere in the site;
  --present  fails unless every such line appears: this shows that the search can see
             solution code in the form Doxygen writes it, so that --absent means something.
"""
import html
import html.parser
import pathlib
import sys

from . import skeleton
from .course import ROOT, read_registry
# Folders whose text the student edition may show, whatever a solution repeats of it.
STUDENT_VISIBLE = ["chapters", "common", "tests", "docs"]
# Shorter lines (a brace, `return;`, `float sum = 0.0f;`) say nothing about a solution.
MIN_LINE_LENGTH = 16
# A solution file with fewer telling lines than this cannot be checked for.
MIN_TELLING_LINES = 3


def normalise(text):
    return " ".join(text.split())


class TextOnly(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pieces = []

    def handle_data(self, data):
        self.pieces.append(data)


def site_text(path):
    raw = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".html":
        parser = TextOnly()
        parser.feed(raw)
        raw = "".join(parser.pieces)
    else:
        raw = html.unescape(raw)
    return normalise(raw)


def telling_lines():
    """{solution file: its lines that no student-visible file has}."""
    visible = "\n".join(
        normalise(path.read_text(encoding="utf-8", errors="replace"))
        for folder in STUDENT_VISIBLE
        for path in sorted((ROOT / folder).rglob("*"))
        if path.is_file())
    result = {}
    for chapter in read_registry():
        for path in sorted((ROOT / "solutions" / chapter.folder).glob("*")):
            if not path.is_file():
                continue
            lines = []
            for line in skeleton.solution_lines(path.read_text(encoding="utf-8"), str(path)):
                line = normalise(line)
                if len(line) >= MIN_LINE_LENGTH and line not in visible and line not in lines:
                    lines.append(line)
            result[path.relative_to(ROOT)] = lines
    return result


def check(args):

    if not (args.site / "index.html").is_file():
        sys.exit(f"{args.site}: not a built site (no index.html)")
    solutions = telling_lines()
    if not solutions:
        sys.exit("no solution files found in solutions/")
    too_few = [f"{path} ({len(lines)})" for path, lines in solutions.items() if len(lines) < MIN_TELLING_LINES]
    if too_few:
        sys.exit(f"too few lines that differ from what students see, to recognise: {', '.join(too_few)}")

    pages = {path: site_text(path) for path in sorted(args.site.rglob("*"))
             if path.is_file() and path.suffix in (".html", ".js", ".svg", ".css", ".map", ".md5", ".txt", ".cu")}
    total = sum(len(lines) for lines in solutions.values())
    problems = []
    found = 0
    for solution, lines in solutions.items():
        for line in lines:
            where = [page for page, text in pages.items() if line in text]
            found += bool(where)
            if args.absent and where:
                problems.append(f"{solution}: '{line}' is in {', '.join(str(p.relative_to(args.site)) for p in where[:3])}")
            if args.present and not where:
                problems.append(f"{solution}: '{line}' is nowhere in the site")

    summary = (f"{args.site}: {found} of {total} solution lines (from {len(solutions)} files) "
               f"found in {len(pages)} files")
    print(summary)
    for problem in problems[:20]:
        print(f"  {problem}")
    if len(problems) > 20:
        print(f"  ... and {len(problems) - 20} more")
    return 1 if problems else 0

