"""Agreement between annotators: on spans (character-level F1) and on segment scores.

Span F1 compares the sets of characters two annotators marked in the same text: F1 =
2|A∩B| / (|A| + |B|). With ``severity=True`` a character matches only when both gave it the
same severity (where one annotator's spans overlap, a character takes the most severe).
Missing-content markers and source-side spans cover no target characters and are ignored.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from metrics.agreement import Kappa, krippendorff_alpha
from metrics.spans.span import Span, severity_rank


def _characters(spans: Iterable[Span]) -> dict[int, str]:
    """Character offset -> severity (the most severe of the spans covering it)."""
    marked: dict[int, str] = {}
    for span in spans:
        if span.start is None or span.end is None or span.side != "target":
            continue
        severity = span.severity.lower()
        for offset in range(span.start, span.end):
            held = marked.get(offset)
            if held is None or severity_rank(severity) < severity_rank(held):
                marked[offset] = severity
    return marked


@dataclass(frozen=True)
class SpanOverlap:
    """Characters marked by the first annotator, by the second, and by both (matching)."""

    first: int
    second: int
    matched: int

    @property
    def f1(self) -> float:
        """NaN when neither marked anything (no evidence either way)."""
        total = self.first + self.second
        return 2 * self.matched / total if total else math.nan

    def __add__(self, other: SpanOverlap) -> SpanOverlap:
        return SpanOverlap(
            self.first + other.first, self.second + other.second, self.matched + other.matched
        )


def span_overlap(
    first: Iterable[Span], second: Iterable[Span], *, severity: bool = False
) -> SpanOverlap:
    a, b = _characters(first), _characters(second)
    if severity:
        matched = sum(1 for offset, sev in a.items() if b.get(offset) == sev)
    else:
        matched = len(a.keys() & b.keys())
    return SpanOverlap(len(a), len(b), matched)


def span_f1(first: Iterable[Span], second: Iterable[Span], *, severity: bool = False) -> float:
    """Character-level F1 of two annotators' spans on one text."""
    return span_overlap(first, second, severity=severity).f1


def corpus_span_f1(
    pairs: Iterable[tuple[Sequence[Span], Sequence[Span]]], *, severity: bool = False
) -> SpanOverlap:
    """Micro-averaged overlap over items judged by both annotators: sum the characters over
    items, then take F1 (``.f1``), so long texts weigh more than short ones."""
    total = SpanOverlap(0, 0, 0)
    for first, second in pairs:
        total = total + span_overlap(first, second, severity=severity)
    return total


@dataclass(frozen=True)
class ScoreAgreement:
    """Krippendorff's interval alpha over all annotators, and Kendall's tau-b averaged over
    annotator pairs weighted by their shared items (pairs sharing fewer than two left out)."""

    alpha: Kappa
    tau: float
    tau_pairs: int
    tau_items: int


def score_agreement(
    items: Sequence[Hashable],
    annotators: Sequence[Hashable],
    scores: ArrayLike,
    *,
    n_boot: int = 1000,
    seed: int | None = 0,
) -> ScoreAgreement:
    """Agreement on segment scores, one entry per judgment (an annotator's first per item)."""
    from scipy import stats

    values = np.asarray(scores, dtype=np.float64)
    alpha = krippendorff_alpha(
        [str(i) for i in items],
        [str(a) for a in annotators],
        values,
        level="interval",
        n_boot=n_boot,
        seed=seed,
    )
    by_annotator: dict[Hashable, dict[Hashable, float]] = {}
    for item, annotator, value in zip(items, annotators, values, strict=True):
        by_annotator.setdefault(annotator, {}).setdefault(item, float(value))
    names = list(by_annotator)
    weighted, weight, pairs = 0.0, 0, 0
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            shared = sorted(by_annotator[first].keys() & by_annotator[second].keys(), key=str)
            if len(shared) < 2:
                continue
            tau = stats.kendalltau(
                [by_annotator[first][k] for k in shared], [by_annotator[second][k] for k in shared]
            ).statistic
            if math.isnan(tau):
                continue
            weighted += tau * len(shared)
            weight += len(shared)
            pairs += 1
    return ScoreAgreement(
        alpha=alpha,
        tau=weighted / weight if weight else math.nan,
        tau_pairs=pairs,
        tau_items=weight,
    )


def annotator_pairs(
    judgments: Iterable[tuple[Hashable, Hashable, Sequence[Span]]],
) -> list[tuple[Sequence[Span], Sequence[Span]]]:
    """Every pair of distinct annotators' spans on the same item, from (item, annotator,
    spans) judgments; an annotator's first judgment of an item counts."""
    by_item: dict[Hashable, dict[Hashable, Sequence[Span]]] = {}
    for item, annotator, spans in judgments:
        by_item.setdefault(item, {}).setdefault(annotator, spans)
    pairs: list[tuple[Sequence[Span], Sequence[Span]]] = []
    for annotators in by_item.values():
        spans_of = list(annotators.values())
        for i, first in enumerate(spans_of):
            pairs.extend((first, second) for second in spans_of[i + 1 :])
    return pairs
