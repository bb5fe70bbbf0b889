"""What an adaptive task's refresh job reads: the ranking status (the results page's own,
``selectors.human.ranking_status``), each system's priority, and the judgments so far.

One COPY query of the task's judgments (``likert_data``) per refresh, never inside a claim.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotation.models import HUMAN, LIKERT_TYPES, REFERENCE_STRATUM, Judgment, Task
from annotation.selectors.human.likert import likert_data
from annotation.selectors.human.loading import REF, TGT, exclusions, system_names
from annotation.selectors.human.ranking_status import RankingStatus, likert_ranking_status
from metrics.adaptive import system_priorities
from metrics.adaptive.status import DEFAULT_ALPHA
from metrics.rankings import z_scores


@dataclass(frozen=True)
class AdaptiveFigures:
    """``statuses``: one per measure (empty before two systems are judged);
    ``priorities``: stratum (system id, ``REFERENCE_STRATUM`` for the human reference) ->
    priority, summed over the measures; ``judgments``: all of the task's judgments."""

    statuses: list[RankingStatus]
    priorities: dict[int, float]
    judgments: int

    @property
    def settled(self) -> bool:
        return bool(self.statuses) and all(status.settled for status in self.statuses)


def adaptive_figures(task: Task) -> AdaptiveFigures:
    """The figures of one adaptive task, on the judgments its ranking counts (excluded
    annotators left out)."""
    judgments = Judgment.objects.filter(task=task).count()
    if task.task_type not in LIKERT_TYPES:
        return AdaptiveFigures([], {}, judgments)
    names = system_names(task.campaign_id)
    data = likert_data(task, names)
    excluded = exclusions(task.campaign_id).for_task(task.id)
    included = ~np.isin(data.annotator, np.fromiter(excluded, dtype=np.int64, count=len(excluded)))
    statuses = likert_ranking_status(task, data, included, rolling=False)
    stratum = {name: system_id for system_id, name in names.items()}
    stratum[HUMAN] = REFERENCE_STRATUM
    ranked = included & ((data.kind == TGT) | (data.kind == REF))
    priorities: dict[int, float] = {}
    for scores in data.scores.values():
        # The stopping rule's statistic, as likert_ranking_status computes it: per-annotator
        # z-scores of the judgments, grouped by system.
        z = z_scores(scores[ranked], data.annotator[ranked])
        codes = data.system[ranked]
        by_system = {name: z[codes == code] for code, name in enumerate(data.systems)}
        gains = system_priorities(
            by_system,
            alpha=DEFAULT_ALPHA,
            delta=task.equivalence_margin,
            cold_start=task.cold_start,
        )
        for name, gain in gains.items():
            key = stratum[name]
            priorities[key] = priorities.get(key, 0.0) + gain
    return AdaptiveFigures(statuses, priorities, judgments)
