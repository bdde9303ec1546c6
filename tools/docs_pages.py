#!/usr/bin/env python3
"""Write the course site's pages for Doxygen. `make docs` runs it before Doxygen.

Everything comes from chapters/chapters.txt, the one list of chapters, and from each
chapter's README.md, the lesson's one source. Into OUT it writes:

  mainpage.md               docs/mainpage.md, the chapter list filled in at @CHAPTER_LIST@;
  NNN-chapterN-lesson.md    chapter N's lesson, with a page label, links to the previous
                            and next chapter, and its relative links rewritten for the site;
  NNN-chapterN-solution.md  with --solutions only (the instructor edition): the reference
                            solution's files, each listed whole.
NNN is the chapter's place in chapters.txt: Doxygen orders the pages by file name.

The lessons link figures as ../../docs/figures/NAME.svg so that they render on GitHub;
here such a link becomes NAME.svg, which Doxygen finds through IMAGE_PATH = docs/figures.

Usage: docs_pages.py OUT [--solutions]
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHAPTER_LIST = ROOT / "chapters" / "chapters.txt"
FIGURES = ROOT / "docs" / "figures"

# [text](target) or ![alt](target "title"): the forms the lessons use.
LINK = re.compile(r'(!?)\[([^\]]*)\]\(\s*([^)\s]+)(\s+"[^"]*")?\s*\)')


class Chapter:
    def __init__(self, number, folder, title):
        self.number = number
        self.folder = folder
        self.title = title
        self.label = f"chapter{number}"
        self.lesson = ROOT / "chapters" / folder / "README.md"

    def link(self, text=None):
        """A Doxygen reference to this chapter's page."""
        return f'@ref {self.label} "{text or f"Chapter {self.number}: {self.title}"}"'


def fail(message):
    sys.exit(f"docs_pages.py: {message}")


def read_chapters():
    chapters = []
    for line in CHAPTER_LIST.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split(None, 2)
        if len(fields) < 3:
            fail(f"{CHAPTER_LIST.relative_to(ROOT)}: expected 'number folder title', got: {line}")
        chapters.append(Chapter(*fields))
    if not chapters:
        fail(f"{CHAPTER_LIST.relative_to(ROOT)} lists no chapters")
    return chapters


def rewrite_link(match, lesson, chapters):
    """One link of a lesson, as the site needs it."""
    bang, text, target, title = match.group(1), match.group(2), match.group(3), match.group(4) or ""
    if "://" in target or target.startswith(("#", "@", "\\", "mailto:")):
        return match.group(0)
    path = target.split("#", 1)[0]
    resolved = (lesson.parent / path).resolve()
    where = resolved.relative_to(ROOT) if resolved.is_relative_to(ROOT) else resolved
    if bang:
        if resolved.parent != FIGURES:
            fail(f"{lesson.relative_to(ROOT)}: the image {target} is not in docs/figures/, where figures live")
        if not resolved.is_file():
            fail(f"{lesson.relative_to(ROOT)}: the figure {target} does not exist ({where})")
        return f"![{text}]({resolved.name}{title})"
    if resolved == ROOT / "README.md":
        return f"[{text}](@ref index)"
    for chapter in chapters:
        if resolved == chapter.lesson:
            return f"[{text}](@ref {chapter.label})"
    # Any other file of the repository has no page on the site: keep the text, and
    # name the file so the reader can open it in their copy.
    return f"{text} (`{where}`)"


def nav_bar(previous, up, following):
    """A bar of links, laid out by docs/site.css: left, middle and right."""
    parts = zip(("previous", "up", "next"), (previous, up, following))
    return '<div class="chapter-nav">' + "".join(f'<span class="{c}">{text}</span>' for c, text in parts) + "</div>"


def navigation(chapters, index, solutions):
    """The bar of links at the top and bottom of chapter page number `index`."""
    previous = chapters[index - 1] if index > 0 else None
    following = chapters[index + 1] if index + 1 < len(chapters) else None
    up = '@ref index "Contents"'
    if solutions:
        up += f' · @ref {chapters[index].label}-solution "Reference solution"'
    return nav_bar(previous.link(f"← Chapter {previous.number}: {previous.title}") if previous else "", up,
                   following.link(f"Chapter {following.number}: {following.title} →") if following else "")


def lesson_page(chapters, index, solutions):
    chapter = chapters[index]
    if not chapter.lesson.is_file():
        fail(f"chapter {chapter.number} has no lesson: {chapter.lesson.relative_to(ROOT)} is missing")
    lines = chapter.lesson.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0].startswith("# "):
        fail(f"{chapter.lesson.relative_to(ROOT)} must start with its title, '# Chapter {chapter.number}: ...'")
    nav = navigation(chapters, index, solutions)
    page = [f"{lines[0].rstrip()} {{#{chapter.label}}}", "", nav, ""]
    in_code = False
    for line in lines[1:]:
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        page.append(line if in_code else LINK.sub(lambda m: rewrite_link(m, chapter.lesson, chapters), line))
    if solutions:
        page += ["", "## Reference solution", "",
                 f"Instructor edition: the reference solution is on the page @ref {chapter.label}-solution."]
    page += ["", nav, ""]
    return "\n".join(page)


def solution_page(chapter):
    folder = ROOT / "solutions" / chapter.folder
    files = sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
    if not files:
        fail(f"chapter {chapter.number} has no reference solution in solutions/{chapter.folder}/")
    page = [
        f"# Chapter {chapter.number}: reference solution {{#{chapter.label}-solution}}",
        "",
        nav_bar(chapter.link(f"← The lesson: chapter {chapter.number}"), '@ref index "Contents"', ""),
        "",
        f"The reference solution of {chapter.link()}, from `solutions/{chapter.folder}/`. "
        "Names of the tutorial's API link to their documentation. "
        f"`make chapter{chapter.number} test SOLUTIONS=1` runs the chapter's tests on it.",
    ]
    for path in files:
        page += ["", f"## {path.name}", "", f"\\include{{lineno}} {chapter.folder}/{path.name}"]
    return "\n".join(page) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=pathlib.Path, help="the folder to write the pages into")
    parser.add_argument("--solutions", action="store_true", help="the instructor edition: add the solutions")
    args = parser.parse_args()

    chapters = read_chapters()
    args.out.mkdir(parents=True, exist_ok=True)
    for stale in args.out.glob("*.md"):
        stale.unlink()

    chapter_list = "\n".join(
        f"- {c.link()}"
        + (f' (@ref {c.label}-solution "reference solution")' if args.solutions else "")
        for c in chapters)
    template = (ROOT / "docs" / "mainpage.md").read_text(encoding="utf-8")
    if "@CHAPTER_LIST@" not in template:
        fail("docs/mainpage.md has no @CHAPTER_LIST@ line for the list of chapters")
    (args.out / "mainpage.md").write_text(template.replace("@CHAPTER_LIST@", chapter_list), encoding="utf-8")

    # Doxygen lists the pages in the order of their file names: the order of the course.
    for index, chapter in enumerate(chapters):
        prefix = f"{index + 1:03d}-{chapter.label}"
        (args.out / f"{prefix}-lesson.md").write_text(lesson_page(chapters, index, args.solutions), encoding="utf-8")
        if args.solutions:
            (args.out / f"{prefix}-solution.md").write_text(solution_page(chapter), encoding="utf-8")


if __name__ == "__main__":
    main()
