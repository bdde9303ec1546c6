"""Check, in a browser, that the built site's tables and figures fit the page: `make check`
runs it where Chromium is installed (it says so, and checks nothing, where it is not).

- Each lesson and guide is opened in headless Chromium 1280 pixels wide, the width of a
  laptop's browser window. A table, image or figure whose right edge lies past the right
  edge of the page (or of the box around it that clips it) is reported with how far: the
  reader would have to scroll sideways, or would not see its last column at all.
- Each SVG figure of the site is opened on its own, and every text of it must lie inside
  the figure's own box: a label past its edge is cut off wherever the figure is shown.
- A screenshot of the results page, whose tables are the widest, is kept in SHOTS (default
  build/check/site-fit/), for a person to look at.

The measurements are the browser's own layout (getBoundingClientRect), taken by a script in
a page that opens every page and figure in a frame of its own (one browser start); it lies
in the site's folder while it runs, so that each page's styles and figures load as they would.

Usage: python3 -m tools.tutorial site-fit SITE_DIR [--shots DIR]   (exit status 1 with a report)
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

from . import docs

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
WIDTH = 1280
REPORT_ID = "site-fit-report"
NOT_INSTALLED = "note: Chromium is not installed: the pages' fit was not measured in a browser"

# One page that opens every page and figure in a frame of its own, WIDTH pixels wide, and
# measures each once all have loaded: one browser start for the whole site.
HARNESS = r"""<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
%(frames)s
<script>
function measurePage(doc) {
  var win = doc.defaultView, page = doc.documentElement.clientWidth, found = [];
  doc.querySelectorAll('table, div.image img, div.image object, svg, img').forEach(function (element) {
    var box = element.getBoundingClientRect();
    if (box.width === 0 || element.closest('#side-nav, #top, .navpath')) return;
    var right = page;
    for (var clip = element.parentElement; clip; clip = clip.parentElement) {
      if (win.getComputedStyle(clip).overflowX !== 'visible') right = Math.min(right, clip.getBoundingClientRect().right);
    }
    if (box.right > right + 1) {
      var what = element.tagName.toLowerCase() === 'table'
        ? 'the table whose first row begins "' + (element.rows[0] ? element.rows[0].innerText : '').replace(/\s+/g, ' ').slice(0, 60) + '"'
        : 'the figure ' + (element.getAttribute('src') || element.getAttribute('data') || element.id || element.tagName);
      found.push(what + ' reaches ' + Math.round(box.right - right) + " px past the page's right edge (" +
                 Math.round(box.width) + ' px wide, ' + Math.round(right - Math.max(box.left, 0)) + ' px of room)');
    }
  });
  var tag = doc.body.innerText.match(/<\/?(tt|code|em|b|i|strong)>/);
  if (tag) found.push("shows the HTML tag " + tag[0] + " as text (a title with markup the navigation cannot render?)");
  return found;
}
function measureFigure(doc) {
  var frame = doc.documentElement.getBoundingClientRect(), found = [];
  Array.prototype.forEach.call(doc.querySelectorAll('text'), function (text) {
    var box = text.getBoundingClientRect();
    var out = Math.max(frame.left - box.left, box.right - frame.right, frame.top - box.top, box.bottom - frame.bottom);
    if (box.width > 0 && out > 0.5) found.push('the text "' + text.textContent.slice(0, 60) + '" reaches ' + Math.round(out) + " px past the figure's edge");
  });
  // Two texts drawn over each other cannot be read: boxes that overlap by more than 2 px both ways.
  var texts = Array.prototype.filter.call(doc.querySelectorAll('text'), function (t) { return t.getBoundingClientRect().width > 0; });
  for (var i = 0; i < texts.length; i++) {
    for (var j = i + 1; j < texts.length; j++) {
      var a = texts[i].getBoundingClientRect(), b = texts[j].getBoundingClientRect();
      var across = Math.min(a.right, b.right) - Math.max(a.left, b.left), down = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (across > 2 && down > 2) found.push('the texts "' + texts[i].textContent.slice(0, 40) + '" and "' + texts[j].textContent.slice(0, 40) + '" overlap');
    }
  }
  return found;
}
window.addEventListener('load', function () {
  var report = {};
  document.querySelectorAll('iframe').forEach(function (frame) {
    var doc = frame.contentDocument, name = frame.getAttribute('src');
    report[name] = !doc || !doc.documentElement ? null
      : frame.className === 'figure' ? measureFigure(doc) : measurePage(doc);
  });
  var out = document.createElement('pre');
  out.id = '%(report_id)s';
  out.textContent = JSON.stringify(report);
  document.body.appendChild(out);
});
</script></body></html>
"""


def browser() -> str | None:
    """Chromium's path, or None where it is not installed (site-search uses it too)."""
    return next((shutil.which(b) for b in CHROMIUM if shutil.which(b)), None)


