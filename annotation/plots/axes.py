"""What every chart's axes and legends share: ticks at round values placed where those values
are, and labels cut to the room they have (the whole label stays in the tooltip)."""

from __future__ import annotations

import math
from dataclasses import dataclass

# Width of a character as a share of the font size: generous for the site's sans-serif, so a
# label cut to ``fit`` stays inside its box.
CHARACTER_WIDTH = 0.62
FONT_SIZE = 12  # svg.plot's font size (static/css/evalsite.css)


@dataclass(frozen=True)
class Ticks:
    values: list[float]
    decimals: int  # enough to write each value exactly

    def label(self, value: float) -> str:
        return f"{value:.{self.decimals}f}"


def nice_ticks(low: float, high: float, *, count: int = 5, integer: bool = False) -> Ticks:
    """Round values (1, 2, 2.5 or 5 times a power of ten apart) from ``low`` to ``high``,
    about ``count`` of them, each drawn at its own value."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return Ticks([low], 0 if integer else 2)
    power = 10 ** math.floor(math.log10((high - low) / max(count - 1, 1)))
    steps = [m * power * scale for scale in (0.1, 1, 10) for m in (1, 2, 2.5, 5)]
    if integer:
        steps = sorted({max(1.0, float(round(step))) for step in steps if step >= 1} | {1.0})

    def multiples(step: float) -> range:
        """The k whose k * step is a tick."""
        return range(math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9) + 1)

    # The step whose tick count is nearest ``count`` (the larger step on a tie); counted, not
    # listed: a step of 1 over a count of 60,000 judgments would list 60,000 values.
    step = min(steps, key=lambda step: (abs(len(multiples(step)) - count), -step))
    values = [round(k * step, 12) for k in multiples(step)]
    return Ticks(values, 0 if integer else _decimals(step))


def _decimals(step: float) -> int:
    for decimals in range(0, 10):
        if abs(round(step, decimals) - step) < step * 1e-9:
            return decimals
    return 10


def fit(label: str, pixels: float, *, font_size: float = FONT_SIZE) -> str:
    """``label`` cut (with …) to what ``pixels`` hold at ``font_size``."""
    room = max(1, int(pixels / (font_size * CHARACTER_WIDTH)))
    return label if len(label) <= room else label[: room - 1] + "…"
