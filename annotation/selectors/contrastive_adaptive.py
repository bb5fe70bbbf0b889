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

from django.db import connection

from annotation.models import Task, TaskType
from annotation.selectors.adaptive import NewObservations, measures_of
from annotation.services.spans import task_mqm_weights

# One row per output and system of each screen judged in the range (a screen with no
# system's output, a check, still gives one row, for the counts).
_SCREENS_SQL = """
SELECT j.id, j.annotator_id, COALESCE(b.stratum, 0), o.system_id, sy.name, o.score,
       j.is_repeat, j.excluded,
       CASE WHEN %(mqm)s AND o.id IS NOT NULL THEN ARRAY(
           SELECT e.severity || E'\\t' || COALESCE(e.category, '') FROM annotation_errorspan e
            WHERE e.judgment_id = j.id AND e.candidate = o.position ORDER BY e.id) END
  FROM annotation_judgment j
  JOIN annotation_slot s ON s.id = j.slot_id
  LEFT JOIN annotation_batch b ON b.id = s.batch_id
  LEFT JOIN annotation_outputjudgment o ON o.judgment_id = j.id AND o.system_id IS NOT NULL
  LEFT JOIN annotation_system sy ON sy.id = o.system_id
 WHERE j.task_id = %(task)s AND j.id > %(after)s AND j.id <= %(upto)s
   AND NOT (j.id = ANY(%(carried)s::bigint[]))
 ORDER BY j.id, o.position, sy.name
"""


def new_screen_observations(
    task: Task, *, after: int, upto: int, carried: list[int] | tuple[int, ...] = ()
) -> NewObservations:
    """The observations of the task's screens judged with ids in (``after``, ``upto``],
    less those in ``carried``. One query."""
    mqm = task.task_type == TaskType.CONTRASTIVE_MQM
    weights = task_mqm_weights(task=task) if mqm else None
    (measure,) = measures_of(task)
    with connection.cursor() as cursor:
        cursor.execute(
            _SCREENS_SQL,
            {"mqm": mqm, "task": task.id, "after": after, "upto": upto, "carried": list(carried)},
        )
        rows = cursor.fetchall()
    found = NewObservations()
    counted: set[int] = set()
    for ident, annotator, stratum, system, name, score, repeat, excluded, spans in rows:
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
        sums = found.sums.setdefault((measure, name, annotator), [0, 0.0, 0.0])
        sums[0] += 1
        sums[1] += value
        sums[2] += value * value
    return found
