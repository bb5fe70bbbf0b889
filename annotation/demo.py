"""Simulated annotators for the demo, so that a fresh stack shows a populated results page.

They judge through the same services as people do (claim, then record), over three simulated
days, answering as the task's protocol says (``Protocol.simulate``). The system qualities
below are made up for the demo; they are not WMT's findings.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from annotation.models import ItemType, Slot, Task
from annotation.protocols import protocol_for
from annotation.protocols.simulated import SimulatedRater
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


def output_qualities(slot: Slot, unknown: float = 3.0) -> list[float]:
    """Each output's made-up quality on 1-5 (``QUALITY``; ``unknown`` for a system not
    listed): a bad reference's is low, an output several systems gave takes the best's."""
    item = slot.item
    if item.item_type == ItemType.BAD:
        return [1.6] * len(item.candidates)
    if item.system is not None:
        return [QUALITY.get(item.system.name, unknown)]
    return [max(QUALITY.get(s, unknown) for s in c["systems"]) for c in item.candidates]


def simulated_answer(task: Task, rater: SimulatedRater) -> dict[str, Any]:
    """The simulated rater's answer, as the task's protocol says (``Protocol.simulate``)."""
    protocol = protocol_for(task.task_type)
    if protocol.simulate is None:
        raise ValueError(f"the demo cannot simulate {protocol.label} raters")
    return protocol.simulate(rater)


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
        rater = SimulatedRater(
            rng=rng,
            scale=task.scale,
            qualities=output_qualities(slot),
            texts=[candidate["text"] for candidate in slot.item.candidates],
            careless=user.id in careless_ids,
        )
        answer = simulated_answer(task, rater)
        return answer, rng.uniform(8, 60)

    turns = raters_take_turns(
        task=task, raters=annotators, start=start, rng=rng, gap=(5, 40), respond=respond
    )
    return sum(turns.values())
