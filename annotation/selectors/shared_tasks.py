"""What a shared task's page, API and downloads show: each visible pair's ranking (from the
campaign's own human results selectors), the global table, per-domain tables and AutoRank.

A pair's ranking is the one of its protocol's task: the first launched MQM or ESA task, else
the first launched Likert task (DA-style z-scores), else the first launched contrastive task.
Pairs without one are listed, unranked. Each pair is ranked by the WMT procedure its organiser
chose for it (``PAIR_PROCEDURES``; the protocol's default when none is chosen).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from annotation.models import (
    CONTRASTIVE_TYPES,
    HUMAN,
    LIKERT_TYPES,
    SPAN_TYPES,
    Campaign,
    Segment,
    SharedTask,
    SharedTaskCampaign,
    Task,
    TaskType,
)
from annotation.permissions import results_campaign_ids
from annotation.selectors.contrastive import contrastive_output_scores
from annotation.selectors.human import task_results
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
    esa_ranking,
    mqm_ratings,
    ranked_judgments,
    span_task_results,
)
from annotation.selectors.spans import span_judgments
from annotation.services.spans import task_mqm_weights
from metrics.rankings.likert import z_scores
from metrics.report.grid import Grid, ranking_grid
from metrics.report.shared_task import GlobalRow, domain_means, global_ranking
from metrics.report.tables import PROTOCOLS, RankingTable, Row
from metrics.spans import EsaRanking, MqmRanking, rank_mqm
from metrics.spans.esa_wmt import DEFAULT_PROCEDURE
from metrics.spans.esa_wmt import PROCEDURES as ESA_PROCEDURES
from metrics.spans.mqm import Ratings

# Human translations ranked among the systems: the campaign's own reference ("Human") and the
# names WMT and the MQM releases give references judged as systems (refA, refB, ref,
# Human-B). They are marked in the tables and take no part in the global ranking.
_HUMAN_NAME = re.compile(r"(human|ref)([-_ ]?[a-z0-9])?", re.IGNORECASE)


# The WMT procedures that may rank a pair, by its protocol, the default first: ESA and cESA
# as WMT24, WMT25 or WMT26 (metrics.spans.esa_wmt); DA and Likert as WMT21 (z-scores,
# Wilcoxon rank-sum); MQM by its own ranking (mean MQM score, bootstrap intervals, paired
# tests: metrics.spans.mqm.rank_mqm), which no WMT script replaces.
PAIR_PROCEDURES: dict[str, tuple[str, ...]] = {
    "esa": tuple(ESA_PROCEDURES),
    "cda": tuple(ESA_PROCEDURES),
    "da": ("wmt21",),
    "mqm": ("mqm",),
}
# What each procedure does, for the page (the ESA ones as metrics.spans.esa_wmt says).
PROCEDURE_LABELS = {
    "wmt21": "WMT21: z-scores per annotator; Wilcoxon rank-sum tests, DA clusters",
    **ESA_PROCEDURES,
    "mqm": "MQM: the mean MQM score with bootstrap intervals; paired tests, clusters",
}


def procedure_name(procedure: str) -> str:
    """How a table's caption names the procedure ("WMT25"; MQM's own ranking: none)."""
    return procedure.upper() if procedure.startswith("wmt") else ""


# The protocol each ranked task type publishes (a key of metrics.report.tables.PROTOCOLS).
_PROTOCOL_OF = {
    TaskType.MQM: "mqm",
    TaskType.CONTRASTIVE_MQM: "mqm",
    TaskType.ESA: "esa",
    TaskType.ESA_PREFILLED: "esa",
    TaskType.CONTRASTIVE_ESA: "esa",
    TaskType.CONTRASTIVE_DA: "cda",
    **{task_type: "da" for task_type in LIKERT_TYPES},
}


def task_protocol(task: Task) -> str:
    return _PROTOCOL_OF[TaskType(task.task_type)]


def pair_procedure(protocol: str, chosen: str) -> str:
    """The procedure that ranks a pair: the one chosen when it applies to the protocol (a
    choice made before the pair's task changed may not), else the protocol's default."""
    choices = PAIR_PROCEDURES[protocol]
    return chosen if chosen in choices else choices[0]


def is_human_translation(system: str) -> bool:
    return system == HUMAN or _HUMAN_NAME.fullmatch(system.strip()) is not None


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


def readable_campaigns(user) -> list[Campaign]:
    """The campaigns whose results ``user`` reads (what a shared task may take from them)."""
    ids = results_campaign_ids(user, Campaign.objects.values_list("id", flat=True))
    return list(Campaign.objects.filter(id__in=ids).order_by("name"))


@dataclass(frozen=True)
class SharedTaskEntry:
    shared_task: SharedTask
    pairs: list[Campaign]  # those the user sees
    hidden: int  # pairs the user does not see


def visible_shared_tasks(user) -> list[SharedTaskEntry]:
    """The shared tasks with a pair the user sees, and those the user owns (admins: all)."""
    campaign_ids = results_campaign_ids(user, Campaign.objects.values_list("id", flat=True))
    entries = []
    for shared_task in SharedTask.objects.prefetch_related("pairs__campaign").order_by("name"):
        pairs = [link.campaign for link in shared_task.pairs.all()]
        seen = [c for c in pairs if c.id in campaign_ids]
        if seen or user.is_superuser or shared_task.owner_id == user.id:
            entries.append(SharedTaskEntry(shared_task, seen, len(pairs) - len(seen)))
    return entries


def pair_task(campaign: Campaign) -> Task | None:
    """The task whose ranking stands for the pair (the module's rule)."""
    launched = campaign.tasks.filter(state=Task.State.LAUNCHED).order_by("id")
    return (
        launched.filter(task_type__in=SPAN_TYPES).first()
        or launched.filter(task_type__in=LIKERT_TYPES).first()
        or launched.filter(task_type__in=CONTRASTIVE_TYPES).first()
    )


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


def _span_table(task: Task, title: str, procedure: str) -> RankingTable:
    protocol = task_protocol(task)
    esa_procedure = procedure if procedure in ESA_PROCEDURES else DEFAULT_PROCEDURE
    results = span_task_results(task, agreement=False, procedure=esa_procedure)
    ranking = results.ranking
    label = procedure_name(procedure)
    if ranking is None:
        return RankingTable(title=title, protocol=PROTOCOLS[protocol], procedure=label)
    ranked = ranked_judgments(
        list(span_judgments(campaign=task.campaign, task_id=task.id, included_only=True))
    )
    if task.task_type == TaskType.MQM:
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
    if protocol == "mqm":
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


def _likert_table(task: Task, title: str) -> RankingTable:
    campaign = task.campaign
    names = system_names(campaign.id)
    excluded = exclusions(campaign.id).for_task(task.id)
    results = task_results(
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


def pair_results(campaign: Campaign, chosen_procedure: str = "") -> PairResults:
    """The pair's ranking, by ``chosen_procedure`` when it applies to the pair's protocol."""
    task = pair_task(campaign)
    title = f"{campaign.language_pair} ({campaign.name})"
    if task is None:
        return unranked_pair(campaign, chosen_procedure)
    protocol = task_protocol(task)
    procedure = pair_procedure(protocol, chosen_procedure)
    if task.task_type in SPAN_TYPES:
        table = _span_table(task, title, procedure)
    elif task.task_type in CONTRASTIVE_TYPES:
        table = _contrastive_table(task, title, procedure)
    else:
        table = _likert_table(task, title)
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


def shared_task_pair(shared_task: SharedTask, campaign_id: int) -> SharedTaskCampaign | None:
    return (
        SharedTaskCampaign.objects.filter(shared_task=shared_task, campaign_id=campaign_id)
        .select_related("campaign")
        .first()
    )


@dataclass(frozen=True)
class SharedTaskResults:
    shared_task: SharedTask
    pairs: list[PairResults]  # the pairs the reader may see, in the order they were added
    hidden_pairs: int  # pairs of the shared task the reader may not see
    global_rows: list[GlobalRow]
    autorank_metrics: list[str]

    @property
    def ranked_pairs(self) -> list[PairResults]:
        return [p for p in self.pairs if p.table is not None and p.rows]


def shared_task_results(
    shared_task: SharedTask,
    visible_campaign_ids: set[int],
    *,
    read_pairs: Callable[[list[Campaign]], list[PairResults]] | None = None,
) -> SharedTaskResults:
    """The shared task as the reader may see it: only the campaigns in
    ``visible_campaign_ids`` (annotation.permissions.shared_task_access) are read, each by
    ``pair_results`` or by ``read_pairs`` (their stored snapshots:
    annotation.services.results_snapshots.SnapshotReader)."""
    links = list(shared_task.pairs.select_related("campaign").order_by("id"))
    visible = [link for link in links if link.campaign_id in visible_campaign_ids]
    # A pair ranked by its protocol's default procedure may come from its stored snapshot
    # (``read_pairs``); one ranked by a procedure the organiser chose is computed here (the
    # snapshots hold the default ranking only).
    stored = iter(
        read_pairs([link.campaign for link in visible if not link.procedure])
        if read_pairs is not None
        else []
    )
    pairs = [
        next(stored)
        if read_pairs is not None and not link.procedure
        else pair_results(link.campaign, link.procedure)
        for link in visible
    ]
    ranked = {p.pair: p.participants() for p in pairs if p.rows}
    chosen = [m for m in shared_task.autorank_metrics.split(",") if m]
    return SharedTaskResults(
        shared_task=shared_task,
        pairs=pairs,
        hidden_pairs=len(links) - len(visible),
        global_rows=global_ranking(ranked),
        autorank_metrics=chosen,
    )
