"""Bootstrap confidence intervals and paired significance tests on statistics matrices.

Everything works on the per-segment statistics of ``metrics.automatic`` and never tokenises.
A resample is a matrix of counts (how often each segment is drawn); its corpus statistics are
``counts @ stats``, so one draw serves every system and every pair of systems.

Compatibility with sacrebleu 2.x (``significance.py``) with the same seed and sample count:

* bootstrap: ``default_rng(seed).choice(n, size=(samples, n))``, the draw sacrebleu uses for
  ``--confidence`` and for every system of ``--paired-bs``. sacrebleu sums and scores resamples
  in float32; so do we whenever its sums are exact (whole-number statistics, sums below 2**24),
  so the resampled scores are bit-identical. Otherwise everything is float64.
* interval: mean of the resampled scores and the order statistics ``n // 40`` and
  ``n - n // 40 - 1`` of the sorted scores (95%); sacrebleu prints ``mean ± (high - low) / 2``.
  The mean is exact for ``bootstrap_ci`` (as ``--confidence``) and NumPy's for the paired
  tests (as ``--paired-bs``); they may differ in the last float32 bit.
* paired bootstrap p-value: ``(c + 1) / (samples + 1)``, where ``c`` counts resamples whose
  absolute score difference, centred on its mean, exceeds the actual absolute difference.
* approximate randomisation: ``default_rng(seed).integers(2, size=(trials, n), dtype=bool)``
  decides which segments swap systems; ``c`` counts trials whose absolute difference exceeds
  the actual one. sacrebleu only compares a baseline with the others; here every pair is.

Several runs of one system (e.g. training seeds; Clark et al. 2011) are given as a
``(n_runs, n_segments, n_statistics)`` array. Following MultEval, the runs are pooled: each
segment's statistics are averaged over the runs, so a resample or a swap takes a segment with
all its runs, and the pooled score is that of all runs concatenated (the metrics are ratios of
sums). The runs' own corpus scores are reported with their mean and sample standard deviation
(optimiser instability). One run gives exactly the single-run results, and the run order does
not matter. Averaged statistics are fractional, so such tests are computed in float64.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

from metrics.automatic import (
    check_metric,
    corpus_score,
    higher_is_better,
    n_statistics,
    scores_from_columns,
)

SACREBLEU_SEED: Final = 12345
BOOTSTRAP_SAMPLES: Final = 1000
AR_TRIALS: Final = 10000
_CHUNK: Final = 1000  # randomisation trials per matrix product, to bound memory


@dataclass(frozen=True)
class Estimate:
    """Score of one system with its bootstrap mean and percentile interval."""

    name: str
    score: float
    mean: float
    low: float
    high: float
    run_scores: tuple[float, ...] = ()

    @property
    def half_width(self) -> float:
        """sacrebleu's "± CI": half the width of the interval."""
        return 0.5 * (self.high - self.low)

    @property
    def n_runs(self) -> int:
        return len(self.run_scores)

    @property
    def run_mean(self) -> float:
        return statistics.fmean(self.run_scores)

    @property
    def run_std(self) -> float | None:
        """Sample standard deviation of the runs' scores; ``None`` for a single run."""
        return statistics.stdev(self.run_scores) if len(self.run_scores) > 1 else None


@dataclass(frozen=True)
class Comparison:
    """Paired test of systems ``a`` and ``b``; ``win_a`` is the share of bootstrap resamples
    in which ``a`` scores better (lower for TER, WER, PER), ``tie`` those with equal scores."""

    a: str
    b: str
    metric: str
    delta: float  # score of a minus score of b
    p_value: float
    win_a: float
    win_b: float
    tie: float

    def swapped(self) -> Comparison:
        return Comparison(
            self.b, self.a, self.metric, -self.delta, self.p_value, self.win_b, self.win_a, self.tie
        )


