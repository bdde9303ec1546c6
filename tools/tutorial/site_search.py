"""Check that the built site's two searches find what they should: `make check` runs it.

- Doxygen's search box (search/*.js) must know each chapter's API header (naive_gemm.h,
  tiled_gemm.h, ...) and the library's DeviceBuffer.
- The lesson search (search-lessons.html, docs/lesson_search.js over lesson_index.js) must
  have every lesson and guide in its index, and, run in headless Chromium when it is
  installed, a query for a chapter's API name must list that chapter's lesson.

Usage: python3 -m tools.tutorial site-search SITE_DIR   (exit status 1 with a report if not)
"""
import json
import pathlib
import re
import shutil
import subprocess
import urllib.parse

from . import docs

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")


def doxygen_search_names(site):
    """Every name in Doxygen's search index, decoded (Doxygen writes '_' as '_5f')."""
    names = set()
    for path in (site / "search").glob("all_*.js"):
        for encoded in re.findall(r"\['([^']+)'", path.read_text(encoding="utf-8")):
            names.add(re.sub(r"_([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), encoded))
    return names


def lesson_index(site):
    text = (site / "lesson_index.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("=") + 1:].rstrip().rstrip(";"))


def run_lesson_search(browser, site, query):
    """The pages the lesson search lists for `query`, as the browser shows them."""
    url = (site / "search-lessons.html").resolve().as_uri() + "?q=" + urllib.parse.quote(query)
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                          "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    return re.findall(r'class="lesson-search-hit"><a href="([^"]+)"', dom)


def check(site):
    site = pathlib.Path(site)
    problems, notes = [], []
    chapters = docs.chapter_pages()
    names = doxygen_search_names(site)
    api = {chapter: next((header.stem for header in sorted((docs.ROOT / "chapters" / chapter.folder).glob("*.h"))
                          if not header.stem.endswith("_reference")), None) for chapter in chapters}
    for chapter, name in api.items():
        if name and f"{name}.h" not in names:
            problems.append(f"Doxygen's search does not know {name}.h, chapter {chapter.number}'s API")
    if "DeviceBuffer" not in names:
        problems.append("Doxygen's search does not know DeviceBuffer (common/device_buffer.h)")
    try:
        pages = {entry["page"] for entry in lesson_index(site)}
    except (OSError, ValueError) as error:
        return report([f"the lesson search's index is missing or unreadable: {error}"], notes)
    wanted = [f"{c.label}.html" for c in chapters] + [f"{g.label}.html" for g in docs.GUIDES]
    problems += [f"the lesson search's index has no section of {page}" for page in wanted if page not in pages]
    browser = next((shutil.which(b) for b in CHROMIUM if shutil.which(b)), None)
    if browser is None:
        notes.append("Chromium is not installed: the lesson search was not run in a browser")
    else:
        for chapter, name in api.items():
            if name is None:
                continue
            hits = run_lesson_search(browser, site, name)
            if f"{chapter.label}.html" not in hits:
                problems.append(f"the lesson search for '{name}' does not list chapter {chapter.number}'s lesson "
                                f"(it lists: {', '.join(hits) or 'nothing'})")
    return report(problems, notes)


def report(problems, notes):
    for note in notes:
        print(f"note: {note}")
    for problem in problems:
        print(problem)
    return 1 if problems else 0
