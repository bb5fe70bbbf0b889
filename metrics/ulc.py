"""Asiya's ULC (Giménez and Màrquez 2008): the uniform linear combination of the normalised
scores of the chosen metrics.

    ULC = (1/|M|) Σ_m normalised(m),  normalised = score/100, or 1 − min(score, 100)/100 for
    the error rates (TER, WER, PER),

on 0-100. Deliberate difference: Asiya normalises each metric over the systems evaluated;
here each metric's own 0-100 range does it, so a system's ULC (and each bootstrap resample of
it) depends on that system alone. NIST, which has no upper bound, cannot be combined.

A ULC key names its components, ``ulc:bleu+meteor+ter``; ``ulc`` alone is ``DEFAULT``. Its
statistics are the components' statistics side by side, in that order.

This module knows ULC keys and the combination; the registry (``metrics.automatic``) checks
the components and scores them, so it imports this module and not the other way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
from numpy.typing import NDArray

ULC: Final = "ulc"
DEFAULT: Final = ("bleu", "chrf", "ter", "meteor", "wer", "per", "ribes", "lepor", "rougel", "gtm")
_UNBOUNDED: Final = frozenset({"nist"})


def is_ulc(key: str) -> bool:
    return key == ULC or key.startswith(ULC + ":")


def names(key: str) -> tuple[str, ...]:
    """The component names a ULC key spells, as written (the registry checks each)."""
    _, sep, rest = key.partition(":")
    parts = tuple(rest.split("+")) if sep else DEFAULT
    if not parts or any(not part for part in parts):
        raise ValueError(f"bad ULC key {key!r}; expected ulc or ulc:METRIC+METRIC...")
    return parts


def components(key: str) -> tuple[str, ...]:
    """Component metrics of a ULC key whose names are metrics, refused if they cannot be
    combined."""
    checked = []
    for name in names(key):
        metric = name.lower()
        if metric in _UNBOUNDED or metric.startswith("ext"):
            raise ValueError(f"ULC combines 0-100 metrics; {name} has no upper bound")
        if is_ulc(metric):
            raise ValueError("ULC cannot contain ULC")
        checked.append(metric)
    if len(set(checked)) != len(checked):
        raise ValueError(f"ULC components repeat: {key!r}")
    return tuple(checked)


def key_for(metrics: list[str]) -> str:
    """The ULC key combining ``metrics`` (those that can be combined), in their order."""
    usable = [m for m in metrics if m not in _UNBOUNDED and not is_ulc(m)]
    if not usable:
        raise ValueError("ULC needs at least one 0-100 metric besides NIST")
    return "ulc:" + "+".join(usable)


def combine(
    scores: Sequence[NDArray[np.floating]], higher_is_better: Sequence[bool]
) -> NDArray[np.float64]:
    """ULC (0-100) from the components' scores (0-100 each) and their directions."""
    total = np.zeros(np.shape(scores[0]))
    for score, higher in zip(scores, higher_is_better, strict=True):
        unit = np.clip(np.asarray(score, np.float64) / 100.0, 0.0, 1.0)
        total += unit if higher else 1.0 - unit
    return 100.0 * total / len(scores)