@dataclass(frozen=True)
class PairedResult:
    """All systems' estimates and the comparisons: by default every pair ``(i, j)``, ``i < j``
    in input order."""

    metric: str
    test: str  # "bs" or "ar"
    n_samples: int  # bootstrap resamples (intervals, wins and, for "bs", the p-values)
    n_trials: int | None  # randomisation trials for "ar"
    seed: int | None
    systems: tuple[Estimate, ...]
    pairs: tuple[Comparison, ...]

    def pair(self, a: str, b: str) -> Comparison:
        for comparison in self.pairs:
            if (comparison.a, comparison.b) == (a, b):
                return comparison
            if (comparison.a, comparison.b) == (b, a):
                return comparison.swapped()
        raise KeyError((a, b))


def pool_runs(stats: ArrayLike) -> NDArray[np.float64]:
    """``(n_segments, n_stats)`` statistics; a ``(n_runs, ...)`` stack is averaged over runs."""
    array = np.asarray(stats, dtype=np.float64)
    if array.ndim == 2:
        return array
    if array.ndim == 3 and len(array) > 0:
        # The sum of whole-number statistics is exact, hence independent of the run order.
        return array.sum(axis=0) / len(array)
    raise ValueError(
        f"expected (n_segments, n_stats) or (n_runs, n_segments, n_stats), got {array.shape}"
    )


def run_scores(metric: str, stats: ArrayLike) -> tuple[float, ...]:
    """Corpus score of each run (a single score for 2-D statistics)."""
    array = np.asarray(stats, dtype=np.float64)
    runs = array[None] if array.ndim == 2 else array
    return tuple(corpus_score(metric, run) for run in runs)


def resample_indices(
    n_segments: int, n_samples: int, seed: int | None, *, half: bool = False
) -> NDArray[np.intp]:
    """Segment indices of each resample, ``(n_samples, size)``.

    Full size: ``n_segments`` draws with replacement, as sacrebleu. ``half``: ``n_segments // 2``
    distinct segments (half-sampling without replacement; its variance for a mean equals the
    full-size bootstrap's, so the interval needs no rescaling).
    """
    if n_segments < (2 if half else 1) or n_samples < 1:
        raise ValueError("need at least one resample and enough segments to draw from")
    rng = np.random.default_rng(seed)
    if not half:
        return rng.choice(n_segments, size=(n_samples, n_segments), replace=True)
    size = n_segments // 2
    return rng.random((n_samples, n_segments)).argpartition(size, axis=1)[:, :size]


def resample_counts(indices: NDArray[np.intp], n_segments: int) -> NDArray[np.int64]:
    """How often each segment is drawn in each resample, ``(n_samples, n_segments)``."""
    n_samples = len(indices)
    flat = (indices + (np.arange(n_samples) * n_segments)[:, None]).ravel()
    return np.bincount(flat, minlength=n_samples * n_segments).reshape(n_samples, n_segments)


def _exact_in_float32(stacked: NDArray[np.float64], largest_sum: float) -> bool:
    # Sums of non-negative whole numbers are exact in float32 while they stay below 2**24,
    # whatever the order of addition.
    return largest_sum < 2**24 and bool(np.all(stacked == np.floor(stacked)))


def resampled_scores(
    metric: str, systems: list[NDArray[np.float64]], indices: NDArray[np.intp]
) -> NDArray[np.floating]:
    """Scores of every system (pooled 2-D statistics) in every resample: ``(n_systems, n)``.

    The sums are exact in float64; when sacrebleu's float32 sums would be exact too, they are
    scored in float32 as sacrebleu does.
    """
    n_segments, width = systems[0].shape
    stacked = np.concatenate(systems, axis=1)
    counts = resample_counts(indices, n_segments).astype(np.float64)
    # Column-major sums, one row per (system, statistic), as scores_from_columns wants them.
    sums = stacked.T @ counts.T
    if _exact_in_float32(stacked, float(sums.max(initial=0.0))):
        sums = sums.astype(np.float32)
    return np.stack(
        [
            scores_from_columns(metric, sums[s * width : (s + 1) * width])
            for s in range(len(systems))
        ]
    )


