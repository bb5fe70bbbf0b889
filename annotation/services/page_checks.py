"""WMT26's shuffled-translation check on contrastive document pages, as planned at launch
(``page_plan`` places them; ``page_check_answers`` judges the answer).

A check page is a page of the group shown again (``shuffle_rate`` of its pages) with one
output's segments damaged as on a contrastive screen (``lib.perturb.shuffled``: five tokens
rotated, ten characters in Chinese, Japanese and Thai), where the segment is long enough
(WMT26: more than twice the tokens rotated; the shorter ones stay as they were), its outputs
in a new order. Each segment is a ``CHK`` item pointing at its original (so a skip of the
original cancels it), whose candidates name no system (no system's results count it); the
damaged output is the candidate of type ``CHK``. A page none of whose segments can be
damaged is no check.

Never next to its original: the page just before a check page never shows the same segments
(its original, or that page's repeat); a group of one document page has no check.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from annotation.lib.perturb import PerturbationError, fits_shuffle_check, shuffled
from annotation.models import Item, ItemType, Task

Entry = TypeVar("Entry")
Page = Sequence[Item]


def column_texts(*, item: Item) -> list[str]:
    """A contrastive segment's text in each of the page's places (A first): identical
    outputs are one candidate in several places (``columns``)."""
    texts: dict[int, str] = {}
    for index, candidate in enumerate(item.candidates):
        for column in candidate.get("columns", [index]):
            texts[column] = candidate["text"]
    return [texts[column] for column in sorted(texts)]


def shuffled_page(*, task: Task, page: Page, rng: random.Random) -> list[Item]:
    """The check page of ``page`` (unsaved items, one per segment), or [] when no output of
    it is long enough to be damaged."""
    language = task.campaign.target_language
    texts = [column_texts(item=item) for item in page]
    columns = len(texts[0]) if texts else 0
    fit = [c for c in range(columns) if any(fits_shuffle_check(t[c], language) for t in texts)]
    if columns < 2 or not fit:
        return []
    bad = rng.choice(fit)
    places = rng.sample(range(columns), columns)  # each output's new place on the page
    in_order = sorted(range(columns), key=lambda column: places[column])
    items, damaged_any = [], False
    for item, by_column in zip(page, texts, strict=True):
        damaged = None
        if fits_shuffle_check(by_column[bad], language):
            try:
                damaged = shuffled(by_column[bad], language=language, rng=rng).text
            except PerturbationError:
                damaged = None
        damaged_any = damaged_any or damaged is not None
        candidates: list[dict[str, Any]] = []
        clean: dict[str, dict[str, Any]] = {}
        for column in in_order:
            if column == bad and damaged is not None:
                candidates.append(
                    {"text": damaged, "systems": [], "type": ItemType.CHK, "columns": [places[bad]]}
                )
                continue
            text = by_column[column]
            if text in clean:  # identical outputs stay one candidate
                clean[text]["columns"].append(places[column])
                continue
            clean[text] = {"text": text, "systems": [], "type": ItemType.TGT, "columns": []}
            clean[text]["columns"].append(places[column])
            candidates.append(clean[text])
        items.append(
            Item(
                task=task,
                campaign=task.campaign,
                segment=item.segment,
                item_type=ItemType.CHK,
                original=item,
                candidates=candidates,
            )
        )
    return items if damaged_any else []


def check_pages(
    *, task: Task, documents: Sequence[Sequence[Page]], wanted: int, rng: random.Random
) -> list[tuple[int, list[Item]]]:
    """The check pages of a group (``documents``: each document's pages): ``wanted`` of
    them at most, one per document, each with its document's index, drawn from ``rng``. A
    check comes after its whole document, so in a group of one document its last page has
    none (it would follow it)."""
    pages = [
        (d, page)
        for d, document in enumerate(documents)
        for number, page in enumerate(document)
        if len(documents) > 1 or number < len(document) - 1
    ]
    checks: list[tuple[int, list[Item]]] = []
    for d, page in rng.sample(pages, len(pages)):
        if len(checks) == wanted:
            break
        if any(d == taken for taken, _ in checks):
            continue
        check = shuffled_page(task=task, page=page, rng=rng)
        if check:
            checks.append((d, check))
    return checks


def _origin(page: Page) -> int:
    """What a page shows: its segments' original items (a check or repeat shows its
    original's)."""
    first = page[0]
    return first.original_id or first.id


def checks_apart(
    *,
    order: Sequence[Entry],
    pages_of: Callable[[Entry], Sequence[Page]],
    is_check: Callable[[Entry], bool],
) -> list[Entry]:
    """``order`` (a group's documents and companion pages, as ``assignment.group_order``
    placed them) with every check page that follows a page of its segments moved to the
    nearest later place where no check page does (else the nearest earlier one after its
    document)."""
    placed = list(order)

    def clash(before: Entry, entry: Entry) -> bool:
        return is_check(entry) and _origin(pages_of(before)[-1]) == _origin(pages_of(entry)[0])

    def clashes(entries: list[Entry]) -> int:
        return sum(clash(before, entry) for before, entry in itertools.pairwise(entries))

    for _ in range(len(placed)):
        at = next((i for i in range(1, len(placed)) if clash(placed[i - 1], placed[i])), None)
        if at is None:
            break
        check = placed.pop(at)
        mine = _origin(pages_of(check)[0])
        home = next(
            i for i, entry in enumerate(placed) if any(_origin(p) == mine for p in pages_of(entry))
        )
        places = [*range(at + 1, len(placed) + 1), *range(at - 1, home, -1), at]
        best = min(places, key=lambda i: clashes([*placed[:i], check, *placed[i:]]))
        placed.insert(best, check)
    return placed
