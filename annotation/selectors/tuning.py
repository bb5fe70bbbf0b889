"""What a task's stopping rule is tuned for, and whether it pairs, read once at launch
(issue 23, section 2).

The live ranking status (selectors/human/ranking_status.py), the rolling intervals and an
adaptive task's priorities use always-valid confidence sequences whose mixture must be tuned
before the data (metrics/adaptive/confidence.py). A task with a judgment budget declares its
size: it is tuned for half each system's share of the budget
(``confidence.budget_tuning``), in the status's own observations -- judgments, or pages of
a document task, one per output shown on a contrastive screen -- counted from the launch's
plan: the budget times the plan's observations per slot (quality control and repeats are
slots the budget counts but the status does not), shared among the outputs the status will
rank (one per system, an output shared by several systems counting once, and the human
reference of a Likert task judged as a system).

``Task.tuned_for`` keeps the figure from the launch on. The budget may be raised or lowered
after launch (it decides when the task stops); the tuning does not follow it, nor anything
seen since, since re-tuning during the collection is what voids the guarantee across looks.
A task launched without a budget, or before this field existed, uses the rule's default
(``DEFAULT_TUNED_FOR``), with which it was watched from the start.

Pairing (``Task.paired_status``, ``launch_pairing``): a contrastive screen shows several
systems' outputs of one segment to one annotator, so the difference of two systems' scores
on a screen is free of the segment's difficulty and of the annotator's leniency; the pair's
interval is then the one-sample sequence on those differences
(``metrics.adaptive.status.screen_pair_sums``). It is used when the plan shows every system
on every screen (screen size at least the systems): then every pair is compared on every
screen and the paired interval is the narrower one whenever the two systems' scores on a
screen correlate positively. When each screen shows a few of many systems, a pair shares
only a share (r - 1) / (k - 1) of its screens, and the paired interval is narrower only if
that share exceeds 1 - (the correlation), which cannot be known in advance; the choice
must not be made from the data (a rule that took the narrower of the two would look twice),
so those tasks stay unpaired. Decided from the plan, before any score, and kept. Only for
planned tasks: an adaptive task's refresh keeps running sums per system and annotator
(selectors/adaptive.py), and the page must show the rule that stops the task.
"""

from __future__ import annotations

from typing import Any

from django.db import connection

from annotation.models import Assignment, ItemType, Task, Unit
from annotation.protocols import protocol_for
from metrics.adaptive.confidence import budget_tuning

# Outputs the status ranks: each distinct set of systems behind a judged output.
_LABELS_SQL = """
SELECT count(DISTINCT c -> 'systems')
  FROM annotation_item i CROSS JOIN LATERAL jsonb_array_elements(i.candidates) c
 WHERE i.task_id = %(task)s AND i.item_type = %(tgt)s AND c ->> 'type' = %(tgt)s
"""
_HAS_REFERENCE_SQL = (
    "SELECT EXISTS (SELECT 1 FROM annotation_item WHERE task_id = %(task)s AND item_type = %(ref)s)"
)
# The plan's slots; those the status counts (first judgments of judged outputs), the outputs
# they show, and the pages they fill.
_PLAN_SQL = """
SELECT count(*),
       count(*) FILTER (WHERE kept),
       COALESCE(sum(outputs) FILTER (WHERE kept), 0),
       count(DISTINCT (batch_id, page)) FILTER (WHERE kept)
  FROM (SELECT s.batch_id, s.page,
               NOT s.is_repeat AND i.item_type = ANY(%(kinds)s) AS kept,
               CASE WHEN i.item_type = %(tgt)s THEN (
                   SELECT count(*) FROM jsonb_array_elements(i.candidates) c
                    WHERE c ->> 'type' = %(tgt)s) ELSE 1 END AS outputs
          FROM annotation_slot s JOIN annotation_item i ON i.id = s.item_id
         WHERE s.task_id = %(task)s) plan
"""


def launch_tuning(task: Task) -> float | None:
    """Observations per system the task's confidence sequences are tuned for, from its
    budget and the plan its launch just made; None without a budget (the default)."""
    if not task.judgment_budget:
        return None
    # Likert ranks the human reference as a system ("Human").
    reference = protocol_for(task.task_type).ranks_reference
    kinds = [ItemType.TGT.value, ItemType.REF.value] if reference else [ItemType.TGT.value]
    names: dict[str, Any] = {
        "task": task.id,
        "tgt": ItemType.TGT.value,
        "ref": ItemType.REF.value,
        "kinds": kinds,
    }
    with connection.cursor() as cursor:
        cursor.execute(_LABELS_SQL, names)
        labels = cursor.fetchone()[0]
        if reference:
            cursor.execute(_HAS_REFERENCE_SQL, names)
            labels += int(cursor.fetchone()[0])
        cursor.execute(_PLAN_SQL, names)
        slots, kept, outputs, pages = cursor.fetchone()
    if not slots or not kept or not labels:
        return None
    observations = outputs * (pages if task.unit == Unit.DOCUMENT else kept) / kept
    return budget_tuning(task.judgment_budget * observations / slots, labels)


# The systems the task's screens show, in all and on the screen that shows the fewest.
_SHOWN_SQL = """
WITH shown AS (
    SELECT i.id, name
      FROM annotation_item i
     CROSS JOIN LATERAL jsonb_array_elements(i.candidates) c
     CROSS JOIN LATERAL jsonb_array_elements_text(c -> 'systems') AS names(name)
     WHERE i.task_id = %(task)s AND i.item_type = %(tgt)s AND c ->> 'type' = %(tgt)s)
SELECT (SELECT count(DISTINCT name) FROM shown),
       (SELECT min(systems) FROM (SELECT count(DISTINCT name) AS systems
                                    FROM shown GROUP BY id) screens)
"""


def launch_pairing(task: Task) -> bool:
    """Whether the task's ranking status pairs the systems on its screens: a planned
    contrastive task whose every screen shows every system (module docstring)."""
    if not protocol_for(task.task_type).contrastive or task.assignment != Assignment.PLANNED:
        return False
    with connection.cursor() as cursor:
        cursor.execute(_SHOWN_SQL, {"task": task.id, "tgt": ItemType.TGT.value})
        systems, fewest = cursor.fetchone()
    return bool(systems >= 2 and fewest == systems)
