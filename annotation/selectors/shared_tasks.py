"""What a shared task's page, API and downloads show: each visible pair's ranking (from the
campaign's own human results selectors), the global table, per-domain tables and AutoRank.

A pair's ranking is the one of its protocol's task: the first launched MQM or ESA task, else
the first launched Likert task (DA-style z-scores). Pairs without one are listed, unranked.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from annotation.models import (
    HUMAN,
    LIKERT_TYPES,
    SPAN_TYPES,
    Campaign,
    SharedTask,
    Task,
    TaskType,
)
from annotation.permissions import results_campaign_ids
from annotation.selectors.human import task_results
from annotation.selectors.human.correlation import automatic_scores
from annotation.selectors.human.loading import campaign_usernames, exclusions, system_names
from annotation.selectors.human.spans import (
    mqm_ratings,
    ranked_judgments,
    span_task_results,
)
from annotation.selectors.results import better, metric_label
from annotation.selectors.spans import span_judgments
from annotation.services.spans import task_mqm_weights
from metrics.report.grid import Grid, GridRow
from metrics.report.shared_task import GlobalRow, autorank, domain_means, global_ranking
from metrics.report.tables import PROTOCOLS, RankingTable, Row, number, rank_text

# Human translations ranked among the systems: the campaign's own reference ("Human") and the
# names WMT and the MQM releases give references judged as systems (refA, refB, ref,
# Human-B). They are marked in the tables and take no part in the global ranking.
_HUMAN_NAME = re.compile(r"(human|ref)([-_ ]?[a-z0-9])?", re.IGNORECASE)


def is_human_translation(system: str) -> bool:
    return system == HUMAN or _HUMAN_NAME.fullmatch(system.strip()) is not None


@dataclass(frozen=True)
class PairResults:
    campaign: Campaign
    task: Task | None
    protocol: str | None  # a key of metrics.report.tables.PROTOCOLS
    table: RankingTable | None
    automatic: dict[str, dict[str, float]] = field(default_factory=dict)

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
    )


def _span_table(task: Task, title: str) -> tuple[str, RankingTable]:
    results = span_task_results(task, agreement=False)
    protocol = results.protocol
    ranking = results.ranking
    if ranking is None:
        return protocol, RankingTable(title=title, protocol=PROTOCOLS[protocol])
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
    rows = [
        Row(
            system=s.system,
            rank_range=s.rank_range,
            cluster=s.cluster,
            score=s.score,
            interval=s.interval,
            human=is_human_translation(s.system),
            domain_scores=tuple(means.get(s.system, {}).get(d) for d in domains),
        )
        for s in ranking.systems
    ]
    return protocol, RankingTable(
        title=title,
        protocol=PROTOCOLS[protocol],
        rows=rows,
        domains=tuple(d or "(none)" for d in domains),
    )


def _likert_table(task: Task, title: str) -> RankingTable:
    campaign = task.campaign
    results = task_results(
        task,
        usernames=campaign_usernames(campaign.id),
        names=system_names(campaign.id),
        excluded=exclusions(campaign.id).for_task(task.id),
    )
    ranking = results.likert[0] if results.likert else None
    rows = [
        Row(
            system=s.name,
            rank_range=s.score.rank_range,
            cluster=s.score.cluster,
            score=s.score.z,
            interval=s.score.z_interval,
            secondary=s.score.raw,
            human=is_human_translation(s.name),
        )
        for s in (ranking.systems if ranking else [])
    ]
    return RankingTable(title=title, protocol=PROTOCOLS["da"], rows=rows)


def pair_results(campaign: Campaign) -> PairResults:
    task = pair_task(campaign)
    title = f"{campaign.language_pair} ({campaign.name})"
    if task is None:
        return PairResults(campaign, None, None, None)
    if task.task_type in SPAN_TYPES:
        protocol, table = _span_table(task, title)
    else:
        protocol, table = "da", _likert_table(task, title)
    automatic = {
        metric: {s: v for s, v in scores.items() if not is_human_translation(s)}
        for metric, scores in automatic_scores(campaign).items()
    }
    return PairResults(campaign, task, protocol, table, automatic)


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
    shared_task: SharedTask, visible_campaign_ids: set[int]
) -> SharedTaskResults:
    """The shared task as the reader may see it: only the campaigns in
    ``visible_campaign_ids`` (annotation.permissions.shared_task_access) are read."""
    links = list(shared_task.pairs.select_related("campaign").order_by("id"))
    visible = [link.campaign for link in links if link.campaign_id in visible_campaign_ids]
    pairs = [pair_results(campaign) for campaign in visible]
    ranked = {p.pair: p.participants() for p in pairs if p.rows}
    chosen = [m for m in shared_task.autorank_metrics.split(",") if m]
    return SharedTaskResults(
        shared_task=shared_task,
        pairs=pairs,
        hidden_pairs=len(links) - len(visible),
        global_rows=global_ranking(ranked),
        autorank_metrics=chosen,
    )


# --- Tables -----------------------------------------------------------------------------------


def _score_text(pair: PairResults, system: str) -> str:
    row = next((r for r in pair.rows if r.system == system), None)
    if row is None or pair.protocol is None:
        return "–"
    return number(row.score, PROTOCOLS[pair.protocol].digits, minus="−")


def global_grid(results: SharedTaskResults) -> Grid:
    """Systems by average normalised rank over their pairs, with each pair's score."""
    pairs = results.ranked_pairs
    columns = ["#", "System", "Avg. norm. rank", "Pairs", *[p.pair for p in pairs]]
    rows = [
        GridRow(
            [
                str(position),
                row.system,
                f"{row.average_normalised_rank:.3f}",
                str(row.pairs),
                *[_score_text(p, row.system) for p in pairs],
            ]
        )
        for position, row in enumerate(results.global_rows, start=1)
    ]
    scores = "; ".join(
        f"{p.pair}: {PROTOCOLS[p.protocol].name}" for p in pairs if p.protocol is not None
    )
    caption = (
        "systems by their average normalised rank over the pairs they took part in "
        "(in a pair of N systems, position p has rank (p-1)/(N-1): 0 best, 1 worst); "
        f"each pair's human score ({scores})"
    )
    return Grid(results.shared_task.name + ", all pairs", caption, columns, rows, name_column=1)


