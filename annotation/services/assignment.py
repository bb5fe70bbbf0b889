"""Handing out work in batches, as in WMT HITs: planning here, the loop in SQL (below).

Planning (at launch, drawn from the task's seed, so a launch is reproducible):

- The task's items are shuffled and cut into groups of ``batch_capacity`` items; the
  attention checks its protocol declares take their share of each group: bad references
  (``bad_reference_rate``: 10 of 100 at 0.1) and MQM's HOTW errors (``hotw_rate``), each one
  made from a system output of its own group, and contrastive screens shown again with one
  output shuffled (``shuffle_rate``, ``contrastive.shuffle_check_items``). A share
  (``repeat_rate``) of each group's items is planned to come back as a repeat; repeats come
  on top of the capacity. An Appraise import keeps its own batches and their order.
- Inside a group, a check (bad reference, HOTW error) or repeat comes at least ``QC_GAP``
  items after its original, or as far as the group allows (``group_order``).
- Each group becomes one batch per replica (``judgments_per_item``), all in the same order;
  replica 0's batches come first, so every item gets its first judgment before its second.
  The slots of a batch are created up front: its size (quality control included) changes
  only when a skip cancels the companions of the skipped item.

A document task (``Task.unit`` "document") is planned by ``page_plan.py``: whole documents
in batches, cut into pages whose slots are consecutive (``Slot.page``); the claim serves a
page's slots together and ``page_judgments.py`` records a page at once.

Claiming, judging, skipping and closing a batch are one state machine in PL/pgSQL
(``annotation/migrations/sql/0050_cperf2_assignment.sql``, each rule once, for every task
type; ``judging.py`` calls it, one statement per judgment). Claiming (``evalsite_claim_slot``), in
order:

1. the batch the annotator holds (resuming after a closed browser; its lease renewed),
2. else, once they passed the task's tutorial if it has one (``evalsite_tutorial_passed``;
   ``services/tutorials.py``: the gate holds for every page and API that claims), the first
   open batch, in launch order, holding no item they have had,
3. else such a batch whose lease expired (abandoned): what is left of it becomes theirs.

The batches of a group hold the same items, so an annotator gets at most one batch of a
group, and never an item twice. They judge the batch's slots in order, so each bad
reference and repeat goes to whoever judged its original (a batch abandoned half-way is
the one exception). Claims lock the annotator's row (a double click in two tabs takes one
batch) and skip batches locked by other claims (``FOR UPDATE SKIP LOCKED``): concurrent
annotators never share a batch.

An adaptive task (``Task.assignment``, annotation/services/adaptive.py) is planned the same
way, except that each group holds one system's outputs (its batches' ``stratum``; a
contrastive task's, screens of one set of systems: contrastive_adaptive.py), and step 2
takes the open batch of the system that comes first in the priorities table a job refreshes
(``evalsite_adaptive_batch``, installed by 0037_adaptive_assignment); a task its stopping
rule settled hands out nothing until the organiser continues it.

Quota (``evalsite_annotator_quota``): ``items_per_annotator`` (0: no limit) rounded up to
whole batches; a quota below ``batch_size`` makes it the capacity of the task's batches (one
batch each). A crowd participant gets one.

The last judgment or skip of a batch closes it (``evalsite_batch_after_slot``); every one
renews the batch's lease. A skip (``evalsite_skip``) cancels the skipped item's planned
repeat and bad references in the batch (the batch's size shrinks by them) and gives the item
to someone else in a batch of its own, claimed after the planned ones.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import zip_longest
from typing import TypeVar

from django.db import transaction
from django.utils import timezone

from annotation.db_prepared import prepared_cursor
from annotation.models import (
    REFERENCE_STRATUM,
    Assignment,
    Batch,
    Item,
    ItemType,
    Slot,
    SystemPriority,
    Task,
)
from annotation.protocols import QUALITY_CONTROL, protocol_for
from annotation.services.batch_layout import Screen, replica_batches_build
from annotation.services.contrastive_adaptive import strata_cold_start
from annotation.services.judging import ProgressRow
from annotation.services.slot_rows import slot_shown

# A bad reference or repeat comes at least this many items after its original (WMT: spread
# out across the HIT), when the batch is long enough.
QC_GAP = 10
ORDER_ATTEMPTS = 20


@dataclass(frozen=True)
class Repeat:
    """A planned repeat of an item, as placed in a group's order."""

    item: Item


