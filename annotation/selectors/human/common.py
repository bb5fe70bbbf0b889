"""Result types shared by the task analyses, and the bootstrap budget."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from metrics.agreement import Kappa
from metrics.quality import AnnotatorQuality, annotator_quality

N_BOOT = 1000
SEED = 0  # the command line's default, so that its intervals are the dashboard's
# Agreement intervals recompute the coefficient over all pairs of judgments once per
# replicate: past this many judgments times replicates the dashboard of a big task would take
# minutes, so big tasks get fewer replicates (a million judgments: 30, each interval then
# very narrow anyway); the page shows how many.
AGREEMENT_BUDGET = 30_000_000
MIN_AGREEMENT_BOOT = 30


def agreement_resamples(rows: int) -> int:
    """Bootstrap replicates for an agreement interval over ``rows`` judgments."""
    return min(N_BOOT, max(MIN_AGREEMENT_BOOT, AGREEMENT_BUDGET // max(rows, 1)))


@dataclass(frozen=True)
class Agreement:
    """One agreement coefficient of one task (and measure, for adequacy and fluency)."""

    measure: str
    coefficient: str
    kappa: Kappa
    resamples: int
    annotators: int


@dataclass(frozen=True)
class AnnotatorRow:
    """An annotator's quality-control figures in one task.

    ``judgments`` and ``median_seconds`` count judgments (a ranking is one judgment);
    ``quality`` holds the checks, computed over every annotator, excluded ones included.
    """

    annotator_id: int
    username: str
    excluded: bool
    judgments: int
    median_seconds: float
    quality: AnnotatorQuality


def annotator_rows(
    scores: ArrayLike,
    annotators: ArrayLike,
    *,
    systems: ArrayLike,
    segments: ArrayLike,
    item_types: ArrayLike,
    seconds: ArrayLike,
    usernames: Mapping[int, str],
    excluded: set[int],
) -> list[AnnotatorRow]:
    """Each annotator's row from the task's judgments (``annotators``: the judge of each)."""
    ids, annotator = np.unique(annotators, return_inverse=True)
    quality = annotator_quality(
        scores, annotator.reshape(-1), systems, segments, item_types, seconds=seconds
    )
    return [
        AnnotatorRow(
            annotator_id=int(ids[q.annotator]),
            username=usernames[int(ids[q.annotator])],
            excluded=int(ids[q.annotator]) in excluded,
            judgments=q.judgments,
            median_seconds=q.median_seconds,
            quality=q,
        )
        for q in quality
    ]
