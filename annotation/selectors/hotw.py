"""HOTW attention checks stored by the MQM import (annotation/services/span_imports.py)."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.models import Item, Task


@dataclass(frozen=True)
class HotwResult:
    """One rater's HOTW checks in a task: how many injected errors they found and missed."""

    rater: str
    found: int
    missed: int

    @property
    def checks(self) -> int:
        return self.found + self.missed

    @property
    def rate(self) -> float:
        return self.found / self.checks if self.checks else 0.0


def hotw_results(*, task: Task) -> list[HotwResult]:
    """Per rater (by name, as in the imported file), the task's HOTW checks; none: []."""
    counts: dict[str, list[int]] = {}
    rows = Item.objects.filter(task=task, source_meta__has_key="hotw").order_by("id")
    for checks in rows.values_list("source_meta__hotw", flat=True):
        for check in checks:
            tally = counts.setdefault(check["rater"], [0, 0])
            tally[0 if check["found"] else 1] += 1
    return [HotwResult(rater, found, missed) for rater, (found, missed) in sorted(counts.items())]
