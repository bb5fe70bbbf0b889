"""MQM scores (Freitag et al., 2021, as Google's wmt-mqm-human-evaluation computes them).

A rating is one rater's judgment of one system's segment. Its score is the sum of its errors'
weights (``MqmWeights``); a clean segment scores 0. A system's score is the mean over its
ratings ("rater-segment" average, Google's README), lower is better. On Google's TED zh-en
data each segment has one rater, so the mean over segments of the raters' mean is the same
number; ``average="segment"`` gives the latter when raters overlap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from metrics.spans.ranked import ranked_rows
from metrics.spans.significance import p_value_table, paired_wilcoxon_greater

FloatArray = NDArray[np.float64]
Average = Literal["rating", "segment"]
NO_ERROR_SEVERITY = "no-error"
NON_TRANSLATION = "Non-translation!"

# Google's MQM typology (Freitag et al., 2021, table 10) as its TSV files spell the categories;
# a campaign may define its own. Non-translation is always major and covers the segment.
GOOGLE_MQM_CATEGORIES = (
    "Accuracy/Mistranslation",
    "Accuracy/Addition",
    "Accuracy/Omission",
    "Accuracy/Untranslated text",
    "Fluency/Grammar",
    "Fluency/Spelling",
    "Fluency/Punctuation",
    "Fluency/Register",
    "Fluency/Inconsistency",
    "Fluency/Character encoding",
    "Terminology/Inappropriate for context",
    "Terminology/Inconsistent use of terminology",
    "Style/Awkward",
    "Locale convention/Address format",
    "Locale convention/Currency format",
    "Locale convention/Date format",
    "Locale convention/Name format",
    "Locale convention/Telephone format",
    "Locale convention/Time format",
    "Other",
    "Source error",
    NON_TRANSLATION,
)


@dataclass(frozen=True)
class MqmWeights:
    """Error weights by severity, with per-(severity, category) exceptions.

    Keys compare lower-cased. A category listed in ``non_translation_categories`` weighs
    ``non_translation`` whatever its severity (it covers the whole segment).
    """

    severity: Mapping[str, float] = field(
        default_factory=lambda: {"major": 5.0, "minor": 1.0, "neutral": 0.0, NO_ERROR_SEVERITY: 0.0}
    )
    exceptions: Mapping[tuple[str, str], float] = field(
        default_factory=lambda: {("minor", "fluency/punctuation"): 0.1}
    )
    non_translation: float = 25.0
    non_translation_categories: tuple[str, ...] = ("non-translation", NON_TRANSLATION.lower())

    def weight(self, severity: str, category: str | None) -> float:
        """The weight of one error; ``ValueError`` for a severity without a weight."""
        sev, cat = severity.lower(), (category or "").lower()
        if cat in self.non_translation_categories:
            return self.non_translation
        if (sev, cat) in self.exceptions:
            return self.exceptions[(sev, cat)]
        if sev not in self.severity:
            raise ValueError(f"no MQM weight for severity {severity!r}")
        return self.severity[sev]

    def score(self, errors: Iterable[tuple[str, str | None]]) -> float:
        """A rating's MQM score: the sum of its errors' (severity, category) weights."""
        return sum((self.weight(severity, category) for severity, category in errors), 0.0)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready copy, stored with every result (``from_dict`` reads it back)."""
        return {
            "severity": dict(self.severity),
            "exceptions": [
                {"severity": sev, "category": cat, "weight": w}
                for (sev, cat), w in self.exceptions.items()
            ],
            "non_translation": self.non_translation,
            "non_translation_categories": list(self.non_translation_categories),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MqmWeights:
        default = cls()
        exceptions = data.get("exceptions")
        return cls(
            severity={
                k.lower(): float(v) for k, v in data.get("severity", default.severity).items()
            },
            exceptions=default.exceptions
            if exceptions is None
            else {
                (e["severity"].lower(), e["category"].lower()): float(e["weight"])
                for e in exceptions
            },
            non_translation=float(data.get("non_translation", default.non_translation)),
            non_translation_categories=tuple(
                c.lower()
                for c in data.get("non_translation_categories", default.non_translation_categories)
            ),
        )


DEFAULT_MQM_WEIGHTS = MqmWeights()


@dataclass(frozen=True)
class Ratings:
    """Parallel lists, one entry per rating (system, segment, rater) with its MQM score."""

    system: list[str]
    segment: list[str]
    rater: list[str]
    score: FloatArray


def rating_scores(
    errors: Iterable[tuple[str, str, str, str, str | None]],
    weights: MqmWeights = DEFAULT_MQM_WEIGHTS,
) -> Ratings:
    """Sum error weights per (system, segment, rater); errors are (system, segment, rater,
    severity, category) and a ``No-error`` severity registers a clean rating."""
    totals: dict[tuple[str, str, str], float] = {}
    for system, segment, rater, severity, category in errors:
        key = (system, segment, rater)
        totals[key] = totals.get(key, 0.0) + weights.weight(severity, category)
    keys = list(totals)
    return Ratings(
        system=[k[0] for k in keys],
        segment=[k[1] for k in keys],
        rater=[k[2] for k in keys],
        score=np.fromiter(totals.values(), dtype=np.float64, count=len(keys)),
    )


@dataclass(frozen=True)
class MqmSystemScore:
    system: str
    score: float
    interval: tuple[float, float]
    segments: int
    ratings: int
    wins: int
    cluster: int
    rank_range: tuple[int, int]


@dataclass(frozen=True)
class MqmRanking:
    """Systems best (lowest score) first; ``p_values[a][b]``: a better than b (one-sided)."""

    systems: list[MqmSystemScore]
    p_values: dict[str, dict[str, float]]
    weights: dict[str, Any]
    average: Average


def rank_mqm(
    ratings: Ratings,
    *,
    weights: MqmWeights = DEFAULT_MQM_WEIGHTS,
    average: Average = "rating",
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
    alpha: float = 0.05,
) -> MqmRanking:
    """Rank systems by mean MQM score with bootstrap intervals, paired tests and clusters.

    Intervals resample the averaged units (ratings or segments) within each system. Pairwise
    significance is the one-sided Wilcoxon signed-rank test on the segments two systems share
    (a segment's score being its raters' mean); clusters and rank ranges as for DA.
    """
    # Imported here: metrics.rankings loads scipy.stats, and metrics.spans stays quick to import.
    from metrics.rankings.likert import bootstrap_system_means, segment_scores, wmt_clusters

    if average not in ("rating", "segment"):
        raise ValueError(f"unknown MQM average {average!r}")
    if not ratings.score.size == len(ratings.system) == len(ratings.segment):
        raise ValueError("ratings need a system, a segment and a score each")
    if ratings.score.size == 0:
        raise ValueError("no ratings to rank")
    names, systems = np.unique(np.asarray(ratings.system, dtype=str), return_inverse=True)
    segments = np.unique(np.asarray(ratings.segment, dtype=str), return_inverse=True)[1]
    systems, segments = systems.reshape(-1), segments.reshape(-1)
    n_systems = names.size
    per_segment = segment_scores(ratings.score, systems, segments)
    units, unit_system = (
        (ratings.score, systems) if average == "rating" else (per_segment.mean, per_segment.system)
    )
    counts = np.bincount(unit_system, minlength=n_systems)
    means = np.bincount(unit_system, weights=units, minlength=n_systems) / np.maximum(counts, 1)
    low, high = bootstrap_system_means(
        units, unit_system, n_systems, n_boot=n_boot, seed=seed, confidence=confidence
    )
    # Lower MQM is better: test and cluster on the negated scores.
    p = paired_wilcoxon_greater(
        -per_segment.mean, per_segment.system, per_segment.segment, n_systems
    )
    clusters = wmt_clusters(-means, p, alpha=alpha)
    return MqmRanking(
        systems=ranked_rows(
            MqmSystemScore,
            names,
            means,
            (low, high),
            np.bincount(per_segment.system, minlength=n_systems),
            np.bincount(systems, minlength=n_systems),
            clusters,
            lower_is_better=True,
        ),
        p_values=p_value_table(names, p),
        weights=weights.as_dict(),
        average=average,
    )
