"""SVG charts of the human results page: progress over time and human-vs-metric scatters.

Drawn on the server like ``annotation.plots.intervals``; every label is escaped.
"""

from __future__ import annotations

from datetime import datetime

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from annotation.selectors.human.correlation import ScatterPoint
from annotation.selectors.human.progress import Series

LEGEND_CHARACTERS = 24  # longer labels are cut in the legend; the tooltip has them whole


def _short(label: str) -> str:
    return label if len(label) <= LEGEND_CHARACTERS else label[: LEGEND_CHARACTERS - 1] + "…"


PALETTE = ("#3a5bd9", "#d9822b", "#2e9e5b", "#c23b3b", "#7b4fc9", "#1f8a99", "#a86b32", "#777")


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    return [low + (high - low) * i / (count - 1) for i in range(count)]


def progress_plot(series: list[Series], *, title: str, width: int = 640) -> SafeString:
    """Cumulative judgments over time, one line per series, with a legend."""
    points = [p for s in series for p in s.points]
    if not points:
        return mark_safe("")
    left, right, top, bottom = 56, 170, 30, 34
    height = 260
    first = min(p[0] for p in points).timestamp()
    last = max(p[0] for p in points).timestamp()
    top_count = max(p[1] for p in points) or 1
    span = (last - first) or 1.0

    def x(moment: datetime) -> float:
        return left + (moment.timestamp() - first) / span * (width - left - right)

    def y(count: float) -> float:
        return height - bottom - count / top_count * (height - top - bottom)

    parts = [
        f'<svg class="plot" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="{left}" y="18" class="plot-title">{escape(title)}</text>',
    ]
    for count in _ticks(0, top_count):
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(count):.1f}" y2="{y(count):.1f}" '
            f'class="grid"/><text x="{left - 6}" y="{y(count) + 4:.1f}" class="label">'
            f"{count:.0f}</text>"
        )
    start, end = min(p[0] for p in points), max(p[0] for p in points)
    for moment, anchor in ((start, "start"), (end, "end")):
        parts.append(
            # A class, not a style attribute (the CSP allows none); .tick would beat text-anchor=.
            f'<text x="{x(moment):.1f}" y="{height - 10}" class="tick {anchor}">'
            f"{moment:%Y-%m-%d %H:%M}</text>"
        )
    for i, line in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        path = " ".join(f"{x(m):.1f},{y(c):.1f}" for m, c in line.points)
        legend_y = top + 16 * i + 4
        parts.append(
            f"<g><title>{escape(line.label)}: {line.total}</title>"
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
            + "".join(
                f'<circle cx="{x(m):.1f}" cy="{y(c):.1f}" r="2.5" fill="{colour}"/>'
                for m, c in line.points
            )
            + f'<rect x="{width - right + 12}" y="{legend_y - 8}" width="10" height="10" '
            f'fill="{colour}"/><text x="{width - right + 28}" y="{legend_y + 1}">'
            f"{escape(_short(line.label))} ({line.total})</text></g>"
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 (every label is escaped above)


def scatter_plot(
    points: list[ScatterPoint], *, title: str, x_label: str, y_label: str, width: int = 420
) -> SafeString:
    """Systems as dots: the metric across, the human score up, each dot labelled."""
    if not points:
        return mark_safe("")
    left, right, top, bottom = 56, 24, 30, 44
    height = 320
    xs = [p.metric for p in points]
    ys = [p.human for p in points]

    def padded(values: list[float]) -> tuple[float, float]:
        low, high = min(values), max(values)
        pad = (high - low) * 0.08 or 1.0
        return low - pad, high + pad

    x_low, x_high = padded(xs)
    y_low, y_high = padded(ys)

    def x(value: float) -> float:
        return left + (value - x_low) / (x_high - x_low) * (width - left - right)

    def y(value: float) -> float:
        return height - bottom - (value - y_low) / (y_high - y_low) * (height - top - bottom)

    parts = [
        f'<svg class="plot" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="{left}" y="18" class="plot-title">{escape(title)}</text>',
    ]
    for value in _ticks(x_low, x_high):
        parts.append(
            f'<line x1="{x(value):.1f}" x2="{x(value):.1f}" y1="{top}" y2="{height - bottom}" '
            f'class="grid"/><text x="{x(value):.1f}" y="{height - bottom + 14}" class="tick">'
            f"{value:.1f}</text>"
        )
    for value in _ticks(y_low, y_high):
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(value):.1f}" y2="{y(value):.1f}" '
            f'class="grid"/><text x="{left - 6}" y="{y(value) + 4:.1f}" class="label">'
            f"{value:.2f}</text>"
        )
    parts.append(
        f'<text x="{(left + width - right) / 2:.1f}" y="{height - 6}" class="tick">'
        f"{escape(x_label)}</text>"
        f'<text x="12" y="{(top + height - bottom) / 2:.1f}" class="tick" '
        f'transform="rotate(-90 12 {(top + height - bottom) / 2:.1f})">{escape(y_label)}</text>'
    )
    middle = (left + width - right) / 2
    for point in points:
        # Labels of points in the right half go to their left, so that none is cut off.
        px, py = x(point.metric), y(point.human)
        anchor, dx = ("end", -7) if px > middle else ("start", 7)
        parts.append(
            f"<g><title>{escape(point.system)}: {point.metric:.2f}, {point.human:.3f}</title>"
            f'<circle cx="{px:.1f}" cy="{py:.1f}" r="4.5" class="point"/>'
            f'<text x="{px + dx:.1f}" y="{py - 6:.1f}" font-size="10" '
            f'text-anchor="{anchor}">{escape(_short(point.system))}</text></g>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 (every label is escaped above)
