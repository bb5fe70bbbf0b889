"""Simulated annotators for the demo, so that a fresh stack shows a populated results page.

They judge through the same services as people do (claim, then record), over three simulated
days. The system qualities below are made up for the demo; they are not WMT's findings.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from annotation.lib.scales import scale_range
from annotation.models import Slot, Task, TaskType
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import judgment_record

# Mean adequacy on 1-5 of each demo system and of the human reference.
QUALITY = {
    "Human": 4.6,
    "Online-A": 4.3,
    "Manifold": 4.0,
    "P3AI": 3.9,
    "Online-B": 3.6,
    "talp_upc": 2.4,
    # The en-de demo pair's systems (Online-B takes part in both pairs).
    "Facebook-AI": 4.4,
    "VolcTrans-GLAT": 4.1,
    "UEdin": 3.8,
    "happypoet": 2.6,
}


def _likert(rng: random.Random, slot: Slot, careless: bool, low: int, high: int) -> int:
    if careless:
        return rng.randint(low, high)
    item = slot.item
    if item.item_type == "BAD":
        quality = 1.6
    else:
        quality = QUALITY.get(item.system.name if item.system else "Human", 3.0)
    value = quality + rng.gauss(0, 0.5)
    # Scale 1-5 onto the task's range, then round and clip.
    scaled = low + (value - 1) * (high - low) / 4
    return int(min(high, max(low, round(scaled))))


def _ranks(rng: random.Random, slot: Slot, careless: bool) -> list[int]:
    candidates = slot.item.candidates
    quality = [
        rng.random() if careless else max(QUALITY.get(s, 3.0) for s in c["systems"])
        for c in candidates
    ]
    noisy = [q + rng.gauss(0, 0.4) for q in quality]
    order = sorted(range(len(noisy)), key=lambda i: -noisy[i])
    ranks = [0] * len(noisy)
    for rank, index in enumerate(order, start=1):
        ranks[index] = rank
    return ranks


def _answer(rng: random.Random, task: Task, slot: Slot, careless: bool) -> dict[str, Any]:
    if task.task_type == TaskType.RANKING:
        return {"ranks": _ranks(rng, slot, careless)}
    low, high = scale_range(task.scale)
    return {"score": _likert(rng, slot, careless, low, high)}


def raters_take_turns(
    *,
    task: Task,
    raters: Sequence[Any],
    start: datetime,
    rng: random.Random,
    gap: tuple[float, float],
    respond: Callable[[Any, Slot], tuple[dict[str, Any], float]],
) -> Counter[Any]:
    """Simulated raters take turns, ``gap`` seconds apart (uniform), each claiming their next
    slot and answering it with ``respond(user, slot)`` (the answer, and the seconds it took)
    until none gets a slot; returns the judgments recorded per rater."""
    now = start
    active = list(raters)
    recorded: Counter[Any] = Counter()
    while active:
        for user in list(active):
            now += timedelta(seconds=rng.uniform(*gap))
            claimed = slot_claim_next(task=task, annotator_id=user.id, now=now)
            if claimed is None:
                active.remove(user)
                continue
            slot = Slot.objects.select_related("item__system").get(id=claimed.id)
            answer, seconds = respond(user, slot)
            judgment_record(
                task_id=task.id,
                slot_id=slot.id,
                annotator_id=user.id,
                answer=answer,
                now=now + timedelta(seconds=seconds),
            )
            recorded[user] += 1
    return recorded


def demo_task_simulate(
    *, task: Task, annotators: Sequence[Any], careless: Sequence[Any], start: datetime, seed: int
) -> int:
    """The annotators take turns until the task is done; returns the judgments recorded.

    ``careless`` annotators answer at random (the bad-reference test should catch them).
    """
    rng = random.Random(seed)
    careless_ids = {user.id for user in careless}

    def respond(user: Any, slot: Slot) -> tuple[dict[str, Any], float]:
        answer = _answer(rng, task, slot, user.id in careless_ids)
        return answer, rng.uniform(8, 60)

    turns = raters_take_turns(
        task=task, raters=annotators, start=start, rng=rng, gap=(5, 40), respond=respond
    )
    return sum(turns.values())
