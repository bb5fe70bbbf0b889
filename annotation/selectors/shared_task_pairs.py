"""A shared task's pair: the ranking table of the campaign's protocol, from the campaign's own
human results selectors.

A pair's ranking is the one of its protocol's task: the first launched MQM or ESA task, else
the first launched Likert task (DA-style z-scores), else the first launched contrastive task.
Pairs without one are listed, unranked. Each pair is ranked by the WMT procedure its organiser
chose for it (``PAIR_PROCEDURES``; the protocol's default when none is chosen).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from annotation.models import Campaign, Segment, Task
from annotation.protocols import Protocol, protocol_for, task_types_where
from annotation.selectors.contrastive import contrastive_output_scores
from annotation.selectors.human import TaskResults, task_results
from annotation.selectors.human.correlation import automatic_scores
from annotation.selectors.human.likert import likert_data
from annotation.selectors.human.loading import (
    REF,
    TGT,
    campaign_usernames,
    exclusions,
    system_names,
    task_judgments,
)
from annotation.selectors.human.spans import (
    N_BOOT,
    SpanTaskResults,
    esa_ranking,
    mqm_ratings,
    ranked_judgments,
    span_task_results,
)
from annotation.selectors.shared_task_procedures import (
    PAIR_PROCEDURES,
    PROCEDURE_LABELS,
    is_human_translation,
    pair_procedure,
    procedure_name,
    task_protocol,
)
from annotation.selectors.spans import span_judgments
from annotation.services.spans import task_mqm_weights
from metrics.rankings.likert import z_scores
from metrics.report.grid import Grid, ranking_grid
from metrics.report.shared_task import domain_means
from metrics.report.tables import PROTOCOLS, RankingTable, Row
from metrics.spans import EsaRanking, MqmRanking, rank_mqm
from metrics.spans.esa_wmt import DEFAULT_PROCEDURE
from metrics.spans.esa_wmt import PROCEDURES as ESA_PROCEDURES
from metrics.spans.mqm import Ratings


@dataclass(frozen=True)
class PairResults:
    campaign: Campaign
    task: Task | None
    protocol: str | None  # a key of metrics.report.tables.PROTOCOLS
    table: RankingTable | None
    automatic: dict[str, dict[str, float]] = field(default_factory=dict)
    procedure: str | None = None  # a key of PROCEDURE_LABELS: what ranked the pair
    chosen_procedure: str = ""  # what the organiser chose (blank: the default)

    @property
    def procedure_choices(self) -> tuple[str, ...]:
        return PAIR_PROCEDURES[self.protocol] if self.protocol else ()

    @property
    def procedure_label(self) -> str:
        return PROCEDURE_LABELS[self.procedure] if self.procedure else ""

    @property
    def pair(self) -> str:
        return self.campaign.language_pair

    @property
    def rows(self) -> list[Row]:
        return list(self.table.rows) if self.table else []

    @property
    def download_key(self) -> str:
        """The name of this pair's table in the downloads (annotation.paper_tables)."""
        return f"pair-{self.campaign.id}"

    @property
    def grid(self) -> Grid | None:
        return ranking_grid(self.table) if self.table else None

    def participants(self) -> list[str]:
        """Systems in ranked order, human translations left out."""
        return [row.system for row in self.rows if not row.human]


# Which launched task stands for a pair, by its protocol, in order of preference: one
# output's error spans (MQM, ESA), Likert questions, contrastive screens.
_PAIR_PREFERENCE: tuple[Callable[[Protocol], bool], ...] = (
    lambda protocol: protocol.one_output_spans,
    lambda protocol: bool(protocol.measures),
    lambda protocol: protocol.contrastive,
)


def _ranked_where(prefers: Callable[[Protocol], bool]) -> list[str]:
    return task_types_where(lambda protocol: protocol.ranked_as is not None and prefers(protocol))


def pair_task(campaign: Campaign) -> Task | None:
    """The task whose ranking stands for the pair (the module's rule)."""
    launched = campaign.tasks.filter(state=Task.State.LAUNCHED).order_by("id")
    for prefers in _PAIR_PREFERENCE:
        found = launched.filter(task_type__in=_ranked_where(prefers)).first()
        if found is not None:
            return found
    return None


