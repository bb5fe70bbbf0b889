"""Errors per system by category and severity: a horizontal stacked bar chart in SVG, drawn on
the server like annotation/plots/intervals.py (no script, no network)."""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from annotation.plots.axes import CHARACTER_WIDTH, FONT_SIZE, fit
from metrics.spans import ErrorBreakdown
from metrics.spans.breakdown import UNCATEGORISED

UNCATEGORISED_LABEL = "uncategorised"

# Severity shades (most severe darkest) and category hues, cycled for long typologies.
SEVERITY_OPACITY = {"critical": 1.0, "major": 0.85, "minor": 0.5}
HUES = ("#3367d6", "#d6453d", "#e8a317", "#2f9e44", "#8e44ad", "#16a2b8", "#7a5230", "#5f6b7a")


def has_categories(breakdown: ErrorBreakdown) -> bool:
    """Whether any error has a category (MQM); ESA errors have a severity only."""
    return any(category != UNCATEGORISED for category in breakdown.categories)


def series_label(category: str, severity: str, *, categorised: bool) -> str:
    """``Accuracy · major``; ``major`` when no error has a category (ESA), and
    ``uncategorised · major`` for the errors without one among categorised errors."""
    if not categorised:
        return severity
    return f"{UNCATEGORISED_LABEL if category == UNCATEGORISED else category} · {severity}"


def error_bar_plot(breakdown: ErrorBreakdown, *, title: str, width: int = 720) -> SafeString:
    """One bar per system, one stacked piece per (category, severity) with its count."""
    series = breakdown.series()
    if not series or not breakdown.systems:
        return mark_safe("")
    row_height, left, top = 24, 170, 34
    legend_rows = (len(series) + 1) // 2
    height = top + row_height * len(breakdown.systems) + 16 + 18 * legend_rows
    totals = [sum(s["counts"][i] for s in series) for i in range(len(breakdown.systems))]
    # Room after the longest bar for its total, written 4px after it.
    right = 14 + len(str(max(totals))) * FONT_SIZE * CHARACTER_WIDTH
    scale = (width - left - right) / max(max(totals), 1)
    categorised = has_categories(breakdown)
    hue = {category: HUES[i % len(HUES)] for i, category in enumerate(breakdown.categories)}
    parts = [
        f'<svg class="plot" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="{left}" y="18" class="plot-title">{escape(title)}</text>',
    ]
    for row, system in enumerate(breakdown.systems):
        y = top + row * row_height
        parts.append(
            f'<text x="{left - 8}" y="{y + 15}" text-anchor="end" class="plot-label">'
            f"{escape(fit(system, left - 12))}</text>"
        )
        x = float(left)
        for piece in series:
            count = piece["counts"][row]
            if not count:
                continue
            w = count * scale
            what = series_label(piece["category"], piece["severity"], categorised=categorised)
            opacity = SEVERITY_OPACITY.get(piece["severity"].lower(), 0.3)
            parts.append(
                f'<rect x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{row_height - 6}" '
                f'fill="{hue[piece["category"]]}" fill-opacity="{opacity}">'
                f"<title>{escape(system)}: {count} {escape(what)}</title></rect>"
            )
            x += w
        parts.append(f'<text x="{x + 4:.1f}" y="{y + 15}" class="plot-label">{totals[row]}</text>')
    legend_top = top + row_height * len(breakdown.systems) + 14
    column = (width - 20) / 2
    for i, piece in enumerate(series):
        x, y = 10 + column * (i % 2), legend_top + 18 * (i // 2)
        opacity = SEVERITY_OPACITY.get(piece["severity"].lower(), 0.3)
        legend = series_label(piece["category"], piece["severity"], categorised=categorised)
        parts.append(
            f'<rect x="{x:.1f}" y="{y}" width="12" height="12" fill="{hue[piece["category"]]}" '
            f'fill-opacity="{opacity}"/><text x="{x + 16:.1f}" y="{y + 10}" '
            f'class="plot-label">{escape(fit(legend, column - 24))}</text>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text above is escaped
