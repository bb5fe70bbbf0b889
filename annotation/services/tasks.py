"""Tasks: creation with their settings, and launch (items and assignment slots up front)."""

from __future__ import annotations

import random
from typing import Any

from django.db import connection, transaction
from django.db.models import Max

from annotation.models import (
    HUMAN,  # noqa: F401 (re-exported: tests import it from here)
    Batch,
    Campaign,
    Item,
    Slot,
    Task,
    Unit,
)
from annotation.protocols import PROTOCOLS, reference_shown
from annotation.selectors.tuning import launch_pairing, launch_tuning
from annotation.services import assignment, page_plan
from annotation.services.task_items import check_items_build, launch_data_load, task_items_build

# Re-exported: callers import the task errors and rules from here.
from annotation.services.task_rules import (  # noqa: F401
    SETTINGS,
    TaskError,
    quality_control_check,
    task_name_set,
    task_settings_check,
    task_validate,
)


@transaction.atomic
def task_create(*, campaign: Campaign, task_type: str, **settings: Any) -> Task:
    """A draft task of the protocol ``task_type``. Settings left out (or None) take the
    protocol's defaults; a blank name is the protocol's (numbered if taken), a left-out seed
    is drawn for this task."""
    protocol = PROTOCOLS.get(task_type) if isinstance(task_type, str) else None
    if protocol is None:
        raise TaskError(f"unknown task type {task_type!r}; use one of {', '.join(PROTOCOLS)}")
    task_settings_check(settings=settings)
    settings = {name: value for name, value in settings.items() if value is not None}
    name = settings.pop("name", "")
    # Locked, so that two tasks created at once cannot take the same name.
    campaign = Campaign.objects.select_for_update().get(id=campaign.id)
    if campaign.state in (Campaign.State.CLOSED, Campaign.State.ARCHIVED):
        raise TaskError(f"the campaign is {campaign.state}: no new tasks")
    defaults = {key: value for key, value in protocol.defaults.items() if key not in settings}
    task = Task(campaign=campaign, task_type=task_type, **defaults, **settings)
    task_name_set(task=task, name=name)
    task_validate(task=task, chosen=list(settings))
    task.save()
    return task


def task_locked(*, task_id: int, campaign: Campaign | None) -> Task:
    """The task, locked; a task of another campaign than the one named is not found."""
    tasks = Task.objects.select_for_update().select_related("campaign")
    if campaign is not None:
        tasks = tasks.filter(campaign=campaign)
    task = tasks.filter(id=task_id).first()
    if task is None:
        raise TaskError("no such task in this campaign", kind="not_found")
    return task


SAME_REFERENCE_WARNING = (
    "annotators see the human reference in this task and the campaign has only one, so it "
    "cannot also be judged as a candidate: no human-reference items are planned (upload a "
    "second reference before launching to judge one)"
)


def task_reference_warning(*, task: Task) -> str | None:
    """Why the task's human-reference items will not be planned, if they will not."""
    if task.reference_rate <= 0 or not reference_shown(task):
        return None
    if task.campaign.references.count() >= 2:
        return None
    return SAME_REFERENCE_WARNING


@transaction.atomic
def task_launch(*, task_id: int, campaign: Campaign | None = None) -> int:
    """Creates the task's items and their slots (item × judgments per item); returns the
    number of items. Everything is drawn from the task's seed, so a launch is reproducible.
    With ``campaign``, a task of another campaign is refused."""
    task = task_locked(task_id=task_id, campaign=campaign)
    if task.state != Task.State.DRAFT:
        raise TaskError("the task is launched already")
    task_validate(task=task)
    data = launch_data_load(campaign=task.campaign)
    if not data.segments or not data.systems:
        raise TaskError("upload the source and at least one system output before launching")
    needs_reference = task.monolingual or task.show_reference or task.reference_rate > 0
    if needs_reference and not data.references:
        raise TaskError("this task shows or judges the reference: upload a reference first")
    rng = random.Random(task.seed)
    if task.unit == Unit.DOCUMENT:
        planned = page_plan.document_task_plan(
            task=task,
            segments=data.segments,
            systems=data.systems,
            outputs=data.outputs,
            reference=data.judged_reference(task),
            rng=rng,
            create_items=lambda items: _create_numbered(task, items),
        )
        return _finish_launch(task, planned)
    items = task_items_build(task=task, data=data, rng=rng)
    _create_numbered(task, items)
    groups = assignment.groups_plan(items=items, task=task, rng=rng)
    bad = [check_items_build(task=task, data=data, group=group, rng=rng) for group in groups]
    _create_numbered(task, [item for group in bad for item in group])
    planned = assignment.batches_create(
        task=task, groups=[group + extra for group, extra in zip(groups, bad, strict=True)], rng=rng
    )
    return _finish_launch(task, planned)


@transaction.atomic
def task_launch_items(*, task: Task, items: list[Item]) -> int:
    """Launches a task with items made elsewhere (an Appraise import); returns their count."""
    task = Task.objects.select_for_update().get(id=task.id)
    if task.state == Task.State.LAUNCHED:
        raise TaskError("the task is launched already")
    if not items:
        raise TaskError("a task needs at least one item")
    _create_numbered(task, items)
    groups = assignment.groups_from_appraise(items=items, task=task)
    planned = assignment.batches_create(
        task=task, groups=groups, rng=random.Random(task.seed), keep_order=True
    )
    return _finish_launch(task, planned)


@transaction.atomic
def task_launch_pages(*, task: Task, pages: list[list[Item]]) -> int:
    """Launches a document task with pages made elsewhere (a Pearmut import: each page one
    document of one system, in reading order); returns the item count."""
    task = Task.objects.select_for_update().get(id=task.id)
    if task.state == Task.State.LAUNCHED:
        raise TaskError("the task is launched already")
    if task.unit != Unit.DOCUMENT or not pages or not all(pages):
        raise TaskError("a document task needs pages of at least one item")
    _create_numbered(task, [item for page in pages for item in page])
    groups = page_plan.page_groups(task=task, pages=pages)
    planned = page_plan.pages_plan(task=task, groups=groups, rng=random.Random(task.seed))
    return _finish_launch(task, planned)


def _create_numbered(task: Task, items: list[Item]) -> None:
    """Gives the items the next free ids of the campaign (unique by constraint), then saves."""
    top = Item.objects.filter(campaign_id=task.campaign_id).aggregate(top=Max("external_id"))
    first = (top["top"] or 0) + 1
    for offset, item in enumerate(items):
        item.external_id = first + offset
    Item.objects.bulk_create(items)


def _finish_launch(task: Task, planned: int) -> int:
    """Marks the task launched (its batches and slots are created); returns its item count."""
    task.state = Task.State.LAUNCHED
    # The stopping rule's tuning and pairing, fixed now from the budget and the plan.
    task.tuned_for = launch_tuning(task)
    task.paired_status = launch_pairing(task)
    task.save(update_fields=["state", "tuned_for", "paired_status"])
    Campaign.objects.filter(id=task.campaign_id, state=Campaign.State.DRAFT).update(
        state=Campaign.State.ACTIVE
    )
    # Thousands of new slots: fresh planner statistics keep "next item" and slot lookups on
    # their indexes. Analysed now, inside the transaction (ANALYZE counts the transaction's
    # own new rows), so that work done before the commit (the demo's simulated raters) is
    # planned on them too: statistics saying "empty" gave nested loops over every item, and
    # seconds per lookup.
    with connection.cursor() as cursor:
        cursor.execute(
            f"ANALYZE {Slot._meta.db_table}, {Item._meta.db_table}, {Batch._meta.db_table}"
        )
    return planned
