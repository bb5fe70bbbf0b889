"""Tasks: creation with their settings, and launch (items and assignment slots up front)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models import Max

from annotation.models import (
    CONTRASTIVE_TYPES,
    HUMAN,
    LIKERT_TYPES,
    SPAN_TYPES,
    Batch,
    Campaign,
    Item,
    ItemType,
    Output,
    ReferenceSegment,
    Segment,
    Slot,
    System,
    Task,
    TaskType,
    Unit,
)

# Re-exported: callers import the task errors and rules from here.
from annotation.protocols import PROTOCOLS
from annotation.selectors.references import references_shown
from annotation.selectors.systems import first_runs
from annotation.services import assignment, page_plan
from annotation.services.contrastive import contrastive_items, shuffle_check_items
from annotation.services.task_rules import (  # noqa: F401
    SETTINGS,
    TaskError,
    quality_control_check,
    task_name_set,
    task_settings_check,
    task_validate,
)

MAX_PAIRS_PER_SEGMENT = 10


@transaction.atomic
def task_create(*, campaign: Campaign, task_type: str, **settings: Any) -> Task:
    """A draft task of the protocol ``task_type``. Settings left out (or None) take the
    protocol's defaults; a blank name is the protocol's (numbered if taken), a left-out seed
    is drawn for this task."""
    if task_type not in PROTOCOLS:
        raise TaskError(f"unknown task type {task_type!r}; use one of {', '.join(TaskType.values)}")
    protocol = PROTOCOLS[task_type]
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
    if task.reference_rate <= 0 or not task.shows_reference:
        return None
    if task.campaign.references.count() >= 2:
        return None
    return SAME_REFERENCE_WARNING


@dataclass
class _Data:
    segments: list[Segment]
    systems: list[System]
    outputs: dict[int, list[str]]  # system id -> text per segment position
    references: list[list[str]]  # text per segment position, by reference name

    def judged_reference(self, task: Task) -> list[str] | None:
        """The reference judged as a candidate (REF items): never the one shown beside it."""
        candidates = self.references[1:] if task.shows_reference else self.references
        return candidates[0] if candidates else None


def _load(campaign: Campaign) -> _Data:
    segments = list(Segment.objects.filter(campaign=campaign).order_by("index"))
    systems = list(System.objects.filter(campaign=campaign).order_by("name"))
    position = {segment.id: i for i, segment in enumerate(segments)}
    outputs: dict[int, list[str]] = {system.id: [""] * len(segments) for system in systems}
    for system_id, segment_id, text in Output.objects.filter(
        run__in=first_runs(campaign)
    ).values_list("run__system_id", "segment_id", "text"):
        outputs[system_id][position[segment_id]] = text
    # The first is the one shown, the second the one a bad-reference item judges.
    names = list(references_shown(campaign.id).values_list("name", flat=True)[:2])
    references = {name: [""] * len(segments) for name in names}
    for name, segment_id, text in ReferenceSegment.objects.filter(
        reference__campaign=campaign, reference__name__in=names
    ).values_list("reference__name", "segment_id", "text"):
        references[name][position[segment_id]] = text
    return _Data(segments, systems, outputs, [references[name] for name in names])


def _candidate(text: str, systems: list[str], item_type: str = ItemType.TGT) -> dict[str, Any]:
    return {"text": text, "systems": systems, "type": item_type}


def _collapse(entries: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
    """(system, text, type) entries → candidates, identical texts shown once."""
    candidates: dict[str, dict[str, Any]] = {}
    for system, text, item_type in entries:
        if text in candidates:
            candidates[text]["systems"].append(system)
        else:
            candidates[text] = _candidate(text, [system], item_type)
    return list(candidates.values())


@transaction.atomic
def task_launch(*, task_id: int, campaign: Campaign | None = None) -> int:
    """Creates the task's items and their slots (item × judgments per item); returns the
    number of items. Everything is drawn from the task's seed, so a launch is reproducible.
    With ``campaign``, a task of another campaign is refused."""
    task = task_locked(task_id=task_id, campaign=campaign)
    if task.state != Task.State.DRAFT:
        raise TaskError("the task is launched already")
    task_validate(task=task)
    data = _load(task.campaign)
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
    if task.task_type in (*LIKERT_TYPES, TaskType.POSTEDIT, *SPAN_TYPES):
        items = _single_output_items(task, data, rng)
    elif task.task_type == TaskType.PAIRWISE:
        items = _pairwise_items(task, data, rng)
    elif task.task_type in CONTRASTIVE_TYPES:
        items = contrastive_items(
            task=task, segments=data.segments, systems=data.systems, outputs=data.outputs, rng=rng
        )
    else:
        items = _ranking_items(task, data, rng)
    _create_numbered(task, items)
    groups = assignment.groups_plan(items=items, task=task, rng=rng)
    bad = [
        _bad_reference_items(task, data, group, rng)
        + _hotw_items(task, group, rng)
        + shuffle_check_items(task=task, group=group, rng=rng)
        for group in groups
    ]
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
    task.save(update_fields=["state"])
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


def _single_output_items(task: Task, data: _Data, rng: random.Random) -> list[Item]:
    reference = data.judged_reference(task)
    items = []
    for i, segment in enumerate(data.segments):
        for system in data.systems:
            text = data.outputs[system.id][i]
            items.append(
                Item(
                    task=task,
                    campaign=task.campaign,
                    segment=segment,
                    system=system,
                    candidates=[_candidate(text, [system.name])],
                )
            )
        if reference is not None and rng.random() < task.reference_rate:
            items.append(
                Item(
                    task=task,
                    campaign=task.campaign,
                    segment=segment,
                    item_type=ItemType.REF,
                    candidates=[_candidate(reference[i], [HUMAN], ItemType.REF)],
                )
            )
    return items


def _bad_reference_items(
    task: Task, data: _Data, group: list[Item], rng: random.Random
) -> list[Item]:
    """The group's bad references, each degrading a system output of the group (as many as
    the assignment rules want, fewer if outputs are too short to degrade)."""
    wanted = assignment.checks_wanted(task=task, originals=len(group), kind="bad_reference")
    if not wanted:
        return []
    from annotation.lib.badref import bad_reference

    donors_by_system = {system.id: data.outputs[system.id] for system in data.systems}
    outputs = [item for item in group if item.item_type == ItemType.TGT]
    bad: list[Item] = []
    for item in rng.sample(outputs, len(outputs)):
        if len(bad) == wanted:
            break
        assert item.system_id is not None  # every TGT item has its system
        text = item.candidates[0]["text"]
        try:
            degraded = bad_reference(
                text,
                donors_by_system[item.system_id],
                rng=rng,
                language=task.campaign.target_language,
            )
        except ValueError:
            continue  # too short to degrade inside, or no donor: no BAD item here
        bad.append(
            Item(
                task=task,
                campaign=task.campaign,
                item_type=ItemType.BAD,
                segment=item.segment,
                system=item.system,
                original=item,
                candidates=[_candidate(degraded.text, item.candidates[0]["systems"], ItemType.BAD)],
                check_span=list(degraded.damage),
            )
        )
    return bad


def _hotw_items(task: Task, group: list[Item], rng: random.Random) -> list[Item]:
    """MQM's HOTW checks of the group (``hotw_rate``): a system output with a run of it
    reversed (``lib.perturb.hotw_error``), a CHK item whose error the rater must mark;
    fewer when outputs are too short."""
    wanted = assignment.checks_wanted(task=task, originals=len(group), kind="hotw")
    if not wanted:
        return []
    from annotation.lib.perturb import PerturbationError, hotw_error

    checks: list[Item] = []
    outputs = [item for item in group if item.item_type == ItemType.TGT]
    for item in rng.sample(outputs, len(outputs)):
        if len(checks) == wanted:
            break
        try:
            made = hotw_error(
                item.candidates[0]["text"], language=task.campaign.target_language, rng=rng
            )
        except PerturbationError:
            continue
        checks.append(
            Item(
                task=task,
                campaign=task.campaign,
                item_type=ItemType.CHK,
                segment=item.segment,
                system=item.system,
                original=item,
                candidates=[_candidate(made.text, item.candidates[0]["systems"], ItemType.CHK)],
                check_span=list(made.extent),
            )
        )
    return checks


def _pairwise_items(task: Task, data: _Data, rng: random.Random) -> list[Item]:
    items = []
    pairs = list(itertools.combinations(data.systems, 2))
    if not pairs:
        raise TaskError("pairwise comparison needs at least two systems")
    for i, segment in enumerate(data.segments):
        chosen = rng.sample(pairs, min(len(pairs), MAX_PAIRS_PER_SEGMENT))
        for first, second in chosen:
            entries = [
                (first.name, data.outputs[first.id][i], ItemType.TGT),
                (second.name, data.outputs[second.id][i], ItemType.TGT),
            ]
            if entries[0][1] == entries[1][1]:
                continue  # identical outputs: nothing to prefer
            rng.shuffle(entries)  # anonymised, in random order
            items.append(
                Item(
                    task=task,
                    campaign=task.campaign,
                    segment=segment,
                    candidates=_collapse(entries),
                )
            )
    return items


def _ranking_items(task: Task, data: _Data, rng: random.Random) -> list[Item]:
    size = task.ranking_size
    reference = data.judged_reference(task)
    items = []
    for i, segment in enumerate(data.segments):
        entries = [(s.name, data.outputs[s.id][i], ItemType.TGT) for s in data.systems]
        if reference is not None and rng.random() < task.reference_rate:
            entries.append((HUMAN, reference[i], ItemType.REF))
        rng.shuffle(entries)
        # Every system once per segment; the last group is filled up from the others.
        for start in range(0, len(entries), size):
            group = entries[start : start + size]
            if len(group) < size and len(entries) >= size:
                others = [e for e in entries if e not in group]
                group += rng.sample(others, size - len(group))
            candidates = _collapse(group)
            if len(candidates) < 2:
                continue  # every output identical: nothing to rank
            items.append(
                Item(task=task, campaign=task.campaign, segment=segment, candidates=candidates)
            )
    return items
