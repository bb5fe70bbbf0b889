"""What an adaptive task's refresh job reads: the judgments recorded since its last refresh
(``new_observations``), and the ranking status and priorities from the running sums it
keeps (``figures_from_sums``), so that a refresh costs what was recorded since, not the
whole task.

The statistic is the live ranking status's, for every scored protocol
(``selectors.human.status_scores``: z-scores for Likert/DA, the ESA score, the MQM score;
a document task's observation is a page, the mean of its segments). The sums are kept per
(measure, system, annotator): the mean and spread of a system's z-scores follow exactly from
each annotator's count, sum and sum of squares per system (z = (x - mean_a) / sd_a is
linear in x), and an annotator left out is left out of them at every refresh. The stopping
rule and the priorities (``metrics.adaptive``) read each system's count, sum and sum of
squares only, so they are given arrays with those three moments
(``moment_array``); ``tests/test_adaptive_sums.py`` checks that the figures equal the
results page's status computed from every judgment.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.db import connection
from numpy.typing import NDArray

from annotation.models import (
    HUMAN,
    ItemType,
    ScoreSums,
    Task,
    Unit,
)
from annotation.protocols import budget_unit_of, protocol_for
from annotation.selectors.budget import observation_unit
from annotation.selectors.human.loading import exclusions
from annotation.selectors.human.ranking_status import RankingStatus, statuses_of
from annotation.selectors.human.status_scores import (
    ESA_SCORE,
    MQM_SCORE,
    StatusScores,
    Z,
    protocol_statistic,
)
from annotation.services.spans import task_mqm_weights
from metrics.adaptive import system_priorities
from metrics.adaptive.status import DEFAULT_ALPHA
from metrics.spans.mqm import MqmWeights

# Key of one running sum: (measure, system label, annotator).
SumKey = tuple[str, str, int]
# An annotator whose scores spread less than this (relative to their sum of squares) gave
# one score throughout: their z-scores are 0, as metrics.rankings.z_scores makes them.
FLAT = 1e-10


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


def measures_of(task: Task) -> tuple[str, ...]:
    """The task's measures in the ranking status's order (its first is the one that stops)."""
    protocol = protocol_for(task.task_type)
    statistic, _ = protocol_statistic(protocol)
    if protocol.measures:  # Likert: its questions
        return tuple(protocol.measures)
    # Contrastive DA: its z-scores' measure, as the ranking status names it.
    return ({ESA_SCORE: "esa", MQM_SCORE: "mqm", Z: "score"}[statistic],)


def scores_fingerprint(task: Task) -> str:
    """What the recorded scores depend on besides the judgments: the MQM weights."""
    if not protocol_for(task.task_type).penalty_scored:
        return ""
    weights = task_mqm_weights(task=task)
    return hashlib.sha256(repr(weights).encode()).hexdigest()


@dataclass
class NewObservations:
    """What the judgments of one id range add: ``sums`` per key as [count, sum, squares],
    each system label's ``stratum``, ``judged`` per stratum (every judgment, quality control
    included), ``judgments`` in all, and ``carried``: ids above the range counted with it
    (the rest of its pages)."""

    sums: dict[SumKey, list[float]] = field(default_factory=dict)
    stratum: dict[str, int] = field(default_factory=dict)
    judged: dict[int, int] = field(default_factory=dict)
    judgments: int = 0
    carried: list[int] = field(default_factory=list)


_ROWS_SQL = """
SELECT j.id, j.annotator_id, COALESCE(b.stratum, i.system_id, -1), s.batch_id, s.page,
       j.is_repeat, j.excluded, i.item_type, sy.name, i.candidates -> 0 -> 'systems',
       j.score, j.fluency,
       CASE WHEN %(mqm)s THEN ARRAY(
           SELECT e.severity || E'\\t' || COALESCE(e.category, '') FROM annotation_errorspan e
            WHERE e.judgment_id = j.id ORDER BY e.id) END
  FROM annotation_judgment j
  JOIN annotation_slot s ON s.id = j.slot_id
  LEFT JOIN annotation_batch b ON b.id = s.batch_id
  JOIN annotation_item i ON i.id = j.item_id
  LEFT JOIN annotation_system sy ON sy.id = i.system_id
