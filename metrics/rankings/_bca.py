"""Lower bound of a one-sided bias-corrected and accelerated (BCa) bootstrap interval of a
mean or of a difference of two means, drawing exactly what ``scipy.stats.bootstrap`` draws
from the same generator (so a seeded ranking repeats scipy's decisions, bound for bound).

Differences from the textbook BCa interval (Efron and Tibshirani, ch. 14), all scipy's:
- the bias correction counts resamples equal to the estimate as half below it;
- with two samples (the difference of means) each is resampled on its own and the
  acceleration sums the jackknife terms of both samples;
- the bound is read from the resamples with linear interpolation between order statistics;
- a degenerate case (every resample on one side of the estimate, or no spread at all) gives
  NaN, which never counts as excluding 0.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

# Up to this many observations (and for a constant sample, whose acceleration is nothing but
# rounding noise) the leave-one-out means are averaged as scipy averages them, an n x (n - 1)
# array; above it they come from the total, equal to within rounding.
_EXPLICIT_JACKKNIFE = 128
_JACKKNIFE_ROWS = 256  # rows of the n x (n - 1) array built at a time


def bca_lower_bound(
    samples: tuple[FloatArray, ...],
    rng: np.random.Generator,
    *,
    n_resamples: int,
    confidence: float = 0.95,
) -> float:
    """The lower end of the one-sided ("greater") ``confidence`` BCa interval of
    ``mean(samples[0])`` or, with two samples, of ``mean(samples[0]) - mean(samples[1])``."""
    from scipy.special import ndtr, ndtri

    if not 1 <= len(samples) <= 2 or any(s.size < 2 for s in samples):
        raise ValueError("one or two samples of at least two observations each")
    resampled = [s[rng.integers(0, s.size, (n_resamples, s.size))] for s in samples]
    replicates = _statistic([np.mean(r, axis=-1) for r in resampled])
    estimate = _statistic([np.mean(s) for s in samples])
    below = np.count_nonzero(replicates < estimate) + np.count_nonzero(replicates <= estimate)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        bias = float(ndtri(below / (2 * n_resamples)))
        # NumPy floats: no spread at all gives 0 / 0 = NaN, as in scipy, not an exception.
        numerator, denominator = np.float64(0.0), np.float64(0.0)
        for j, sample in enumerate(samples):
            means = [np.mean(s) for s in samples]
            left_out = _leave_one_out_means(sample)
            jackknife = _statistic([left_out if k == j else m for k, m in enumerate(means)])
            n = float(jackknife.size)
            u = (n - 1) * (np.mean(jackknife) - jackknife)
            numerator += np.sum(u**3) / n**3
            denominator += np.sum(u**2) / n**2
        acceleration = 1 / 6 * numerator / denominator**1.5
        z = bias + float(ndtri(1.0 - confidence))
        level = float(ndtr(bias + z / (1 - acceleration * z)))
    if not math.isfinite(level):
        return math.nan
    return float(np.quantile(replicates, level))


def _statistic(means: list) -> FloatArray:
    return np.asarray(means[0] - means[1] if len(means) == 2 else means[0])


def _leave_one_out_means(sample: FloatArray) -> FloatArray:
    n = sample.size
    if n > _EXPLICIT_JACKKNIFE and np.ptp(sample) > 0:
        return (np.sum(sample) - sample) / (n - 1)
    out = np.empty(n)
    for start in range(0, n, _JACKKNIFE_ROWS):
        rows = np.arange(start, min(start + _JACKKNIFE_ROWS, n))
        # Row r holds every index but rows[r], in order.
        columns = np.arange(n - 1)
        index = columns + (columns >= rows[:, None])
        out[rows] = np.mean(sample[index], axis=-1)
    return out
