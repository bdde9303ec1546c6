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


# The classes the figures' text uses.
_STYLES = {"lane": "font-size: 9px; fill: #333;", "head": "font-weight: bold; font-size: 15px;",
           "step": "font-size: 12px; fill: #333;", "label": "font-size: 12px; fill: #333;",
           "note": "font-size: 11px; fill: #555;"}


def _svg_start(width, height, title: str, classes: tuple, **css) -> list:
    """The opening lines of a figure: the svg element, its title, and the style of the text
    classes it uses (each as in _STYLES, unless given in `css`)."""
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}"',
            '     font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12" fill="#222">',
            f"  <title>{title}</title>", "  <style>",
            *[f"    .{name:<6}{{ {css.get(name, _STYLES[name])} }}" for name in classes], "  </style>"]


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
    out = _svg_start(width, height,
                     f"A warp's sum by shuffles: {len(offsets)} steps, offsets {', '.join(map(str, offsets))}; "
                     "after each step half as many lanes hold partial sums that reach lane 0",
                     ("lane", "head", "step", "note")) + [
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


def warp_sectors(block_x: int = 16, sector_floats: int = 8) -> str:
    """Chapter 1's first warp of a block_x-wide block: the lanes, numbered x + y * block_x,
    fill rows of block_x threads; in one step k they read B(k, col) for their columns, which
    both rows share, and A(row, k) for their rows, one address per row. Each load request
    touches the 32-byte sectors (sector_floats floats) that its lanes' addresses fall in."""
    rows = WARP // block_x
    cell, gap = 26, 2
    left, top = 230, 78
    floats = 2 * block_x if block_x < WARP else WARP
    width = left + max(block_x, floats) * (cell + gap) + 40
    lane_rows_y = [top + r * (cell + 8) for r in range(rows)]
    b_y = lane_rows_y[-1] + cell + 90
    a_y = b_y + cell + 90
    height = a_y + rows * (cell + 22) + 70
    sector_count = floats // sector_floats
    b_sectors = block_x // sector_floats
    out = _svg_start(width, height,
                     f"A warp of a {block_x}x{block_x} block is {rows} rows of {block_x} threads; its load of B touches "
                     f"{b_sectors} sectors, its load of A {rows}",
                     ("lane", "head", "label", "note")) + [
           _text(width / 2, 24, f"One step k of chapter 1's kernel: warp 0 of a {block_x} × {block_x} block, and the "
                 "32-byte sectors it touches", "head"),
           _text(width / 2, 44, f"a block's threads are numbered x + {block_x}·y and each run of 32 is a warp: "
                 f"this warp is {rows} rows of {block_x} threads", "note")]

    def x_of(i):
        return left + i * (cell + gap)

    for r, y in enumerate(lane_rows_y):
        out.append(_text(left - 12, y + 17, f"lanes {r * block_x}–{r * block_x + block_x - 1}, threadIdx.y = {r}",
                         "label", "end"))
        for x in range(block_x):
            out.append(f'  <rect x="{x_of(x)}" y="{y}" width="{cell}" height="{cell}" fill="#cfe0f5" stroke="#1f5fa8"/>')
            out.append(_text(x_of(x) + cell / 2, y + 17, str(x + r * block_x), "lane"))

    # Row k of B: the block's columns and the next block's, in sectors.
    out.append(_text(left - 12, b_y + 17, "row k of B", "label", "end"))
    out.append(_text(left - 12, b_y + 32, "(this block's columns", "note", "end"))
    out.append(_text(left - 12, b_y + 46, "and the next block's)", "note", "end"))
    for i in range(floats):
        on = i < block_x
        fill = "#fde2b8" if on else "#f4f4f4"
        out.append(f'  <rect x="{x_of(i)}" y="{b_y}" width="{cell}" height="{cell}" fill="{fill}" stroke="#b0b0b0"/>')
    for s in range(sector_count):
        on = s < b_sectors
        x0 = x_of(s * sector_floats) - 1
        w = sector_floats * (cell + gap)
        stroke = "#c76a00" if on else "#c8c8c8"
        out.append(f'  <rect x="{x0}" y="{b_y - 3}" width="{w - gap + 2}" height="{cell + 6}" fill="none" '
                   f'stroke="{stroke}" stroke-width="{2 if on else 1}"/>')
        out.append(_text(x0 + w / 2, b_y + cell + 18, f"sector {s}" + (" (read)" if on else ""), "note"))
    for r, y in enumerate(lane_rows_y):
        for x in range(block_x):
            out.append(f'  <line x1="{x_of(x) + cell / 2:g}" y1="{y + cell}" x2="{x_of(x) + cell / 2:g}" y2="{b_y - 4}" '
                       f'stroke="#1f5fa8" stroke-width="0.7" stroke-opacity="{0.8 if r == rows - 1 else 0.35}"/>')
    out.append(_text(left, b_y + cell + 42, f"B(k, col): {block_x} consecutive floats, the same for every row of the "
                     f"warp: {b_sectors} sectors", "label", "start"))

    # Column k of A: one float per row of the warp, K floats apart.
    out.append(_text(left - 12, a_y + 2, "A(row, k), one per row:", "label", "end"))
    for r in range(rows):
        y = a_y + r * (cell + 22)
        out.append(_text(left - 12, y + 17, f"row {r} of the block's rows of A", "note", "end"))
        for i in range(sector_floats):
            on = i == 0
            out.append(f'  <rect x="{x_of(i)}" y="{y}" width="{cell}" height="{cell}" '
                       f'fill="{"#fde2b8" if on else "#f4f4f4"}" stroke="#b0b0b0"/>')
        out.append(f'  <rect x="{x_of(0) - 1}" y="{y - 3}" width="{sector_floats * (cell + gap) - gap + 2}" '
                   f'height="{cell + 6}" fill="none" stroke="#c76a00" stroke-width="2"/>')
        out.append(_text(x_of(sector_floats) + 8, y + 17, "one sector: every lane of this row reads the same float "
                         "(a broadcast); the next row's is K floats further on", "note", "start"))
    out.append(_text(left, height - 18, f"Each load request of the warp touches {b_sectors} sectors of B or {rows} of A: "
                     "the profile table's 2 sectors per load request.", "label", "start"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def mbarrier_phase(threads: int = 1024, tile_bytes: int = 32 * 32 * 4) -> str:
    """One phase of 8c's barrier, `filled`, over time: the arrivals it still waits for and the
    bytes it still expects. It opens only when both reach zero: the threads' arrivals alone do
    not open it while the Tensor Memory Accelerator's bytes are still on their way."""
    width, height = 980, 470
    left, right = 150, 860
    panels = [("arrivals pending", threads, 90), ("bytes pending", 2 * tile_bytes, 270)]
    panel_h = 120
    # (time, arrivals pending, bytes pending), time from 0 to 10: a schematic, not a measurement.
    issue, others_done, a_lands, b_lands = 1.0, 4.0, 3.2, 6.5
    arrival_times = [issue + (others_done - issue) * i / 8 for i in range(1, 9)]  # the others, in 8 groups

    def arrivals(t):
        if t < issue:
            return threads
        arrived = sum(1 for a in arrival_times if a <= t)
        return threads - 1 - (threads - 1) * arrived // 8

    def pending_bytes(t):
        return 0 if t < issue else 2 * tile_bytes if t < a_lands else tile_bytes if t < b_lands else 0

    times = sorted({0.0, issue, a_lands, b_lands, *arrival_times})
    steps = [(t, arrivals(t), pending_bytes(t)) for t in times]

    def x_of(t):
        return left + (right - left) * t / 10

    out = _svg_start(width, height,
                     "One phase of 8c's barrier: the arrivals it waits for and the bytes it expects; it opens when "
                     "both are zero",
                     ("head", "label", "note")) + [
           _text(width / 2, 24, "One phase of 8c's barrier (filled[s]): it opens when every thread has arrived "
                 "and every expected byte has landed", "head"),
           _text(width / 2, 44, f"a schematic of one phase, {threads} threads, two {tile_bytes}-byte tiles; "
                 "time runs to the right", "note")]
    for index, (name, top_value, y0) in enumerate(panels):
        out.append(f'  <line x1="{left}" y1="{y0 + panel_h}" x2="{right}" y2="{y0 + panel_h}" stroke="#888"/>')
        out.append(f'  <line x1="{left}" y1="{y0}" x2="{left}" y2="{y0 + panel_h}" stroke="#888"/>')
        out.append(_text(left - 10, y0 + panel_h / 2, name, "label", "end"))
        out.append(_text(left - 10, y0 + 10, str(top_value), "note", "end"))
        out.append(_text(left - 10, y0 + panel_h, "0", "note", "end"))
        points = []
        for n, step in enumerate(steps):
            value = step[1 + index]
            y = y0 + panel_h - panel_h * value / top_value
            if points:
                points.append(f"{x_of(step[0]):.1f},{points[-1].split(',')[1]}")
            points.append(f"{x_of(step[0]):.1f},{y:.1f}")
        points.append(f"{x_of(10):.1f},{points[-1].split(',')[1]}")
        out.append(f'  <polyline points="{" ".join(points)}" fill="none" stroke="#1f5fa8" stroke-width="2"/>')
    events = [(issue, "the issuer starts both tensor copies and arrives, expecting their bytes (barrier_arrive_tx)"),
              (a_lands, "A's tile lands: its bytes count down"),
              (others_done, "the last thread arrives, but the bytes still hold the phase"),
              (b_lands, "B's tile lands: the phase completes, every wait returns")]
    for n, (t, text) in enumerate(events):
        x = x_of(t)
        y = 408 + 15 * n
        out.append(f'  <line x1="{x:.1f}" y1="80" x2="{x:.1f}" y2="{y - 4}" stroke="#c76a00" '
                   'stroke-dasharray="4 3"/>')
        out.append(_text(x + 4, y, text, "note", "start"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def warp_tiles(BM: int = 128, BN: int = 128, WM: int = 64, WN: int = 32, WN_ITER: int = 2,
               TM: int = 8, TN: int = 4) -> str:
    """7d's tiling, as register_tiled_gemm.cu computes it: the block's BM x BN tile in warp
    tiles of WM x WN (warp w at row w / (BN / WN), column w % (BN / WN)); a warp tile in
    WN_ITER sub-tiles side by side, over each of which the 32 lanes lay a grid of TM x TN
    blocks, lane l at block row l / (sub-tile width / TN), column l % (...); and the banks of
    the row of B_tile that a warp's float4 reads touch at one k."""
    warps_across = BN // WN
    warps = (BM // WM) * warps_across
    sub_n = WN // WN_ITER
    wm_iter = WM * WN // (WARP * TM * TN * WN_ITER)  # sub-tiles along M
    sub_m = WM // wm_iter
    lanes_across = sub_n // TN
    width, height = 1300, 600
    out = _svg_start(width, height,
                     f"7d's tiles: a {BM}x{BN} block tile in {warps} warp tiles of {WM}x{WN}; a warp tile in {WN_ITER} "
                     f"sub-tiles, each a grid of the 32 lanes' {TM}x{TN} blocks; the banks of B a warp reads",
                     ("head", "label", "note", "lane"), lane="font-size: 10px; fill: #1f3f68;") + [
           _text(width / 2, 24, f"7d: block tile, warp tiles, and each lane's {TM} × {TN} block of C", "head")]

    # 1. The block tile and its warp tiles.
    x0, y0, scale = 30, 80, 240 / max(BM, BN)
    out.append(_text(x0, y0 - 12, f"the block's {BM} × {BN} tile of C: {warps} warps", "label", "start"))
    for w in range(warps):
        r, c = w // warps_across, w % warps_across
        fill = "#cfe0f5" if w == 0 else "#f4f4f4"
        out.append(f'  <rect x="{x0 + c * WN * scale:g}" y="{y0 + r * WM * scale:g}" width="{WN * scale:g}" '
                   f'height="{WM * scale:g}" fill="{fill}" stroke="#1f5fa8"/>')
        out.append(_text(x0 + (c + 0.5) * WN * scale, y0 + (r + 0.5) * WM * scale + 4, f"warp {w}", "label"))
    out.append(_text(x0, y0 + BM * scale + 20, f"warp w's tile: row w / {warps_across}, column w % {warps_across}, "
                     f"{WM} × {WN}", "note", "start"))

    # 2. Warp 0's tile: sub-tiles and the lanes' blocks.
    x1, y1, cw, ch = 330, 80, 6.0 * TN, 5.0 * TM
    out.append(_text(x1, y1 - 12, f"warp 0's {WM} × {WN} tile: {WN_ITER} sub-tiles of {sub_m} × {sub_n}, "
                     f"each a grid of the lanes' {TM} × {TN} blocks", "label", "start"))
    for s in range(WN_ITER):
        sx = x1 + s * (lanes_across * cw + 14)
        for lane in range(WARP):
            r, c = lane // lanes_across, lane % lanes_across
            out.append(f'  <rect x="{sx + c * cw:g}" y="{y1 + r * ch:g}" width="{cw:g}" height="{ch:g}" '
                       f'fill="{"#cfe0f5" if lane == 0 else "#ffffff"}" stroke="#7a9cc6"/>')
            out.append(_text(sx + (c + 0.5) * cw, y1 + (r + 0.5) * ch + 4, str(lane), "lane"))
        # Two lines: on one, the labels of neighbouring sub-tiles ran into each other.
        out.append(_text(sx + lanes_across * cw / 2, y1 + (sub_m // TM) * ch + 16, f"sub-tile {s}:", "note"))
        out.append(_text(sx + lanes_across * cw / 2, y1 + (sub_m // TM) * ch + 30,
                         f"columns {s * sub_n}–{s * sub_n + sub_n - 1}", "note"))
    out.append(_text(x1, y1 + (sub_m // TM) * ch + 50, f"lane l's block: row {TM}·(l / {lanes_across}), column "
                     f"{TN}·(l % {lanes_across}) of each sub-tile: lane 0 (shaded) owns one block in each", "note", "start"))

    # 3. The banks of B_tile[k][warp 0's columns] and which lanes read them.
    x2, y2, bw = 700, 170, 12
    out.append(_text(x2, y2 - 44, f"one k: warp 0 reads B_tile[k][0 .. {WN - 1}], a float4 per lane and sub-tile", "label",
                     "start"))
    for col in range(WN):
        out.append(f'  <rect x="{x2 + col * bw}" y="{y2}" width="{bw}" height="{bw * 2}" fill="#fde2b8" stroke="#b0b0b0"/>')
        if col % 4 == 0:
            out.append(_text(x2 + col * bw + 2, y2 + bw * 2 + 14, f"bank {col % 32}", "note", "start"))
    for group in range(WN // 4):
        s, j = group * 4 // sub_n, (group * 4 % sub_n) // TN
        lanes = [lane for lane in range(WARP) if lane % lanes_across == j]
        out.append(f'  <rect x="{x2 + group * 4 * bw}" y="{y2 - 4}" width="{4 * bw}" height="{bw * 2 + 8}" fill="none" '
                   'stroke="#c76a00" stroke-width="1.5"/>')
        out.append(_text(x2 + group * 4 * bw + 2 * bw, y2 - 10 - 12 * (group % 2),
                         f"l%{lanes_across}={j}" if s == 0 else f"l%{lanes_across}={j}'", "note"))
    out.append(_text(x2, y2 + 70, f"The float4 of columns 4j .. 4j + 3 of a sub-tile is read by the lanes with",
                     "note", "start"))
    out.append(_text(x2, y2 + 85, f"l % {lanes_across} = j ({WARP // lanes_across} lanes, one address: a broadcast). "
                     "A quarter-warp, lanes 0–7,", "note", "start"))
    out.append(_text(x2, y2 + 100, f"reads {lanes_across} distinct float4s, {lanes_across * 16} consecutive bytes "
                     "in distinct banks: no conflict.", "note", "start"))
    out.append(_text(x2, y2 + 115, "(' : the same lanes again, in sub-tile 1.)", "note", "start"))
    out.append(_text(x2, y2 + 145, f"A_t[k][row ...]: lane l reads the {TM} floats of its block's rows,", "note", "start"))
    out.append(_text(x2, y2 + 160, f"two float4s; the {lanes_across} lanes of a row of the grid share them.",
                     "note", "start"))
    floats = wm_iter * TM + WN_ITER * TN
    out.append(_text(30, height - 20, f"Per k a lane reads {wm_iter * TM} + {WN_ITER * TN} floats ({floats // 4} float4 "
                     f"loads) for {wm_iter * TM * WN_ITER * TN} multiply-adds.", "label", "start"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def transpose_accesses(rows: int = 8192, cols: int = 8192, y: int = 0) -> list:
    """The byte addresses of one warp's global accesses in chapter 5, lane by lane, as
    transpose.cu computes them: warp y of block (0, 0) of the 32 x 8 block (threadIdx.x = lane,
    threadIdx.y = y), at step j = 0, for a rows x cols float input and its cols x rows output,
    each array starting on a 32-byte boundary (cudaMalloc's are). Each item: the kernel, what
    it accesses, and the 32 addresses."""
    lanes, word = range(WARP), 4
    return [
        # 5a: input element (r, c) = (y, lane) goes to output element (c, r).
        ("5a", f"load: input row {y}, columns 0–{WARP - 1}", [word * (y * cols + lane) for lane in lanes]),
        ("5a", f"store: output rows 0–{WARP - 1}, column {y}", [word * (lane * rows + y) for lane in lanes]),
        # 5b and 5c: the tile's row y is loaded as 5a loads; the store writes output row
        # tile_col + y, columns tile_row + lane, from the tile's column.
        ("5b", f"load: input row {y}, columns 0–{WARP - 1}, into tile row {y}",
         [word * (y * cols + lane) for lane in lanes]),
        ("5b", f"store: output row {y}, columns 0–{WARP - 1}, from tile column {y}",
         [word * (y * rows + lane) for lane in lanes]),
    ]


def transpose_sectors(rows: int = 8192, cols: int = 8192, y: int = 0, sector_bytes: int = 32) -> str:
    """Chapter 5: one warp's 32 lanes and the 32-byte sectors of its global load and store, in
    5a (straight in global memory) and in 5b (through a shared tile; 5c's global accesses are
    5b's). Each lane's address is transpose_accesses'; its sector is address // sector_bytes,
    and a request touches each distinct sector once."""
    words = sector_bytes // 4
    cell, gap = 26, 2
    left, top = 250, 70
    span = WARP * (cell + gap) - gap
    panel_h = 190
    width = left + span + 30
    accesses = transpose_accesses(rows, cols, y)
    height = top + len(accesses) * panel_h + 40
    counts = [len({a // sector_bytes for a in addresses}) for _, _, addresses in accesses]
    out = _svg_start(width, height,
                     f"One warp of chapter 5's transpose and the {sector_bytes}-byte sectors it touches: 5a's load "
                     f"{counts[0]} sectors, its store {counts[1]}; 5b's load {counts[2]}, its store {counts[3]}",
                     ("lane", "head", "label", "note")) + [
           _text(width / 2, 24, f"Chapter 5: one warp's {WARP} lanes and the {sector_bytes}-byte sectors of its "
                 "global load and store", "head"),
           _text(width / 2, 44, f"the warp of threadIdx.y = {y} in block (0, 0) of a 32 × 8 block, lane = threadIdx.x; "
                 f"input {rows} × {cols}, arrays on {sector_bytes}-byte boundaries; "
                 f"sector = byte address / {sector_bytes}", "note")]

    def x_of(lane):
        return left + lane * (cell + gap)

    for index, ((kernel, what, addresses), count) in enumerate(zip(accesses, counts)):
        y0 = top + index * panel_h
        lanes_y, sectors_y = y0 + 24, y0 + 24 + cell + 58
        sectors = sorted({a // sector_bytes for a in addresses})
        used = {(a // sector_bytes, a % sector_bytes // 4) for a in addresses}
        out.append(_text(left - 12, lanes_y + 17, f"{kernel} {what.split(':')[0]}", "head", "end"))
        out.append(_text(left, y0 + 12, f"{kernel} {what}", "label", "start"))
        for lane in range(WARP):
            out.append(f'  <rect x="{x_of(lane)}" y="{lanes_y}" width="{cell}" height="{cell}" fill="#cfe0f5" '
                       'stroke="#1f5fa8"/>')
            out.append(_text(x_of(lane) + cell / 2, lanes_y + 17, str(lane), "lane"))
        # The distinct sectors side by side, each as its words; a gap between two sectors
        # that are not next to each other in memory.
        slot_gap = 4
        slot = (span + slot_gap) / len(sectors)
        word_w = (slot - slot_gap) / words
        where = {}
        for n, sector in enumerate(sectors):
            x0 = left + n * slot
            for w in range(words):
                on = (sector, w) in used
                out.append(f'  <rect x="{x0 + w * word_w:.2f}" y="{sectors_y}" width="{word_w:.2f}" height="{cell}" '
                           f'fill="{"#fde2b8" if on else "#f4f4f4"}" stroke="#b0b0b0" stroke-width="0.5"/>')
                where[(sector, w)] = x0 + (w + 0.5) * word_w
            out.append(f'  <rect x="{x0 - 1:.2f}" y="{sectors_y - 3}" width="{slot - slot_gap + 2:.2f}" '
                       f'height="{cell + 6}" fill="none" stroke="#c76a00" stroke-width="1.5"/>')
            if len(sectors) <= 8:
                out.append(_text(x0 + (slot - slot_gap) / 2, sectors_y + cell + 16, f"sector {sector}", "note"))
        for lane, address in enumerate(addresses):
            x2 = where[(address // sector_bytes, address % sector_bytes // 4)]
            out.append(f'  <line x1="{x_of(lane) + cell / 2:g}" y1="{lanes_y + cell}" x2="{x2:.2f}" y2="{sectors_y - 4}" '
                       'stroke="#1f5fa8" stroke-width="0.7" stroke-opacity="0.6"/>')
        steps = {b - a for a, b in zip(sectors, sectors[1:])}
        if len(sectors) == 1 or steps == {1}:
            layout = "consecutive"
        elif len(steps) == 1:
            layout = f"each {steps.pop() * sector_bytes} bytes after the last"
        else:
            layout = "scattered"
        if len(sectors) > 8:
            layout += f" (sectors {sectors[0]}, {sectors[1]}, …, {sectors[-1]})"
        useful = len(set(addresses)) * 4
        per = f", {useful // count} bytes used of each" if useful % count == 0 else ""
        out.append(_text(left - 12, sectors_y + 17, f"{count} sectors", "head", "end"))
        out.append(_text(left, sectors_y + cell + (34 if len(sectors) <= 8 else 18),
                         f"{count} sectors, {layout}: {count * sector_bytes} bytes moved for {useful} used"
                         f"{per}", "label", "start"))
    out.append(_text(left, height - 16, "One request per warp instruction; the profile table's sectors per request are "
                     "these counts. 5c's global accesses are 5b's.", "label", "start"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# Each figure: the file (relative to the repository root) and the function that draws it.
FIGURES = {
    "chapters/01-naive-gemm/figures/warp-sectors.svg": warp_sectors,
    "chapters/05-transpose/figures/transpose-sectors.svg": transpose_sectors,
    "chapters/06-reduction/figures/shuffle-tree.svg": shuffle_tree,
    "chapters/07-register-tiled-gemm/figures/warp-tiles.svg": warp_tiles,
    "chapters/08-async-copies/figures/mbarrier-phase.svg": mbarrier_phase,
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
