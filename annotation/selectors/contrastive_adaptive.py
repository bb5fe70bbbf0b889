"""What an adaptive contrastive task's refresh job reads (selectors.adaptive reads the
one-output tasks): the screens judged in an id range, each output one observation of its
system, as the results page's ranking status counts them
(``selectors.human.status_scores``: first judgments of system outputs, nothing excluded;
cESA's 0-100 score, contrastive DA's score, contrastive MQM's penalty from the spans that
name the output's candidate under the task's weights).

The running sums are keyed by (measure, system name, annotator) as for the other tasks,
their ``stratum`` the system's id (the priorities of the sets are made from the systems'
gains: ``services.contrastive_adaptive.strata_priorities``); ``judged`` counts screens per
batch stratum (the set).
"""

from __future__ import annotations

from typing import Any

from django.db import connection

from annotation.models import Task, Unit
from annotation.protocols import protocol_for
from annotation.selectors.adaptive import NewObservations, measures_of
from annotation.services.spans import task_mqm_weights

# One row per output and system of each screen judged (a screen with no system's output, a
# check, still gives one row, for the counts).
_ROWS_SQL = """
SELECT j.id, j.annotator_id, COALESCE(b.stratum, 0), o.system_id, sy.name, o.score,
       j.is_repeat, j.excluded, s.batch_id, s.page,
       CASE WHEN %(mqm)s AND o.id IS NOT NULL THEN ARRAY(
           SELECT e.severity || E'\\t' || COALESCE(e.category, '') FROM annotation_errorspan e
            WHERE e.judgment_id = j.id AND e.candidate = o.position ORDER BY e.id) END
  FROM annotation_judgment j
  JOIN annotation_slot s ON s.id = j.slot_id
  LEFT JOIN annotation_batch b ON b.id = s.batch_id
  LEFT JOIN annotation_outputjudgment o ON o.judgment_id = j.id AND o.system_id IS NOT NULL
  LEFT JOIN annotation_system sy ON sy.id = o.system_id
"""
_SCREENS_SQL = (
    _ROWS_SQL + " WHERE j.task_id = %(task)s AND j.id > %(after)s AND j.id <= %(upto)s"
    " AND NOT (j.id = ANY(%(carried)s::bigint[])) ORDER BY j.id, o.position, sy.name"
)
# dccl: the rest of a document task's pages (batch, page) beyond the range (the caller
# keeps the rows of its own pairs of batch and page).
_PAGES_SQL = (
    _ROWS_SQL + " WHERE j.task_id = %(task)s AND j.id > %(upto)s"
    " AND s.batch_id = ANY(%(batches)s::bigint[]) AND s.page = ANY(%(pages)s::int[])"
    " ORDER BY j.id, o.position, sy.name"
)


def new_screen_observations(
    task: Task, *, after: int, upto: int, carried: list[int] | tuple[int, ...] = ()
) -> NewObservations:
    """The observations of the task's screens judged with ids in (``after``, ``upto``],
    less those in ``carried``; in a document task, with the rest of any page they start (a
    page is recorded in one transaction, and each system's outputs on it are one
    observation: the mean of their scores, as the status counts them). Two queries at
    most."""
    mqm = protocol_for(task.task_type).penalty_scored
    weights = task_mqm_weights(task=task) if mqm else None
    (measure,) = measures_of(task)
    names = {"mqm": mqm, "task": task.id, "upto": upto}
    with connection.cursor() as cursor:
        cursor.execute(_SCREENS_SQL, {**names, "after": after, "carried": list(carried)})
        rows = cursor.fetchall()
        extra: list[tuple[Any, ...]] = []
        document = task.unit == Unit.DOCUMENT
        wanted = {(row[8], row[9]) for row in rows if row[9] is not None} if document else set()
        if wanted:
            pages = sorted(wanted)
            batches = [batch for batch, _ in pages]
            cursor.execute(
                _PAGES_SQL, {**names, "batches": batches, "pages": [page for _, page in pages]}
            )
            extra = [row for row in cursor.fetchall() if (row[8], row[9]) in wanted]
    found = NewObservations(carried=sorted({row[0] for row in extra}))
    counted: set[int] = set()
    # Observations: (annotator, system, page or screen) -> the values of its outputs.
    observed: dict[tuple[int, str, tuple[int, int]], list[float]] = {}
    for ident, annotator, stratum, system, name, score, repeat, excluded, batch, page, spans in (
        rows + extra
    ):
        if ident not in counted:
            counted.add(ident)
            found.judgments += 1
            found.judged[stratum] = found.judged.get(stratum, 0) + 1
        if system is None or repeat or excluded:
            continue
        if weights is not None:
            value = sum(
                weights.weight(severity, category or None)
                for severity, _, category in (span.partition("\t") for span in spans or ())
            )
        else:
            value = float(score or 0)
        found.stratum.setdefault(name, system)
        unit = (batch, page) if document and page is not None else (-1, ident)
        observed.setdefault((annotator, name, unit), []).append(value)
    for (annotator, name, _), values in observed.items():
        mean = sum(values) / len(values)
        sums = found.sums.setdefault((measure, name, annotator), [0, 0.0, 0.0])
        sums[0] += 1
        sums[1] += mean
        sums[2] += mean * mean
    return found
