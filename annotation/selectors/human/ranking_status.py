"""The live ranking status of a scored task (issue 23, section 2): where the stopping rule of
``metrics.adaptive`` stands on the judgments so far.

Computed from the arrays the results page already loads for the task (``likert_data``: one
COPY query), on the same judgments as its ranking (system outputs and the human reference,
excluded annotators left out) and the same per-judgment z-scores (per annotator, ddof 1).
The order here is by the mean z of the judgments, the stopping rule's statistic; the ranking
table above it averages segments first, so two close systems may swap between the two.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from annotation.selectors.human.likert import LikertData
from annotation.selectors.human.loading import REF, TGT
from metrics.adaptive import PairStatus, ranking_status
from metrics.adaptive.intervals import SystemInterval, system_intervals
from metrics.adaptive.status import DEFAULT_ALPHA, DEFAULT_MIN_JUDGMENTS
from metrics.rankings import z_scores


@dataclass(frozen=True)
class RankingStatus:
    """One measure of one task: systems best first with their own intervals, each adjacent
    pair's status, and the judgments the rule estimates are still needed."""

    measure: str
    delta: float
    alpha: float
    min_judgments: int
    systems: list[SystemInterval]
    pairs: list[PairStatus]
    still_needed: float  # math.inf when a pair cannot settle (equal means, delta 0)

    @property
    def rows(self) -> list[tuple[SystemInterval, PairStatus | None]]:
        """Each system with its pair against the next one down (None for the last)."""
        return list(zip(self.systems, [*self.pairs, None], strict=True))

    @property
    def settled(self) -> bool:
        return all(pair.status != "open" for pair in self.pairs)

    def count(self, status: str) -> int:
        return sum(pair.status == status for pair in self.pairs)

    @property
    def resolved(self) -> int:
        return self.count("resolved")

    @property
    def equivalent(self) -> int:
        return self.count("equivalent")

    @property
    def open(self) -> int:
        return self.count("open")

    @property
    def needed_known(self) -> bool:
        return math.isfinite(self.still_needed)

    @property
    def needed_rounded(self) -> int | None:
        return math.ceil(self.still_needed) if self.needed_known else None


def likert_ranking_status(
    data: LikertData, included: NDArray[np.bool_], *, delta: float
) -> list[RankingStatus]:
    """Per measure of a Likert task, the ranking status at margin ``delta`` (z units); none
    with fewer than two systems judged."""
    ranked = included & ((data.kind == TGT) | (data.kind == REF))
    systems = data.system[ranked]
    present = np.unique(systems)
    if present.size < 2:
        return []
    # One sort, then each system's scores are a slice (not k passes over the judgments).
    by_code = np.argsort(systems, kind="stable")
    bounds = np.searchsorted(systems[by_code], present[1:])
    result = []
    for measure, scores in data.scores.items():
        z = z_scores(scores[ranked], data.annotator[ranked])[by_code]
        by_system = {
            data.systems[int(code)]: part
            for code, part in zip(present, np.split(z, bounds), strict=True)
        }
        status = ranking_status(by_system, delta=delta, alpha=DEFAULT_ALPHA)
        intervals = system_intervals(by_system, alpha=DEFAULT_ALPHA)
        result.append(
            RankingStatus(
                measure=measure,
                delta=delta,
                alpha=DEFAULT_ALPHA,
                min_judgments=DEFAULT_MIN_JUDGMENTS,
                systems=[intervals[name] for name in status.order],
                pairs=status.pairs,
                still_needed=status.still_needed,
            )
        )
    return result
