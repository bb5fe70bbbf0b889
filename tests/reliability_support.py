"""Simulated raters for the reliability tests and screenshot: careful ones, and three kinds of
careless one, each of which a different check should catch.

- ``careful``: the output's quality plus noise, 8-40 s per item;
- ``random``: any score at all, at a normal pace (the bad-reference test and the attention
  checks catch them);
- ``constant``: the same score every time, at a normal pace (straight-lining);
- ``fast``: careful-looking scores but about a second per item (too fast).
They judge through the same services as people (claim, then record), at simulated times.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from annotation.demo import QUALITY, raters_take_turns
from annotation.lib.scales import scale_range
from annotation.models import Slot, Task, TaskType

BEHAVIOURS = ("careful", "random", "constant", "fast")


# Made-up qualities (1-5) of the test campaign's systems, apart enough for a consensus.
TEST_QUALITY = {"Online-B": 4.2, "UEdin": 3.3, "happypoet": 2.2}


def _score(rng: random.Random, quality: float, behaviour: str, low: int, high: int) -> int:
    if behaviour == "random":
        return rng.randint(low, high)
    if behaviour == "constant":
        return low + (high - low) * 3 // 4
    value = quality + rng.gauss(0, 0.5)
    return int(min(high, max(low, round(low + (value - 1) * (high - low) / 4))))


def raters_judge(
    *, task: Task, raters: Mapping[Any, str], start: datetime, seed: int
) -> dict[str, int]:
    """The raters (user -> behaviour) take turns until the task is done; returns the
    judgments recorded per behaviour."""
    rng = random.Random(seed)

    def respond(user: Any, slot: Slot) -> tuple[dict[str, Any], float]:
        behaviour = raters[user]
        seconds = rng.uniform(0.4, 1.5) if behaviour == "fast" else rng.uniform(8, 40)
        return _answer(rng, task, slot, behaviour), seconds

    turns = raters_take_turns(
        task=task, raters=list(raters), start=start, rng=rng, gap=(2, 10), respond=respond
    )
    recorded = dict.fromkeys(BEHAVIOURS, 0)
    for user, count in turns.items():
        recorded[raters[user]] += count
    return recorded


def _quality(systems: list[str]) -> float:
    return max(QUALITY.get(name, TEST_QUALITY.get(name, 3.4)) for name in systems)


def _answer(rng: random.Random, task: Task, slot: Slot, behaviour: str) -> dict[str, Any]:
    """A score, or candidates scored side by side (pairwise on a continuous scale)."""
    low, high = scale_range(task.scale)
    item = slot.item
    if task.task_type == TaskType.PAIRWISE:
        return {
            "candidate_scores": [
                _score(rng, _quality(c["systems"]), behaviour, low, high) for c in item.candidates
            ]
        }
    quality = (
        1.6 if item.item_type == "BAD" else _quality([item.system.name if item.system else "Human"])
    )
    return {"score": _score(rng, quality, behaviour, low, high)}
