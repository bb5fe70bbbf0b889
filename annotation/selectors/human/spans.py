"""Results of error-span tasks: MQM and ESA system rankings, errors by category and severity,
and agreement on spans (character F1) and on segment scores (Krippendorff's alpha, Kendall's
tau). Reads the judgments, calls metrics/spans, returns what the page and the API show."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from annotation.models import Campaign, ItemType, Task
from annotation.protocols import Protocol, has_span_results, protocol_for, task_types_where
from annotation.selectors.human.contrastive_mqm import contrastive_mqm_fill
from annotation.selectors.human.documents import DocumentScore, document_scores
from annotation.selectors.human.loading import exclusions
from annotation.selectors.human.ranking_status import RankingStatus, task_statuses
from annotation.selectors.human.reliability import ReliabilityRow
from annotation.selectors.human.span_reliability import (
    SpanPassing,
    current_attempts_only,
    dropped_rows,
    span_input,
    task_reliability,
)
from annotation.selectors.spans import SpanJudgment, span_judgments
from annotation.services.spans import task_mqm_weights
from metrics.rankings.wmt25 import ALPHA as WMT25_ALPHA
from metrics.spans import (
    ErrorBreakdown,
    EsaRanking,
    EsaSystemScore,
    MqmRanking,
    MqmSystemScore,
    ScoreAgreement,
    annotator_pairs,
    corpus_span_f1,
    error_breakdown,
    rank_esa,
    rank_mqm,
    rating_scores,
    score_agreement,
)
from metrics.spans.esa_wmt import (
    DEFAULT_PROCEDURE,
    procedure_sentence,
    rank_esa_wmt25,
    rank_esa_wmt26,
)
from metrics.spans.mqm import NO_ERROR_SEVERITY, MqmWeights, Ratings

N_BOOT = 1000


@dataclass
class SpanTaskResults:
    task: Task
    judgments: int
    mqm: MqmRanking | None = None
    esa: EsaRanking | None = None
    breakdown: ErrorBreakdown | None = None
    span_f1: float = math.nan  # character F1, spans only
    span_f1_severity: float = math.nan  # a character matches only with the same severity
    span_pairs: int = 0
    scores: ScoreAgreement | None = None
    weights: dict[str, Any] = field(default_factory=dict)
    # The live stopping rule's status (annotation/selectors/human/ranking_status.py).
    ranking_status: list[RankingStatus] = field(default_factory=list)
    reliability: list[ReliabilityRow] = field(default_factory=list)
    passing: SpanPassing | None = None  # computed when asked for
    document_scores: list[DocumentScore] = field(default_factory=list)

    @property
    def ranking(self) -> MqmRanking | EsaRanking | None:
        return self.mqm or self.esa

    @property
    def declared(self) -> Protocol:
        return protocol_for(self.task.task_type)

    @property
    def protocol(self) -> str:
        """``mqm`` or ``esa``, as the task's protocol is ranked (ESA with pre-filled spans
        as ESA, contrastive MQM as MQM)."""
        return "mqm" if self.declared.lower_is_better else "esa"

    @property
    def contrastive(self) -> bool:
        return self.declared.contrastive

    @property
    def scored_side_by_side(self) -> bool:
        """Whether some annotator has a consensus likelihood (contrastive screens)."""
        return any(row.consensus is not None for row in self.reliability)

    @property
    def higher_is_better(self) -> bool:
        return not self.declared.lower_is_better  # MQM scores are error weights

    @property
    def procedure(self) -> str | None:
        """How an ESA task was ranked (``metrics.spans.esa_wmt.PROCEDURES``); None for MQM."""
        return self.esa.procedure if self.esa else None

    @property
    def procedure_sentence(self) -> str:
        """The page's sentence on the procedure (empty for MQM)."""
        return procedure_sentence(self.procedure) if self.procedure else ""

    @property
    def alpha(self) -> float:
        """The p-value under which a pair counts as significant (WMT25: 0.05 / 2)."""
        return WMT25_ALPHA if self.procedure == "wmt25" else 0.05

    @property
    def has_intervals(self) -> bool:
        """WMT25 and WMT26 compute no interval of a system's score."""
        return self.procedure in (None, "wmt24")

    @property
    def domain_columns(self) -> list[str]:
        """WMT25's per-domain columns (empty for the other procedures)."""
        return self.esa.domains if self.esa and self.esa.procedure == "wmt25" else []

    @property
    def domains(self) -> list[str]:
        """The domains an ESA score is averaged over (empty: a plain mean, or MQM)."""
        return self.esa.domains if self.esa and self.esa.procedure == "wmt24" else []

    def ranking_rows(self, ranking: MqmRanking | EsaRanking | None = None) -> list[dict[str, Any]]:
        """One row per system, best first: what the page's table shows, the rankings
        download writes and the API returns (the one place these rows are made); of
        ``ranking`` when given (the ranking without those who fail a check)."""
        ranking = ranking or self.ranking
        if ranking is None:
            return []
        # Either ranking's rows (MQM's or ESA's system scores: the same fields read here).
        systems: list[MqmSystemScore | EsaSystemScore] = list(ranking.systems)
        task = self.task
        return [
            {
                "task_id": task.id,
                "task_type": task.task_type,
                "task_name": task.get_task_type_display(),
                "protocol": self.protocol,
                "measure": self.protocol,
                "position": position,
                "system": s.system,
                "score": s.score,
                "score_low": s.interval[0],
                "score_high": s.interval[1],
                "higher_is_better": self.higher_is_better,
                "cluster": s.cluster,
                "rank_low": s.rank_range[0],
                "rank_high": s.rank_range[1],
                "systems_beaten": s.wins,
                "segments": s.segments,
                # ESA: judgments of the system; MQM: ratings (one per rater and segment).
                "judgments": s.judgments if isinstance(s, EsaSystemScore) else s.ratings,
                "domains": self.domains,
                "procedure": self.procedure,
                "local_cluster": getattr(s, "local_cluster", None),
                "domain_scores": _json_safe(getattr(s, "domain_scores", {})),
            }
            for position, s in enumerate(systems, start=1)
        ]

    def p_matrix(self) -> list[tuple[str, list[float | None]]]:
        """Rows of one-sided p-values "row better than column", systems best first."""
        ranking = self.ranking
        if ranking is None:
            return []
        names = [s.system for s in ranking.systems]
        return [(a, [ranking.p_values[a].get(b) if a != b else None for b in names]) for a in names]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN and infinities as null)."""
        ranking = self.mqm or self.esa
        return _json_safe(
            {
                "task": self.task.id,
                "task_type": self.task.task_type,
                "judgments": self.judgments,
                "lower_is_better": self.mqm is not None,
                "procedure": self.procedure,
                "mqm_weights": self.weights or None,
                "systems": [
                    {
                        "system": s.system,
                        "score": s.score,
                        "interval": list(s.interval),
                        "segments": s.segments,
                        "cluster": s.cluster,
                        "rank_range": list(s.rank_range),
                        **(
                            {"local_cluster": s.local_cluster}
                            if isinstance(s, EsaSystemScore) and s.local_cluster is not None
                            else {}
                        ),
                        **(
                            {"domain_scores": dict(s.domain_scores)}
                            if isinstance(s, EsaSystemScore) and s.domain_scores
                            else {}
                        ),
                    }
                    for s in (ranking.systems if ranking else [])
                ],
                "p_values": ranking.p_values if ranking else {},
                "domains": self.domains,
                "errors": self.breakdown.as_dict() if self.breakdown else None,
                "agreement": {
                    "span_f1": _finite(self.span_f1),
                    "span_f1_with_severity": _finite(self.span_f1_severity),
                    "span_pairs": self.span_pairs,
                    "score_alpha": _finite(self.scores.alpha.kappa) if self.scores else None,
                    "score_tau": _finite(self.scores.tau) if self.scores else None,
                },
            }
        )


def _json_safe(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(item) for item in value]
    return value


def _finite(value: float) -> float | None:
    return None if value is None or math.isnan(value) else value


def _ranked(rows: list[SpanJudgment]) -> list[SpanJudgment]:
    """What rankings count: system outputs, first judgments (no repeats, no controls)."""
    return [row for row in rows if row.item_type == ItemType.TGT]


def ranked_judgments(rows: list[SpanJudgment]) -> list[SpanJudgment]:
    """What rankings count: system outputs, first judgments (no repeats, no controls)."""
    return _ranked(rows)


def mqm_ratings(ranked: list[SpanJudgment], weights: MqmWeights) -> Ratings:
    """One MQM score per (system, segment, rater): the weights of the rater's errors."""
    errors: list[tuple[str, str, str, str, str | None]] = []
    for row in ranked:
        rater = str(row.annotator_id)
        key = (row.system, str(row.segment_index), rater)
        errors.append((*key, NO_ERROR_SEVERITY, None))  # a clean rating scores 0
        errors.extend((*key, span.severity, span.category) for span in row.spans)
    return rating_scores(errors, weights)


