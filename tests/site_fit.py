"""The site's fit check (tools/tutorial/site_fit.py) finds what it is for: a table wider than
the page, a figure's text past its edge, two texts drawn over each other, markup shown as
text; and nothing on a page and a figure that fit. Needs Chromium: without it, exit status 2
and a line saying so (make check then reports the check as skipped)."""

import sys
import tempfile
from pathlib import Path

from tool_checks import check, finish
from tools.tutorial import site_fit

chromium = site_fit.browser()
if chromium is None:
    print("Chromium is not installed: the fit check's planted defects were not tried")
    sys.exit(2)

with tempfile.TemporaryDirectory() as scratch:
    site = Path(scratch)
    cells = "".join(f"<td>column {i} of a wide table</td>" for i in range(40))
    (site / "wide.html").write_text(f"<html><body><table><tr>{cells}</tr></table></body></html>")
    (site / "fits.html").write_text("<html><body><table><tr><td>a</td><td>b</td></tr></table>"
                                    "<img src='fits.svg' style='max-width: 100%'></body></html>")
    (site / "markup.html").write_text("<html><body><h1>Seeing it: &lt;tt&gt;make profile&lt;/tt&gt;</h1></body></html>")
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100">{}</svg>'
    (site / "cut.svg").write_text(svg.format('<text x="150" y="50" font-size="14">a label past the right edge</text>'))
    (site / "overlap.svg").write_text(svg.format('<text x="10" y="50" font-size="14">first label</text>'
                                                 '<text x="30" y="52" font-size="14">second label</text>'))
    (site / "fits.svg").write_text(svg.format('<text x="10" y="30" font-size="14">one</text>'
                                              '<text x="10" y="70" font-size="14">two</text>'))
    pages = [site / n for n in ("wide.html", "fits.html", "markup.html")]
    figures = [site / n for n in ("cut.svg", "overlap.svg", "fits.svg")]
    problems = site_fit.measure(chromium, site, pages, figures)
    text = "\n".join(problems)
    check(any(p.startswith("wide.html, 1280 px wide: the table whose first row begins \"column 0")
                      and "px past the page's right edge" in p for p in problems),
                  "a table wider than the page is named, with how far it reaches past the edge", text)
    check(any(p.startswith("cut.svg: the text \"a label past the right edge\" reaches") for p in problems),
                  "a figure's text past its edge is named", text)
    check(any(p.startswith("overlap.svg: the texts \"first label\" and \"second label\" overlap") for p in problems),
                  "two texts drawn over each other are named", text)
    check(any(p.startswith("markup.html") and "<tt>" in p for p in problems),
                  "markup shown as text is named", text)
    check(not any(p.startswith(("fits.html", "fits.svg")) for p in problems),
                  "a page and a figure that fit have nothing said of them", text)
    check(len(problems) == 4, "nothing else is said", text)
finish("tests/site_fit.py", "the fit check names a wide table, a cut label, overlapping texts and markup shown as text, and nothing that fits")
