"""What a live adaptive task should judge next: one number per system, for a job that
refreshes a priorities table every N judgments (the claim then reads the table; it never
recomputes the statistics itself).

``system_priorities`` returns, per system, the ``adaptive`` policy's score
(``policies.uncertainty_reduction``: the summed relative drop in the variance of the open
adjacent pairs the system belongs to, if judged once more), with systems still in the cold
start first (``math.inf``) and systems in no open pair at 0 (judging them cannot help
settle the ranking). The claim takes the highest-priority system the annotator may still
judge, and within it the least-annotated item, as the simulator does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from metrics.adaptive.confidence import DEFAULT_TUNED_FOR
from metrics.adaptive.policies import uncertainty_reduction
from metrics.adaptive.status import DEFAULT_ALPHA, DEFAULT_MIN_JUDGMENTS, adjacent_pairs


def system_priorities(
    scores: Mapping[str, Sequence[float]],
    *,
    lower_is_better: bool = False,
    alpha: float = DEFAULT_ALPHA,
    delta: float = 0.0,
    tuned_for: float | None = None,
    cold_start: int = DEFAULT_MIN_JUDGMENTS,
) -> dict[str, float]:
    """Priority of each system in ``scores`` (system -> its scores so far); higher first.
    ``tuned_for`` as ``ranking_status`` (fixed in advance, ``DEFAULT_TUNED_FOR`` when None)."""
    names = sorted(scores)
    sign = -1.0 if lower_is_better else 1.0
    values = [np.asarray(scores[name], dtype=np.float64) * sign for name in names]
    count = np.array([len(v) for v in values], dtype=np.float64)
    total = np.array([v.sum() for v in values])
    squares = np.array([(v * v).sum() for v in values])
    pairs = adjacent_pairs(
        count,
        total,
        squares,
        tuned_for=tuned_for if tuned_for is not None else DEFAULT_TUNED_FOR,
        alpha=alpha,
        delta=delta,
        min_judgments=cold_start,
    )
    gain = uncertainty_reduction(count, pairs)
    return {
        name: math.inf if count[i] < cold_start else float(gain[i]) for i, name in enumerate(names)
    }
