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
  9NN-NAME.md               the guides of docs/ (GUIDES below: the CPU backend, the measured
                            results), each a page of its own after the lessons;
  999-search-lessons.md     "Search the lessons": full-text search of the lessons and guides,
  lesson_index.js           whose index this is (every section as plain text), searched by
                            docs/lesson_search.js. Doxygen's own search box finds only the
                            API's names and the pages' titles.
  figures/chapterN-NAME     a copy of chapter N's figures/NAME, under a name of its own.
NNN is the chapter's place in the registry: Doxygen orders the pages by file name.

The site's navigation is the course: the lessons in order, then the guides (the tree on the
left and the menu's "Lessons and guides"; an instructor edition's solution pages are sub-pages
of their lessons); the API reference is a section of its own (docs/DoxygenLayout.xml).

A lesson shows its figures as figures/NAME.svg, which renders on GitHub; on the site the
link becomes chapterN-NAME.svg, a copy in OUT/figures/, which Doxygen finds through IMAGE_PATH
(OUT/figures/, and docs/figures/ for the guides: the results page's charts, named results-* and
roofline-*). Doxygen keeps one image of a name, so two chapters' figures of one name (every
chapter's roofline.svg; a copied chapter's figures) would show one picture on both pages.
"""
import json
import pathlib
import re
import shutil

from . import lesson_figures, skeleton
from .course import ROOT, Refusal
from .course import read_registry

# [text](target) or ![alt](target "title"): the forms the lessons use.
LINK = re.compile(r'(!?)\[([^\]]*)\]\(\s*([^)\s]+)(\s+"[^"]*")?\s*\)')


class ChapterPage:
    """A chapter as the site shows it: its lesson's page, and links to it."""

    def __init__(self, entry):
        self.number = entry.number
        self.folder = entry.folder
        self.title = entry.title
        self.label = f"chapter{entry.number}"
        self.lesson = ROOT / "chapters" / entry.folder / "README.md"

    def link(self, text=None):
        """A Doxygen reference to this chapter's page."""
        return f'@ref {self.label} "{text or f"Chapter {self.number}: {self.title}"}"'

    def figures(self):
        """The files of the chapter's figures/."""
        return sorted(p for p in (self.lesson.parent / "figures").glob("*") if p.is_file())

    def figure_name(self, figure):
        """The site's name of one of its figures: chapterN-NAME, unlike any other chapter's."""
        return f"{self.label}-{figure.name}"


class Guide:
    """A page of docs/ on the site: its file, its label and its place in the contents."""

    def __init__(self, name, label, blurb):
        self.source = ROOT / "docs" / name
        self.label = label
        self.blurb = blurb

    def title(self):
        """The guide's title: its first line, without the '# '."""
        return self.source.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()


# In the order of the contents. Their titles are their first lines.
GUIDES = [
    Guide("cpu-backend.md", "cpu-backend", "how the kernels run without a GPU, and what that run checks"),
    Guide("results.md", "results", "every chapter's kernels timed on a GPU: tables, and the charts `make results` draws"),
    Guide("profile.md", "profile", "make chapterN profile: each kernel's memory traffic, predicted by the CPU backend "
          "and measured by Nsight Compute"),
    Guide("instructors.md", "instructors", "grading: make grade, Gradescope, GitHub Classroom, a folder of submissions"),
    Guide("maintainers.md", "maintainers", "the floors of the house; adding a chapter: what its folder holds, what it sees, its registry line"),
]


def fail(message):
    raise Refusal(f"make docs: {message}")


# ---- No issue numbers where a student reads ------------------------------------------------
# The lessons, their hints and the site's guides state what is; which issue asked for it is
# the project's history, kept in the guide for maintainers (HISTORY_GUIDE), the one page
# that names issues. "issue 34's run", "issues 14, 20 and 22", "Issue 5:"; not "a warp
# issues 4 loads" (a number followed by a word).
ISSUE_NUMBER = re.compile(r"\b[Ii]ssues? #?[0-9]+(?:[,;:.)']| (?:and|or) |$)", re.MULTILINE)
HISTORY_GUIDE = "maintainers.md"


def texts_without_history(chapters, guides=None):
    """The files a student reads that may name no issue: each chapter's (the registry's
    @p chapters) lesson and hints, the front page (README.md) and the site's guides, that
    for maintainers left out."""
    guides = GUIDES if guides is None else guides
    paths = [ROOT / "README.md"]
    for chapter in chapters:
        paths += [ROOT / chapter.lesson, ROOT / chapter.hints_file]
    paths += [g.source for g in guides if g.source.name != HISTORY_GUIDE]
    return [path for path in paths if path.is_file()]


def issue_numbers(paths):
    """Each line of @p paths that names one of the project's issues, as 'file:line: text'."""
    found = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if ISSUE_NUMBER.search(line):
                shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                found.append(f"{shown}:{number}: {line.strip()}")
    return found


