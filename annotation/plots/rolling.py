"""The rolling-interval figure (issue 23, section 2; after WMT26's dynamic-assignment figure):
each system's always-valid interval as a band against the number of judgments so far, its
running mean as a line. Drawn on the server as SVG like the other plots; labels escaped."""

from __future__ import annotations

import numpy as np
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from annotation.plots.axes import fit, nice_ticks
from annotation.plots.human import PALETTE
from annotation.selectors.human.ranking_status import RankingStatus
from metrics.adaptive.rolling import RollingIntervals


def rolling_interval_plot(
    rolling: RollingIntervals | None,
    *,
    title: str,
    unit: str = "judgment",
    min_judgments: int = 1,
    order: list[str] | None = None,
    description: str = "",
    width: int = 640,
) -> SafeString:
    """One band per system from the look where it has ``min_judgments`` (before that its
    interval is too wide to draw); systems in ``order`` (best first) in the legend."""
    if rolling is None or rolling.looks.size < 2:
        return mark_safe("")
    names = order or rolling.systems
    columns = [rolling.systems.index(name) for name in names if name in rolling.systems]
    shown = (rolling.counts >= max(min_judgments, 2)) & np.isfinite(rolling.low)
    if not shown[:, columns].any():
        return mark_safe("")
    left, right, top, bottom = 56, 24, 30, 40
    plot_height = 300
    legend_row, column_width = 18, (width - 20) / 2
    height = plot_height + legend_row * ((len(columns) + 1) // 2) + 6
    lows = rolling.low[shown]
    highs = rolling.high[shown]
    y_low, y_high = float(lows.min()), float(highs.max())
    pad = (y_high - y_low) * 0.05 or 1.0
    y_low, y_high = y_low - pad, y_high + pad
    x_low, x_high = 0.0, float(rolling.looks[-1])

    def x(value: float) -> float:
        return left + (value - x_low) / (x_high - x_low or 1.0) * (width - left - right)

    def y(value: float) -> float:
        share = (value - y_low) / (y_high - y_low)
        return plot_height - bottom - share * (plot_height - top - bottom)

    parts = [
        f'<svg class="plot" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(description or title)}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="{left}" y="18" class="plot-title">'
        f"{escape(fit(title, width - left - 4, font_size=13))}</text>",
    ]
    y_ticks = nice_ticks(y_low, y_high)
    for value in y_ticks.values:
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(value):.1f}" y2="{y(value):.1f}" '
            f'class="grid"/><text x="{left - 6}" y="{y(value) + 4:.1f}" class="label">'
            f"{y_ticks.label(value)}</text>"
        )
    x_ticks = nice_ticks(x_low, x_high, integer=True)
    for value in x_ticks.values:
        parts.append(
            f'<text x="{x(value):.1f}" y="{plot_height - bottom + 16}" class="tick">'
            f"{x_ticks.label(value)}</text>"
        )
    parts.append(
        f'<text x="{(left + width - right) / 2:.1f}" y="{plot_height - 6}" class="tick">'
        f"{escape(unit.capitalize())}s so far (all systems)</text>"
    )
    for i, col in enumerate(columns):
        colour = PALETTE[i % len(PALETTE)]
        rows = np.flatnonzero(shown[:, col])
        name = rolling.systems[col]
        legend_x = 10 + column_width * (i % 2)
        legend_y = plot_height + legend_row * (i // 2) + 10
        last = rolling.looks.size - 1
        summary = (
            f"{name}: {rolling.means[last, col]:.3f} "
            f"[{rolling.low[last, col]:.3f}, {rolling.high[last, col]:.3f}] "
            f"after {rolling.counts[last, col]} {unit}s"
        )
        group = [f"<g><title>{escape(summary)}</title>"]
        if rows.size:
            xs = [x(float(rolling.looks[r])) for r in rows]
            upper = [y(float(rolling.high[r, col])) for r in rows]
            lower = [y(float(rolling.low[r, col])) for r in rows]
            band = [f"{a:.1f},{b:.1f}" for a, b in zip(xs, upper, strict=True)] + [
                f"{a:.1f},{b:.1f}" for a, b in zip(reversed(xs), reversed(lower), strict=True)
            ]
            middle = " ".join(
                f"{a:.1f},{y(float(rolling.means[r, col])):.1f}"
                for a, r in zip(xs, rows, strict=True)
            )
            group.append(
                f'<polygon points="{" ".join(band)}" fill="{colour}" fill-opacity="0.18" '
                f'stroke="{colour}" stroke-opacity="0.5" stroke-width="0.8"/>'
                f'<polyline points="{middle}" fill="none" stroke="{colour}" stroke-width="1.6"/>'
            )
        legend = fit(name, column_width - 24)
        group.append(
            f'<rect x="{legend_x:.1f}" y="{legend_y - 9}" width="10" height="10" '
            f'fill="{colour}"/><text x="{legend_x + 16:.1f}" y="{legend_y}" class="legend">'
            f"{escape(legend)}</text></g>"
        )
        parts.extend(group)
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 (every label is escaped above)


def status_plot_title(status: RankingStatus) -> str:
    """The figure's visible title: what is plotted, which way is better, the level."""
    arrow = "↓" if status.lower_is_better else "↑"
    statistic = status.statistic[0].upper() + status.statistic[1:]
    return (
        f"{statistic} {arrow}: always-valid {1 - status.alpha:.0%} intervals "
        f"as {status.unit}s came in"
    )


def status_plots(task_label: str, statuses: list[RankingStatus]) -> list[SafeString]:
    """The figure of each measure's status (an empty string where there is nothing to draw)."""
    return [
        rolling_interval_plot(
            status.rolling,
            title=status_plot_title(status),
            description=(
                f"{task_label}{'' if len(statuses) == 1 else f' ({status.measure})'}: "
                f"{status_plot_title(status)} "
                f"({'lower' if status.lower_is_better else 'higher'} is better)"
            ),
            unit=status.unit,
            min_judgments=status.min_judgments,
            order=[s.system for s in status.systems],
        )
        for status in statuses
    ]