def span_task_results(
    task: Task,
    *,
    agreement: bool = True,
    procedure: str = DEFAULT_PROCEDURE,
    passing_only: bool = False,
) -> SpanTaskResults:
    """Rankings, errors by category and severity, the reliability table and (unless
    ``agreement`` is false, as for the rankings download) agreement of one error-span task
    (or contrastive MQM task); an ESA task ranked by ``procedure``
    (``metrics.spans.esa_wmt.PROCEDURES``). ``passing_only`` adds the ranking without the
    annotators who fail a reliability check."""
    excluded = exclusions(task.campaign_id).for_task(task.id)
    protocol = protocol_for(task.task_type)
    if protocol.contrastive:
        result = SpanTaskResults(task=task, judgments=0)
        contrastive_mqm_fill(result, excluded=excluded, passing_only=passing_only, n_boot=N_BOOT)
        result.ranking_status = task_statuses(task, rolling=True)
        result.document_scores = document_scores(task, excluded=excluded)
        return result
    every = list(span_judgments(campaign=task.campaign, task_id=task.id))
    rows = [row for row in every if not row.excluded]
    result = SpanTaskResults(task=task, judgments=len(rows))
    mqm_weights = task_mqm_weights(task=task) if protocol.span_categories else None
    current = current_attempts_only(task, every)
    result.reliability = task_reliability(task, span_input(current, mqm_weights), excluded)
    result.document_scores = document_scores(task, excluded=excluded)
    ranked = _ranked(rows)
    if passing_only:
        dropped = dropped_rows(result.reliability, excluded)
        gone = {row.annotator_id for row in dropped}
        kept = [row for row in ranked if row.annotator_id not in gone]
        again = _ranking(task, kept, procedure) if kept else None
        result.passing = SpanPassing(dropped, result.ranking_rows(again) if again else [])
    if not ranked:
        return result
    result.ranking_status = task_statuses(task, rolling=True)
    if mqm_weights is not None:
        result.weights = mqm_weights.as_dict()
        ratings = mqm_ratings(ranked, mqm_weights)
        result.mqm = rank_mqm(ratings, weights=mqm_weights, n_boot=N_BOOT)
        score_items = [f"{a}\t{b}" for a, b in zip(ratings.system, ratings.segment, strict=True)]
        score_annotators, scores = ratings.rater, list(ratings.score)
    else:
        scores = [float(row.score or 0) for row in ranked]
        score_items = [str(row.item_id) for row in ranked]
        score_annotators = [str(row.annotator_id) for row in ranked]
        result.esa = _ranking(task, ranked, procedure)  # type: ignore[assignment]
    result.breakdown = error_breakdown(
        ((row.system, span.severity, span.category) for row in ranked for span in row.spans),
        systems=[s.system for s in (result.mqm or result.esa).systems],  # type: ignore[union-attr]
    )
    if not agreement:
        return result
    items = [row.item_id for row in ranked]
    annotators = [row.annotator_id for row in ranked]
    pairs = annotator_pairs(zip(items, annotators, (row.spans for row in ranked), strict=True))
    result.span_pairs = len(pairs)
    if pairs:
        result.span_f1 = corpus_span_f1(pairs).f1
        result.span_f1_severity = corpus_span_f1(pairs, severity=True).f1
        result.scores = score_agreement(score_items, score_annotators, scores, n_boot=N_BOOT)
    return result


