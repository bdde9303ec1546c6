"""The results page's chart of one chapter: an SVG of grouped bars, written by hand.

One group of bars per problem (size), one bar per kernel variant: its share of the ceiling
measured in the same run (cuBLAS FP32, or copy bandwidth). Rows that failed their check are
drawn as a hatched stub labelled with the check, never as a bar of a time that means nothing.
Python 3 standard library only: no plotting package, so `make results` runs anywhere.
"""

from xml.sax.saxutils import escape

# Okabe and Ito's palette: told apart with any of the common colour-vision deficiencies.
COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]

WIDTH = 760
PLOT_TOP, PLOT_LEFT, PLOT_RIGHT = 40, 56, 16
PLOT_HEIGHT = 220
LEGEND_LINE = 20
FONT = 'font-family="sans-serif"'
TITLE_CHARACTERS = 80  # a title line's most: 15-px bold sans-serif is about 7.5 px a character
TITLE_LINE = 18


def wrapped(text, characters):
    """@p text in lines of at most @p characters, broken between words (a single longer word
    keeps a line of its own): a longer line would run past the chart's edge, or into the
    next group's label."""
    lines = [""]
    for word in text.split(" "):
        if lines[-1] and len(lines[-1]) + 1 + len(word) > characters:
            lines.append(word)
        else:
            lines[-1] = f"{lines[-1]} {word}" if lines[-1] else word
    return lines


def title_lines(title):
    return wrapped(title, TITLE_CHARACTERS)