def _rows(
    ranking: EsaRanking | MqmRanking, means: dict[str, dict[str, float]], domains: list[str]
) -> list[Row]:
    return [
        Row(
            system=s.system,
            rank_range=s.rank_range,
            cluster=s.cluster,
            score=s.score,
            # WMT25 and WMT26 compute no interval of a system's score.
            interval=s.interval if all(np.isfinite(s.interval)) else None,
            human=is_human_translation(s.system),
            domain_scores=tuple(means.get(s.system, {}).get(d) for d in domains),
        )
        for s in ranking.systems
    ]


# Results of a campaign's tasks computed already with the results page's default choices
# (weights None, every annotator, ESA by DEFAULT_PROCEDURE), by task id: the refresh job
# computes the page first and the pair reuses its task's rather than computing them again.
KnownResults = Mapping[int, TaskResults | SpanTaskResults]


def _span_table(
    task: Task, title: str, procedure: str, known: SpanTaskResults | None = None
) -> RankingTable:
    protocol = task_protocol(task)
    penalty = PROTOCOLS[protocol].lower_is_better  # ranked as MQM: weighted error penalties
    esa_procedure = procedure if procedure in ESA_PROCEDURES else DEFAULT_PROCEDURE
    # The ranking does not depend on agreement; MQM's not on the ESA procedure.
    reusable = known is not None and (penalty or esa_procedure == DEFAULT_PROCEDURE)
    results = (
        known
        if known is not None and reusable
        else span_task_results(task, agreement=False, procedure=esa_procedure)
    )
    ranking = results.ranking
    label = procedure_name(procedure)
    if ranking is None:
        return RankingTable(title=title, protocol=PROTOCOLS[protocol], procedure=label)
    ranked = ranked_judgments(
        list(span_judgments(campaign=task.campaign, task_id=task.id, included_only=True))
    )
    if penalty:
        ratings = mqm_ratings(ranked, task_mqm_weights(task=task))
        domain_of = {str(row.segment_index): row.domain for row in ranked}
        means = domain_means(
            list(ratings.score),
            ratings.system,
            ratings.segment,
            [domain_of[segment] for segment in ratings.segment],
        )
    else:
        means = domain_means(
            [float(row.score or 0) for row in ranked],
            [row.system for row in ranked],
            [str(row.segment_index) for row in ranked],
            [row.domain for row in ranked],
        )
    domains = sorted({d for by_domain in means.values() for d in by_domain})
    if domains == [""]:
        domains = []  # no document has a domain: no columns
    return RankingTable(
        title=title,
        protocol=PROTOCOLS[protocol],
        rows=_rows(ranking, means, domains),
        domains=tuple(d or "(none)" for d in domains),
        procedure=label,
    )


def _contrastive_table(task: Task, title: str, procedure: str) -> RankingTable:
    """A contrastive task's ranking from its per-output scores (first judgments): cESA and
    contrastive DA by ``procedure`` on the 0-100 scores, contrastive MQM as MQM."""
    protocol = task_protocol(task)
    scored = contrastive_output_scores(task)
    label = procedure_name(procedure)
    if not scored:
        return RankingTable(title=title, protocol=PROTOCOLS[protocol], procedure=label)
    systems = [row[0] for row in scored]
    segments = [str(row[1]) for row in scored]
    scores = [row[3] for row in scored]
    ranking: EsaRanking | MqmRanking
    if PROTOCOLS[protocol].lower_is_better:  # ranked as MQM
        ratings = Ratings(systems, segments, [str(row[2]) for row in scored], np.array(scores))
        ranking = rank_mqm(ratings, weights=task_mqm_weights(task=task), n_boot=N_BOOT)
    else:
        ranking = esa_ranking(procedure, scores, systems, segments)
    return RankingTable(
        title=title, protocol=PROTOCOLS[protocol], rows=_rows(ranking, {}, []), procedure=label
    )


