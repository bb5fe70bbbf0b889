"""A claimed slot read as it is shown, in raw SQL: the annotator's hot path (every next item)
pays no ORM compilation for it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection, models

from annotation.models import Item, Segment, Slot, SourceMedia, Task


def _columns(model: type[models.Model], alias: str) -> str:
    return ", ".join(f"{alias}.{field.column}" for field in model._meta.concrete_fields)


def _from_row(model: type[models.Model], values: Sequence[Any]) -> Any:
    """A model instance from its concrete columns' values, converted as the ORM does (a
    JSON column arrives as text)."""
    fields = model._meta.concrete_fields
    converted = [
        field.from_db_value(value, None, connection) if hasattr(field, "from_db_value") else value
        for field, value in zip(fields, values, strict=True)
    ]
    return model.from_db(connection.alias, [field.attname for field in fields], converted)


# select_related("item__segment__media") as raw SQL: the hot path pays no ORM compilation
# for it, and no second query for a media source.
_SLOT_SHOWN_SQL = (
    f"SELECT {_columns(Slot, 's')}, {_columns(Item, 'i')}, {_columns(Segment, 'g')},"  # noqa: S608
    f" {_columns(SourceMedia, 'm')}"
    f" FROM {Slot._meta.db_table} s JOIN {Item._meta.db_table} i ON i.id = s.item_id"
    f" JOIN {Segment._meta.db_table} g ON g.id = i.segment_id"
    f" LEFT JOIN {SourceMedia._meta.db_table} m ON m.segment_id = g.id WHERE s.id = %s"
)


def slot_shown(*, slot_id: int, task: Task) -> Slot:
    """A claimed slot as it is shown: its item and segment come along, and the task is the
    one the caller has."""
    with connection.cursor() as cursor:
        cursor.execute(_SLOT_SHOWN_SQL, [slot_id])
        row = cursor.fetchone()
    if row is None:
        raise Slot.DoesNotExist(slot_id)
    item_start = len(Slot._meta.concrete_fields)
    item_end = item_start + len(Item._meta.concrete_fields)
    slot = _from_row(Slot, row[:item_start])
    slot.item = _from_row(Item, row[item_start:item_end])
    segment_end = item_end + len(Segment._meta.concrete_fields)
    slot.item.segment = _from_row(Segment, row[item_end:segment_end])
    media = row[segment_end:]
    # The reverse one-to-one's cache: segment.media is this row, or raises DoesNotExist.
    Segment.media.related.set_cached_value(
        slot.item.segment, None if media[0] is None else _from_row(SourceMedia, media)
    )
    slot.task = task
    return slot
