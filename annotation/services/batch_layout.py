"""Laying out a group's batches and slots, one batch per replica: the segment plan
(``assignment.batches_create``) and the document plan (``page_plan``) both lay them here.
Nothing is saved: the planner creates them in bulk with the rest of its plan."""

from __future__ import annotations

from collections.abc import Sequence

from annotation.models import Batch, Item, Slot, Task

# A screen of a batch: its items in order (one, or a document page's), and whether it is a
# planned repeat.
Screen = tuple[Sequence[Item], bool]


def replica_batches_build(
    *,
    task: Task,
    number: int,
    groups: int,
    screens: Sequence[Screen],
    stratum: int = 0,
    paged: bool = False,
) -> tuple[list[Batch], list[Slot]]:
    """Group ``number`` (of ``groups``) as one batch per replica, numbered replica by
    replica, with a slot per item of ``screens`` in order. ``paged``: each screen is a page
    whose slots share ``Slot.page``, the position of its first slot."""
    batches: list[Batch] = []
    slots: list[Slot] = []
    size = sum(len(items) for items, _ in screens)
    for replica in range(task.judgments_per_item):
        batch = Batch(
            task=task,
            number=replica * groups + number,
            group=number,
            size=size,
            stratum=stratum,
        )
        batches.append(batch)
        position = 0
        for items, is_repeat in screens:
            first = position
            for item in items:
                slots.append(
                    Slot(
                        task=task,
                        item=item,
                        batch=batch,
                        position=position,
                        replica=replica,
                        is_repeat=is_repeat,
                        page=first if paged else None,
                    )
                )
                position += 1
    return batches, slots