def run_browser(chromium: str, *arguments: str) -> str:
    command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--hide-scrollbars", "--allow-file-access-from-files", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=300).stdout


def run_page(chromium: str, site: Path, name: str, page: str, report_id: str):
    """Open @p page (HTML whose script writes JSON into the element of id @p report_id) as
    site/@p name, beside the site's pages so that its frames open them, once its scripts and
    frames are done; the JSON, or None when the script wrote none. site-search uses it too."""
    path = site / name
    path.write_text(page, encoding="utf-8")
    try:
        dom = run_browser(chromium, "--virtual-time-budget=10000", "--dump-dom", path.resolve().as_uri())
    finally:
        path.unlink(missing_ok=True)
    match = re.search(rf'id="{report_id}"[^>]*>(.*?)</', dom, re.S)
    return json.loads(html.unescape(match.group(1))) if match else None


def pages_of(site: Path) -> list[Path]:
    """The lessons and the guides: the pages with tables and figures."""
    names = [f"{c.label}.html" for c in docs.chapter_pages()] + [f"{g.label}.html" for g in docs.GUIDES]
    return [site / name for name in names if (site / name).is_file()]


def measure(chromium: str, site: Path, pages: list[Path], figures: list[Path]) -> list[str]:
    """What does not fit, of @p pages and @p figures (files under @p site), one line each."""
    frames = [f'<iframe class="page" src="{p.relative_to(site)}" width="{WIDTH}" height="900"></iframe>' for p in pages]
    frames += [f'<iframe class="figure" src="{p.relative_to(site)}" width="{WIDTH * 2}" height="1600"></iframe>' for p in figures]
    found = run_page(chromium, site, "site-fit-harness.html",
                     HARNESS % {"frames": "\n".join(frames), "report_id": REPORT_ID}, REPORT_ID)
    if found is None:
        return ["the browser did not run the measuring script (site-fit-harness.html)"]
    problems = []
    for name, items in found.items():
        if items is None:
            problems.append(f"{name}: the browser could not open it")
        problems += [f"{name}{f', {WIDTH} px wide' if name.endswith('.html') else ''}: {item}" for item in items or []]
    return problems


def check(site, shots="build/check/site-fit") -> int:
    site, shots = Path(site), Path(shots)
    chromium = browser()
    if chromium is None:
        print(NOT_INSTALLED)
        return 0
    pages = pages_of(site)
    figures = sorted(p for p in site.rglob("*.svg") if "search" not in p.relative_to(site).parts)
    problems = measure(chromium, site, pages, figures)
    # What a reader sees first of the page with the widest tables, for a person to look at.
    shots.mkdir(parents=True, exist_ok=True)
    for page in pages:
        if page.stem == "results":
            run_browser(chromium, f"--window-size={WIDTH},1600", f"--screenshot={shots.resolve() / 'results.png'}",
                        page.resolve().as_uri())
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{len(pages)} pages {WIDTH} px wide and {len(figures)} SVG figures measured in Chromium "
              f"(a screenshot of the results page: {shots}/results.png)")
    return 1 if problems else 0


def run(args) -> int:
    return check(args.site, args.shots)
