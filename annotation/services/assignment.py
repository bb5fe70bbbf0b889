"""Handing out work: an annotator's "next item" claims one slot, safely under concurrency.

Every step is a single indexed query whatever the annotator's progress; concurrent claims go
through PostgreSQL (``FOR UPDATE SKIP LOCKED``), never through Python-side bookkeeping.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from annotation.models import Judgment, Slot, Task


@transaction.atomic
def slot_claim_next(*, task: Task, annotator_id: int, now: datetime | None = None) -> Slot | None:
    """The slot this annotator should judge now, leased to them; None when nothing is left.

    In order: the slot they already hold (resuming after a closed browser), a planned repeat
    that is due, the first open slot of an item they have not judged, a slot whose lease
    expired, and at the very end the repeats that are not due yet.
    """
    now = now or timezone.now()
    # One claim at a time per annotator: a double click cannot take two replicas of an item.
    get_user_model().objects.select_for_update().filter(id=annotator_id).values("id").get()
    # Items are shown right after the claim, so their segment comes along in the same query.
    mine = Slot.objects.filter(task=task, annotator_id=annotator_id).select_related("item__segment")
    slot = mine.filter(state=Slot.State.LEASED).order_by("position").first()
    if slot is None:
        slot = _due_repeat_or_new(task, annotator_id, mine, now)
    if slot is None:
        slot = mine.filter(state=Slot.State.RESERVED).order_by("due_after").first()
    if slot is None:
        return None
    resumed = slot.state == Slot.State.LEASED and slot.annotator_id == annotator_id
    # Time on an item counts from when it was first shown to this annotator.
    slot.served_at = slot.served_at if resumed else now
    slot.state = Slot.State.LEASED
    slot.annotator_id = annotator_id
    slot.leased_until = now + timedelta(seconds=task.lease_seconds)
    slot.save(update_fields=["state", "annotator", "leased_until", "served_at"])
    slot.task = task  # the caller shows the item next: spare it a query for the task
    return slot


def _due_repeat_or_new(task: Task, annotator_id: int, mine, now: datetime) -> Slot | None:
    counts = Judgment.objects.filter(task=task, annotator_id=annotator_id).aggregate(
        done=Count("id"), originals=Count("id", filter=Q(is_repeat=False))
    )
    repeat = (
        mine.filter(state=Slot.State.RESERVED, due_after__lte=counts["done"])
        .order_by("due_after")
        .first()
    )
    if repeat is not None:
        return repeat
    if task.items_per_annotator and counts["originals"] >= task.items_per_annotator:
        return None  # their quota is full: only their planned repeats are left
    pool = (
        Slot.objects.filter(task=task, is_repeat=False)
        .exclude(item_id__in=mine.values("item_id"))
        .select_related("item__segment")
    )
    return (
        pool.filter(state=Slot.State.OPEN)
        .order_by("position")
        .select_for_update(skip_locked=True, of=("self",))
        .first()
    ) or (
        pool.filter(state=Slot.State.LEASED, leased_until__lt=now)
        .order_by("position")
        .select_for_update(skip_locked=True, of=("self",))
        .first()
    )
