"""Metrics scored outside evalsite: uploaded per-segment scores (COMET or MetricX computed on
a GPU elsewhere) and the sentence scores of neural scorers (``metrics.neural``).

Only sentence scores exist for them, so their statistics are ``(score, 1)`` per segment and
the corpus score is the mean sentence score, on the metric's own scale (not rescaled to
0-100). Bootstrap intervals and paired tests resample these stored scores.

Key: ``ext:NAME`` when higher is better, ``ext-lower:NAME`` when lower is (an error count),
so the direction travels with the key through the resampling code. NAME keeps its case.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

import numpy as np
from numpy.typing import NDArray

HIGHER_PREFIX: Final = "ext:"
LOWER_PREFIX: Final = "ext-lower:"
N_STATS: Final = 2  # sentence score, 1
NAME_MAX_LENGTH: Final = 60
# No metric scores beyond this magnitude (BLEU, chrF and TER live within hundreds, COMET and
# MetricX within tens); beyond it, sums and squares of a few thousand scores overflow.
SCORE_LIMIT: Final = 1e6
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


def is_external(key: str) -> bool:
    return key.startswith((HIGHER_PREFIX, LOWER_PREFIX))


def check_name(name: str) -> str:
    """The metric's name, or ``ValueError`` saying what a name may contain."""
    if not _NAME.fullmatch(name) or len(name) > NAME_MAX_LENGTH:
        raise ValueError(
            f"metric name {name!r}: use 1 to {NAME_MAX_LENGTH} letters, digits, '.', '_', "
            "'+' or '-', starting with a letter or digit"
        )
    return name


def key_for(name: str, *, higher_is_better: bool) -> str:
    return (HIGHER_PREFIX if higher_is_better else LOWER_PREFIX) + check_name(name)


def check_key(key: str) -> str:
    check_name(name_of(key))
    return key


def name_of(key: str) -> str:
    prefix = LOWER_PREFIX if key.startswith(LOWER_PREFIX) else HIGHER_PREFIX
    return key[len(prefix) :]


def higher_is_better(key: str) -> bool:
    return not key.startswith(LOWER_PREFIX)


def as_statistics(scores: Sequence[float]) -> NDArray[np.float64]:
    """``(n_segments, 2)``: each sentence score next to a count of one; scores must be finite."""
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError("expected one score per segment")
    if not np.all(np.isfinite(values)):
        raise ValueError("sentence scores must be finite numbers")
    out = np.ones((len(values), N_STATS))
    out[:, 0] = values
    return out


def score_columns(cols: NDArray[np.floating]) -> NDArray[np.float64]:
    """Mean sentence score from column-major summed statistics."""
    total, count = cols.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, total / np.where(count > 0, count, 1), 0.0)


def signature(key: str, *, origin: str) -> str:
    """``name:X|higher:yes|stats:sentence|origin:...`` (origin: uploaded, or the scorer's)."""
    better = "yes" if higher_is_better(key) else "no"
    return f"name:{name_of(key)}|higher:{better}|stats:sentence|origin:{origin}"