def _interval(
    scores: NDArray[np.floating], confidence: float, *, exact_mean: bool = False
) -> tuple[float, float, float]:
    ordered = np.sort(scores)
    n = len(ordered)
    lower = math.floor(n * (1.0 - confidence) / 2.0 + 1e-9)
    # sacrebleu's --confidence takes the exact mean (statistics.mean, rounded to the scores'
    # dtype); its paired tests take NumPy's mean of the sorted scores. They can differ in the
    # last float32 bit (chrF, TER), so each path follows its sacrebleu counterpart.
    mean = statistics.mean(list(ordered)) if exact_mean else ordered.mean()
    return float(mean), float(ordered[lower]), float(ordered[n - lower - 1])


def _estimate(
    name: str,
    metric: str,
    stats: ArrayLike,
    resampled: NDArray[np.floating],
    confidence: float,
    *,
    exact_mean: bool = False,
) -> Estimate:
    mean, low, high = _interval(resampled, confidence, exact_mean=exact_mean)
    score = corpus_score(metric, pool_runs(stats))
    return Estimate(name, score, mean, low, high, run_scores(metric, stats))


def bootstrap_ci(
    metric: str,
    stats: ArrayLike,
    *,
    n_samples: int = BOOTSTRAP_SAMPLES,
    seed: int | None = SACREBLEU_SEED,
    half: bool = False,
    confidence: float = 0.95,
    name: str = "",
) -> Estimate:
    """Percentile bootstrap interval of one system's corpus score (sacrebleu ``--confidence``).

    ``stats`` is 2-D, or 3-D for several runs (see the module docstring).
    """
    key = check_metric(metric)
    pooled = pool_runs(stats)
    indices = resample_indices(len(pooled), n_samples, seed, half=half)
    scores = resampled_scores(key, [pooled], indices)[0]
    return _estimate(name, key, stats, scores, confidence, exact_mean=True)


def _prepare(metric: str, systems: Mapping[str, ArrayLike]) -> list[NDArray[np.float64]]:
    if len(systems) < 2:
        raise ValueError("a paired test needs at least two systems")
    pooled = [pool_runs(stats) for stats in systems.values()]
    shapes = {array.shape for array in pooled}
    if len(shapes) != 1:
        raise ValueError(f"systems must share segments and statistics, got shapes {sorted(shapes)}")
    if pooled[0].shape[1] != n_statistics(metric):
        raise ValueError(f"{metric} needs {n_statistics(metric)} statistics per segment")
    return pooled


