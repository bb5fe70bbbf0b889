"""A claimed slot read as it is shown, in raw SQL: the annotator's hot path (every next item)
pays no ORM compilation for it."""

from __future__ import annotations

from annotation.db_prepared import model_columns, model_from_row, prepared_cursor
from annotation.models import Item, Segment, Slot, SourceMedia, Task

# select_related("item__segment__media") as raw SQL: the hot path pays no ORM compilation
# for it, and no second query for a media source.
_SLOT_SHOWN_SQL = (
    f"SELECT {model_columns(Slot, 's')}, {model_columns(Item, 'i')}, {model_columns(Segment, 'g')},"  # noqa: S608
    f" {model_columns(SourceMedia, 'm')}"
    f" FROM {Slot._meta.db_table} s JOIN {Item._meta.db_table} i ON i.id = s.item_id"
    f" JOIN {Segment._meta.db_table} g ON g.id = i.segment_id"
    f" LEFT JOIN {SourceMedia._meta.db_table} m ON m.segment_id = g.id WHERE s.id = %s"
)


def _slot_read(slot_id: int) -> Slot | None:
    """The slot with its item, segment and media (``_SLOT_SHOWN_SQL``), or None."""
    with prepared_cursor() as cursor:
        cursor.execute(_SLOT_SHOWN_SQL, [slot_id])
        row = cursor.fetchone()
    if row is None:
        return None
    item_start = len(Slot._meta.concrete_fields)
    item_end = item_start + len(Item._meta.concrete_fields)
    slot = model_from_row(Slot, row[:item_start])
    slot.item = model_from_row(Item, row[item_start:item_end])
    segment_end = item_end + len(Segment._meta.concrete_fields)
    slot.item.segment = model_from_row(Segment, row[item_end:segment_end])
    media = row[segment_end:]
    # The reverse one-to-one's cache: segment.media is this row, or raises DoesNotExist.
    Segment.media.related.set_cached_value(
        slot.item.segment, None if media[0] is None else model_from_row(SourceMedia, media)
    )
    return slot


def slot_shown(*, slot_id: int, task: Task) -> Slot:
    """A claimed slot as it is shown: its item and segment come along, and the task is the
    one the caller has."""
    slot = _slot_read(slot_id)
    if slot is None:
        raise Slot.DoesNotExist(slot_id)
    slot.task = task
    return slot


def task_slot_with_item(*, task: Task, slot_id: int) -> Slot | None:
    """The task's slot with its item and segment (what checking an answer reads), in the
    statement ``slot_shown`` prepares; None when the task has no such slot."""
    slot = _slot_read(slot_id)
    if slot is None or slot.task_id != task.id:
        return None
    slot.task = task
    return slot
