"""Results of a contrastive MQM task: each output's MQM score (its spans' weights, the
task's typology) ranked as the segment MQM table ranks systems (lower is better), its errors
by category and severity, and its reliability table (with WMT26's consensus likelihood).
Check screens, repeats and candidates no system produced are never ranked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from annotation.models import ItemType

# The module, not its names: it imports this package (through .loading), so whichever of
# the two is imported first, the other is still being initialised at this line.
from annotation.selectors import contrastive as contrastive_selectors
from annotation.selectors.human.span_reliability import (
    SpanPassing,
    contrastive_mqm_input,
    current_attempts_only,
    dropped_rows,
    task_reliability,
)
from annotation.services.spans import task_mqm_weights
from metrics.spans import error_breakdown, rank_mqm
from metrics.spans.mqm import Ratings

if TYPE_CHECKING:
    from annotation.selectors.contrastive import ScoredOutput


def contrastive_ratings(outputs: list[ScoredOutput]) -> Ratings:
    """One MQM rating per output (system, segment, rater): an annotator sees each system
    once per segment."""
    return Ratings(
        system=[o.system or "" for o in outputs],
        segment=[str(o.segment) for o in outputs],
        rater=[str(o.annotator_id) for o in outputs],
        score=np.array([o.penalty for o in outputs], dtype=np.float64),
    )


def contrastive_mqm_fill(
    result: Any, *, excluded: set[int], passing_only: bool, n_boot: int
) -> None:
    """Fills a ``spans.SpanTaskResults`` of a contrastive MQM task: judgments (screens that
    count), reliability, weights, ranking (and without who fails, with ``passing_only``) and
    errors."""
    task = result.task
    every = contrastive_selectors.contrastive_mqm_outputs(task)
    counted = [o for o in every if not o.excluded]
    result.judgments = len({o.judgment_id for o in counted})
    current = current_attempts_only(task, every)
    result.reliability = task_reliability(task, contrastive_mqm_input(current), excluded)
    weights = task_mqm_weights(task=task)
    result.weights = weights.as_dict()
    ranked = [
        o
        for o in counted
        if o.system is not None and not o.is_repeat and o.item_type == ItemType.TGT
    ]
    if passing_only:
        dropped = dropped_rows(result.reliability, excluded)
        gone = {row.annotator_id for row in dropped}
        kept = [o for o in ranked if o.annotator_id not in gone]
        again = (
            rank_mqm(contrastive_ratings(kept), weights=weights, n_boot=n_boot) if kept else None
        )
        result.passing = SpanPassing(dropped, result.ranking_rows(again) if again else [])
    if not ranked:
        return
    result.mqm = rank_mqm(contrastive_ratings(ranked), weights=weights, n_boot=n_boot)
    result.breakdown = error_breakdown(
        (
            (o.system or "", severity, category or None)
            for o in ranked
            for severity, category in o.errors
        ),
        systems=[s.system for s in result.mqm.systems],
    )
