"""Human results of a campaign: rankings, agreement, quality control and correlations.

Each task's judgments are loaded once as NumPy arrays (``loading``) and handed to the pure
statistics in ``metrics``. Annotators excluded by an organiser still appear in the quality
control table, so that they can be let back in, but count nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from annotation.models import Campaign, Task
from annotation.protocols import has_span_results, protocol_for, task_types_where
from annotation.selectors.human.common import Agreement, AnnotatorRow
from annotation.selectors.human.comparisons import (
    PairwiseSystem,
    comparison_agreement,
    comparison_data,
    comparison_quality,
    pairwise_ranking,
)
from annotation.selectors.human.correlation import automatic_scores, correlations
from annotation.selectors.human.documents import DocumentScore, document_scores
from annotation.selectors.human.likert import (
    LikertRanking,
    has_bad_references,
    likert_agreement,
    likert_data,
    likert_quality,
    likert_rankings,
)
from annotation.selectors.human.loading import (
    HUMAN,
    Usernames,
    campaign_usernames,
    exclusions,
    release_memory,
    system_names,
)
from annotation.selectors.human.postedit import (
    HterSystem,
    hter_ranking,
    postedit_data,
    postedit_quality,
)
from annotation.selectors.human.progress import Progress, campaign_progress
from annotation.selectors.human.ranking_status import (
    RankingStatus,
    likert_ranking_status,
    task_statuses,
)
from annotation.selectors.human.reliability import (
    ReliabilityInput,
    ReliabilityRow,
    comparison_input,
    failing,
    likert_input,
    postedit_input,
    reliability_rows,
    task_input,
)
from metrics.agreement.coefficients import Weights
from metrics.correlation import Correlation

__all__ = [
    "Agreement",
    "AnnotatorRow",
    "HterSystem",
    "HumanResults",
    "LikertRanking",
    "PairwiseSystem",
    "PassingRankings",
    "ReliabilityRow",
    "TaskResults",
    "human_results",
    "task_results",
]


@dataclass(frozen=True)
class PassingRankings:
    """The rankings again without the annotators who fail a reliability check (beside those
    excluded), and who they are: the "only annotators who pass" switch."""

    dropped: list[ReliabilityRow]
    likert: list[LikertRanking] = field(default_factory=list)
    pairwise: list[PairwiseSystem] = field(default_factory=list)
    hter: list[HterSystem] = field(default_factory=list)


@dataclass(frozen=True)
class TaskResults:
    task: Task
    judgments: int
    likert: list[LikertRanking] = field(default_factory=list)
    pairwise: list[PairwiseSystem] = field(default_factory=list)
    hter: list[HterSystem] = field(default_factory=list)
    agreement: list[Agreement] = field(default_factory=list)
    quality: list[AnnotatorRow] = field(default_factory=list)
    bad_references: bool = False
    rank_resamples: int = 0  # behind the pairwise rank ranges (0: none computed)
    ranking_status: list[RankingStatus] = field(default_factory=list)  # per measure
    reliability: list[ReliabilityRow] = field(default_factory=list)
    passing: PassingRankings | None = None  # computed when asked for
    document_scores: list[DocumentScore] = field(default_factory=list)  # document pages

    @property
    def scored_side_by_side(self) -> bool:
        """Whether some annotator has a consensus likelihood (candidates scored together)."""
        return any(row.consensus is not None for row in self.reliability)

    def human_scores(self) -> dict[str, dict[str, float]]:
        """Named system scores for the correlations, higher = better except HTER."""
        label = self.task.get_task_type_display()
        result: dict[str, dict[str, float]] = {}
        for ranking in self.likert:
            suffix = f" ({ranking.measure})" if len(self.likert) > 1 else ""
            result[f"{label}{suffix}: z"] = {
                s.name: s.score.z for s in ranking.systems if s.name != HUMAN
            }
            result[f"{label}{suffix}: raw"] = {
                s.name: s.score.raw for s in ranking.systems if s.name != HUMAN
            }
        if self.pairwise:
            result[f"{label}: Bradley-Terry"] = {
                s.name: s.score.bradley_terry for s in self.pairwise if s.name != HUMAN
            }
            result[f"{label}: Expected Wins"] = {
                s.name: s.score.expected_wins for s in self.pairwise if s.name != HUMAN
            }
        if self.hter:
            result[f"{label}: corpus HTER"] = {
                s.name: s.score.corpus_hter for s in self.hter if s.name != HUMAN
            }
        return result


@dataclass(frozen=True)
class HumanResults:
    campaign: Campaign
    tasks: list[TaskResults]
    excluded: set[int]
    automatic: dict[str, dict[str, float]]
    human: dict[str, dict[str, float]]
    correlations: list[Correlation]
    progress: Progress


def task_results(
    task: Task,
    *,
    usernames: Usernames,
    names: dict[int, str],
    excluded: set[int],
    weights: Weights = None,
    passing_only: bool = False,
) -> TaskResults:
    """Everything the dashboard shows for one launched task; ``passing_only`` adds the
    rankings without the annotators who fail a reliability check."""
    protocol = protocol_for(task.task_type)
    if protocol.measures:  # Likert questions
        data = likert_data(task, names)
        included = ~_isin(data.annotator, excluded)
        rankings = likert_rankings(data, included)
        status = likert_ranking_status(task, data, included)
        release_memory()
        agreement = likert_agreement(task, data, included, weights=weights)
        release_memory()
        quality = likert_quality(data, usernames, excluded)
        bad_references = has_bad_references(data)
        reliability = _reliability(
            task, likert_input(data), quality, bad_references, usernames, excluded
        )
        passing = None
        if passing_only:
            dropped = failing(reliability) - excluded
            passing = PassingRankings(
                _dropped(reliability, dropped),
                likert=likert_rankings(data, included & ~_isin(data.annotator, dropped)),
            )
        return TaskResults(
            task,
            len(data),
            likert=rankings,
            agreement=agreement,
            quality=quality,
            bad_references=bad_references,
            reliability=reliability,
            passing=passing,
            ranking_status=status,
            document_scores=document_scores(task, excluded=excluded),
        )
    if "hter" in protocol.export_columns:  # post-edits, ranked by their HTER
        edits = postedit_data(task, names)
        quality = postedit_quality(edits, usernames, excluded)
        reliability = _reliability(task, postedit_input(edits), quality, False, usernames, excluded)
        passing = None
        if passing_only:
            dropped = failing(reliability) - excluded
            passing = PassingRankings(
                _dropped(reliability, dropped),
                hter=hter_ranking(edits, ~_isin(edits.annotator, excluded | dropped)),
            )
        return TaskResults(
            task,
            int(edits.annotator.size),
            hter=hter_ranking(edits, ~_isin(edits.annotator, excluded)),
            quality=quality,
            reliability=reliability,
            passing=passing,
        )
    judged = comparison_data(task, usernames)
    pairwise, resamples = pairwise_ranking(judged, excluded)
    quality = comparison_quality(judged, usernames, excluded)
    reliability = _reliability(task, comparison_input(judged), quality, False, usernames, excluded)
    passing = None
    if passing_only:
        dropped = failing(reliability) - excluded
        passing = PassingRankings(
            _dropped(reliability, dropped),
            pairwise=pairwise_ranking(judged, excluded | dropped)[0],
        )
    return TaskResults(
        task,
        len(judged),
        pairwise=pairwise,
        rank_resamples=resamples,
        # Contrastive ESA and DA: the candidates' scores (pairwise and n-way ranking: none).
        ranking_status=task_statuses(task, rolling=True),
        # Contrastive document pages: each output's page score (none without pages).
        document_scores=document_scores(task, excluded=excluded),
        agreement=comparison_agreement(judged, excluded),
        quality=quality,
        reliability=reliability,
        passing=passing,
    )


def _reliability(
    task: Task,
    data: ReliabilityInput,
    quality: list[AnnotatorRow],
    bad_references: bool,
    usernames: Usernames,
    excluded: set[int],
) -> list[ReliabilityRow]:
    return reliability_rows(
        task_input(task, data),
        quality={row.annotator_id: row.quality for row in quality},
        bad_references=bad_references,
        usernames=usernames,
        excluded=excluded,
    )


def _dropped(rows: list[ReliabilityRow], dropped: set[int]) -> list[ReliabilityRow]:
    return [row for row in rows if row.annotator_id in dropped]


def human_results(
    campaign: Campaign,
    *,
    weights: Weights = None,
    task_id: int | None = None,
    passing_only: bool = False,
) -> HumanResults:
    """The whole dashboard of a campaign (or of one of its tasks); ``passing_only`` adds
    each task's rankings without the annotators who fail a reliability check."""
    usernames = campaign_usernames(campaign.id)
    names = system_names(campaign.id)
    left_out = exclusions(campaign.id)
    excluded = set(left_out.campaign_wide)
    # Error-span tasks and contrastive MQM have their own results section, as their protocols
    # declare (annotation/selectors/human/spans.py).
    tasks = (
        campaign.tasks.filter(state=Task.State.LAUNCHED)
        .exclude(task_type__in=task_types_where(has_span_results))
        .order_by("id")
    )
    if task_id is not None:
        tasks = tasks.filter(id=task_id)
    results = [
        task_results(
            task,
            usernames=usernames,
            names=names,
            excluded=left_out.for_task(task.id),
            weights=weights,
            passing_only=passing_only,
        )
        for task in tasks
    ]
    human: dict[str, dict[str, float]] = {}
    for result in results:
        human.update(result.human_scores())
    if task_id is None:  # ESA, MQM and contrastive tasks: their segment means (MQM negated)
        # Imported here: segment_scores reads the span and contrastive selectors, which
        # import this package's loaders (an import cycle at module level).
        from annotation.selectors.human.segment_scores import protocol_system_scores

        human.update(protocol_system_scores(campaign, excluded))
    automatic = automatic_scores(campaign)
    return HumanResults(
        campaign=campaign,
        tasks=results,
        excluded=excluded,
        automatic=automatic,
        human=human,
        correlations=correlations(human, automatic),
        progress=campaign_progress(campaign, usernames),
    )


def _isin(values: NDArray[np.integer], members: set[int]) -> NDArray[np.bool_]:
    return np.isin(values, np.fromiter(members, dtype=np.int64, count=len(members)))