Entry = Item | Repeat
# What group_order places: items and repeats, or a document task's blocks and pages
# (page_plan.py).
Placed = TypeVar("Placed")


def batch_capacity(*, task: Task) -> int:
    """Items per batch, repeats not counted."""
    if task.items_per_annotator:
        return max(1, min(task.batch_size, task.items_per_annotator))
    return max(1, task.batch_size)


# The checks made from an output (a screen) of the group, each taking its rate's share of a
# batch.
CHECKS_FROM_OUTPUTS = ("bad_reference", "hotw", "shuffle")


def _check_shares(task: Task) -> dict[str, float]:
    """The rate of each check made from outputs that the task's protocol declares."""
    declared = protocol_for(task.task_type).quality_control
    return {
        kind: getattr(task, QUALITY_CONTROL[kind])
        for kind in CHECKS_FROM_OUTPUTS
        if kind in declared
    }


def _check_slots(task: Task) -> dict[str, int]:
    capacity = batch_capacity(task=task)
    return {kind: round(share * capacity) for kind, share in _check_shares(task).items()}


def originals_per_group(*, task: Task) -> int:
    """System outputs and references per group: the capacity less the checks' share."""
    return max(1, batch_capacity(task=task) - sum(_check_slots(task).values()))


def checks_wanted(*, task: Task, originals: int, kind: str) -> int:
    """Checks of ``kind`` (bad_reference, hotw) to plan in a group of ``originals`` items:
    the rate's share of the capacity for a full group, in proportion for the last one."""
    full = _check_slots(task).get(kind, 0)
    per_group = originals_per_group(task=task)
    if full <= 0 or originals >= per_group:
        return max(0, full)
    return round(full * originals / per_group)


def is_check_of(*, item: Item) -> bool:
    """Whether the item is a check made from another item (its companion in a batch)."""
    return item.original_id is not None and item.item_type in (ItemType.BAD, ItemType.CHK)


def groups_plan(*, items: Sequence[Item], task: Task, rng: random.Random) -> list[list[Item]]:
    """The items shuffled and cut into groups (bad references are added by the caller). An
    adaptive task's groups hold one system's outputs each (``item_stratum``), so that the
    claim can choose the system; its systems' groups come in turn, so launch order is a
    balanced round for whatever the priorities leave to it."""
    order = list(items)
    rng.shuffle(order)
    size = originals_per_group(task=task)
    if task.assignment != Assignment.ADAPTIVE:
        return [order[start : start + size] for start in range(0, len(order), size)]
    strata: dict[int, list[Item]] = {}
    for item in order:
        strata.setdefault(item_stratum(item=item), []).append(item)
    return in_turns(
        parts=[[part[i : i + size] for i in range(0, len(part), size)] for part in strata.values()]
    )


def in_turns(*, parts: Sequence[Sequence[Placed]]) -> list[Placed]:
    """The groups of each system (part) in turn: the first of each, then the second, ...
    (an adaptive task's launch order is a balanced round)."""
    return [group for turn in zip_longest(*parts) for group in turn if group is not None]


def item_stratum(*, item: Item) -> int:
    """The stratum of an adaptive task's item: its system, or the human reference's; a
    contrastive screen's set of systems (``contrastive.adaptive_screen_items``)."""
    if "stratum" in (item.source_meta or {}):
        return int(item.source_meta["stratum"])
    return item.system_id if item.system_id is not None else REFERENCE_STRATUM


