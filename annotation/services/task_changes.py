"""Changing a task after creation: edits, deletion of a draft, pause, resume and close."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from annotation.models import Campaign, Task
from annotation.protocols import PROTOCOLS
from annotation.services import assignment
from annotation.services.task_rules import EDITABLE_AFTER_LAUNCH, task_name_set
from annotation.services.tasks import (
    TaskError,
    task_locked,
    task_settings_check,
    task_validate,
)


@transaction.atomic
def task_update(*, task_id: int, campaign: Campaign | None = None, **settings: Any) -> Task:
    """Changes a task's settings: any of them while it is a draft; after launch only those
    that do not change its planned items (``EDITABLE_AFTER_LAUNCH``)."""
    task = task_locked(task_id=task_id, campaign=campaign)
    task_settings_check(settings={k: v for k, v in settings.items() if k != "task_type"})
    if task.state == Task.State.CLOSED:
        raise TaskError("the task is closed: it cannot be changed")
    if task.state != Task.State.DRAFT:
        frozen = sorted(set(settings) - set(EDITABLE_AFTER_LAUNCH))
        if frozen:
            raise TaskError(
                f"the task is launched: its items were planned from {', '.join(frozen)}, "
                "which can no longer change (start a new task instead)"
            )
    if "task_type" in settings and str(settings["task_type"]) not in PROTOCOLS:
        raise TaskError(f"unknown task type {settings['task_type']!r}")
    if settings.get("seed", 0) is None:
        settings.pop("seed")  # left blank on the page: the task keeps its seed
    for name, value in settings.items():
        if name != "name":
            setattr(task, name, value)
    if "name" in settings:
        task_name_set(task=task, name=settings["name"])
    task_validate(task=task, chosen=list(settings))
    task.save()
    return task


@transaction.atomic
def task_delete(*, task_id: int, campaign: Campaign | None = None) -> None:
    """Deletes a draft task (a launched one keeps its judgments: close it instead)."""
    task = task_locked(task_id=task_id, campaign=campaign)
    if task.state != Task.State.DRAFT:
        raise TaskError("only a draft task can be deleted; close a launched task instead")
    task.delete()


# From which states each change is allowed, and the state it leads to.
_TRANSITIONS = {
    "pause": ({Task.State.LAUNCHED}, Task.State.PAUSED),
    "resume": ({Task.State.PAUSED}, Task.State.LAUNCHED),
    "close": ({Task.State.LAUNCHED, Task.State.PAUSED}, Task.State.CLOSED),
}


def _task_change_state(task_id: int, campaign: Campaign | None, change: str) -> Task:
    task = task_locked(task_id=task_id, campaign=campaign)
    allowed, target = _TRANSITIONS[change]
    if task.state not in allowed:
        raise TaskError(f"a {task.get_state_display().lower()} task cannot {change}")
    task.state = target
    task.save(update_fields=["state"])
    if target != Task.State.LAUNCHED:
        assignment.batches_release(task=task)
    return task


@transaction.atomic
def task_pause(*, task_id: int, campaign: Campaign | None = None) -> Task:
    """Stops handing out items; claimed batches are released, judgments kept."""
    return _task_change_state(task_id, campaign, "pause")


@transaction.atomic
def task_resume(*, task_id: int, campaign: Campaign | None = None) -> Task:
    return _task_change_state(task_id, campaign, "resume")


@transaction.atomic
def task_close(*, task_id: int, campaign: Campaign | None = None) -> Task:
    """Ends the task for good; judgments kept, claimed batches released."""
    return _task_change_state(task_id, campaign, "close")
