"""The lessons' drawn figures (tools/tutorial/figures.py), for `make check`: each is valid SVG
with a title, says what its numbers make it say, and the committed files are current.

Run: python3 tests/figures.py (exit status 1 and the failures on stderr).
"""

import xml.etree.ElementTree as ET

from tool_checks import ROOT, check, finish  # noqa: E402 (puts the root on the path)
from tools.tutorial import figures  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


def texts(svg):
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


for name, draw in figures.FIGURES.items():
    svg = draw()
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as error:
        failures.append(f"{name}: not well-formed SVG: {error}")
        continue
    check(root.find(f"{SVG}title") is not None, f"{name}: no <title> for screen readers")
    committed = ROOT / name
    check(committed.is_file() and committed.read_text(encoding="utf-8") == svg,
          f"{name}: the committed file is not what figures.py draws (python3 -m tools.tutorial figures --write)")

steps = [t for t in texts(figures.shuffle_tree()) if t.startswith("offset ")]
check(steps == ["offset 16", "offset 8", "offset 4", "offset 2", "offset 1"], f"a warp's shuffle steps: {steps}")
steps = [t for t in texts(figures.shuffle_tree(8)) if t.startswith("offset ")]
check(steps == ["offset 4", "offset 2", "offset 1"], f"8 lanes' shuffle steps: {steps}")
check(any("2 sectors" in t for t in texts(figures.warp_sectors())), "a 16-wide block's warp reads 2 sectors of B")
check(any("4 sectors" in t for t in texts(figures.warp_sectors(32))), "a 32-wide block's warp reads 4 sectors of B")
counts = [t for t in texts(figures.transpose_sectors()) if t.endswith(" sectors")]
check(counts == ["4 sectors", "32 sectors", "4 sectors", "4 sectors"], f"chapter 5's sectors per request: {counts}")
counts = [t for t in texts(figures.transpose_sectors(8191, 8193, 1)) if t.endswith(" sectors")]
check(counts == ["5 sectors", "32 sectors", "5 sectors", "5 sectors"], f"8191 x 8193, row 1's sectors: {counts}")
check(all(a // 32 == i // 8 for i, a in enumerate(figures.transpose_accesses()[0][2])), "5a's load: lane i at word i")
check(any("every wait returns" in t for t in texts(figures.mbarrier_phase())), "the barrier's phase completes")

finish("tests/figures.py", f"the {len(figures.FIGURES)} drawn figures are well formed and current")
