"""Metrics averaged over sentences: their statistics are (sentence score, 1) per segment.

RIBES, LEPOR, hLEPOR and ROUGE-L are defined per sentence and their corpus score is the mean
of the sentence scores, so the "statistics" a resample sums are the sentence scores and a
count; bootstrap and randomisation then resample stored sentence scores, never the text.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import NDArray

N_STATS: Final = 2  # sentence score (0-1), 1


def as_statistics(scores: list[float]) -> NDArray[np.float64]:
    """``(n_segments, 2)``: each sentence score (0-1) next to a count of one."""
    out = np.ones((len(scores), N_STATS))
    out[:, 0] = scores
    return out


def score_columns(cols: NDArray[np.floating]) -> NDArray[np.float64]:
    """Mean sentence score on 0-100 from column-major summed statistics."""
    total, count = cols.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, 100 * total / count, 0.0)
