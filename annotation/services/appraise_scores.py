"""Importing Appraise's ESA score export into the ESA task imported from the same campaign's
batches (``import_appraise``), so that the judgments and their spans live in the database.

The export holds no text, only each row's annotator, ``itemId`` (the item's number inside
its Appraise batch), system and documentID, so the texts come from the batches file. The
export does not say which batch an annotator judged either: each annotator's rows are matched
to the one Appraise batch whose items have those ids with the same system, item type and
document; an annotator whose rows fit no batch, or fit only batches already taken by others,
stops the import. Everything is checked before anything is written.

Appraise can record an item twice for one annotator (a re-submission): identical rows count
once, and of differing ones the row with the latest ``timeEnd`` is kept (the others are
counted in the summary as superseded). The export does not say which spans were pre-filled.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.models import Batch, ErrorSpan, Item, Judgment, Slot, Task
from annotation.protocols import protocol_for
from annotation.protocols.spans import ESA_SCORE_RANGE
from annotation.services.results_snapshots import results_snapshots_prepare
from annotation.services.span_imports import SpanImportError, rater_accounts
from annotation.services.spans import error_span_row
from metrics.spans import AppraiseScore, SpanError


@dataclass(frozen=True)
class AppraiseScoresImported:
    judgments: int
    spans: int
    annotators: int
    superseded: int  # rows replaced by a later row of the same annotator and item


def _item_key(item: Item) -> tuple[int, int]:
    """(Appraise batch, itemID) of an item imported from Appraise."""
    return int(item.source_meta["batch"]), int(item.source_meta["itemID"])


def _fits(row: AppraiseScore, item: Item) -> bool:
    return (
        item.candidates[0]["systems"][0] == row.system
        and item.item_type == row.item_type
        and item.segment.document.external_id == row.document
    )


def _latest(rows: list[AppraiseScore]) -> tuple[dict[tuple[str, int], AppraiseScore], int]:
    """One row per (annotator, item): the latest by timeEnd; and how many were superseded."""
    kept: dict[tuple[str, int], AppraiseScore] = {}
    superseded = 0
    for row in rows:
        key = (row.login, row.item_id)
        previous = kept.get(key)
        if previous is None:
            kept[key] = row
        elif previous != row:
            superseded += 1
            if float(row.time_end) >= float(previous.time_end):
                kept[key] = row
    return kept, superseded


def _check_row(row: AppraiseScore, item: Item) -> None:
    low, high = ESA_SCORE_RANGE
    if not float(row.score).is_integer() or not low <= row.score <= high:
        raise SpanImportError(
            f"{row.login}, item {row.item_id}: the ESA score must be a whole number from "
            f"{low} to {high}, not {row.score}"
        )
    for span in row.spans:
        try:
            span.check_within(item.candidates[0]["text"])
        except SpanError as error:
            raise SpanImportError(f"{row.login}, item {row.item_id}: {error}") from None


def _epoch(text: str) -> datetime:
    return datetime.fromtimestamp(float(text), tz=UTC)


@transaction.atomic
def appraise_scores_import(*, task: Task, rows: list[AppraiseScore]) -> AppraiseScoresImported:
    """Stores the export's rows as judgments (with their spans) of ``task``'s Appraise items."""
    task = Task.objects.select_for_update().get(id=task.id)
    protocol = protocol_for(task.task_type)
    # A score and the spans of one output a row: ESA's answer (ESA^AI's too).
    esa = protocol.one_output_spans and protocol.scored
    if not esa or task.state != Task.State.LAUNCHED:
        raise SpanImportError("Appraise ESA scores go into a launched ESA task")
    if not rows:
        raise SpanImportError("the export holds no rows")
    items = {
        _item_key(item): item
        for item in Item.objects.filter(task=task, source_meta__has_key="batch").select_related(
            "segment__document"
        )
    }
    if not items:
        raise SpanImportError("the task's items do not come from Appraise batches")
    appraise_batches = sorted({batch for batch, _ in items})
    kept, superseded = _latest(rows)
    by_login: dict[str, list[AppraiseScore]] = {}
    for row in kept.values():
        by_login.setdefault(row.login, []).append(row)
    free = _free_batches(task)
    chosen: dict[str, tuple[int, Batch]] = {}
    for login, own in sorted(by_login.items()):
        fitting = [
            number
            for number in appraise_batches
            if all(
                (item := items.get((number, row.item_id))) is not None and _fits(row, item)
                for row in own
            )
        ]
        if not fitting:
            raise SpanImportError(
                f"annotator {login!r}: no Appraise batch of the task has items with these ids, "
                "systems and documents; import the batches this export was made from"
            )
        if not any(free.get(number) for number in fitting):
            raise SpanImportError(
                f"annotator {login!r}: every Appraise batch that fits ({fitting[0]}) is judged "
                "by someone else already"
            )
        number, batch = next((n, b) for n in fitting for b in free.get(n, []))
        free[number].remove(batch)
        chosen[login] = (number, batch)
        for row in own:
            _check_row(row, items[(number, row.item_id)])
    accounts = rater_accounts(usernames=sorted(by_login))
    imported = _write(task, chosen, by_login, accounts, superseded)
    results_snapshots_prepare(campaign_id=task.campaign_id)  # its results computed ahead
    return imported


def _free_batches(task: Task) -> dict[int, list[Batch]]:
    """Batches nobody holds, by the Appraise batch their items come from, replica 0 first."""
    appraise_number = {
        batch_id: int(number)
        for batch_id, number in Slot.objects.filter(task=task)
        .values_list("batch_id", "item__source_meta__batch")
        .distinct()
    }
    free: dict[int, list[Batch]] = {}
    batches = Batch.objects.filter(task=task, annotator__isnull=True, state=Batch.State.OPEN)
    for batch in batches.order_by("number"):
        free.setdefault(appraise_number[batch.id], []).append(batch)
    return free


def _write(
    task: Task,
    chosen: dict[str, tuple[int, Batch]],
    by_login: dict[str, list[AppraiseScore]],
    accounts: dict[str, User],
    superseded: int,
) -> AppraiseScoresImported:
    judgments: list[Judgment] = []
    span_rows: list[ErrorSpan] = []
    now = timezone.now()
    for login, (_, batch) in chosen.items():
        user = accounts[login]
        slots = {
            int(slot.item.source_meta["itemID"]): slot
            for slot in batch.slots.filter(is_repeat=False).select_related("item")
        }
        done = []
        for row in sorted(by_login[login], key=lambda r: r.item_id):
            slot = slots[row.item_id]
            served, submitted = _epoch(row.time_start), _epoch(row.time_end)
            slot.annotator, slot.state, slot.served_at = user, Slot.State.DONE, served
            done.append(slot)
            judgment = Judgment(
                slot=slot,
                task=task,
                item=slot.item,
                annotator=user,
                task_type=task.task_type,
                score=int(row.score),
                served_at=served,
                submitted_at=submitted,
                duration_ms=max(0, round((submitted - served).total_seconds() * 1000)),
            )
            judgments.append(judgment)
            span_rows.extend(error_span_row(judgment=judgment, span=span) for span in row.spans)
        Slot.objects.bulk_update(done, ["annotator", "state", "served_at"])
        complete = len(done) == batch.slots.count()
        batch.annotator = user
        batch.judged = len(done)  # the loop's figure (Batch.judged)
        batch.state = Batch.State.DONE if complete else Batch.State.LEASED
        # An unfinished batch stays its annotator's, its lease already over.
        batch.leased_until = None if complete else now
        batch.save(update_fields=["annotator", "judged", "state", "leased_until"])
    Judgment.objects.bulk_create(judgments)
    ErrorSpan.objects.bulk_create(span_rows)
    return AppraiseScoresImported(
        judgments=len(judgments),
        spans=len(span_rows),
        annotators=len(chosen),
        superseded=superseded,
    )