"""
# The judgments of an id range, less those counted already.
_RANGE_SQL = (
    _ROWS_SQL + " WHERE j.task_id = %(task)s AND j.id > %(after)s AND j.id <= %(upto)s"
    " AND NOT (j.id = ANY(%(carried)s::bigint[])) ORDER BY j.id"
)
# The rest of a document task's pages (batch, page) beyond the range.
# (the caller keeps the rows of its own pairs of batch and page).
_PAGES_SQL = (
    _ROWS_SQL + " WHERE j.task_id = %(task)s AND j.id > %(upto)s"
    " AND s.batch_id = ANY(%(batches)s::bigint[]) AND s.page = ANY(%(pages)s::int[])"
    " ORDER BY j.id"
)


def new_observations(
    task: Task, *, after: int, upto: int, carried: list[int] | tuple[int, ...] = ()
) -> NewObservations:
    """The observations of the task's judgments with ids in (``after``, ``upto``], less
    those in ``carried``; in a document task, with the rest of any page they start (a page
    is recorded in one transaction, and is one observation). Two index scans at most."""
    mqm = protocol_for(task.task_type).penalty_scored
    with connection.cursor() as cursor:
        cursor.execute(
            _RANGE_SQL,
            {"mqm": mqm, "task": task.id, "after": after, "upto": upto, "carried": list(carried)},
        )
        rows = cursor.fetchall()
        extra: list[tuple[Any, ...]] = []
        wanted = {(row[3], row[4]) for row in rows if row[4] is not None}
        pages = sorted(wanted)
        if task.unit == Unit.DOCUMENT and pages:
            cursor.execute(
                _PAGES_SQL,
                {
                    "mqm": mqm,
                    "task": task.id,
                    "upto": upto,
                    "batches": [batch for batch, _ in pages],
                    "pages": [page for _, page in pages],
                },
            )
            extra = [row for row in cursor.fetchall() if (row[3], row[4]) in wanted]
    found = NewObservations(carried=[row[0] for row in extra])
    _add(task, found, rows + extra)
    return found


def _add(task: Task, found: NewObservations, rows: list[tuple[Any, ...]]) -> None:
    protocol = protocol_for(task.task_type)
    likert = bool(protocol.measures)
    kinds = (ItemType.TGT, ItemType.REF) if likert else (ItemType.TGT,)
    # A Likert task's segment ranking names an output without a system "Human", as
    # selectors.human.likert does; the others name a shared output by its systems.
    segment_likert = likert and task.unit != Unit.DOCUMENT
    weights = task_mqm_weights(task=task) if protocol.penalty_scored else None
    measures = measures_of(task)
    # Observations: (annotator, stratum, label, page key) -> per-measure values.
    observed: dict[tuple[int, int, str, tuple[int, int]], list[list[float]]] = {}
    for row in rows:
        (ident, annotator, stratum, batch, page, repeat, excluded, kind, name, shared) = row[:10]
        score, fluency, spans = row[10:]
        found.judgments += 1
        found.judged[stratum] = found.judged.get(stratum, 0) + 1
        if repeat or excluded or kind not in kinds:
            continue
        if name is None:
            name = HUMAN if kind == ItemType.REF or segment_likert else "+".join(shared or ())
        values = []
        for measure in measures:
            if weights is not None:
                values.append(_weighed(weights, spans))
            elif likert:
                # The judgment's column this question reads (adequacy and fluency: both).
                columns = {"score": score, "fluency": fluency}
                values.append(float(columns[protocol.measures[measure]] or 0))
            else:
                values.append(float(score or 0))
        # A screen of one segment (no page) is a page of its own.
        key = (annotator, stratum, name, (batch, page) if page is not None else (-1, ident))
        observed.setdefault(key, []).append(values)
    for (annotator, stratum, name, _), pages in observed.items():
        mean = np.mean(np.array(pages, dtype=np.float64), axis=0)
        for measure, value in zip(measures, mean, strict=True):
            found.stratum.setdefault(name, stratum)
            sums = found.sums.setdefault((measure, name, annotator), [0, 0.0, 0.0])
            sums[0] += 1
            sums[1] += float(value)
            sums[2] += float(value) * float(value)


def _weighed(weights: MqmWeights, spans: list[str] | None) -> float:
    total = 0.0
    for span in spans or ():
        severity, _, category = span.partition("\t")
        total += weights.weight(severity, category or None)
    return total


def moment_array(count: int, total: float, squares: float) -> NDArray[np.float64]:
    """``count`` values whose sum is ``total`` and sum of squares ``squares``: the mean
    everywhere, two of them moved apart by the spread."""
    mean = total / count
    values = np.full(count, mean)
    spread = max(squares - total * mean, 0.0)
    if count >= 2 and spread > 0:
        values[0] += math.sqrt(spread / 2)
        values[1] -= math.sqrt(spread / 2)
    return values


@dataclass(frozen=True)
class MomentScores(StatusScores):
    """A task's observations given as each system's moments (``moments``: measure -> system
    -> array with its count, sum and sum of squares), already standardised."""

    moments: dict[str, dict[str, NDArray[np.float64]]] = field(default_factory=dict)

    def by_system(self, measure: str) -> dict[str, Any]:
        return self.moments[measure]


def system_moments(
    rows: list[tuple[str, str, int, int, float, float]], *, standardise: bool
) -> dict[str, dict[str, tuple[int, float, float]]]:
    """Per measure and system: count, sum and sum of squares of the statistic, from rows
    (measure, system, annotator, count, sum, squares); ``standardise``: z-scores per
    annotator (sample standard deviation, as ``metrics.rankings.z_scores``)."""
    per: dict[str, dict[int, list[float]]] = defaultdict(dict)
    if standardise:
        for measure, _, annotator, count, total, squares in rows:
            mine = per[measure].setdefault(annotator, [0, 0.0, 0.0])
            mine[0] += count
            mine[1] += total
            mine[2] += squares
    result: dict[str, dict[str, list[float]]] = defaultdict(dict)
    for measure, name, annotator, count, total, squares in rows:
        if count <= 0:
            continue
        if standardise:
            n, s1, s2 = per[measure][annotator]
            mean = s1 / n
            spread = max(s2 - s1 * mean, 0.0)
            if n < 2 or spread <= FLAT * max(s2, 1.0):
                total, squares = 0.0, 0.0
            else:
                sd = math.sqrt(spread / (n - 1))
                total, squares = (
                    (total - count * mean) / sd,
                    (squares - 2 * mean * total + count * mean * mean) / (sd * sd),
                )
        sums = result[measure].setdefault(name, [0, 0.0, 0.0])
        sums[0] += count
        sums[1] += total
        sums[2] += squares
    return {
        measure: {name: (int(n), s1, s2) for name, (n, s1, s2) in systems.items()}
        for measure, systems in result.items()
    }


def figures_from_sums(task: Task, *, judgments: int) -> AdaptiveFigures:
    """The task's ranking status and priorities from its running sums (annotators left out
    of the task or campaign are left out here); ``judgments``: all the task's judgments."""
    statistic, lower = protocol_statistic(protocol_for(task.task_type))
    left_out = exclusions(task.campaign_id).for_task(task.id)
    stored = [
        row
        for row in ScoreSums.objects.filter(task=task).values_list(
            "measure", "label", "annotator_id", "count", "total", "squares", "stratum"
        )
        if row[2] not in left_out
    ]
    stratum = {row[1]: row[6] for row in stored}
    moments = system_moments([row[:6] for row in stored], standardise=statistic == Z)
    measures = [measure for measure in measures_of(task) if measure in moments]
    if not measures:
        return AdaptiveFigures([], {}, judgments)
    arrays: dict[str, dict[str, Any]] = {
        measure: {name: moment_array(*moments[measure][name]) for name in sorted(moments[measure])}
        for measure in measures
    }
    names = sorted({name for measure in measures for name in arrays[measure]})
    scores = MomentScores(
        statistic=statistic,
        lower_is_better=lower,
        unit=observation_unit(task),
        systems=names,
        system=np.arange(len(names), dtype=np.int64),
        annotator=np.zeros(len(names), dtype=np.int64),
        scores={measure: np.zeros(0) for measure in measures},
        moments=arrays,
    )
    observations = sum(int(moments[measures[0]][name][0]) for name in moments[measures[0]])
    statuses = statuses_of(
        scores,
        delta=task.equivalence_margin,
        tuned_for=task.tuned_for,
        budget_unit=budget_unit_of(task),
        per_observation=judgments / observations if observations else 1.0,
    )
    priorities: dict[int, float] = {}
    for measure in measures:
        gains = system_priorities(
            arrays[measure],
            lower_is_better=lower,
            alpha=DEFAULT_ALPHA,
            delta=task.equivalence_margin,
            tuned_for=task.tuned_for,
            cold_start=task.cold_start,
        )
        for name, gain in gains.items():
            priorities[stratum[name]] = priorities.get(stratum[name], 0.0) + gain
    return AdaptiveFigures(statuses, priorities, judgments)


