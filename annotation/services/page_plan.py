"""Planning a document task at launch: pages of consecutive segments, whole pages in batches.

A document task (``Task.unit`` "document") shows one page of one document of one system per
screen: the document's segments in reading order, cut into pages of at most ``page_size``
(a document of 25 segments with pages of 20 becomes pages of 13 and 12). Each segment is one
item, as in a segment task, so each judgment is one row per segment and every statistic
over judgments reads them as it reads any other.

Drawn from the task's seed:

- the blocks (one document × one system, or × the human reference for a share
  ``reference_rate`` of the documents) are shuffled and cut into groups of about
  ``batch_size`` segments; a block is never cut, so a batch holds whole documents;
- quality control comes at page granularity, on top of the capacity: a share
  ``repeat_rate`` of each group's pages comes back as a repeat page, and (the protocols
  with bad references: Likert, DA, ESA, ESA^AI, MQM) a share ``bad_reference_rate`` as a
  bad-reference page (each segment of the page degraded where it can be, each pointing at
  its original, its damage in ``check_span``), (MQM) a share ``hotw_rate`` as a HOTW page
  (each segment with an injected error), and (contrastive) a share ``shuffle_rate`` as
  WMT26's shuffled-translation check pages (``page_checks``), at least ``QC_GAP`` places
  after its original where the group allows (``assignment.group_order``, placing blocks and
  pages), a check page never right after a page of its segments;
- each group becomes one batch per replica; a page's slots are consecutive and share
  ``Slot.page`` (the position of the page's first slot), which the claim serves together.

A contrastive document task (cESA, contrastive MQM, contrastive DA) shows a page of one
document with the outputs of ``ranking_size`` systems for each segment: a block is one
document × the group of systems the balanced plan chose for it (every system once per
document), and each page orders the group anew (positions balanced over the task). Each
segment is one item whose candidates are the group's outputs in the page's order, identical
ones shown once; each candidate's ``columns`` are its systems' places on the page (A = 0),
which the page's score per output (``page_judgments``) follows. An adaptive one's blocks are
each document × each of its sets of systems (``contrastive.StrataRotation``), a batch the
documents of one set (services/contrastive_adaptive.py).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.lib.badref import bad_reference
from annotation.lib.perturb import PerturbationError, hotw_error
from annotation.models import (
    HUMAN,
    Assignment,
    Batch,
    Item,
    ItemType,
    Segment,
    Slot,
    Task,
)
from annotation.protocols import protocol_for
from annotation.protocols.settings import QUALITY_CONTROL
from annotation.services import assignment
from annotation.services.batch_layout import replica_batches_build
from annotation.services.contrastive import BalancedPlan, StrataRotation, screen_candidates
from annotation.services.contrastive_adaptive import is_adaptive_contrastive
from annotation.services.page_checks import check_pages, checks_apart

Page = list[Item]


@dataclass(frozen=True)
class _Block:
    """One document of one system (or the reference), as its pages in reading order."""

    pages: tuple[tuple[Item, ...], ...]


@dataclass(frozen=True)
class _Companion:
    """A quality-control page placed after its original: a repeat or a bad reference."""

    page: tuple[Item, ...]
    is_repeat: bool
    shuffled: bool = False  # a shuffled-translation check (page_checks)


def page_sizes(*, segments: int, page_size: int) -> list[int]:
    """Near-equal pages of at most ``page_size`` segments (25 by 20: 13 and 12)."""
    pages = max(1, math.ceil(segments / max(1, page_size)))
    base, extra = divmod(segments, pages)
    return [base + (1 if i < extra else 0) for i in range(pages)]


def _paged(items: list[Item], page_size: int) -> _Block:
    pages, start = [], 0
    for size in page_sizes(segments=len(items), page_size=page_size):
        pages.append(tuple(items[start : start + size]))
        start += size
    return _Block(tuple(pages))


def _documents(segments: Sequence[Segment]) -> list[list[tuple[int, Segment]]]:
    """The segments (with their position in the test set) grouped by document, in reading
    order."""
    documents: dict[int, list[tuple[int, Segment]]] = {}
    for position, segment in enumerate(segments):
        documents.setdefault(segment.document_id, []).append((position, segment))
    return list(documents.values())


def _item(task: Task, segment: Segment, text: str, system: Any, item_type: str) -> Item:
    name = HUMAN if system is None else system.name
    return Item(
        task=task,
        campaign=task.campaign,
        segment=segment,
        system=system,
        item_type=item_type,
        candidates=[{"text": text, "systems": [name], "type": item_type}],
    )


def document_task_plan(
    *,
    task: Task,
    segments: Sequence[Segment],
    systems: Sequence[Any],
    outputs: dict[int, list[str]],
    reference: list[str] | None,
    rng: random.Random,
    create_items: Callable[[list[Item]], None],
) -> int:
    """Creates a document task's items, batches and slots (``outputs``: system id → text
    per segment position; ``reference``: the judged human reference, or None;
    ``create_items`` numbers and saves items). Returns the number of items."""
    if protocol_for(task.task_type).contrastive:
        blocks = _contrastive_blocks(task, segments, systems, outputs, rng)
    else:
        blocks = _output_blocks(task, segments, systems, outputs, reference, rng)
    create_items([item for block in blocks for page in block.pages for item in page])
    rng.shuffle(blocks)
    # An adaptive task's batches hold one system's documents each (assignment.py).
    adaptive = task.assignment == Assignment.ADAPTIVE
    strata: dict[int, list[_Block]] = {}
    for block in blocks:
        stratum = assignment.item_stratum(item=block.pages[0][0]) if adaptive else 0
        strata.setdefault(stratum, []).append(block)
    groups = assignment.in_turns(
        parts=[_packed(part, assignment.batch_capacity(task=task)) for part in strata.values()]
    )
    donors = {system.id: outputs[system.id] for system in systems}
    batches: list[Batch] = []
    slots: list[Slot] = []
    repeated: list[Item] = []
    for number, group in enumerate(groups):
        units, bad = _group_units(task, group, donors, rng)
        create_items(bad)
        repeated += [
            item
            for unit in units
            for entry in unit
            if isinstance(entry, _Companion) and entry.is_repeat
            for item in entry.page
        ]
        order = checks_apart(
            order=assignment.group_order(units=units, rng=rng),
            pages_of=_entry_pages,
            is_check=lambda entry: isinstance(entry, _Companion) and entry.shuffled,
        )
        screens = [
            (page, isinstance(entry, _Companion) and entry.is_repeat)
            for entry in order
            for page in (entry.pages if isinstance(entry, _Block) else (entry.page,))
        ]
        laid = replica_batches_build(
            task=task,
            number=number,
            groups=len(groups),
            screens=screens,
            stratum=assignment.item_stratum(item=group[0].pages[0][0]) if adaptive else 0,
            paged=True,
        )
        batches += laid[0]
        slots += laid[1]
    _plan_save(repeated=repeated, batches=batches, slots=slots)
    if adaptive:
        assignment.priorities_create(task=task, batches=batches)
    return sum(len(page) for group in groups for block in group for page in block.pages)


def _packed(blocks: Sequence[_Block], capacity: int) -> list[list[_Block]]:
    """Whole documents cut into groups of about ``capacity`` segments."""
    groups: list[list[_Block]] = []
    filled = capacity
    for block in blocks:
        size = sum(len(page) for page in block.pages)
        if filled + size > capacity:
            groups.append([])
            filled = 0
        groups[-1].append(block)
        filled += size
    return groups


def _output_blocks(
    task: Task,
    segments: Sequence[Segment],
    systems: Sequence[Any],
    outputs: dict[int, list[str]],
    reference: list[str] | None,
    rng: random.Random,
) -> list[_Block]:
    """Each document × each system (and the reference for a share of them), paged."""
    blocks = []
    for document in _documents(segments):
        for system in systems:
            items = [
                _item(task, segment, outputs[system.id][i], system, ItemType.TGT)
                for i, segment in document
            ]
            blocks.append(_paged(items, task.page_size))
        if reference is not None and rng.random() < task.reference_rate:
            items = [_item(task, s, reference[i], None, ItemType.REF) for i, s in document]
            blocks.append(_paged(items, task.page_size))
    return blocks


def _contrastive_blocks(
    task: Task,
    segments: Sequence[Segment],
    systems: Sequence[Any],
    outputs: dict[int, list[str]],
    rng: random.Random,
) -> list[_Block]:
    """Each document × each group of systems the balanced plan gives it (an adaptive
    task's: its sets of systems, ``StrataRotation``), paged; every page draws its group's
    order from the plan again."""
    rotation = None
    if is_adaptive_contrastive(task=task):
        rotation = StrataRotation(systems=systems, size=task.ranking_size, rng=rng)
    plan = rotation.plan if rotation else BalancedPlan(len(systems), task.ranking_size, rng)
    blocks = []
    for document in _documents(segments):
        groups = rotation.next_screens() if rotation else [(g, None) for g in plan.segment()]
        for group, stratum in groups:
            # dccl: an adaptive task's items keep their set (assignment.item_stratum).
            meta = {} if stratum is None else {"stratum": stratum}
            pages, start = [], 0
            for number, size in enumerate(
                page_sizes(segments=len(document), page_size=task.page_size)
            ):
                order = [systems[s] for s in (group if number == 0 else plan.ordered(group))]
                names = [system.name for system in order]
                page = []
                for position, segment in document[start : start + size]:
                    candidates = screen_candidates(
                        outputs=[(system.name, outputs[system.id][position]) for system in order]
                    )
                    for candidate in candidates:
                        candidate["columns"] = [names.index(n) for n in candidate["systems"]]
                    page.append(
                        Item(
                            task=task,
                            campaign=task.campaign,
                            segment=segment,
                            candidates=candidates,
                            source_meta=dict(meta),
                        )
                    )
                pages.append(tuple(page))
                start += size
            blocks.append(_Block(tuple(pages)))
    return blocks


def _group_units(
    task: Task, group: list[_Block], donors: dict[int, list[str]], rng: random.Random
) -> tuple[list[list[_Block | _Companion]], list[Item]]:
    """Each block with the quality-control pages of its pages (placed after it), and the
    items made for them (bad references, shuffled-translation checks: to be saved)."""
    pages = [(b, page) for b, block in enumerate(group) for page in block.pages]
    originals = [(b, page) for b, page in pages if page[0].item_type != ItemType.BAD]
    companions: list[list[_Block | _Companion]] = [[block] for block in group]
    for b, page in rng.sample(originals, round(task.repeat_rate * len(originals))):
        companions[b].append(_Companion(page, is_repeat=True))
    made: list[Item] = []
    outputs = [(b, page) for b, page in pages if page[0].item_type == ItemType.TGT]
    quality_control = protocol_for(task.task_type).quality_control
    damaged = (("bad_reference", _bad_page), ("hotw", _hotw_page))
    for kind, damage in damaged:
        if kind not in quality_control:
            continue
        share = getattr(task, QUALITY_CONTROL[kind])
        for b, page in rng.sample(outputs, round(share * len(pages))):
            check_page = damage(task, page, donors, rng)
            if check_page:
                made += check_page
                companions[b].append(_Companion(tuple(check_page), is_repeat=False))
    if "shuffle" in quality_control and task.shuffle_rate:
        wanted = round(task.shuffle_rate * len(originals))
        documents = [block.pages for block in group]
        for b, check in check_pages(task=task, documents=documents, wanted=wanted, rng=rng):
            made += check
            companions[b].append(_Companion(tuple(check), is_repeat=False, shuffled=True))
    return companions, made


def _entry_pages(entry: _Block | _Companion) -> tuple[tuple[Item, ...], ...]:
    return entry.pages if isinstance(entry, _Block) else (entry.page,)


def _bad_page(
    task: Task, page: Sequence[Item], donors: dict[int, list[str]], rng: random.Random
) -> list[Item]:
    """A bad-reference page: each segment of ``page`` degraded (one too short to degrade is
    left out of it), each pointing at its original, its damage (``check_span``) the phrase
    an error span must mark."""
    bad = []
    for item in page:
        assert item.system_id is not None  # a TGT item has its system
        try:
            made = bad_reference(
                item.candidates[0]["text"],
                donors[item.system_id],
                rng=rng,
                language=task.campaign.target_language,
            )
        except ValueError:
            continue
        bad.append(_check_item(task, item, made.text, ItemType.BAD, made.damage))
    return bad


def _hotw_page(
    task: Task, page: Sequence[Item], donors: dict[int, list[str]], rng: random.Random
) -> list[Item]:
    """An MQM HOTW page: each segment of ``page`` with a run of it reversed
    (``lib.perturb.hotw_error``; one too short is left out of it), the error to be marked."""
    checks = []
    for item in page:
        try:
            made = hotw_error(
                item.candidates[0]["text"], language=task.campaign.target_language, rng=rng
            )
        except PerturbationError:
            continue
        checks.append(_check_item(task, item, made.text, ItemType.CHK, made.extent))
    return checks


def _check_item(task: Task, item: Item, text: str, item_type: str, damage: tuple[int, int]) -> Item:
    """A damaged copy of ``item`` (its segment, system and systems), pointing at it."""
    check = _item(task, item.segment, text, item.system, item_type)
    check.original = item
    check.candidates[0]["systems"] = list(item.candidates[0]["systems"])
    check.check_span = list(damage)
    return check


def pages_mark(*, task: Task) -> None:
    """Pages for slots laid out elsewhere (an Appraise import keeps its batches' order):
    each run of consecutive slots of one document (originals and repeats apart) is cut
    into pages of at most ``page_size``, each slot's ``page`` its page's first position."""
    rows = (
        Slot.objects.filter(task=task)
        .order_by("batch_id", "position")
        .values_list("id", "position", "batch_id", "item__segment__document_id", "is_repeat")
    )
    runs: list[list[tuple[int, int]]] = []
    previous = None
    for slot_id, position, *key in rows:
        if key != previous:
            runs.append([])
            previous = key
        runs[-1].append((slot_id, position))
    slots = []
    for run in runs:
        start = 0
        for size in page_sizes(segments=len(run), page_size=task.page_size):
            first = run[start][1]
            slots += [Slot(id=slot_id, page=first) for slot_id, _ in run[start : start + size]]
            start += size
    Slot.objects.bulk_update(slots, ["page"], batch_size=1000)


def page_groups(*, task: Task, pages: Sequence[Page]) -> list[list[Page]]:
    """Pages made elsewhere (a Pearmut import) in batches: the file's own batches
    (``source_meta["batch"]`` of a page's first item), in order; pages without one cut by
    capacity, a page never cut."""
    named: dict[object, list[Page]] = {}
    loose: list[list[Page]] = []
    capacity = assignment.batch_capacity(task=task)
    filled = capacity
    for page in pages:
        batch = page[0].source_meta.get("batch") if page[0].source_meta else None
        if batch is not None:
            named.setdefault(batch, []).append(page)
            continue
        if filled + len(page) > capacity:
            loose.append([])
            filled = 0
        loose[-1].append(page)
        filled += len(page)
    return list(named.values()) + loose


def pages_plan(*, task: Task, groups: Sequence[Sequence[Page]], rng: random.Random) -> int:
    """Batches and slots of saved pages: each group one batch per replica, its pages in the
    given order, then a share ``repeat_rate`` of them again as whole repeat pages. Returns the
    number of items."""
    batches: list[Batch] = []
    slots: list[Slot] = []
    repeated: list[Item] = []
    for number, group in enumerate(groups):
        again = rng.sample(list(group), round(task.repeat_rate * len(group)))
        repeated += [item for page in again for item in page]
        screens = [(page, False) for page in group] + [(page, True) for page in again]
        laid = replica_batches_build(
            task=task, number=number, groups=len(groups), screens=screens, paged=True
        )
        batches += laid[0]
        slots += laid[1]
    _plan_save(repeated=repeated, batches=batches, slots=slots)
    return sum(len(page) for group in groups for page in group)


def _plan_save(*, repeated: list[Item], batches: list[Batch], slots: list[Slot]) -> None:
    """Saves a document plan: its repeated items marked, its batches and slots created."""
    for item in repeated:
        item.has_repeat = True
    Item.objects.bulk_update(repeated, ["has_repeat"])
    Batch.objects.bulk_create(batches)
    Slot.objects.bulk_create(slots)
