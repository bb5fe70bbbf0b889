"""Shared-task tables across language pairs: the global ranking by average normalised rank,
AutoRank of automatic metrics, and per-domain means. Pure functions (no Django)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


def normalised_ranks(ranked: Sequence[str]) -> dict[str, float]:
    """Each system's normalised rank in one language pair.

    ``ranked`` lists the pair's N participating systems in the pair's ranked order, best
    first (human translations left out: they do not take part). The system at position p
    (1 = best) has normalised rank (p - 1) / (N - 1): 0 for the best, 1 for the worst,
    evenly spaced between; a pair with a single system gives it 0. Position, not cluster:
    systems of one cluster get different normalised ranks, as their positions differ.
    """
    n = len(ranked)
    if len(set(ranked)) != n:
        raise ValueError("a system is listed twice in one pair")
    if n == 1:
        return {ranked[0]: 0.0}
    return {system: index / (n - 1) for index, system in enumerate(ranked)}


@dataclass(frozen=True)
class GlobalRow:
    system: str
    average_normalised_rank: float
    pairs: int  # the pairs the system took part in
    normalised: dict[str, float]  # pair -> normalised rank in that pair


def global_ranking(pairs: Mapping[str, Sequence[str]]) -> list[GlobalRow]:
    """The WMT26 global table: systems ordered by their average normalised rank
    (``normalised_ranks``) over the pairs they took part in, lowest (best) first; equal
    averages are ordered by more pairs first, then by name.

    ``pairs`` maps each pair to its participating systems in ranked order, best first.
    """
    by_system: dict[str, dict[str, float]] = {}
    for pair, ranked in pairs.items():
        for system, value in normalised_ranks(ranked).items():
            by_system.setdefault(system, {})[pair] = value
    rows = [
        GlobalRow(system, sum(values.values()) / len(values), len(values), values)
        for system, values in by_system.items()
    ]
    return sorted(rows, key=lambda row: (row.average_normalised_rank, -row.pairs, row.system))


def autorank(
    scores: Mapping[str, Mapping[str, float]], higher_is_better: Mapping[str, bool]
) -> dict[str, float]:
    """AutoRank as WMT24 and WMT25 compute it: each metric's system scores rescaled linearly
    onto 1..N (1 for the metric's best system, N for its worst, N the number of systems),
    then averaged over the metrics.

    ``scores`` maps metric -> {system: score}; only systems every metric scored are ranked
    (a system some metric missed has no AutoRank). A metric that gives every system the
    same score puts them all at 1. Returns system -> AutoRank (lower is better).
    """
    usable = {
        metric: {s: v for s, v in values.items() if math.isfinite(v)}
        for metric, values in scores.items()
    }
    if not usable:
        return {}
    systems = set.intersection(*(set(values) for values in usable.values()))
    n = len(systems)
    if n == 0:
        return {}
    total = dict.fromkeys(systems, 0.0)
    for metric, values in usable.items():
        kept = [values[s] for s in systems]
        best, worst = (max(kept), min(kept)) if higher_is_better[metric] else (min(kept), max(kept))
        for system in systems:
            span = worst - best
            share = 0.0 if span == 0 else (values[system] - best) / span
            total[system] += 1 + (n - 1) * share
    return {system: total[system] / len(usable) for system in systems}


def domain_means(
    scores: Sequence[float],
    systems: Sequence[str],
    segments: Sequence[str],
    domains: Sequence[str],
) -> dict[str, dict[str, float]]:
    """System -> {domain: score}: within each domain, the mean over the system's segments of
    each segment's mean judgment (as ESA's overall score averages within domains)."""
    per_segment: dict[tuple[str, str, str], list[float]] = {}
    for score, system, segment, domain in zip(scores, systems, segments, domains, strict=True):
        per_segment.setdefault((system, domain, segment), []).append(float(score))
    grouped: dict[tuple[str, str], list[float]] = {}
    for (system, domain, _), values in per_segment.items():
        grouped.setdefault((system, domain), []).append(sum(values) / len(values))
    result: dict[str, dict[str, float]] = {}
    for (system, domain), means in sorted(grouped.items()):
        result.setdefault(system, {})[domain] = sum(means) / len(means)
    return result