def nice_top(largest):
    """The axis' top: 100% unless a value is above it, then the next multiple of 20."""
    if largest <= 100:
        return 100
    return int((largest + 19) // 20 * 20)


def groups_of(rows):
    """[(problem, [(variant, percent or None, check)])] for the kernel and library rows, in file order."""
    groups = []
    for row in rows:
        if row["kind"] not in ("kernel", "library"):  # a library row is a bar beside the kernels
            continue
        if not groups or groups[-1][0] != row["problem"]:
            groups.append((row["problem"], []))
        ok = row["check"] == "ok" and row["percent_of_ceiling"] != ""
        groups[-1][1].append((row["variant"], float(row["percent_of_ceiling"]) if ok else None, row["check"]))
    return groups


def chart(title, rows, format_share):
    """The SVG text of the chart for one chapter's CSV rows, or None if it has no kernel rows.
    `format_share` writes a percentage as the page's tables do (results.format_percent)."""
    groups = groups_of(rows)
    if not groups:
        return None
    variants = []
    for _, bars in groups:
        for variant, _, _ in bars:
            if variant not in variants:
                variants.append(variant)
    colour = {v: COLOURS[i % len(COLOURS)] for i, v in enumerate(variants)}
    ceilings = sorted({row["ceiling"] for row in rows if row["kind"] in ("kernel", "library") and row["ceiling"]})
    values = [value for _, bars in groups for _, value, _ in bars if value is not None]
    top = nice_top(max(values, default=0.0))

    heading = title_lines(title)
    plot_width = WIDTH - PLOT_LEFT - PLOT_RIGHT
    group_width = plot_width / len(groups)
    slots = max(len(bars) for _, bars in groups)
    bar_width = min(48.0, (group_width - 24) / slots)
    # A bar's share is written above it, turned upright where the bars are too narrow for
    # it ("100.0%" at 10 px is about 32 px wide), with room above the plot for the tallest.
    upright = bar_width < 34
    plot_top = PLOT_TOP + TITLE_LINE * (len(heading) - 1) + (28 if upright else 0)
    # A group's problem under it, in as many lines as its width needs (12 px: about 6.8 px a character).
    problem_lines = {problem: wrapped(problem, int(group_width / 6.8)) for problem, _ in groups}
    extra_lines = max(len(lines) for lines in problem_lines.values()) - 1
    legend_top = plot_top + PLOT_HEIGHT + 44 + 14 * extra_lines
    height = legend_top + LEGEND_LINE * ((len(variants) + 1) // 2) + 8
    y = lambda percent: plot_top + PLOT_HEIGHT * (1 - percent / top)  # noqa: E731

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
           f'height="{height}" role="img" aria-labelledby="title desc">',
           f'<title id="title">{escape(title)}</title>',
           '<desc id="desc">' + escape("; ".join(
               f"{problem}: " + ", ".join(f"{v} {format_share(p) if p is not None else c}" for v, p, c in bars)
               for problem, bars in groups)) + "</desc>",
           f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
           *(f'<text x="{PLOT_LEFT}" y="{22 + TITLE_LINE * i}" {FONT} font-size="15" font-weight="bold">{escape(line)}</text>'
             for i, line in enumerate(heading))]
    # Grid lines and the axis, every 20%.
    for percent in range(0, top + 1, 20):
        gy = y(percent)
        out.append(f'<line x1="{PLOT_LEFT}" y1="{gy:.1f}" x2="{WIDTH - PLOT_RIGHT}" y2="{gy:.1f}" '
                   f'stroke="{"#444444" if percent == 0 else "#dddddd"}" stroke-width="1"/>')
        out.append(f'<text x="{PLOT_LEFT - 6}" y="{gy + 4:.1f}" {FONT} font-size="11" text-anchor="end">'
                   f'{percent}%</text>')
    out.append(f'<text x="14" y="{plot_top + PLOT_HEIGHT / 2:.1f}" {FONT} font-size="11" text-anchor="middle" '
               f'transform="rotate(-90 14 {plot_top + PLOT_HEIGHT / 2:.1f})">share of '
               f'{escape(", ".join(ceilings) or "the ceiling")}</text>')
    for g, (problem, bars) in enumerate(groups):
        left = PLOT_LEFT + g * group_width + (group_width - bar_width * len(bars)) / 2
        for b, (variant, value, check) in enumerate(bars):
            x = left + b * bar_width
            label = escape(f"{variant}: {format_share(value) if value is not None else check}")
            if value is None:
                out.append(f'<rect x="{x + 2:.1f}" y="{y(0) - 14:.1f}" width="{bar_width - 4:.1f}" height="14" '
                           f'fill="none" stroke="#cc0000" stroke-dasharray="3 2"><title>{label}</title></rect>')
                out.append(f'<text x="{x + bar_width / 2:.1f}" y="{y(0) - 18:.1f}" {FONT} font-size="10" '
                           f'fill="#cc0000" text-anchor="middle">{escape(check)}</text>')
                continue
            bar_top = y(value)
            out.append(f'<rect x="{x + 2:.1f}" y="{bar_top:.1f}" width="{bar_width - 4:.1f}" '
                       f'height="{max(y(0) - bar_top, 0.5):.1f}" fill="{colour[variant]}"><title>{label}</title></rect>')
            if upright:
                cx = x + bar_width / 2 + 3.5  # the baseline, so that the digits are centred on the bar
                out.append(f'<text x="{cx:.1f}" y="{bar_top - 4:.1f}" {FONT} font-size="10" '
                           f'transform="rotate(-90 {cx:.1f} {bar_top - 4:.1f})">{format_share(value)}</text>')
            else:
                out.append(f'<text x="{x + bar_width / 2:.1f}" y="{bar_top - 4:.1f}" {FONT} font-size="10" '
                           f'text-anchor="middle">{format_share(value)}</text>')
        for i, line in enumerate(problem_lines[problem]):
            out.append(f'<text x="{PLOT_LEFT + (g + 0.5) * group_width:.1f}" y="{y(0) + 18 + 14 * i:.1f}" {FONT} '
                       f'font-size="12" text-anchor="middle">{escape(line)}</text>')
    for i, variant in enumerate(variants):
        lx = PLOT_LEFT + (i % 2) * (plot_width / 2)
        ly = legend_top + (i // 2) * LEGEND_LINE
        out.append(f'<rect x="{lx:.1f}" y="{ly - 10}" width="12" height="12" fill="{colour[variant]}"/>')
        out.append(f'<text x="{lx + 18:.1f}" y="{ly}" {FONT} font-size="12">{escape(variant)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
