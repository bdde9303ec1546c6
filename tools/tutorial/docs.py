"""Write the course site's pages for Doxygen: `make docs` runs `python3 -m tools.tutorial
docs OUT [--solutions]` before Doxygen.

Everything comes from the registry, README.md and each chapter's README.md. Into OUT:

  mainpage.md               the front page: README.md itself, its links made the site's,
                            so the two cannot disagree;
  NNN-chapterN-lesson.md    chapter N's lesson, with a page label, links to the previous
                            and next chapter, and its relative links rewritten for the site;
  NNN-chapterN-solution.md  with --solutions only (the instructor edition): the reference
                            solution's files, each listed whole, markers removed (the clean
                            copies go to OUT/../solutions, Doxygen's EXAMPLE_PATH).
  900-instructors.md        docs/instructors.md as it is (SITE_PAGES), after the chapters.
NNN is the chapter's place in the registry: Doxygen orders the pages by file name.

A lesson shows its figures as figures/NAME.svg, which renders on GitHub; on the site the
link becomes NAME.svg, which Doxygen finds through IMAGE_PATH (every chapter's figures/).
"""
import pathlib
import re

from . import skeleton
from .course import ROOT, Refusal
from .course import read_chapters as read_registry

# [text](target) or ![alt](target "title"): the forms the lessons use.
LINK = re.compile(r'(!?)\[([^\]]*)\]\(\s*([^)\s]+)(\s+"[^"]*")?\s*\)')


class Chapter:
    def __init__(self, entry):
        self.number = entry.number
        self.folder = entry.folder
        self.title = entry.title
        self.label = f"chapter{entry.number}"
        self.lesson = ROOT / "chapters" / entry.folder / "README.md"

    def link(self, text=None):
        """A Doxygen reference to this chapter's page."""
        return f'@ref {self.label} "{text or f"Chapter {self.number}: {self.title}"}"'


def fail(message):
    raise Refusal(f"make docs: {message}")


def read_chapters():
    return [Chapter(entry) for entry in read_registry()]


def rewrite_link(match, lesson, chapters):
    """One link of a lesson, as the site needs it."""
    bang, text, target, title = match.group(1), match.group(2), match.group(3), match.group(4) or ""
    if "://" in target or target.startswith(("#", "@", "\\", "mailto:")):
        return match.group(0)
    path = target.split("#", 1)[0]
    resolved = (lesson.parent / path).resolve()
    where = resolved.relative_to(ROOT) if resolved.is_relative_to(ROOT) else resolved
    if bang:
        if resolved.parent != lesson.parent / "figures":
            fail(f"{lesson.relative_to(ROOT)}: the image {target} is not in the chapter's figures/, where figures live")
        if not resolved.is_file():
            fail(f"{lesson.relative_to(ROOT)}: the figure {target} does not exist ({where})")
        return f"![{text}]({resolved.name}{title})"
    if resolved == ROOT / "README.md":
        return f"[{text}](@ref index)"
    if resolved in SITE_PAGES:
        return f"[{text}](@ref {SITE_PAGES[resolved]})"
    for chapter in chapters:
        if resolved == chapter.lesson:
            return f"[{text}](@ref {chapter.label})"
    # Any other file of the repository has no page on the site: keep the text, and
    # name the file so the reader can open it in their copy.
    return f"{text} (`{where}`)"


# Pages of docs/ that the site shows as they are, by their Doxygen label ({#label} in
# their title line); a link to one becomes a link to its page.
SITE_PAGES = {ROOT / "docs" / "instructors.md": "instructors"}


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


def solution_page(chapter, clean_dir):
    folder = ROOT / "solutions" / chapter.folder
    files = sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
    (clean_dir / chapter.folder).mkdir(parents=True, exist_ok=True)
    for path in files:
        (clean_dir / chapter.folder / path.name).write_text(
            skeleton.clean_solution(path.read_text(encoding="utf-8"), str(path)), encoding="utf-8")
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


def front_page(chapters, solutions):
    """README.md as the site's front page: the same text, the site's links, and the
    edition's note (which editions exist is the site's business, not the README's)."""
    readme = ROOT / "README.md"
    lines = readme.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0].startswith("# "):
        fail("README.md must start with its title")
    edition = ("**This is the instructor edition** of the course site: it includes the reference "
               "solutions, linked from each chapter. Give students the student edition, built by `make docs`."
               if solutions else
               "This is the student edition of the course site: it has no solution code.")
    page = [f"{lines[0].rstrip()} {{#mainpage}}", "", edition, ""]
    in_code = False
    for line in lines[1:]:
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        page.append(line if in_code else LINK.sub(lambda m: rewrite_link(m, readme, chapters), line))
    page += ["", "## The chapters", ""]
    page += [f"- {c.link()}" + (f' (@ref {c.label}-solution "reference solution")' if solutions else "")
             for c in chapters]
    return "\n".join(page) + "\n"


def write_pages(out, solutions):
    out = pathlib.Path(out)
    chapters = read_chapters()
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*.md"):
        stale.unlink()
    (out / "mainpage.md").write_text(front_page(chapters, solutions), encoding="utf-8")
    for page in SITE_PAGES:
        (out / f"900-{page.name}").write_text(page.read_text(encoding="utf-8"), encoding="utf-8")
    # Doxygen lists the pages in the order of their file names: the order of the course.
    for index, chapter in enumerate(chapters):
        prefix = f"{index + 1:03d}-{chapter.label}"
        (out / f"{prefix}-lesson.md").write_text(lesson_page(chapters, index, solutions), encoding="utf-8")
        if solutions:
            (out / f"{prefix}-solution.md").write_text(solution_page(chapter, out.parent / "solutions"),
                                                       encoding="utf-8")
    return 0