def _ranking(task: Task, ranked: list[SpanJudgment], procedure: str) -> MqmRanking | EsaRanking:
    """The task's ranking of these judgments: MQM, or ESA by ``procedure``."""
    if protocol_for(task.task_type).span_categories:
        weights = task_mqm_weights(task=task)
        return rank_mqm(mqm_ratings(ranked, weights), weights=weights, n_boot=N_BOOT)
    scores = [float(row.score or 0) for row in ranked]
    system = [row.system for row in ranked]
    segment = [str(row.segment_index) for row in ranked]
    # WMT24: the mean within each domain, then over domains, when documents have one.
    domains = [row.domain for row in ranked]
    return _rank_esa(ranked, scores, system, segment, domains if any(domains) else None, procedure)


def _rank_esa(
    ranked: list[SpanJudgment],
    scores: list[float],
    system: list[str],
    segment: list[str],
    domains: list[str] | None,
    procedure: str,
) -> EsaRanking:
    if procedure == "wmt25":
        # An output's judgments in the order they were made: its first is wave 1, and so on.
        order = sorted(range(len(ranked)), key=lambda k: ranked[k].judgment_id)
        return esa_ranking(
            procedure,
            [scores[k] for k in order],
            [system[k] for k in order],
            [segment[k] for k in order],
            domains=None if domains is None else [domains[k] for k in order],
        )
    return esa_ranking(procedure, scores, system, segment, domains=domains)