def check_issue_numbers(args):
    """(make check) No lesson, hint or guide but docs/maintainers.md names an issue."""
    paths = texts_without_history(args.chapters)
    found = issue_numbers(paths)
    for line in found:
        print(line)
    print(f"issue-numbers: {len(paths)} lessons, hints and guides read; "
          + (f"{len(found)} lines name an issue (history goes to docs/{HISTORY_GUIDE})" if found else "none names an issue"))
    return 1 if found else 0


def chapter_pages():
    return [ChapterPage(entry) for entry in read_registry()]


def api_type_names():
    """The types the chapters' headers declare at global scope, such as chapter 2's Matrix."""
    names = set()
    for header in (ROOT / "chapters").glob("*/*.h"):
        names.update(re.findall(r"^(?:struct|class)\s+(\w+)\s*\{", header.read_text(encoding="utf-8"), re.MULTILINE))
    return names


def no_accidental_links(line, names):
    """`line` with Doxygen's automatic links turned off (%Name) for the API's type names in
    prose: "General Matrix Multiply" must not link to chapter 2's Matrix. In `code` they stay
    links, as the reader expects of a name written as code."""
    if not names:
        return line
    word = re.compile(r"(?<![\w%@\\/.#])(" + "|".join(sorted(names)) + r")\b")
    parts = line.split("`")
    return "`".join(word.sub(r"%\1", part) if i % 2 == 0 else part for i, part in enumerate(parts))


def rewrite_link(match, lesson, chapters, guides=None, strict=False):
    """One link of a lesson, as the site needs it; @p guides are the site's (GUIDES when
    None). @p strict (make docs DOCS_STRICT=1, as make check builds the site): a link to a
    page of docs/ that is not a guide is refused, since the site would show it as plain text."""
    guides = GUIDES if guides is None else guides
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
        owner = next((chapter for chapter in chapters if chapter.lesson.parent == lesson.parent), None)
        return f"![{text}]({owner.figure_name(resolved) if owner else resolved.name}{title})"
    if resolved == ROOT / "README.md":
        return f"[{text}](@ref index)"
    for chapter in chapters:
        if resolved == chapter.lesson:
            return f"[{text}](@ref {chapter.label})"
    for guide in guides:
        if resolved == guide.source:
            return f"[{text}](@ref {guide.label})"
    if strict and resolved.suffix == ".md" and resolved.parent == ROOT / "docs":
        fail(f"{lesson.relative_to(ROOT)}: the link [{text}]({target}) leads to {where}, which is not a page of the "
             f"site (GUIDES in tools/tutorial/docs.py), so the site would show it as plain text: add the page to "
             f"GUIDES, or link elsewhere")
    # Any other file of the repository has no page on the site: keep the text, and
    # name the file so the reader can open it in their copy (once, if the text is its name).
    if text.strip("`") == str(where):
        return f"`{where}`"
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


HEADING = re.compile(r"^#{1,6}\s")


def plain_heading(line):
    """A heading without its `code` spans: Doxygen shows their markup, <tt>, as text in a
    heading (on the page and in the navigation); the code's characters stay, escaped where
    Markdown would take them for emphasis."""
    return re.sub(r"`([^`]*)`", lambda m: re.sub(r"([_*])", r"\\\1", m.group(1)), line)


def site_text(lines, source, chapters, type_names, strict=False):
    """Markdown lines of @p source as the site shows them: links rewritten for the site
    (rewrite_link, @p strict), no accidental links to API types, the figures quoted from the
    benchmark unmarked (lesson_figures.py); fenced code kept as written."""
    out, in_code = [], False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        if not in_code and HEADING.match(line):
            line = plain_heading(line)
        out.append(line if in_code else no_accidental_links(
            LINK.sub(lambda m: rewrite_link(m, source, chapters, strict=strict), lesson_figures.unmarked(line)),
            type_names))
    return out


def lesson_page(chapters, index, solutions, strict=False):
    chapter = chapters[index]
    if not chapter.lesson.is_file():
        fail(f"chapter {chapter.number} has no lesson: {chapter.lesson.relative_to(ROOT)} is missing")
    lines = chapter.lesson.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0].startswith("# "):
        fail(f"{chapter.lesson.relative_to(ROOT)} must start with its title, '# Chapter {chapter.number}: ...'")
    nav = navigation(chapters, index, solutions)
    type_names = api_type_names()
    page = [f"{plain_heading(lines[0].rstrip())} {{#{chapter.label}}}", "", nav, ""]
    page += site_text(lines[1:], chapter.lesson, chapters, type_names, strict)
    if solutions:
        page += ["", "## Reference solution", "",
                 f"Instructor edition: the reference solution is on the page @subpage {chapter.label}-solution."]
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


