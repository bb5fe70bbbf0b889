"""Plots drawn on the server as SVG, so the pages need no network and no JavaScript."""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from annotation.plots.axes import fit, nice_ticks


def interval_plot(
    rows: list[tuple[str, float, float, float]],
    *,
    title: str,
    width: int = 640,
    axis_from: float | None = None,
) -> SafeString:
    """A dot for each score and a bar for its interval; rows are (label, score, low, high).

    ``axis_from`` starts the axis at that value (0 for rates such as HTER, whose distance
    from zero is the point) instead of just below the lowest interval.
    """
    if not rows:
        return mark_safe("")
    row_height, left, right, top = 26, 170, 30, 34
    height = top + row_height * len(rows) + 26
    low = min(r[2] for r in rows)
    high = max(r[3] for r in rows)
    pad = (high - low) * 0.08 or 1.0
    low, high = (low - pad if axis_from is None else min(axis_from, low)), high + pad

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * (width - left - right)

    parts = [
        f'<svg class="plot" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="{left}" y="18" class="plot-title">{escape(title)}</text>',
    ]
    # Round values where they are (COMET lives on 0-1, BLEU on 0-100).
    ticks = nice_ticks(low, high)
    decimals = ticks.decimals
    for value in ticks.values:
        parts.append(
            f'<line x1="{x(value):.1f}" x2="{x(value):.1f}" y1="{top - 6}" '
            f'y2="{height - 22}" class="grid"/>'
            f'<text x="{x(value):.1f}" y="{height - 6}" class="tick">{ticks.label(value)}</text>'
        )
    for i, (label, score, ci_low, ci_high) in enumerate(rows):
        y = top + row_height * i + row_height / 2
        parts.append(
            f"<g><title>{escape(label)}: {score:.{decimals + 1}f} "
            f"[{ci_low:.{decimals + 1}f}, {ci_high:.{decimals + 1}f}]</title>"
            f'<text x="{left - 10}" y="{y + 4:.1f}" class="label">'
            f"{escape(fit(label, left - 14))}</text>"
            f'<line x1="{x(ci_low):.1f}" x2="{x(ci_high):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
            f'class="interval"/>'
            f'<circle cx="{x(score):.1f}" cy="{y:.1f}" r="4.5" class="point"/></g>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 (every label is escaped above)