# How long a refresh waits for the transactions that were in flight when it read the
# judgment sequence (judging is one short transaction), and how often it looks.
SETTLE_SECONDS = 0.25
SETTLE_POLL_SECONDS = 0.005

_SEQUENCE_SQL = (
    "SELECT pg_sequence_last_value(pg_get_serial_sequence('annotation_judgment', 'id')::regclass)"
)
# A transaction keeps the first view of pg_stat_activity it read: cleared before each look.
_FRESH_ACTIVITY_SQL = "SELECT pg_stat_clear_snapshot()"
# Transactions of this database that hold an id (have written), other than this session's.
_IN_FLIGHT_SQL = """
SELECT COALESCE(array_agg(backend_xid::text::bigint), '{}') FROM pg_stat_activity
 WHERE datname = current_database() AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()
"""
_STILL_RUNNING_SQL = """
SELECT COALESCE(array_agg(backend_xid::text::bigint), '{}') FROM pg_stat_activity
 WHERE datname = current_database() AND backend_xid::text::bigint = ANY(%s::bigint[])
"""


@dataclass(frozen=True)
class Horizon:
    """A judgment id read from the sequence (``bound``) and the transactions in flight just
    after (``xids``): every judgment with an id up to ``bound`` was written by one of them
    or committed before. ``settled``: they all ended within ``SETTLE_SECONDS``, so the
    judgments up to ``bound`` are final and visible now."""

    bound: int
    xids: list[int]
    settled: bool


def judgments_horizon(*, wait: float = SETTLE_SECONDS) -> Horizon:
    """Where the refresh may count up to (read outside any transaction of its own). A
    judgment's transaction holds an id before it inserts (the loop locks its batch first),
    so one that drew an id up to ``bound`` is in ``xids`` or committed."""
    with connection.cursor() as cursor:
        cursor.execute(_SEQUENCE_SQL)
        bound = cursor.fetchone()[0] or 0
        cursor.execute(_FRESH_ACTIVITY_SQL)
        cursor.execute(_IN_FLIGHT_SQL)
        xids = list(cursor.fetchone()[0])
    running = xids
    deadline = time.monotonic() + wait
    while running:
        if time.monotonic() >= deadline:
            return Horizon(bound, xids, settled=False)
        time.sleep(SETTLE_POLL_SECONDS)
        running = xids_running(running)
    return Horizon(bound, xids, settled=True)


def xids_running(xids: list[int]) -> list[int]:
    """Those of ``xids`` still in flight."""
    if not xids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_FRESH_ACTIVITY_SQL)
        cursor.execute(_STILL_RUNNING_SQL, [xids])
        return list(cursor.fetchone()[0])