def front_page(chapters, solutions, strict=False):
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
    page += site_text(lines[1:], readme, chapters, api_type_names(), strict)
    # @ref, not @subpage: Doxygen 1.9.4's navigation tree leaves out the front page's
    # sub-pages, while top-level pages appear in it, in the order of their file names.
    page += ["", "## The chapters", ""]
    page += [f"- {c.link()}" + (f' (@ref {c.label}-solution "reference solution")' if solutions else "")
             for c in chapters]
    page += ["", "## Guides", ""]
    page += [f"- @ref {g.label} \"{g.title()}\": {g.blurb}" for g in GUIDES]
    page += ['- @ref search-lessons "Search the lessons": the text of every lesson and guide']
    page += ["", "The API reference of `common/` and of every chapter's header has sections of its own in "
             "the menu: **API reference** (the types) and **API headers** (the headers, their functions "
             "and constants)."]
    return "\n".join(page) + "\n"


def guide_page(guide, chapters, strict=False):
    """A page of docs/ with its label and the site's links."""
    if not guide.source.is_file():
        fail(f"the guide {guide.source.relative_to(ROOT)} is missing")
    lines = guide.source.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0].startswith("# "):
        fail(f"{guide.source.relative_to(ROOT)} must start with its title")
    title = plain_heading(re.sub(r"\s*\{#[\w-]+\}\s*$", "", lines[0].rstrip()))
    page = [f"{title} {{#{guide.label}}}", ""] + site_text(lines[1:], guide.source, chapters, api_type_names(), strict)
    return "\n".join(page) + "\n"


SEARCH_PAGE = """# Search the lessons {#search-lessons}

The search box at the top right finds the names of the API (functions, types, headers) and the
titles of the pages. This box searches the **text** of every lesson and guide: type a few words,
and every section that has all of them is listed, with the passage.

\\htmlonly[block]
<p><input id="lesson-search" type="search" placeholder="e.g. two barriers, halo, stride" size="40" autofocus></p>
<p id="lesson-search-summary"></p>
<ul id="lesson-search-results"></ul>
<script src="lesson_index.js"></script>
<script src="lesson_search.js"></script>
\\endhtmlonly
"""

MARKDOWN_NOISE = re.compile(r"[`*|]|^#+\s*|^\s*[-:| ]+$", re.MULTILINE)


def plain_text(lines):
    """Markdown as the reader sees it, for the search index: link text kept, images and
    emphasis marks dropped, code kept (names like __syncthreads are worth finding)."""
    text = lesson_figures.unmarked("\n".join(lines))
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", " ", text)
    text = MARKDOWN_NOISE.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


def search_sections(source, page):
    """[{page, page_title, section, text}] for each '## ' section of a markdown file."""
    lines = source.read_text(encoding="utf-8").splitlines()
    title = lines[0].lstrip("# ").strip()
    sections, heading, body, in_code = [], "", [], False
    for line in lines[1:]:
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        if not in_code and line.startswith("## "):
            sections.append((heading, body))
            heading, body = line[3:].strip(), []
        else:
            body.append(line)
    sections.append((heading, body))
    return [{"page": page, "page_title": title, "section": h, "text": plain_text(b)}
            for h, b in sections if plain_text(b)]


def search_index(chapters):
    """The lesson search's index, as the script lesson_index.js."""
    entries = search_sections(ROOT / "README.md", "index.html")
    for chapter in chapters:
        entries += search_sections(chapter.lesson, f"{chapter.label}.html")
    for guide in GUIDES:
        entries += search_sections(guide.source, f"{guide.label}.html")
    return "var LESSON_INDEX = " + json.dumps(entries, ensure_ascii=False, indent=0) + ";\n"


def write_pages(out, solutions, strict=False):
    """Every page of the site into @p out; @p strict refuses a link the site would lose
    (rewrite_link)."""
    out = pathlib.Path(out)
    chapters = chapter_pages()
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*.md"):
        stale.unlink()
    shutil.rmtree(out / "figures", ignore_errors=True)
    (out / "figures").mkdir()
    for chapter in chapters:
        for figure in chapter.figures():
            shutil.copyfile(figure, out / "figures" / chapter.figure_name(figure))
    (out / "mainpage.md").write_text(front_page(chapters, solutions, strict), encoding="utf-8")
    # Doxygen lists the pages in the order of their file names: the order of the course.
    for index, chapter in enumerate(chapters):
        prefix = f"{index + 1:03d}-{chapter.label}"
        (out / f"{prefix}-lesson.md").write_text(lesson_page(chapters, index, solutions, strict), encoding="utf-8")
        if solutions:
            (out / f"{prefix}-solution.md").write_text(solution_page(chapter, out.parent / "solutions"),
                                                       encoding="utf-8")
    for index, guide in enumerate(GUIDES):
        (out / f"{901 + index}-{guide.label}.md").write_text(guide_page(guide, chapters, strict), encoding="utf-8")
    (out / "999-search-lessons.md").write_text(SEARCH_PAGE, encoding="utf-8")
    (out / "lesson_index.js").write_text(search_index(chapters), encoding="utf-8")
    return 0
