"""The annotator loop's round trips: a judgment (with the next claim and the progress) and a
skip, each one statement of the PostgreSQL functions ``evalsite_judge_and_claim`` and
``evalsite_skip`` (annotation/migrations/sql/0028_assignment.sql), the only writers of
judgments and skips. Every check, write, batch closing and claim is there, once; Python
validates the answer before the call (``judgments.py``) and gives refusals their words.

Why PL/pgSQL and not Python: measured in the same minute on one machine (a Likert task,
``services`` called directly), the function took 3.3-4.6 ms and 2 statements per judgment
(the call and the shown slot's read), the Python path 14.5-21.9 ms and 11 statements
(BEGIN, locks, reads, the insert, two updates, the claim, COMMIT); Python in one round trip
would need the checks' order and the claim's loop in one SQL statement.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection

from annotation.db_prepared import prepared_cursor


@dataclass(frozen=True)
class JudgedAndClaimed:
    """What ``evalsite_judge_and_claim`` did. ``outcome``: "recorded"; "mine_judged" (a
    retry; ``judgment_id`` is the earlier judgment); "valid" (``check_only``: nothing else
    refuses the slot); else the refusal's reason, nothing written. ``batch_closed``: that
    judgment closed its batch; ``next_slot_id``: the slot claimed after it (None: nothing
    left, the task not running, or a pause after the batch)."""

    outcome: str
    judgment_id: int | None
    duration_ms: int | None
    batch_closed: bool
    next_slot_id: int | None
    # The annotator's progress after it, as evalsite_annotator_progress reads it (size,
    # judged, skipped, batches, quota): the next item's answer needs it.
    progress: ProgressRow


# The annotator's progress as evalsite_annotator_progress reads it; None: no batch yet.
ProgressRow = tuple[int | None, int | None, int | None, int | None, int | None] | None

# The answer's columns, in the function's order (answer_columns and the span validation
# give them).
JUDGMENT_COLUMNS = (
    ("score", "smallint"),
    ("fluency", "smallint"),
    ("preference", "varchar"),
    ("ranks", "smallint[]"),
    ("candidate_scores", "smallint[]"),
    ("post_edit", "text"),
    ("hter", "double precision"),
    ("edits", "double precision"),
    ("post_edit_length", "double precision"),
)
JUDGE_AND_CLAIM_SQL = (
    "SELECT outcome, recorded_id, recorded_ms, batch_closed, next_slot, batch_size, judged,"  # noqa: S608 (constant types; values are parameters)
    " skipped, batches, quota FROM evalsite_judge_and_claim(%s, %s, %s, %s, %s, %s, "
    + ", ".join(f"%s::{sql_type}" for _, sql_type in JUDGMENT_COLUMNS)
    + ")"
)


def slot_judge_and_claim(
    *,
    task_id: int,
    slot_id: int,
    annotator_id: int,
    values: dict[str, Any] | None,
    now: datetime,
    claim: str = "yes",
) -> JudgedAndClaimed:
    """Records the validated answer (``values``: its columns; None: only check the slot,
        the answer was refused) and claims the annotator's next slot (``claim``: "yes"; "in_batch",
    not after the batch closed; "no"): one statement, a
        transaction by itself unless the caller holds one (a span task's spans join it)."""
    answer = values or {}
    with prepared_cursor() as cursor:
        cursor.execute(
            JUDGE_AND_CLAIM_SQL,
            [
                task_id,
                slot_id,
                annotator_id,
                now,
                values is None,
                claim,
                *(answer.get(column) for column, _ in JUDGMENT_COLUMNS),
            ],
        )
        outcome, judgment_id, duration_ms, closed, next_slot_id, *progress = cursor.fetchone()
    row = None if progress[0] is None else tuple(progress)
    return JudgedAndClaimed(outcome, judgment_id, duration_ms, bool(closed), next_slot_id, row)


@dataclass(frozen=True)
class Skipped:
    """What ``evalsite_skip`` did: ``outcome`` "recorded", "mine_skipped" (a double click;
    ``skip_id`` is the earlier skip) or the refusal's reason."""

    outcome: str
    skip_id: int | None
    batch_closed: bool


def slot_skip(
    *, task_id: int, slot_id: int, annotator_id: int, reason: str, note: str, now: datetime
) -> Skipped:
    """Skips the slot (the checks, the companions cancelled, the item handed on, the batch
    closed or its lease renewed): one statement."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT outcome, skip_id, batch_closed FROM evalsite_skip(%s, %s, %s, %s, %s, %s)",
            [task_id, slot_id, annotator_id, now, reason, note],
        )
        outcome, skip_id, closed = cursor.fetchone()
    return Skipped(outcome, skip_id, bool(closed))
