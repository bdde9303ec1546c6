#!/usr/bin/env python3
"""Check which edition of the course site holds the reference solutions.

`make check` runs it twice:
  check_docs_solutions.py --absent  build/docs/html             the student edition
  check_docs_solutions.py --present build/docs-instructor/html  the instructor edition

The solution lines looked for are those of every file in solutions/ (for each chapter
of chapters/chapters.txt) that a student may see anyway: a line that also appears in
the student's own files (skeletons, API headers, lessons and their hints), in common/,
tests/ or docs/ is left out. The rest is what gives a solution away.

Every file of the site is searched as text: HTML without its tags (Doxygen's source
listings split a line of code into many tags), scripts and SVG as they are, with runs
of white space made one space.
  --absent   fails if any such line appears anywhere in the site;
  --present  fails unless every such line appears: this shows that the search can see
             solution code in the form Doxygen writes it, so that --absent means something.
"""
import argparse
import html
import html.parser
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
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


def chapter_folders():
    folders = []
    for line in (ROOT / "chapters" / "chapters.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            folders.append(line.split()[1])
    return folders


def telling_lines():
    """{solution file: its lines that no student-visible file has}."""
    visible = "\n".join(
        normalise(path.read_text(encoding="utf-8", errors="replace"))
        for folder in STUDENT_VISIBLE
        for path in sorted((ROOT / folder).rglob("*"))
        if path.is_file())
    result = {}
    for folder in chapter_folders():
        for path in sorted((ROOT / "solutions" / folder).glob("*")):
            if not path.is_file():
                continue
            lines = []
            for line in path.read_text(encoding="utf-8").splitlines():
                line = normalise(line)
                if len(line) >= MIN_LINE_LENGTH and line not in visible and line not in lines:
                    lines.append(line)
            result[path.relative_to(ROOT)] = lines
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--absent", action="store_true", help="no solution line may appear (student edition)")
    mode.add_argument("--present", action="store_true", help="every solution line must appear (instructor edition)")
    parser.add_argument("site", type=pathlib.Path, help="the built site, e.g. build/docs/html")
    args = parser.parse_args()

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


if __name__ == "__main__":
    sys.exit(main())
