"""Per-system error counts by category and severity: the data of a stacked bar chart."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from metrics.spans.span import Span, severity_rank

UNCATEGORISED = "(none)"


@dataclass(frozen=True)
class ErrorBreakdown:
    """``counts[system][category][severity]``: number of errors. Categories are sorted by
    their total (most frequent first); severities most severe first; systems as given."""

    systems: list[str]
    categories: list[str]
    severities: list[str]
    counts: dict[str, dict[str, dict[str, int]]]

    def series(self) -> list[dict[str, Any]]:
        """One stack segment per (category, severity) with a count per system, in order:
        ``[{"category", "severity", "counts": [n per system]}]``; empty pairs are left out."""
        out = []
        for category in self.categories:
            for severity in self.severities:
                values = [self.counts[s].get(category, {}).get(severity, 0) for s in self.systems]
                if any(values):
                    out.append({"category": category, "severity": severity, "counts": values})
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "systems": self.systems,
            "categories": self.categories,
            "severities": self.severities,
            "counts": self.counts,
            "series": self.series(),
        }


def error_breakdown(
    errors: Iterable[tuple[str, str, str | None]], *, systems: Iterable[str] = ()
) -> ErrorBreakdown:
    """Count errors given as (system, severity, category); a None category counts as
    ``(none)`` (ESA spans). ``systems`` fixes the order (and includes error-free systems);
    others follow in the order first seen."""
    counts: dict[str, dict[str, dict[str, int]]] = {s: {} for s in systems}
    category_totals: dict[str, int] = {}
    severities: set[str] = set()
    for system, severity, category in errors:
        name = category or UNCATEGORISED
        cell = counts.setdefault(system, {}).setdefault(name, {})
        cell[severity] = cell.get(severity, 0) + 1
        category_totals[name] = category_totals.get(name, 0) + 1
        severities.add(severity)
    return ErrorBreakdown(
        systems=list(counts),
        categories=sorted(category_totals, key=lambda c: (-category_totals[c], c)),
        severities=sorted(severities, key=lambda s: (severity_rank(s), s)),
        counts=counts,
    )


@dataclass(frozen=True)
class SpanStatistics:
    """A system's spans over its judgments: how many, how severe, how long."""

    system: str
    judgments: int
    spans: int
    by_severity: dict[str, int]
    missing: int
    error_free_share: float
    spans_per_judgment: float
    mean_length: float

    def as_dict(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in self.__dataclass_fields__}


def span_statistics(judgments: Iterable[tuple[str, Sequence[Span]]]) -> list[SpanStatistics]:
    """Per system (in the order first seen), from (system, spans of one judgment) pairs.

    ``mean_length`` is in characters over positioned spans (NaN without any); ``missing``
    counts missing-content markers, which ``spans`` includes.
    """
    tallies: dict[str, list[Any]] = {}
    for system, spans in judgments:
        tally = tallies.setdefault(system, [0, 0, {}, 0, 0, 0, 0])
        tally[0] += 1
        tally[1] += len(spans)
        for span in spans:
            tally[2][span.severity] = tally[2].get(span.severity, 0) + 1
            if span.is_missing:
                tally[3] += 1
            else:
                tally[5] += span.length
                tally[6] += 1
        tally[4] += not spans
    return [
        SpanStatistics(
            system=system,
            judgments=n,
            spans=count,
            by_severity=dict(
                sorted(severities.items(), key=lambda kv: (severity_rank(kv[0]), kv[0]))
            ),
            missing=missing,
            error_free_share=clean / n,
            spans_per_judgment=count / n,
            mean_length=characters / positioned if positioned else math.nan,
        )
        for system, (
            n,
            count,
            severities,
            missing,
            clean,
            characters,
            positioned,
        ) in tallies.items()
    ]
