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
import urllib.parse

from . import docs, site_fit



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


# Runs the search page once per query, each in a frame of its own, and reports the hits of
# each once all have loaded: one browser start for every query.
SEARCHES = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
%s
<script>
window.addEventListener('load', function () {
  var report = {};
  document.querySelectorAll('iframe').forEach(function (frame) {
    var doc = frame.contentDocument;
    report[frame.getAttribute('data-query')] = doc ? Array.prototype.map.call(
      doc.querySelectorAll('.lesson-search-hit > a'), function (a) { return a.getAttribute('href'); }) : null;
  });
  var out = document.createElement('pre');
  out.id = 'lesson-search-report';
  out.textContent = JSON.stringify(report);
  document.body.appendChild(out);
});
</script></body></html>
"""


def run_lesson_searches(browser, site, queries):
    """{query: the pages the lesson search lists for it, as the browser shows them}."""
    frames = "\n".join(f'<iframe data-query="{q}" src="search-lessons.html?q={urllib.parse.quote(q)}"></iframe>'
                       for q in queries)
    return site_fit.run_page(browser, site, "lesson-search-check.html", SEARCHES % frames, "lesson-search-report") or {}


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
    browser = site_fit.browser()
    if browser is None:
        notes.append("Chromium is not installed: the lesson search was not run in a browser")
    else:
        results = run_lesson_searches(browser, site, [name for name in api.values() if name])
        for chapter, name in api.items():
            if name is None:
                continue
            hits = results.get(name) or []
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
