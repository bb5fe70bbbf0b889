"""Helpers for the human-results tests: annotators judging through the services."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from annotation.models import Slot, Task
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import judgment_record


def judge_all(
    task: Task, users: Sequence[Any], answer: Callable[[Any, Slot], dict[str, Any]]
) -> int:
    """The users take turns claiming and answering items until none is left; returns how
    many judgments were recorded. ``answer(user, slot)`` gives the answer to a slot."""
    recorded = 0
    active = list(users)
    while active:
        for user in list(active):
            slot = slot_claim_next(task=task, annotator_id=user.id)
            if slot is None:
                active.remove(user)
                continue
            slot = Slot.objects.select_related("item__system").get(id=slot.id)
            judgment_record(
                task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer=answer(user, slot)
            )
            recorded += 1
    return recorded