def _likert_domain_means(
    task: Task, names: dict[int, str], excluded: set[int]
) -> dict[str, dict[str, float]]:
    """System -> {domain: mean z} of the task's first measure, over the judgments its
    ranking counts (``likert_rankings``: included annotators, system outputs and the human
    reference), z-scored per annotator over those as ``rank_systems`` does; empty when no
    document has a domain."""
    domain_of = dict(
        Segment.objects.filter(campaign_id=task.campaign_id).values_list(
            "index", "document__domain"
        )
    )
    if not any(domain_of.values()):
        return {}
    data = likert_data(task, names)
    included = ~np.isin(data.annotator, np.fromiter(excluded, dtype=np.int64, count=len(excluded)))
    ranked = included & ((data.kind == TGT) | (data.kind == REF))
    if not ranked.any():
        return {}
    # likert_data codes segments in the order of their indices among these same judgments.
    indices = sorted(set(task_judgments(task).values_list("item__segment__index", flat=True)))
    measure = next(iter(data.scores))
    z = z_scores(data.scores[measure][ranked], data.annotator[ranked])
    codes = data.segment[ranked]
    return domain_means(
        list(z),
        [data.systems[int(code)] for code in data.system[ranked]],
        [str(int(code)) for code in codes],
        [domain_of[indices[int(code)]] for code in codes],
    )


def _likert_table(task: Task, title: str, known: TaskResults | None = None) -> RankingTable:
    campaign = task.campaign
    names = system_names(campaign.id)
    excluded = exclusions(campaign.id).for_task(task.id)
    results = known or task_results(
        task,
        usernames=campaign_usernames(campaign.id),
        names=names,
        excluded=excluded,
    )
    ranking = results.likert[0] if results.likert else None
    means = _likert_domain_means(task, names, excluded)
    domains = sorted({d for by_domain in means.values() for d in by_domain})
    rows = [
        Row(
            system=s.name,
            rank_range=s.score.rank_range,
            cluster=s.score.cluster,
            score=s.score.z,
            interval=s.score.z_interval,
            secondary=s.score.raw,
            human=is_human_translation(s.name),
            domain_scores=tuple(means.get(s.name, {}).get(d) for d in domains),
        )
        for s in (ranking.systems if ranking else [])
    ]
    labels = tuple(d or "(none)" for d in domains)
    return RankingTable(
        title=title,
        protocol=PROTOCOLS["da"],
        rows=rows,
        domains=labels,
        procedure=procedure_name("wmt21"),
    )


def unranked_pair(campaign: Campaign, chosen_procedure: str = "") -> PairResults:
    """The pair with no ranking (none launched, or not computed yet)."""
    return PairResults(campaign, None, None, None, chosen_procedure=chosen_procedure)


def pair_results(
    campaign: Campaign, chosen_procedure: str = "", *, known: KnownResults | None = None
) -> PairResults:
    """The pair's ranking, by ``chosen_procedure`` when it applies to the pair's protocol;
    ``known``: its tasks' results computed already (``KnownResults``)."""
    task = pair_task(campaign)
    title = f"{campaign.language_pair} ({campaign.name})"
    if task is None:
        return unranked_pair(campaign, chosen_procedure)
    protocol = task_protocol(task)
    procedure = pair_procedure(protocol, chosen_procedure)
    found = (known or {}).get(task.id)
    declared = protocol_for(task.task_type)
    if declared.one_output_spans:
        spans = found if isinstance(found, SpanTaskResults) else None
        table = _span_table(task, title, procedure, spans)
    elif declared.contrastive:
        table = _contrastive_table(task, title, procedure)
    else:
        likert = found if isinstance(found, TaskResults) else None
        table = _likert_table(task, title, likert)
    automatic = {
        metric: {s: v for s, v in scores.items() if not is_human_translation(s)}
        for metric, scores in automatic_scores(campaign).items()
    }
    return PairResults(
        campaign,
        task,
        protocol,
        table,
        automatic,
        procedure=procedure,
        chosen_procedure=chosen_procedure,
    )