def esa_ranking(
    procedure: str,
    scores: list[float],
    system: list[str],
    segment: list[str],
    *,
    domains: list[str] | None = None,
) -> EsaRanking:
    """0-100 scores ranked by ``procedure`` (``metrics.spans.esa_wmt.PROCEDURES``); WMT25
    reads the judgments in the order they were made (an output's first is wave 1)."""
    if procedure == "wmt25":
        return rank_esa_wmt25(scores, system, segment, domains=domains)
    if procedure == "wmt26":
        return rank_esa_wmt26(scores, system, segment)
    return rank_esa(scores, system, segment, domains=domains, n_boot=N_BOOT)


def span_results(
    campaign: Campaign,
    *,
    task_id: int | None = None,
    agreement: bool = True,
    procedure: str = DEFAULT_PROCEDURE,
    passing_only: bool = False,
) -> list[SpanTaskResults]:
    """One entry per launched ESA, ESA^AI, MQM or contrastive MQM task of the campaign (or
    the one task ``task_id``, if it is one of them); ESA tasks ranked by ``procedure``;
    ``passing_only`` adds the rankings without the annotators who fail a check."""
    # The tasks with an MQM or ESA results section, as their protocols declare: the
    # error-span protocols, and contrastive MQM (its outputs' MQM scores, ranked as MQM).
    sectioned = task_types_where(has_span_results)
    tasks = campaign.tasks.filter(state=Task.State.LAUNCHED, task_type__in=sectioned)
    if task_id is not None:
        tasks = tasks.filter(id=task_id)
    return [
        span_task_results(task, agreement=agreement, procedure=procedure, passing_only=passing_only)
        for task in tasks.order_by("id")
    ]
