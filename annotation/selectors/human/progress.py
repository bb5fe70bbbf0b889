"""How the annotation went: judgments over time per task type and per annotator."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, QuerySet
from django.db.models.functions import Trunc

from annotation.models import Campaign, Judgment, Skip, Slot, Task
from annotation.protocols import PROTOCOLS
from annotation.selectors.human.loading import Usernames

TOP_ANNOTATORS = 8  # more lines than this make the chart unreadable; the rest are summed


@dataclass(frozen=True)
class Series:
    label: str
    points: list[tuple[datetime, int]]  # cumulative judgments at the end of each period

    @property
    def total(self) -> int:
        return self.points[-1][1] if self.points else 0


@dataclass(frozen=True)
class Progress:
    judgments: int
    # Judgments planned in the launched tasks, repeats and quality control included; fixed
    # at launch (a skipped slot is not planned: its item gets a slot of its own), so
    # ``judgments`` never passes it.
    planned: int
    skips: int  # items skipped or flagged: no judgments, counted apart
    annotators: int
    unit: str
    by_task_type: list[Series]
    by_annotator: list[Series]


# Finer periods, each used when the coarser periods span less than its limit.
FINER = (("hour", timedelta(days=3)), ("minute", timedelta(hours=3)))


def _grouped(judgments: QuerySet[Judgment], unit: str) -> list[tuple[datetime, str, int, int]]:
    return list(
        judgments.annotate(period=Trunc("submitted_at", unit))
        .order_by()
        .values_list("period", "task_type", "annotator_id")
        .annotate(n=Count("id"))
    )


def _cumulative(counts: dict[str, dict[datetime, int]], periods: list[datetime]) -> list[Series]:
    result = []
    for label, per_period in counts.items():
        total, points = 0, []
        for period in periods:
            total += per_period.get(period, 0)
            points.append((period, total))
        result.append(Series(label, points))
    return result


def campaign_progress(campaign: Campaign, usernames: Usernames) -> Progress:
    """Cumulative judgments per task type and per annotator (the busiest ones, then the rest),
    from one aggregate query per day (hour, minute) whatever the number of judgments: a
    campaign of a few days is counted again per hour, one of a few hours per minute."""
    judgments = Judgment.objects.filter(task__campaign=campaign)
    unit, grouped = "day", _grouped(judgments, "day")
    for finer, limit in FINER:
        periods = [row[0] for row in grouped]
        if not periods or max(periods) - min(periods) >= limit:
            break
        unit, grouped = finer, _grouped(judgments, finer)
    labels = {task_type: protocol.label for task_type, protocol in PROTOCOLS.items()}
    by_type: dict[str, dict[datetime, int]] = {}
    per_annotator: dict[int, dict[datetime, int]] = {}
    total = 0
    for period, task_type, annotator_id, n in grouped:
        per_type = by_type.setdefault(labels.get(task_type, task_type), {})
        per_type[period] = per_type.get(period, 0) + n
        mine = per_annotator.setdefault(annotator_id, {})
        mine[period] = mine.get(period, 0) + n
        total += n
    busiest = sorted(per_annotator, key=lambda a: (-sum(per_annotator[a].values()), a))
    by_annotator = {usernames[a]: per_annotator[a] for a in busiest[:TOP_ANNOTATORS]}
    rest: dict[datetime, int] = {}
    for annotator_id in busiest[TOP_ANNOTATORS:]:
        for period, n in per_annotator[annotator_id].items():
            rest[period] = rest.get(period, 0) + n
    if rest:
        by_annotator[f"{len(busiest) - TOP_ANNOTATORS} others"] = rest
    periods = sorted({period for counts in by_type.values() for period in counts})
    launched = Slot.objects.filter(task__campaign=campaign, task__state=Task.State.LAUNCHED)
    planned = launched.filter(skip__isnull=True).count()
    skips = Skip.objects.filter(task__campaign=campaign).count()
    return Progress(
        judgments=total,
        planned=planned,
        skips=skips,
        annotators=len(per_annotator),
        unit=unit,
        by_task_type=_cumulative(by_type, periods),
        by_annotator=_cumulative(by_annotator, periods),
    )
