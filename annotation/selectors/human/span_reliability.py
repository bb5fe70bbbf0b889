"""Reliability of error-span tasks (ESA, ESA^AI, MQM) and of contrastive MQM: their judgments
as ``ReliabilityInput`` for the one reliability table (``reliability.reliability_rows``).

- ESA: one entry per judgment, its 0-100 score; repeats, bad references and the
  straight-lining flag read it as for DA.
- MQM: the score is the negated MQM penalty (higher is better, so a bad reference "scored
  below" its original has the larger penalty); no straight-lining flag (many good
  translations rightly have no error).
- Contrastive MQM: one entry per screen; its outputs' negated penalties are the screens of
  WMT26's consensus likelihood (first judgments of real screens) and the repeats' scores.

The attention checks are those the loop recorded (``selectors.checks``: bad references,
HOTW errors, shuffled candidates, repeats), as for every task.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

import numpy as np

from annotation.models import ItemType, Judgment, Task
from annotation.selectors.contrastive import ScoredOutput
from annotation.selectors.human.loading import campaign_usernames
from annotation.selectors.human.reliability import (
    ReliabilityInput,
    ReliabilityRow,
    failing,
    reliability_rows,
    task_input,
)
from annotation.selectors.spans import SpanJudgment
from metrics.spans.mqm import MqmWeights


@dataclass(frozen=True)
class SpanPassing:
    """An error-span task ranked again without the annotators who fail a reliability check
    (``rows``: its ranking rows), and who they are."""

    dropped: list[ReliabilityRow]
    rows: list[dict]


class _OfJudgment(Protocol):
    @property
    def judgment_id(self) -> int: ...


Judged = TypeVar("Judged", bound=_OfJudgment)


def current_attempts_only(task: Task, rows: Sequence[Judged]) -> list[Judged]:
    """``rows`` without the judgments a restart set aside (``Judgment.excluded``), so that
    every reliability figure follows each annotator's current attempt; an annotator left
    out keeps theirs (their row stays in the table, so they can be let back in)."""
    aside = set(Judgment.objects.filter(task=task, excluded=True).values_list("id", flat=True))
    return [row for row in rows if row.judgment_id not in aside] if aside else list(rows)


def span_input(rows: Sequence[SpanJudgment], weights: MqmWeights | None) -> ReliabilityInput:
    """ESA (``weights`` None) or MQM judgments, one entry each."""
    outputs: dict[tuple[str, int], int] = {}
    original = [outputs.setdefault((row.system, row.segment_index), len(outputs)) for row in rows]
    if weights is None:
        score = [np.nan if row.score is None else float(row.score) for row in rows]
    else:
        score = [-sum(weights.weight(s.severity, s.category) for s in row.spans) for row in rows]
    return ReliabilityInput(
        annotator=np.array([row.annotator_id for row in rows], dtype=np.int64),
        kind=np.array([row.item_type for row in rows], dtype=str),
        item=np.array([row.item_id for row in rows], dtype=np.int64),
        original=np.array(original, dtype=np.int64),
        score=np.array(score, dtype=np.float64),
        seconds=np.array(
            [np.nan if row.seconds is None else row.seconds for row in rows], dtype=np.float64
        ),
        lines=weights is None,
    )


def contrastive_mqm_input(outputs: Sequence[ScoredOutput]) -> ReliabilityInput:
    """Contrastive MQM: one entry per screen judged (its outputs: ``outputs``)."""
    screens: dict[int, ScoredOutput] = {}
    for output in outputs:
        screens.setdefault(output.judgment_id, output)
    judged = list(screens.values())
    consensus: list[tuple[int, Hashable, Hashable, float]] = [
        (o.annotator_id, o.screen, o.system, -o.penalty)
        for o in outputs
        if o.system is not None and not o.is_repeat and o.item_type == ItemType.TGT
    ]
    codes: dict[tuple[int, int], int] = {}
    places = {(o.judgment_id, o.position): o for o in outputs}  # one per candidate
    repeat_scores = [
        (o.annotator_id, codes.setdefault((o.item_id, o.position), len(codes)), -o.penalty)
        for o in places.values()
        if o.item_type == ItemType.TGT
    ]
    return ReliabilityInput(
        annotator=np.array([o.annotator_id for o in judged], dtype=np.int64),
        kind=np.array(["REPEAT" if o.is_repeat else o.item_type for o in judged], dtype=str),
        item=np.array([o.item_id for o in judged], dtype=np.int64),
        original=np.array([o.item_id for o in judged], dtype=np.int64),
        score=None,
        seconds=np.array([o.seconds for o in judged], dtype=np.float64),
        screens=consensus,
        repeat_scores=repeat_scores,
    )


def task_reliability(
    task: Task, data: ReliabilityInput, excluded: set[int]
) -> list[ReliabilityRow]:
    """The reliability table of an error-span or contrastive MQM task: every annotator,
    with the attention checks the loop recorded (first answers) and their tutorial answers."""
    return reliability_rows(
        task_input(task, data),
        quality={},
        bad_references=False,
        usernames=campaign_usernames(task.campaign_id),
        excluded=excluded,
    )


def dropped_rows(rows: list[ReliabilityRow], excluded: set[int]) -> list[ReliabilityRow]:
    """Those who fail a check and are not excluded already (the switch drops them)."""
    dropped = failing(rows) - excluded
    return [row for row in rows if row.annotator_id in dropped]