def groups_from_appraise(*, items: Sequence[Item], task: Task) -> list[list[Item]]:
    """Appraise's own batches (``source_meta["batch"]``), in order; items without one are
    cut by capacity."""
    groups: dict[object, list[Item]] = {}
    loose: list[Item] = []
    for item in items:
        batch = item.source_meta.get("batch") if item.source_meta else None
        if batch is None:
            loose.append(item)
        else:
            groups.setdefault(batch, []).append(item)
    size = batch_capacity(task=task)
    return list(groups.values()) + [loose[i : i + size] for i in range(0, len(loose), size)]


def group_order(*, units: Sequence[Sequence[Placed]], rng: random.Random) -> list[Placed]:
    """One order of a group: each unit is an original followed by its companions (its bad
    reference, its repeat), which come at least ``QC_GAP`` places after it (a second
    companion twice as far), or the largest gap the group allows; never before it."""
    for tried_gap in range(QC_GAP, 0, -1):
        for _ in range(ORDER_ATTEMPTS):
            order = _try_order(units, rng, tried_gap)
            if order is not None:
                return order
    raise AssertionError("a gap of 1 always fits")  # pragma: no cover


def _try_order(
    units: Sequence[Sequence[Placed]], rng: random.Random, gap: int
) -> list[Placed] | None:
    shuffled = list(units)
    rng.shuffle(shuffled)
    # Units without companions close the group, so the last companions have room.
    plain = [unit for unit in shuffled if len(unit) == 1]
    tail = plain[len(plain) - min(len(plain), gap) :]
    in_tail = {id(unit) for unit in tail}
    queue = deque([unit for unit in shuffled if id(unit) not in in_tail] + tail)
    waiting: list[tuple[int, Placed]] = []  # (ready at, companion)
    left = sum(len(unit) - 1 for unit in units)
    order: list[Placed] = []
    while queue or waiting:
        ready = [entry for entry in waiting if entry[0] <= len(order)]
        take_companion = ready and (not queue or rng.random() < left / (left + len(queue)))
        if take_companion:
            entry = min(ready, key=lambda e: e[0])
            waiting.remove(entry)
            order.append(entry[1])
            left -= 1
        elif queue:
            original, *rest = queue.popleft()
            order.append(original)
            waiting += [(len(order) - 1 + gap * (i + 1), c) for i, c in enumerate(rest)]
        else:
            return None
    return order


@transaction.atomic
def batches_create(
    *,
    task: Task,
    groups: Sequence[Sequence[Item]],
    rng: random.Random,
    keep_order: bool = False,
) -> int:
    """Plans the repeats, orders each group and creates its batch per replica with their
    slots. ``groups`` hold saved items (bad references with their ``original`` set). With
    ``keep_order`` (Appraise) the groups are shown as given, planned repeats at the end.
    Returns the number of items."""
    batches: list[Batch] = []
    slots: list[Slot] = []
    repeated: list[Item] = []
    n_groups = len(groups)
    adaptive = task.assignment == Assignment.ADAPTIVE
    for number, group in enumerate(groups):
        repeatable = [
            item for item in group if item.item_type != ItemType.BAD and not is_check_of(item=item)
        ]
        chosen = rng.sample(repeatable, round(task.repeat_rate * len(repeatable)))
        for item in chosen:
            item.has_repeat = True
        repeated += chosen
        if keep_order:
            order: list[Entry] = [*group, *(Repeat(item) for item in chosen)]
        else:
            order = group_order(units=_units(group), rng=rng)
        stratum = item_stratum(item=group[0]) if adaptive else 0
        screens: list[Screen] = [
            ([entry.item], True) if isinstance(entry, Repeat) else ([entry], False)
            for entry in order
        ]
        laid = replica_batches_build(
            task=task, number=number, groups=n_groups, screens=screens, stratum=stratum
        )
        batches += laid[0]
        slots += laid[1]
    Item.objects.bulk_update(repeated, ["has_repeat"])
    Batch.objects.bulk_create(batches)
    Slot.objects.bulk_create(slots)
    if adaptive:
        priorities_create(task=task, batches=batches)
    return sum(len(group) for group in groups)


