"""SVG charts of the human results page: progress over time and human-vs-metric scatters.

Drawn on the server like ``annotation.plots.intervals``; every label is escaped.
"""

from __future__ import annotations

import math
from datetime import datetime

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from annotation.plots.axes import fit, nice_ticks
from annotation.selectors.human.correlation import ScatterPoint
from annotation.selectors.human.progress import Series

PALETTE = ("#3a5bd9", "#d9822b", "#2e9e5b", "#c23b3b", "#7b4fc9", "#1f8a99", "#a86b32", "#777")


def progress_plot(series: list[Series], *, title: str, width: int = 640) -> SafeString:
    """Cumulative judgments over time, one line per series, with a legend below in two
    columns (each label cut to its column; the tooltip has it whole)."""
    points = [p for s in series for p in s.points]
    if not points:
        return mark_safe("")
    left, right, top, bottom = 56, 24, 30, 34
    plot_height = 260
    legend_row, column = 18, (width - 20) / 2
    height = plot_height + legend_row * ((len(series) + 1) // 2) + 6
    first = min(p[0] for p in points).timestamp()
    last = max(p[0] for p in points).timestamp()
    ticks = nice_ticks(0, max(p[1] for p in points) or 1, integer=True)
    step = ticks.values[1] - ticks.values[0] if len(ticks.values) > 1 else 1
    # The axis ends at a tick, so that the highest line lies under a labelled value.
    axis_top = math.ceil(max(p[1] for p in points) / step) * step or 1
    ticks = nice_ticks(0, axis_top, integer=True)
    span = (last - first) or 1.0

    def x(moment: datetime) -> float:
        return left + (moment.timestamp() - first) / span * (width - left - right)

    def y(count: float) -> float:
        return plot_height - bottom - count / axis_top * (plot_height - top - bottom)

    parts = [
        f'<svg class="plot" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="{left}" y="18" class="plot-title">{escape(title)}</text>',
    ]
    for count in ticks.values:
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(count):.1f}" y2="{y(count):.1f}" '
            f'class="grid"/><text x="{left - 6}" y="{y(count) + 4:.1f}" class="label">'
            f"{ticks.label(count)}</text>"
        )
    start, end = min(p[0] for p in points), max(p[0] for p in points)
    for moment, anchor, label in zip(
        (start, end), ("start", "end"), _time_labels(start, end), strict=False
    ):
        parts.append(
            # A class, not a style attribute (the CSP allows none); .tick would beat text-anchor=.
            f'<text x="{x(moment):.1f}" y="{plot_height - 10}" class="tick {anchor}">{label}</text>'
        )
    for i, line in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        path = " ".join(f"{x(m):.1f},{y(c):.1f}" for m, c in line.points)
        legend_x = 10 + column * (i % 2)
        legend_y = plot_height + legend_row * (i // 2) + 10
        legend = fit(f"{line.label} ({line.total})", column - 24)
        parts.append(
            f"<g><title>{escape(line.label)}: {line.total}</title>"
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
            + "".join(
                f'<circle cx="{x(m):.1f}" cy="{y(c):.1f}" r="2.5" fill="{colour}"/>'
                for m, c in line.points
            )
            + f'<rect x="{legend_x:.1f}" y="{legend_y - 9}" width="10" height="10" '
            f'fill="{colour}"/><text x="{legend_x + 16:.1f}" y="{legend_y}" class="legend">'
            f"{escape(legend)}</text></g>"
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 (every label is escaped above)


def _time_labels(start: datetime, end: datetime) -> list[str]:
    """The axis's two ends: one label when they are the same second (the demo stores its
    judgments in one go), seconds when they are within a minute, the end's date only when
    it is another day."""
    if f"{start:%Y-%m-%d %H:%M:%S}" == f"{end:%Y-%m-%d %H:%M:%S}":
        return [f"{start:%Y-%m-%d %H:%M}"]
    if (end - start).total_seconds() < 60:
        return [f"{start:%Y-%m-%d %H:%M:%S}", f"{end:%H:%M:%S}"]
    if start.date() == end.date():
        return [f"{start:%Y-%m-%d %H:%M}", f"{end:%H:%M}"]
    return [f"{start:%Y-%m-%d %H:%M}", f"{end:%Y-%m-%d %H:%M}"]


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
    x_ticks, y_ticks = nice_ticks(x_low, x_high), nice_ticks(y_low, y_high)
    for value in x_ticks.values:
        parts.append(
            f'<line x1="{x(value):.1f}" x2="{x(value):.1f}" y1="{top}" y2="{height - bottom}" '
            f'class="grid"/><text x="{x(value):.1f}" y="{height - bottom + 14}" class="tick">'
            f"{x_ticks.label(value)}</text>"
        )
    for value in y_ticks.values:
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(value):.1f}" y2="{y(value):.1f}" '
            f'class="grid"/><text x="{left - 6}" y="{y(value) + 4:.1f}" class="label">'
            f"{y_ticks.label(value)}</text>"
        )
    parts.append(
        f'<text x="{(left + width - right) / 2:.1f}" y="{height - 6}" class="tick">'
        f"{escape(fit(x_label, width - 20, font_size=11))}</text>"
        f'<text x="12" y="{(top + height - bottom) / 2:.1f}" class="tick" '
        f'transform="rotate(-90 12 {(top + height - bottom) / 2:.1f})">'
        f"{escape(fit(y_label, height - top - bottom, font_size=11))}</text>"
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
            f'text-anchor="{anchor}">{escape(fit(point.system, middle - left, font_size=10))}'
            "</text></g>"
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 (every label is escaped above)
