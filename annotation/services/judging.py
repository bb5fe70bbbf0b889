"""The annotator's judgment and their next item in one SQL round trip.

``judgment_record_and_claim_next`` records an answer and claims the next slot together (the
API's POST /api/v1/judgments). An answer the task alone checks (Likert, pairwise A/B/T) takes
one statement, the PostgreSQL function ``evalsite_judge_and_claim`` (assignment.sql,
migration 0023_judgment_submit_and_claim), which applies the checks of
``judgments.judgment_record_in_transaction`` in the same order, writes what it writes, claims as
``assignment.slot_claim_next`` does and returns the annotator's progress; the rest takes the
general path of ``judgments`` and ``assignment``. The shown slot is read in raw SQL too: the
hot path pays no ORM compilation (``slot_rows.slot_shown``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from annotation.lib.scales import CONTINUOUS
from annotation.models import LIKERT_TYPES, Judgment, Slot, Task, TaskType
from annotation.services.assignment import (
    CROWD_BATCHES,
    batch_quota,
    slot_claim_next_in_transaction,
)
from annotation.services.judgments import (
    JudgmentError,
    Recorded,
    answer_columns,
    judgment_record_in_transaction,
    judgment_refusal,
)
from annotation.services.slot_rows import slot_shown


@dataclass(frozen=True)
class JudgedAndClaimed:
    """What ``slot_judge_and_claim`` did: ``outcome`` is "recorded" (with the judgment's id
    and duration, and the next slot, None when nothing is left) or the refusal's reason."""

    outcome: str
    judgment_id: int | None
    duration_ms: int | None
    next_slot_id: int | None
    # The annotator's progress after it, as evalsite_annotator_progress reads it (size,
    # judged, batches, crowd): the next item's answer needs it.
    progress: tuple[int | None, int | None, int | None, bool | None]


JUDGE_AND_CLAIM_SQL = (
    "SELECT outcome, recorded_id, recorded_ms, next_slot, batch_size, judged, batches, crowd"
    " FROM evalsite_judge_and_claim(%s, %s, %s, %s, %s, %s, %s, %s::smallint, %s::smallint,"
    " %s::varchar)"
)


def slot_judge_and_claim(
    *, task: Task, slot_id: int, annotator_id: int, values: dict[str, Any], now: datetime
) -> JudgedAndClaimed:
    """Records a checked Likert or pairwise answer (``values``: score, fluency, preference)
    on the slot and claims the annotator's next one: one statement of the PostgreSQL
    function ``evalsite_judge_and_claim`` (assignment.sql), a transaction by itself, so no
    BEGIN and COMMIT round trips; the judgment and the claim commit together or not at all.
    The caller turns a refusal into words (``services/judgments.py``)."""
    with connection.cursor() as cursor:
        cursor.execute(
            JUDGE_AND_CLAIM_SQL,
            [
                task.id,
                slot_id,
                annotator_id,
                now,
                task.lease_seconds,
                batch_quota(task),
                CROWD_BATCHES,
                values.get("score"),
                values.get("fluency"),
                values.get("preference"),
            ],
        )
        row = cursor.fetchone()
    outcome, judgment_id, duration_ms, next_slot_id, *progress = row
    return JudgedAndClaimed(outcome, judgment_id, duration_ms, next_slot_id, tuple(progress))


# The annotator's progress as evalsite_annotator_progress reads it, when it came along.
ProgressRow = tuple[int | None, int | None, int | None, bool | None] | None


def judgment_record_and_claim_next(
    *, task: Task, slot_id: int, annotator_id: int, answer: dict[str, Any]
) -> tuple[Recorded, Slot | None, ProgressRow]:
    """Records the answer (as ``judgment_record``) and claims the annotator's next slot (as
    ``slot_claim_next``) together: one answer per judgment for the client, one commit for the
    database. A failed claim (the database lost) rolls the judgment back with it, and the
    client's retry records it then; an acknowledged judgment is always stored.

    An answer checked without its item (Likert, pairwise A/B/T) takes one round trip
    (``slot_judge_and_claim``), the annotator's progress after it included (the third value;
    None on the general path: read it then); the rest (an item's outputs needed to check it,
    a second answer to compare with the first, a form to refuse) takes the general path."""
    values = _checked_without_item(task, answer)
    if values is not None:
        now = timezone.now()
        done = slot_judge_and_claim(
            task=task, slot_id=slot_id, annotator_id=annotator_id, values=values, now=now
        )
        if done.outcome == "recorded":
            # The columns the answer needs; the row is as judgment_record_in_transaction
            # writes it.
            judgment = Judgment(
                id=done.judgment_id,
                slot_id=slot_id,
                task_id=task.id,
                annotator_id=annotator_id,
                task_type=task.task_type,
                submitted_at=now,
                duration_ms=done.duration_ms or 0,
                **values,
            )
            next_slot = done.next_slot_id
            shown = None if next_slot is None else slot_shown(slot_id=next_slot, task=task)
            return Recorded(judgment, created=True), shown, done.progress
        if done.outcome != "existing":
            raise judgment_refusal(done.outcome)
    recorded, shown = _record_and_claim(
        task=task, slot_id=slot_id, annotator_id=annotator_id, answer=answer
    )
    return recorded, shown, None


def _checked_without_item(task: Task, answer: dict[str, Any]) -> dict[str, Any] | None:
    """The answer's columns when the task alone checks it (Likert, pairwise A/B/T); None
    when the item is needed or the answer is refused (the general path says why, in the
    order it checks: a judged or released slot before the form)."""
    discrete_pairwise = task.task_type == TaskType.PAIRWISE and task.scale not in CONTINUOUS
    if task.task_type not in LIKERT_TYPES and not discrete_pairwise:
        return None
    try:
        return answer_columns(task.task_type, task.scale, [], answer)
    except JudgmentError:
        return None


@transaction.atomic
def _record_and_claim(
    *, task: Task, slot_id: int, annotator_id: int, answer: dict[str, Any]
) -> tuple[Recorded, Slot | None]:
    # The parts run inside this transaction without savepoints: two round trips fewer.
    recorded = judgment_record_in_transaction(
        task_id=task.id, slot_id=slot_id, annotator_id=annotator_id, answer=answer
    )
    if task.state != Task.State.LAUNCHED:
        return recorded, None  # a retry after a pause or close: no new work is handed out
    return recorded, slot_claim_next_in_transaction(task=task, annotator_id=annotator_id)