def priorities_create(*, task: Task, batches: Sequence[Batch]) -> None:
    """An adaptive task's priorities row per system (or contrastive set) of its batches.
    Every one starts in the cold start (judged 0): the claim serves them in turn; a set's
    cold start is in screens (``contrastive_adaptive.strata_cold_start``)."""
    cold = strata_cold_start(task=task, strata={batch.stratum for batch in batches})
    SystemPriority.objects.bulk_create(
        SystemPriority(task=task, stratum=stratum, cold_start=cold[stratum])
        for stratum in sorted(cold)
    )


def _units(group: Sequence[Item]) -> list[list[Entry]]:
    """Each original with its companions: its checks (bad references, HOTW errors), then its
    repeat."""
    heads = [item for item in group if not is_check_of(item=item)]
    companions: dict[int, list[Entry]] = {id(head): [] for head in heads}
    head_by_id = {head.id: head for head in heads if head.id is not None}
    for item in group:
        if is_check_of(item=item):
            assert item.original_id is not None  # is_check_of
            head = head_by_id.get(item.original_id)
            if head is None:
                heads.append(item)  # its original is in another group: no companion
                companions[id(item)] = []
            else:
                companions[id(head)].append(item)
    for head in heads:
        if head.has_repeat:
            companions[id(head)].append(Repeat(head))
    return [[head, *companions[id(head)]] for head in heads]


# The claim and the progress after it (evalsite_claim_with_progress), one prepared statement.
CLAIM_SQL = (
    "SELECT next_slot, batch_size, judged, skipped, batches, quota"
    " FROM evalsite_claim_with_progress(%s, %s, %s)"
)


def slot_claim_with_progress(
    *, task: Task, annotator_id: int, now: datetime | None = None
) -> tuple[Slot | None, ProgressRow]:
    """The slot this annotator should judge now (in their batch, leased to them; None when
    nothing is left for them) and their progress after the claim, as
    ``evalsite_annotator_progress`` reads it: one statement, a transaction by itself unless
    the caller holds one (no BEGIN and COMMIT of its own: two round trips of a first
    screen), then the shown slot's read."""
    with prepared_cursor() as cursor:
        cursor.execute(CLAIM_SQL, [task.id, annotator_id, now or timezone.now()])
        slot_id, *progress = cursor.fetchone()
    row: ProgressRow = None if progress[0] is None else tuple(progress)
    return (None if slot_id is None else slot_shown(slot_id=slot_id, task=task)), row


def slot_claim_next(*, task: Task, annotator_id: int, now: datetime | None = None) -> Slot | None:
    """The slot this annotator should judge now (``slot_claim_with_progress``)."""
    return slot_claim_with_progress(task=task, annotator_id=annotator_id, now=now)[0]


def slot_available(*, task: Task, annotator_id: int) -> bool:
    """Whether a claim now would give the annotator a slot, found by the claim itself (its
    rules stay in one place) and rolled back: nothing is taken, no time starts."""
    with transaction.atomic():
        available = slot_claim_next(task=task, annotator_id=annotator_id) is not None
        transaction.set_rollback(True)
    return available


def batches_release(*, task: Task) -> int:
    """Gives back every claimed batch of a task (paused or closed): the slots not judged
    return to open, judgments stay. Returns the number of batches released.

    Whoever held a batch half-judged will not get its rest back (they had its items); the
    next annotator takes what is left, as with an abandoned batch."""
    Slot.objects.filter(task=task, state=Slot.State.LEASED).update(
        state=Slot.State.OPEN, annotator=None, served_at=None
    )
    return Batch.objects.filter(task=task, state=Batch.State.LEASED).update(
        state=Batch.State.OPEN, annotator=None, leased_until=None
    )
