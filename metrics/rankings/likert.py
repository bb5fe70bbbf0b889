"""System rankings from absolute scores (Likert or 0-100 direct assessment), as in WMT DA.

Input convention: parallel arrays with one entry per judgment, ``scores`` as floats and
``annotators``, ``systems``, ``segments`` (and optionally ``language_pairs``) as integer codes
0..k-1 (``metrics.agreement.encode`` or the ORM's ids mapped through ``np.unique``). Pass only
the judgments that should be ranked (TGT items, plus REF ones if the human reference is ranked
as a system); quality-control items belong elsewhere.

Everything is vectorised over the judgments; the only Python loops run over systems and
system pairs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from metrics.rankings._resample import percentiles, resampled_group_means

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

# scipy's mannwhitneyu may switch to its exact distribution when a sample is this small.
_EXACT_LIMIT = 8


def z_scores(
    scores: ArrayLike,
    annotators: ArrayLike,
    language_pairs: ArrayLike | None = None,
    *,
    ddof: int = 1,
) -> FloatArray:
    """Standardise scores per annotator and language pair with the sample standard deviation.

    An annotator whose scores in a language pair do not vary (or who gave a single score)
    carries no information about relative quality: their z-scores are 0.
    """
    x = np.asarray(scores, dtype=np.float64)
    key = np.asarray(annotators, dtype=np.int64)
    if language_pairs is not None:
        lp = np.asarray(language_pairs, dtype=np.int64)
        key = key * (int(lp.max(initial=0)) + 1) + lp
    group = np.unique(key, return_inverse=True)[1].reshape(-1)
    n = np.bincount(group).astype(np.float64)
    mean = np.bincount(group, weights=x) / n
    centred = x - mean[group]
    with np.errstate(invalid="ignore", divide="ignore"):
        std = np.sqrt(np.bincount(group, weights=centred**2) / (n - ddof))
    # Relative threshold: a constant group leaves rounding noise, not a real spread.
    flat = ~(std > 1e-12 * np.maximum(np.abs(mean), 1.0))
    std[flat] = 1.0
    z = centred / std[group]
    z[flat[group]] = 0.0
    return z


@dataclass(frozen=True)
class SegmentScores:
    """One row per (system, segment) output: its mean value(s) and number of judgments."""

    system: IntArray
    segment: IntArray
    mean: FloatArray
    count: IntArray


def segment_scores(values: ArrayLike, systems: ArrayLike, segments: ArrayLike) -> SegmentScores:
    """Average the judgments of each (system, segment) output; rows sorted by system.

    ``values`` is (n,) or (n, k); ``mean`` has the same number of columns.
    """
    x = np.asarray(values, dtype=np.float64)
    sys_ = np.asarray(systems, dtype=np.int64)
    seg = np.asarray(segments, dtype=np.int64)
    n_seg = int(seg.max(initial=0)) + 1
    keys, group = np.unique(sys_ * n_seg + seg, return_inverse=True)
    group = group.reshape(-1)
    count = np.bincount(group)
    columns = x.reshape(len(x), -1).T
    mean = np.stack([np.bincount(group, weights=c) / count for c in columns], axis=1)
    return SegmentScores(
        system=keys // n_seg,
        segment=keys % n_seg,
        mean=mean if x.ndim > 1 else mean[:, 0],
        count=count.astype(np.int64),
    )


def bootstrap_system_means(
    values: FloatArray,
    systems: IntArray,
    n_systems: int,
    *,
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> tuple[FloatArray, FloatArray]:
    """Percentile intervals of each system's mean, resampling its rows (segments).

    ``values`` may be (n,) or (n, k): the k columns share the same resampled rows, so raw and
    z-score means come out of one set of draws. Returns (low, high), each (n_systems,) or
    (n_systems, k); NaN for systems without rows.
    """
    v = values.reshape(len(values), -1)
    replicates = resampled_group_means(v, systems, n_systems, n_boot, seed)
    low, high = percentiles(replicates, confidence)
    if values.ndim == 1:
        return low[:, 0], high[:, 0]
    return low, high


def mannwhitney_greater(values: ArrayLike, systems: ArrayLike, n_systems: int) -> FloatArray:
    """One-sided Mann-Whitney U (Wilcoxon rank-sum) p-values for every ordered system pair.

    ``p[a, b]`` is scipy's ``mannwhitneyu(x_a, x_b, alternative='greater').pvalue`` (default
    continuity correction and method), x_s being the values of system s; the diagonal and
    pairs with an empty sample are NaN. The normal approximation is computed here from sorted
    samples (U by binary search, the tie term from shared distinct values); pairs small enough
    for scipy to use its exact distribution are handed to scipy itself.
    """
    x = np.asarray(values, dtype=np.float64)
    sys_ = np.asarray(systems, dtype=np.int64)
    samples = [np.sort(x[sys_ == s]) for s in range(n_systems)]
    distinct = [np.unique(sample, return_counts=True) for sample in samples]
    tie_terms = [float((c.astype(np.float64) ** 3 - c).sum()) for _, c in distinct]
    p = np.full((n_systems, n_systems), np.nan)
    for a in range(n_systems):
        for b in range(a + 1, n_systems):
            xa, xb = samples[a], samples[b]
            n1, n2 = xa.size, xb.size
            if n1 == 0 or n2 == 0:
                continue
            if n1 <= _EXACT_LIMIT or n2 <= _EXACT_LIMIT:
                p[a, b] = stats.mannwhitneyu(xa, xb, alternative="greater").pvalue
                p[b, a] = stats.mannwhitneyu(xb, xa, alternative="greater").pvalue
                continue
            below = np.searchsorted(xb, xa, side="left")
            equal = np.searchsorted(xb, xa, side="right") - below
            u1 = float(below.sum()) + 0.5 * float(equal.sum())
            (va, ca), (vb, cb) = distinct[a], distinct[b]
            at = np.minimum(np.searchsorted(vb, va), vb.size - 1)
            shared = vb[at] == va
            c1, c2 = ca[shared].astype(np.float64), cb[at[shared]].astype(np.float64)
            tie = tie_terms[a] + tie_terms[b] + float((3 * c1 * c2 * (c1 + c2)).sum())
            n = n1 + n2
            sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie / (n * (n - 1))))
            mu = n1 * n2 / 2
            for first, u in ((a, u1), (b, n1 * n2 - u1)):
                other = b if first == a else a
                with np.errstate(divide="ignore", invalid="ignore"):
                    z = np.float64(u - mu - 0.5) / np.float64(sigma)
                p[first, other] = float(stats.norm.sf(z))
    return p


@dataclass(frozen=True)
class Clusters:
    """Per system (by code): significant wins, 1-based cluster and rank range [best, worst]."""

    wins: IntArray
    cluster: IntArray
    rank_low: IntArray
    rank_high: IntArray


def wmt_clusters(means: ArrayLike, p_values: FloatArray, *, alpha: float = 0.05) -> Clusters:
    """WMT DA clusters from one-sided p-values (``p[a, b]`` for "a better than b").

    A system's wins are the systems it beats at ``p < alpha`` whatever the means. Going down
    the systems in order of mean, a cluster closes after system i when i's wins equal the
    number of systems below it and no system in the cluster has fewer wins. Rank range:
    [1 + number of systems that beat it, N - its wins].
    """
    m = np.asarray(means, dtype=np.float64)
    n = m.size
    beats = np.nan_to_num(p_values, nan=1.0) < alpha
    np.fill_diagonal(beats, False)
    wins = beats.sum(axis=1).astype(np.int64)
    losses = beats.sum(axis=0).astype(np.int64)
    order = np.argsort(-m, kind="stable")
    cluster = np.zeros(n, dtype=np.int64)
    current, start = 1, 0
    for position, s in enumerate(order):
        below = n - 1 - position
        members = order[start : position + 1]
        cluster[s] = current
        if wins[s] == below and wins[members].min() >= below and position < n - 1:
            current, start = current + 1, position + 1
    return Clusters(wins=wins, cluster=cluster, rank_low=1 + losses, rank_high=n - wins)


@dataclass(frozen=True)
class SystemScore:
    """A system's place in a Likert / direct-assessment ranking (intervals are bootstrap)."""

    system: int
    raw: float
    raw_interval: tuple[float, float]
    z: float
    z_interval: tuple[float, float]
    segments: int
    judgments: int
    wins: int
    cluster: int
    rank_range: tuple[int, int]


