"""Every human protocol's scores per (system, segment), oriented so that higher is better:
what the metric correlations and the meta-evaluation compare the metrics with.

- Likert and DA: the mean raw score of the first judgments of system outputs.
- ESA and ESA^AI: the mean ESA score (0-100) of the first judgments of system outputs.
- MQM: the mean over raters of each rater's MQM score (the task's weights), **negated**:
  MQM counts error weight, lower is better, and mt-metrics-eval negates it in the same way.
- Contrastive ESA and DA: the mean 0-100 score of each output's first judgments; contrastive
  MQM: the mean MQM score of each output from its spans, negated.

A system's score is the mean of its segment means (item-averaged, as mt-metrics-eval's
system-level human scores and WMT26), so system and segment level read the same numbers.
Human references, repeats, controls and excluded judgments are left out throughout.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Avg

from annotation.lib.scales import scale_range
from annotation.models import ItemType, Judgment, Task
from annotation.protocols import Protocol, protocol_for, task_types_where
from annotation.selectors.human.spans import mqm_ratings, ranked_judgments
from annotation.selectors.spans import span_judgments
from annotation.services.spans import task_mqm_weights
from metrics.meta import DA_THRESHOLD

# WMT's Kendall-like tau counts pairs whose human scores differ by at least this much. MQM:
# one minor error (weight 1), the smallest difference in the default weights but for
# punctuation; DA's 25 points of 0-100 would drop almost every MQM pair.
MQM_THRESHOLD = 1.0
NEGATED_NOTE = "negated: MQM is error weight, lower is better"


def kendall_threshold(scale: str) -> float:
    """WMT's 25 points on the 0-100 scale, as the same share of a Likert scale's range
    (1 point on 1-5), so the Kendall-like tau keeps its meaning on every scale."""
    return range_threshold(scale_range(scale))


def range_threshold(scores: tuple[int, int]) -> float:
    """WMT's 25 points on the 0-100 scale, as the same share of the range ``scores``."""
    low, high = scores
    return DA_THRESHOLD * (high - low) / 100


@dataclass(frozen=True)
class SegmentScores:
    """One task's human scores: system → {segment index: mean score}, higher is better."""

    task: Task
    scores: dict[str, dict[int, float]]

    @property
    def protocol(self) -> Protocol:
        return protocol_for(self.task.task_type)

    @property
    def negated(self) -> bool:
        """Error-weight protocols (MQM: lower is better) are negated here."""
        return self.protocol.lower_is_better

    @property
    def threshold(self) -> float:
        """The Kendall-like tau's threshold on these scores: MQM's, else WMT's share of
        the protocol's score range (Likert: the task's scale; ESA, cESA, contrastive DA:
        0-100, WMT's 25 points)."""
        if self.negated:
            return MQM_THRESHOLD
        return range_threshold(self.protocol.scores(self.task.scale))

    @property
    def label(self) -> str:
        """The meta-evaluation's name for these scores."""
        note = f", {NEGATED_NOTE}" if self.negated else ""
        return f"{self.task.get_task_type_display()} (task {self.task.id}{note})"

    @property
    def system_label(self) -> str:
        """The correlations' name for the system scores (unique per task)."""
        what = "−MQM, mean of segment means" if self.negated else "mean of segment means"
        return f"{self.task.get_task_type_display()} (task {self.task.id}): {what}"

    def systems(self) -> list[str]:
        return sorted(self.scores)

    def system_scores(self) -> dict[str, float]:
        return {
            system: sum(by_segment.values()) / len(by_segment)
            for system, by_segment in sorted(self.scores.items())
            if by_segment
        }


def _means(rows) -> dict[str, dict[int, float]]:
    """(system, segment, score) rows → system → {segment: mean score}."""
    collected: dict[tuple[str, int], list[float]] = defaultdict(list)
    for system, segment, score in rows:
        collected[(system, int(segment))].append(float(score))
    means: dict[str, dict[int, float]] = defaultdict(dict)
    for (system, segment), values in collected.items():
        means[system][segment] = sum(values) / len(values)
    return dict(means)


def _likert(task: Task, excluded: set[int]) -> dict[str, dict[int, float]]:
    rows = (
        Judgment.objects.filter(
            task=task,
            excluded=False,
            is_repeat=False,
            item__item_type=ItemType.TGT,
            score__isnull=False,
        )
        .exclude(annotator_id__in=excluded)
        .values("item__system__name", "item__segment__index")
        .annotate(mean=Avg("score"))
    )
    scores: dict[str, dict[int, float]] = defaultdict(dict)
    for row in rows:
        scores[row["item__system__name"]][row["item__segment__index"]] = float(row["mean"])
    return dict(scores)


def _spans(task: Task, protocol: Protocol) -> dict[str, dict[int, float]]:
    ranked = ranked_judgments(
        list(span_judgments(campaign=task.campaign, task_id=task.id, included_only=True))
    )
    if not protocol.span_categories:
        return _means((row.system, row.segment_index, row.score or 0) for row in ranked)
    ratings = mqm_ratings(ranked, task_mqm_weights(task=task))
    return _means(
        zip(ratings.system, ratings.segment, (-score for score in ratings.score), strict=True)
    )


def _contrastive(task: Task, protocol: Protocol) -> dict[str, dict[int, float]]:
    # Imported here: selectors.contrastive imports selectors.human.loading, whose package
    # (annotation.selectors.human) imports this module, so a top-level import would circle
    # at run time when selectors.contrastive is imported first.
    from annotation.selectors.contrastive import contrastive_output_scores

    sign = -1.0 if protocol.lower_is_better else 1.0
    return _means(
        (system, segment, sign * score)
        for system, segment, _, score in contrastive_output_scores(task)
    )


def task_segment_scores(task: Task, excluded: set[int]) -> SegmentScores:
    """``task``'s human scores per (system, segment). ``excluded``: annotators left out of the
    campaign (Likert; the span and contrastive reads apply the campaign's exclusions
    themselves, per task as well)."""
    protocol = protocol_for(task.task_type)
    if protocol.measures:
        return SegmentScores(task, _likert(task, excluded))
    if protocol.one_output_spans:
        return SegmentScores(task, _spans(task, protocol))
    if protocol.contrastive:
        return SegmentScores(task, _contrastive(task, protocol))
    raise ValueError(f"no segment scores for {task.task_type} tasks")


def _compared(protocol: Protocol) -> bool:
    """Whether its scores are compared with the metrics: the ranked protocols."""
    return protocol.ranked_as is not None


def meta_tasks(campaign):
    """The launched tasks whose scores are compared with the metrics, in creation order."""
    compared = task_types_where(_compared)
    return campaign.tasks.filter(state=Task.State.LAUNCHED, task_type__in=compared).order_by("id")


def protocol_system_scores(campaign, excluded: set[int]) -> dict[str, dict[str, float]]:
    """The system scores of the error-span and contrastive tasks, named for the correlations
    (the Likert, pairwise and HTER tasks' come from their rankings: ``TaskResults``)."""
    found: dict[str, dict[str, float]] = {}
    likert = task_types_where(lambda protocol: bool(protocol.measures))
    for task in meta_tasks(campaign).exclude(task_type__in=likert):
        scores = task_segment_scores(task, excluded)
        if scores.scores:
            found[scores.system_label] = scores.system_scores()
    return found
