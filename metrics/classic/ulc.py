"""Asiya's ULC (Giménez and Màrquez 2008): the uniform linear combination of the normalised
scores of the chosen metrics.

    ULC = (1/|M|) Σ_m normalised(m),  normalised = score/100, or 1 − min(score, 100)/100 for
    the error rates (TER, WER, PER),

on 0-100. Deliberate difference: Asiya normalises each metric over the systems evaluated;
here each metric's own 0-100 range does it, so a system's ULC (and each bootstrap resample of
it) depends on that system alone. NIST, which has no upper bound, cannot be combined.

A ULC key names its components, ``ulc:bleu+meteor+ter``; ``ulc`` alone is ``DEFAULT``. Its
statistics are the components' statistics side by side, in that order.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import NDArray

DEFAULT: Final = ("bleu", "chrf", "ter", "meteor", "wer", "per", "ribes", "lepor", "rougel", "gtm")
_UNBOUNDED: Final = frozenset({"nist"})


def components(key: str) -> tuple[str, ...]:
    """Component metrics of a ULC key, checked."""
    from metrics.automatic import check_metric

    _, sep, rest = key.partition(":")
    names = tuple(rest.split("+")) if sep else DEFAULT
    if not names or any(not name for name in names):
        raise ValueError(f"bad ULC key {key!r}; expected ulc or ulc:METRIC+METRIC...")
    checked = []
    for name in names:
        metric = check_metric(name)
        if metric in _UNBOUNDED or metric.startswith("ext"):
            raise ValueError(f"ULC combines 0-100 metrics; {metric} has no upper bound")
        if metric.startswith("ulc"):
            raise ValueError("ULC cannot contain ULC")
        checked.append(metric)
    if len(set(checked)) != len(checked):
        raise ValueError(f"ULC components repeat: {key!r}")
    return tuple(checked)


def key_for(metrics: list[str]) -> str:
    """The ULC key combining ``metrics`` (those that can be combined), in their order."""
    usable = [m for m in metrics if m not in _UNBOUNDED and not m.startswith("ulc")]
    if not usable:
        raise ValueError("ULC needs at least one 0-100 metric besides NIST")
    return "ulc:" + "+".join(usable)


def n_statistics(key: str) -> int:
    from metrics.automatic import n_statistics as width

    return sum(width(metric) for metric in components(key))


def score_columns(key: str, cols: NDArray[np.floating]) -> NDArray[np.float64]:
    """ULC (0-100) from column-major summed statistics of every component."""
    from metrics.automatic import higher_is_better, n_statistics, scores_from_columns

    total = np.zeros(cols.shape[1])
    start = 0
    names = components(key)
    for metric in names:
        width = n_statistics(metric)
        score = np.asarray(scores_from_columns(metric, cols[start : start + width]), np.float64)
        start += width
        unit = np.clip(score / 100.0, 0.0, 1.0)
        total += unit if higher_is_better(metric) else 1.0 - unit
    return 100.0 * total / len(names)