def rank_systems(
    scores: ArrayLike,
    annotators: ArrayLike,
    systems: ArrayLike,
    segments: ArrayLike,
    *,
    language_pairs: ArrayLike | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
    alpha: float = 0.05,
) -> list[SystemScore]:
    """Rank systems of one language pair by mean z-score, best first.

    z per annotator (and language pair, if given) with ddof=1; a segment's score is the mean
    of its judgments, a system's the mean of its segments (for raw scores too). Clusters and
    rank ranges come from the one-sided Mann-Whitney test on segment z-scores.
    """
    raw = np.asarray(scores, dtype=np.float64)
    sys_ = np.asarray(systems, dtype=np.int64)
    z = z_scores(raw, annotators, language_pairs)
    seg = segment_scores(np.column_stack([raw, z]), sys_, segments)
    n_systems = int(sys_.max(initial=-1)) + 1
    seg_count = np.bincount(seg.system, minlength=n_systems)
    judgments = np.bincount(sys_, minlength=n_systems)
    raw_mean = _means(seg.mean[:, 0], seg.system, n_systems)
    z_mean = _means(seg.mean[:, 1], seg.system, n_systems)
    low, high = bootstrap_system_means(
        seg.mean, seg.system, n_systems, n_boot=n_boot, seed=seed, confidence=confidence
    )
    # Clusters over the systems that have judgments only: N counts those.
    present = np.flatnonzero(seg_count > 0)
    p_values = mannwhitney_greater(seg.mean[:, 1], seg.system, n_systems)
    clusters = wmt_clusters(z_mean[present], p_values[np.ix_(present, present)], alpha=alpha)
    ranked = sorted(range(present.size), key=lambda i: -z_mean[present[i]])
    return [
        SystemScore(
            system=int(present[i]),
            raw=float(raw_mean[present[i]]),
            raw_interval=(float(low[present[i], 0]), float(high[present[i], 0])),
            z=float(z_mean[present[i]]),
            z_interval=(float(low[present[i], 1]), float(high[present[i], 1])),
            segments=int(seg_count[present[i]]),
            judgments=int(judgments[present[i]]),
            wins=int(clusters.wins[i]),
            cluster=int(clusters.cluster[i]),
            rank_range=(int(clusters.rank_low[i]), int(clusters.rank_high[i])),
        )
        for i in ranked
    ]


def _means(values: FloatArray, groups: IntArray, n_groups: int) -> FloatArray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.bincount(groups, weights=values, minlength=n_groups) / np.bincount(
            groups, minlength=n_groups
        )