def _pair_indices(
    names: list[str], pairs: Sequence[tuple[str, str]] | None
) -> list[tuple[int, int]]:
    if pairs is None:
        return [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    position = {name: i for i, name in enumerate(names)}
    unknown = {name for pair in pairs for name in pair} - set(position)
    if unknown:
        raise ValueError(f"unknown systems in pairs: {sorted(unknown)}")
    return [(position[a], position[b]) for a, b in pairs]


def _wins(
    metric: str, a: NDArray[np.floating], b: NDArray[np.floating]
) -> tuple[float, float, float]:
    higher = higher_is_better(metric)
    better = a > b if higher else a < b
    worse = a < b if higher else a > b
    return float(better.mean()), float(worse.mean()), float((a == b).mean())


def _p_value(count: int, n: int) -> float:
    # The +1 keeps the test's false-rejection rate at or below its level (MultEval, sacrebleu).
    return (count + 1) / (n + 1)


def _bootstrap_part(
    metric: str,
    systems: Mapping[str, ArrayLike],
    pooled: list[NDArray[np.float64]],
    n_samples: int,
    seed: int | None,
    half: bool,
    confidence: float,
) -> tuple[list[Estimate], NDArray[np.floating]]:
    indices = resample_indices(len(pooled[0]), n_samples, seed, half=half)
    resampled = resampled_scores(metric, pooled, indices)
    estimates = [
        _estimate(name, metric, stats, resampled[s], confidence)
        for s, (name, stats) in enumerate(systems.items())
    ]
    return estimates, resampled


def paired_bootstrap(
    metric: str,
    systems: Mapping[str, ArrayLike],
    *,
    n_samples: int = BOOTSTRAP_SAMPLES,
    seed: int | None = SACREBLEU_SEED,
    half: bool = False,
    confidence: float = 0.95,
    pairs: Sequence[tuple[str, str]] | None = None,
) -> PairedResult:
    """Paired bootstrap resampling (Koehn 2004, as sacrebleu ``--paired-bs``).

    ``systems`` maps names to statistics (2-D, or 3-D for runs), all on the same segments.
    Every pair is compared unless ``pairs`` lists the (a, b) comparisons wanted.
    """
    key = check_metric(metric)
    pooled = _prepare(key, systems)
    estimates, resampled = _bootstrap_part(key, systems, pooled, n_samples, seed, half, confidence)
    comparisons = []
    for i, j in _pair_indices(list(systems), pairs):
        diffs = np.abs(resampled[j] - resampled[i])
        centred = diffs - diffs.mean()
        # A Python float, not a NumPy scalar: it takes the array's dtype as in sacrebleu.
        actual = abs(estimates[i].score - estimates[j].score)
        count = int(np.sum(centred > actual))
        p_value = _p_value(count, n_samples)
        comparisons.append(_comparison(key, estimates, resampled, i, j, p_value))
    return PairedResult(key, "bs", n_samples, None, seed, tuple(estimates), tuple(comparisons))


def _comparison(
    metric: str,
    estimates: list[Estimate],
    resampled: NDArray[np.floating],
    i: int,
    j: int,
    p_value: float,
) -> Comparison:
    a, b = estimates[i], estimates[j]
    win_a, win_b, tie = _wins(metric, resampled[i], resampled[j])
    return Comparison(a.name, b.name, metric, a.score - b.score, p_value, win_a, win_b, tie)


def paired_approximate_randomization(
    metric: str,
    systems: Mapping[str, ArrayLike],
    *,
    n_trials: int = AR_TRIALS,
    seed: int | None = SACREBLEU_SEED,
    n_samples: int = BOOTSTRAP_SAMPLES,
    half: bool = False,
    confidence: float = 0.95,
    pairs: Sequence[tuple[str, str]] | None = None,
) -> PairedResult:
    """Paired approximate randomisation (Riezler and Maxwell 2005, as sacrebleu
    ``--paired-ar``); one swap matrix serves every pair (or the ``pairs`` listed).

    The p-values come from the randomisation; intervals and win/tie shares, which the
    randomisation does not define, from a bootstrap with ``n_samples`` and the same seed.
    """
    key = check_metric(metric)
    if n_trials < 1:
        raise ValueError("need at least one randomisation trial")
    pooled = _prepare(key, systems)
    n_segments, width = pooled[0].shape
    estimates, resampled = _bootstrap_part(key, systems, pooled, n_samples, seed, half, confidence)

    swap = np.random.default_rng(seed).integers(2, size=(n_trials, n_segments), dtype=bool)
    stacked = np.concatenate(pooled, axis=1)
    totals = stacked.sum(axis=0)
    # A trial's sums never exceed the totals, so float32 products are exact when they are.
    exact = _exact_in_float32(stacked, float(totals.max(initial=0.0)))
    dtype = np.float32 if exact else np.float64
    weights = stacked.T.astype(dtype)
    # Statistics each system keeps in each trial, one row per (system, statistic).
    kept = np.empty((len(totals), n_trials))
    for start in range(0, n_trials, _CHUNK):
        kept[:, start : start + _CHUNK] = weights @ swap[start : start + _CHUNK].T.astype(dtype)
    given = totals[:, None] - kept  # and the statistics it gives away

    comparisons = []
    for i, j in _pair_indices(list(systems), pairs):
        rows_i = slice(i * width, (i + 1) * width)
        rows_j = slice(j * width, (j + 1) * width)
        # Pseudo-system a keeps a's segments where the swap is set and takes b's elsewhere.
        pseudo_a = scores_from_columns(key, kept[rows_i] + given[rows_j])
        pseudo_b = scores_from_columns(key, given[rows_i] + kept[rows_j])
        actual = abs(estimates[i].score - estimates[j].score)
        count = int(np.sum(np.abs(pseudo_a - pseudo_b) > actual))
        p_value = _p_value(count, n_trials)
        comparisons.append(_comparison(key, estimates, resampled, i, j, p_value))
    return PairedResult(key, "ar", n_samples, n_trials, seed, tuple(estimates), tuple(comparisons))
