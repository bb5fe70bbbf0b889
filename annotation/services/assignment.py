"""Handing out work: an annotator's "next item" claims one slot, safely under concurrency.

The claim is one call of the PostgreSQL function ``evalsite_claim_slot`` (migration
0006_claim_slot_function), so a request pays one round trip for it whatever the annotator's
progress, and concurrent claims go through row locks and ``FOR UPDATE SKIP LOCKED``, never
through Python-side bookkeeping. In order, it returns:

1. the slot the annotator holds already (resuming after a closed browser; its lease renewed),
2. a planned repeat that is due (after ``REPEAT_GAP`` further judgments),
3. the first open slot, in the task's seeded order, of an item they have not had,
4. a slot of such an item whose lease expired (abandoned by someone else),
5. at the very end, their repeats that are not due yet.

Steps 3 and 4 stop once the annotator's quota (``items_per_annotator``) is full. The
annotator's row is locked for the claim, so a double click cannot take two replicas of one
item.
"""

from __future__ import annotations

from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone

from annotation.models import Slot, Task


@transaction.atomic
def slot_claim_next(*, task: Task, annotator_id: int, now: datetime | None = None) -> Slot | None:
    """The slot this annotator should judge now, leased to them; None when nothing is left."""
    now = now or timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT evalsite_claim_slot(%s, %s, %s, %s, %s)",
            [task.id, annotator_id, now, task.lease_seconds, task.items_per_annotator],
        )
        (slot_id,) = cursor.fetchone()
    if slot_id is None:
        return None
    # The item is shown next: its segment comes along, and the task is the one we have.
    slot = Slot.objects.select_related("item__segment").get(id=slot_id)
    slot.task = task
    return slot
