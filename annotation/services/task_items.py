"""The items a segment task's launch makes (``services.tasks.task_launch`` saves and plans
them): one output per item (Likert, post-edit, error spans), pairs, rankings or
contrastive screens, and each group's quality-control items, all drawn from the task's
seed."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from annotation.models import (
    HUMAN,
    Campaign,
    Item,
    ItemType,
    Output,
    ReferenceSegment,
    Segment,
    System,
    Task,
)
from annotation.protocols import protocol_for, reference_shown
from annotation.selectors.references import references_shown
from annotation.selectors.systems import first_runs
from annotation.services import assignment
from annotation.services.contrastive import contrastive_items, shuffle_check_items
from annotation.services.task_rules import TaskError

# A pairwise task compares at most this many pairs of systems per segment.
MAX_PAIRS_PER_SEGMENT = 10


@dataclass
class LaunchData:
    segments: list[Segment]
    systems: list[System]
    outputs: dict[int, list[str]]  # system id -> text per segment position
    references: list[list[str]]  # text per segment position, by reference name

    def judged_reference(self, task: Task) -> list[str] | None:
        """The reference judged as a candidate (REF items): never the one shown beside it."""
        candidates = self.references[1:] if reference_shown(task) else self.references
        return candidates[0] if candidates else None


def launch_data_load(*, campaign: Campaign) -> LaunchData:
    """The campaign's segments, systems, their first runs' outputs and the references."""
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
    return LaunchData(segments, systems, outputs, [references[name] for name in names])


def task_items_build(*, task: Task, data: LaunchData, rng: random.Random) -> list[Item]:
    """A segment task's items (unsaved), as its protocol shows outputs, drawn from ``rng``:
    one a screen, contrastive screens, ``ranking_size`` ranked together, or pairs."""
    protocol = protocol_for(task.task_type)
    if not protocol.several_outputs:
        return _single_output_items(task, data, rng)
    if protocol.contrastive:
        return contrastive_items(
            task=task, segments=data.segments, systems=data.systems, outputs=data.outputs, rng=rng
        )
    if protocol.applies("ranking_size"):
        return _ranking_items(task, data, rng)
    return _pairwise_items(task, data, rng)


def check_items_build(
    *, task: Task, data: LaunchData, group: list[Item], rng: random.Random
) -> list[Item]:
    """The quality-control items of one group (unsaved): bad references, HOTW checks and
    shuffled-translation checks, as many as the task's rates ask."""
    return (
        _bad_reference_items(task, data, group, rng)
        + _hotw_items(task, group, rng)
        + shuffle_check_items(task=task, group=group, rng=rng)
    )


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


def _single_output_items(task: Task, data: LaunchData, rng: random.Random) -> list[Item]:
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
    task: Task, data: LaunchData, group: list[Item], rng: random.Random
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


def _pairwise_items(task: Task, data: LaunchData, rng: random.Random) -> list[Item]:
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


def _ranking_items(task: Task, data: LaunchData, rng: random.Random) -> list[Item]:
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
