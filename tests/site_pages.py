"""What the course site's pages may hold (tools/tutorial/docs.py), for `make check`:

- links: a lesson's link to a guide of docs/ becomes the guide's page; under the strict build
  (make docs DOCS_STRICT=1, as make check builds the site) a link to a page of docs/ that is
  not a guide is refused, naming the lesson and the link, where the student's build keeps
  its text; every page of the tree passes the strict build, and would not without
  docs/profile.md among the guides (the front page and lessons link to it);
- issue numbers: no lesson, hint or guide names one of the project's issues, but the guide
  for maintainers, which keeps the history; a planted one is found, and a warp that "issues
  4 loads" is not one.

Run: python3 tests/site_pages.py (exit status 1 and the failures on stderr).
"""

import tempfile
from pathlib import Path

from tool_checks import ROOT, check, finish  # noqa: E402 (puts the root on the path)
from tools.tutorial import docs  # noqa: E402
from tools.tutorial.course import Refusal, read_registry  # noqa: E402

pages = docs.chapter_pages()
chapter9 = next(p for p in pages if p.number == "9")


def rewritten(line, guides=docs.GUIDES, strict=False):
    """@p line of chapter 9's lesson as the site shows it, or the refusal's message."""
    try:
        return docs.LINK.sub(lambda m: docs.rewrite_link(m, chapter9.lesson, pages, guides, strict), line)
    except Refusal as refusal:
        return f"refused: {refusal}"


# ---- Links to docs/ ---------------------------------------------------------------------------
line = "([the profiler's notes](../../docs/profile.md), \"Where it differs from Nsight Compute\")"
check(rewritten(line, strict=True) == "([the profiler's notes](@ref profile), \"Where it differs from Nsight Compute\")",
      "a lesson's link to a guide becomes the guide's page", rewritten(line, strict=True))

without_profile = [g for g in docs.GUIDES if g.source.name != "profile.md"]
check(rewritten(line, without_profile) == "(the profiler's notes (`docs/profile.md`), \"Where it differs from Nsight "
                                          "Compute\")",
      "the student's build keeps a link to a page the site lacks as text", rewritten(line, without_profile))
expected = ("refused: make docs: chapters/09-histogram/README.md: the link [the profiler's notes](../../docs/profile.md) "
            "leads to docs/profile.md, which is not a page of the site (GUIDES in tools/tutorial/docs.py), so the site "
            "would show it as plain text: add the page to GUIDES, or link elsewhere")
check(rewritten(line, without_profile, strict=True) == expected,
      "the strict build refuses a link to a page of docs/ the site lacks, naming the lesson and the link",
      rewritten(line, without_profile, strict=True))
# Other files of the repository have no page, and are meant to be opened in the reader's copy.
source = "the kernels are in [histogram.cu](histogram.cu) and the charts' data in [a CSV](../../docs/results/x.csv)"
check("refused" not in rewritten(source, strict=True),
      "a link to a source file or to data is no page, strict or not", rewritten(source, strict=True))

# The tree: every page writes under the strict build; without profile.md among the guides,
# the first page that links to it (the front page, then the lessons) is refused.
with tempfile.TemporaryDirectory() as folder:
    try:
        docs.write_pages(Path(folder) / "pages", True, strict=True)  # the solutions' copies beside pages/
    except Refusal as refusal:
        check(False, "every lesson and guide of the tree passes the strict build", refusal)
    guides = docs.GUIDES
    docs.GUIDES = without_profile
    try:
        docs.write_pages(Path(folder) / "pages", False, strict=True)
        check(False, "without docs/profile.md among the guides, the lessons' links to it should be refused")
    except Refusal as refusal:
        check("profile.md) leads to docs/profile.md, which is not a page of the site" in str(refusal),
              "the refusal names the page and its link to docs/profile.md", refusal)
    finally:
        docs.GUIDES = guides

# ---- Issue numbers ------------------------------------------------------------------------------
texts = docs.texts_without_history(read_registry())
names = {str(p.relative_to(ROOT)) for p in texts}
check({"docs/profile.md", "docs/results.md", "docs/cpu-backend.md", "docs/instructors.md",
       "chapters/09-histogram/README.md", "chapters/09-histogram/hints.md", "README.md"} <= names,
      "the lessons, their hints, the front page and the site's guides are read", sorted(names))
check("docs/maintainers.md" not in names, "the guide for maintainers keeps the history, issues named", sorted(names))
check(docs.issue_numbers(texts) == [], "no lesson, hint or guide of the tree names an issue", docs.issue_numbers(texts))

with tempfile.TemporaryDirectory() as folder:
    planted = Path(folder) / "guide.md"
    planted.write_text("A warp issues 4 loads a k.\n"
                       "23% off (issue 34's run on an H200).\n"
                       "## Going further: the goals of issues 14, 20 and 22\n"
                       "See Issue #5.\n"
                       "The tool issues 2 requests per sector.\n")
    found = [line.split(": ", 1)[1] for line in docs.issue_numbers([planted])]
    check(found == ["23% off (issue 34's run on an H200).", "## Going further: the goals of issues 14, 20 and 22",
                    "See Issue #5."],
          "issue numbers are found, and a verb followed by a count is not", found)

finish("tests/site_pages.py", "links to docs/ stay links on the site; no lesson, hint or guide names an issue")
