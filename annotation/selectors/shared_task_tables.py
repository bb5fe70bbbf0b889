"""A shared task's tables beyond each pair's ranking: the global table, per-domain tables and
the human rankings beside AutoRank, as ``metrics.report.grid`` tables (the page, the API and
the Typst, LaTeX and PDF downloads show the same cells)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from annotation.selectors.results import better, metric_label
from annotation.selectors.shared_task_pairs import PairResults
from annotation.selectors.shared_task_procedures import procedure_name
from annotation.selectors.shared_tasks import SharedTaskResults
from metrics.report.grid import Grid, GridRow
from metrics.report.shared_task import autorank
from metrics.report.tables import PROTOCOLS, number, rank_text


def _score_text(pair: PairResults, system: str) -> str:
    row = next((r for r in pair.rows if r.system == system), None)
    if row is None or pair.protocol is None:
        return "–"
    return number(row.score, PROTOCOLS[pair.protocol].digits, minus="−")


def _procedure_note(pair: PairResults) -> str:
    """ " (WMT25)": which WMT procedure ranked the pair (MQM ranks by its own)."""
    name = procedure_name(pair.procedure or "")
    return f" ({name})" if name else ""


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
        f"{p.pair}: {PROTOCOLS[p.protocol].name}{_procedure_note(p)}"
        for p in pairs
        if p.protocol is not None
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