def domain_grids(results: SharedTaskResults) -> list[Grid]:
    """Per pair with domains: each system's score in each domain, with its place there."""
    grids = []
    for pair in results.ranked_pairs:
        table = pair.table
        if table is None or not table.domains:
            continue
        protocol = table.protocol
        places: list[dict[str, int]] = []
        for index in range(len(table.domains)):
            scored = [
                (value, row.system)
                for row in table.rows
                if (value := table.domain_score(row, index)) is not None and math.isfinite(value)
            ]
            scored.sort(
                key=lambda item: (item[0] if protocol.lower_is_better else -item[0], item[1])
            )
            places.append({system: place for place, (_, system) in enumerate(scored, start=1)})
        columns = ["System", protocol.score_label] + [f"{d} (#)" for d in table.domains]
        rows = []
        previous = None
        for row in table.rows:
            cells = [row.system, number(row.score, protocol.digits, minus="−")]
            for index in range(len(table.domains)):
                value = table.domain_score(row, index)
                place = places[index].get(row.system)
                text = number(value, protocol.digits, minus="−")
                cells.append(text if place is None else f"{text} ({place})")
            rows.append(
                GridRow(cells, human=row.human, rule_before=previous not in (None, row.cluster))
            )
            previous = row.cluster
        caption = (
            f"{protocol.name} score per domain and the system's place in that domain "
            "(rows in the overall ranked order; rules separate its clusters)"
        )
        grids.append(Grid(f"{pair.pair} by domain", caption, columns, rows))
    return grids


def metric_digits(values) -> int:
    """Decimals a metric's scores print with: 1 on a 0-100 scale (BLEU, chrF, TER), 3 on
    0-1 (COMET and the like)."""
    finite = [abs(v) for v in values if math.isfinite(v)]
    return 1 if finite and max(finite) > 2 else 3


@dataclass(frozen=True)
class AutoRankTable:
    pair: PairResults
    metrics: list[str]
    autorank: dict[str, float]
    grid: Grid


def autorank_tables(results: SharedTaskResults) -> list[AutoRankTable]:
    """Per pair: the human ranking beside AutoRank (``metrics.report.shared_task.autorank``)
    over the chosen metrics (all the pair's metrics when none are chosen), and each metric."""
    tables = []
    for pair in results.ranked_pairs:
        wanted = results.autorank_metrics or list(pair.automatic)
        metrics = [m for m in wanted if pair.automatic.get(m)]
        if not metrics or pair.protocol is None:
            continue
        ranks = autorank(
            {m: pair.automatic[m] for m in metrics},
            {m: better(m) == "higher" for m in metrics},
        )
        places = {
            system: place
            for place, system in enumerate(sorted(ranks, key=lambda s: (ranks[s], s)), start=1)
        }
        protocol = PROTOCOLS[pair.protocol]
        digits = {m: metric_digits(pair.automatic[m].values()) for m in metrics}
        columns = [
            "System",
            "Human rank",
            protocol.score_label,
            "AutoRank",
            "AutoRank #",
            *[metric_label(m) for m in metrics],
        ]
        rows = []
        previous = None
        for row in pair.rows:
            value = ranks.get(row.system)
            cells = [
                row.system,
                rank_text(row.rank_range, "–"),
                number(row.score, protocol.digits, minus="−"),
                number(value, 2, minus="−"),
                str(places[row.system]) if row.system in places else "–",
                *[number(pair.automatic[m].get(row.system), digits[m], minus="−") for m in metrics],
            ]
            rows.append(
                GridRow(cells, human=row.human, rule_before=previous not in (None, row.cluster))
            )
            previous = row.cluster
        caption = (
            f"human {protocol.name} ranking beside AutoRank (each metric's system scores "
            "rescaled linearly to 1..N, 1 best, then averaged; lower is better)"
        )
        grid = Grid(f"{pair.pair}: human and automatic rankings", caption, columns, rows)
        tables.append(AutoRankTable(pair, metrics, ranks, grid))
    return tables


def ranking_grid(table: RankingTable) -> Grid:
    """A pair's ranking table as the page shows it: the cells the paper tables print."""
    digits = table.protocol.digits
    rows = []
    previous = None
    for row in table.rows:
        cells = [
            rank_text(row.rank_range, "–"),
            str(row.cluster),
            row.system,
            number(row.score, digits, minus="−"),
        ]
        if table.has_interval:
            low, high = row.interval or (None, None)
            cells.append(f"[{number(low, digits, '−')}, {number(high, digits, '−')}]")
        if table.protocol.secondary_label:
            cells.append(number(row.secondary, table.protocol.secondary_digits, minus="−"))
        cells += [
            number(table.domain_score(row, i), digits, minus="−") for i in range(len(table.domains))
        ]
        rows.append(
            GridRow(cells, human=row.human, rule_before=previous not in (None, row.cluster))
        )
        previous = row.cluster
    return Grid(table.title, table.description(), table.columns(), rows, name_column=2)
