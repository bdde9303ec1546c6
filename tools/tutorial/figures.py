"""Lesson figures drawn from what they show, so that they stay true when it changes.

  python3 -m tools.tutorial figures           (make check) every figure below is what this
                                              module draws
  python3 -m tools.tutorial figures --write   draw them into the chapters' figures/ folders

A figure here is a function of a few numbers (a warp's 32 lanes, the offsets of a shuffle
reduction), written as plain SVG like the lessons' other figures. The committed file is what
GitHub and the course site show; the check fails when it differs from what the function
draws now, as `skeletons` does for the students' files.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .course import ROOT

WARP = 32


def _text(x, y, text, css="", anchor="middle"):
    return f'  <text x="{x:g}" y="{y:g}" text-anchor="{anchor}"{f" class={chr(34)}{css}{chr(34)}" if css else ""}>{text}</text>'


def shuffle_tree(lanes: int = WARP) -> str:
    """A warp sum by `__shfl_down_sync`: one row of lanes per step, offsets lanes/2 down to 1.
    At the step with offset o, lane l adds the value of lane l + o (a lane past the warp's end
    gets its own value back, and what it adds no longer matters). The lanes whose values reach
    lane 0's sum, and the arrows that carry them, are drawn dark; the rest faint."""
    offsets = []
    offset = lanes // 2
    while offset:
        offsets.append(offset)
        offset //= 2
    cell, gap, left, top, row_height = 24, 2, 150, 70, 74
    width = left + lanes * (cell + gap) + 20
    height = top + len(offsets) * row_height + cell + 60
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}"',
           '     font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12" fill="#222">',
           f"  <title>A warp's sum by shuffles: {len(offsets)} steps, offsets {', '.join(map(str, offsets))}; "
           "after each step half as many lanes hold partial sums that reach lane 0</title>",
           "  <style>",
           "    .lane  { font-size: 9px; fill: #333; }",
           "    .head  { font-weight: bold; font-size: 15px; }",
           "    .step  { font-size: 12px; fill: #333; }",
           "    .note  { font-size: 11px; fill: #555; }",
           "  </style>",
           '  <defs><marker id="arrow" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="5" markerHeight="5" orient="auto">'
           '<path d="M0,0 L6,3 L0,6 z" fill="#1f5fa8"/></marker></defs>',
           _text(width / 2, 24, f"warp_sum: {len(offsets)} shuffle steps add a warp's {lanes} values in lane 0", "head"),
           _text(width / 2, 44, "value += __shfl_down_sync(mask, value, offset): lane l adds the value lane l + offset held "
                 "before the step", "note")]

    def x_of(lane):
        return left + lane * (cell + gap)

    def row_y(row):
        return top + row * row_height

    def boxes(row, live, label, sublabel):
        y = row_y(row)
        out.append(_text(left - 12, y + 11, label, "step", "end"))
        out.append(_text(left - 12, y + 25, sublabel, "note", "end"))
        for lane in range(lanes):
            on = lane < live
            fill, stroke = ("#cfe0f5", "#1f5fa8") if on else ("#f4f4f4", "#c8c8c8")
            out.append(f'  <rect x="{x_of(lane)}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="{stroke}"/>')
            out.append(_text(x_of(lane) + cell / 2, y + 15, str(lane), "lane"))

    boxes(0, lanes, "start", "1 value a lane")
    live = lanes
    for row, offset in enumerate(offsets, start=1):
        live //= 2
        y_from, y_to = row_y(row - 1) + cell, row_y(row)
        for lane in range(lanes - offset):
            on = lane < live
            x1, x2 = x_of(lane + offset) + cell / 2, x_of(lane) + cell / 2
            style = 'stroke="#1f5fa8" stroke-width="1.2" marker-end="url(#arrow)"' if on else 'stroke="#d6d6d6" stroke-width="0.8"'
            out.append(f'  <line x1="{x1:g}" y1="{y_from}" x2="{x2:g}" y2="{y_to - 2}" {style}/>')
        boxes(row, live, f"offset {offset}", f"{lanes // live} values a lane")
    bottom = row_y(len(offsets)) + cell
    out.append(_text(left, bottom + 22, "Dark: the lanes whose sums reach lane 0, and the values they add.", "note", "start"))
    out.append(_text(left, bottom + 38, "Faint: lanes that add too (every lane takes part in every step), but whose sums "
                     "no later step reads.", "note", "start"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# Each figure: the file (relative to the repository root) and the function that draws it.
FIGURES = {
    "chapters/06-reduction/figures/shuffle-tree.svg": shuffle_tree,
}


def check(args) -> int:
    stale = []
    for name, draw in FIGURES.items():
        path = ROOT / name
        drawn = draw()
        if args.write:
            path.write_text(drawn, encoding="utf-8")
            print(f"wrote {name}")
        elif not path.is_file() or path.read_text(encoding="utf-8") != drawn:
            stale.append(name)
    for name in stale:
        print(f"figures: {name} is not what tools/tutorial/figures.py draws: run python3 -m tools.tutorial figures --write",
              file=sys.stderr)
    if not args.write and not stale:
        print(f"figures: the {len(FIGURES)} drawn figures are up to date")
    return 1 if stale else 0
