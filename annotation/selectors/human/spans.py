"""Results of error-span tasks: MQM and ESA system rankings, errors by category and severity,
and agreement on spans (character F1) and on segment scores (Krippendorff's alpha, Kendall's
tau). Reads the judgments, calls metrics/spans, returns what the page and the API show."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from annotation.models import SPAN_TYPES, Campaign, ItemType, Task, TaskType
from annotation.selectors.spans import SpanJudgment, span_judgments
from annotation.services.spans import task_mqm_weights
from metrics.rankings.wmt25 import ALPHA as WMT25_ALPHA
from metrics.spans import (
    ErrorBreakdown,
    EsaRanking,
    EsaSystemScore,
    MqmRanking,
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

    @property
    def ranking(self) -> MqmRanking | EsaRanking | None:
        return self.mqm or self.esa

    @property
    def protocol(self) -> str:
        """``mqm`` or ``esa`` (ESA with pre-filled spans is ranked as ESA)."""
        return "mqm" if self.task.task_type == TaskType.MQM else "esa"

    @property
    def higher_is_better(self) -> bool:
        return self.protocol == "esa"  # MQM scores are error weights: lower is better

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

    def ranking_rows(self) -> list[dict[str, Any]]:
        """One row per system, best first: what the page's table shows, the rankings
        download writes and the API returns (the one place these rows are made)."""
        ranking = self.ranking
        if ranking is None:
            return []
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
            for position, s in enumerate(ranking.systems, start=1)
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
    errors = []
    for row in ranked:
        rater = str(row.annotator_id)
        key = (row.system, str(row.segment_index), rater)
        errors.append((*key, NO_ERROR_SEVERITY, None))  # a clean rating scores 0
        errors.extend((*key, span.severity, span.category) for span in row.spans)
    return rating_scores(errors, weights)


def span_task_results(
    task: Task, *, agreement: bool = True, procedure: str = DEFAULT_PROCEDURE
) -> SpanTaskResults:
    """Rankings, errors by category and severity and (unless ``agreement`` is false, as for
    the rankings download) agreement of one error-span task; an ESA task ranked by
    ``procedure`` (``metrics.spans.esa_wmt.PROCEDURES``)."""
    rows = list(span_judgments(campaign=task.campaign, task_id=task.id, included_only=True))
    result = SpanTaskResults(task=task, judgments=len(rows))
    ranked = _ranked(rows)
    if not ranked:
        return result
    segment = [str(row.segment_index) for row in ranked]
    system = [row.system for row in ranked]
    if task.task_type == TaskType.MQM:
        weights = task_mqm_weights(task=task)
        result.weights = weights.as_dict()
        ratings = mqm_ratings(ranked, weights)
        result.mqm = rank_mqm(ratings, weights=weights, n_boot=N_BOOT)
        score_items = [f"{a}\t{b}" for a, b in zip(ratings.system, ratings.segment, strict=True)]
        score_annotators, scores = ratings.rater, list(ratings.score)
    else:
        scores = [float(row.score or 0) for row in ranked]
        score_items = [str(row.item_id) for row in ranked]
        score_annotators = [str(row.annotator_id) for row in ranked]
        # WMT24: the mean within each domain, then over domains, when documents have one.
        domains = [row.domain for row in ranked]
        result.esa = _rank_esa(
            ranked, scores, system, segment, domains if any(domains) else None, procedure
        )
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
) -> list[SpanTaskResults]:
    """One entry per launched ESA, ESA^AI or MQM task of the campaign (or the one task
    ``task_id``, if it is one of them); ESA tasks ranked by ``procedure``."""
    tasks = campaign.tasks.filter(state=Task.State.LAUNCHED, task_type__in=SPAN_TYPES)
    if task_id is not None:
        tasks = tasks.filter(id=task_id)
    return [
        span_task_results(task, agreement=agreement, procedure=procedure)
        for task in tasks.order_by("id")
    ]
