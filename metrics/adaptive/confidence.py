"""An always-valid confidence sequence for the difference of two systems' mean scores.

The rule: Robbins' normal-mixture boundary (Howard, Ramdas, McAuliffe & Sekhon 2021,
"Time-uniform, nonparametric, nonasymptotic confidence sequences", Ann. Statist. 49(2),
eq. (3.7) and Proposition 5; the same martingale as Johari, Koomen, Pekelis & Walsh 2022,
"Always valid inference: continuous monitoring of A/B tests", Oper. Res. 70(3)), applied to
the unpaired difference of two means in information time:

    S = I (D_hat - D),   I = 1 / (v_a / n_a + v_b / n_b),

where D_hat is the difference of the running means and v the running variances. Under a
Gaussian approximation S is a Brownian motion in the intrinsic time I, and the mixture
martingale sqrt(rho / (I + rho)) exp(S^2 / (2 (I + rho))) crosses 1 / alpha with probability at
most alpha at ANY time (Ville's inequality), so

    |D_hat - D| <= sqrt((I + rho) log((I + rho) / (rho alpha^2))) / I

holds for all I at once: the organiser may look after every judgment, and the allocation may
depend on everything seen so far (the judgments a policy asks for are predictable). With the
variances estimated the guarantee is asymptotic (Waudby-Smith, Arnold, Wu, McAuliffe & Ramdas
2024, "Time-uniform central limit theory and asymptotic confidence sequences", Ann. Statist.
52(6)); the variance is shrunk toward the pooled one so that a few identical early scores (an
MQM zero run) cannot collapse an interval. The simulator checks the error rate on real data.

Why this rule rather than alpha spending: spending needs the looks planned in advance and a
maximum sample size; the mixture boundary allows a look after every judgment, needs no
horizon, and costs only a log factor. Why not a betting confidence sequence: betting needs
bounded scores (MQM is not bounded in general) and has no closed form for differences under
adaptive allocation; the mixture boundary is one vectorised formula.

``rho`` sets where the boundary is tightest; it is given here as the number of judgments per
system (``tuned_for``) at which the organiser expects to decide, converted with the pooled
variance (see ``mixture_rho``). It must be FIXED IN ADVANCE: Ville's inequality bounds the
crossing probability of one martingale, the mixture over one prior. Re-tuning rho to the
current count at each look (as the live status once did) makes the boundary a constant in
z units, c(alpha) ~ 3.0 at alpha 0.05, which a random walk watched after every judgment
crosses eventually with probability one (law of the iterated logarithm): each look is valid
alone, the sequence is not. So ``tuned_for`` is the task's declared horizon (half its
budget per system in the simulator, the planned size from the budget planner) or, when none
is declared, ``DEFAULT_TUNED_FOR``. In count units the pooled variance only converts the
scale (rho / I = tuned_for r / n for two systems judged n times each), the plug-in of a
nuisance the asymptotic argument above covers.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]

# Pseudo-judgments of the pooled variance added to each system's own variance.
VARIANCE_PRIOR_WEIGHT = 10.0

# Judgments per system the mixture is tuned for when no horizon is declared. Mis-tuning
# costs little on the low side and more on the high side: at the Bonferroni levels of 5-15
# systems a task deciding at 10 times this size needs ~8% more judgments than with the best
# tuning, at 3 times ~2%, at a third ~6%, at a tenth ~35%. 100 suits tasks deciding at
# 30-3000 judgments per system (WMT human evaluations: a few hundred to ~1500).
DEFAULT_TUNED_FOR = 100.0


def budget_tuning(observations: float, systems: int) -> float:
    """The tuning of a task that declares its size (``observations`` in all, e.g. its
    judgment budget): half the share per system, at least one. Half, because a task stops
    before its budget is spent when it can (adaptive replays stopped at 0.1-0.6 of theirs),
    while the systems of its hardest pairs get more than the share; mis-tuning by 3 either
    way costs a few per cent (above), and the simulator's rows tuned 4 times lower or higher
    (bench/simulate.md) change adaptive's judgments by -1% to +22%. Fixed before the data:
    the simulator from the file's size, a live task at launch (annotation/selectors/tuning.py)."""
    return max(float(observations) / max(systems, 1) / 2.0, 1.0)


def mixture_half_width(information: ArrayLike, rho: ArrayLike, alpha: float) -> FloatArray:
    """Half-width of the two-sided normal-mixture confidence sequence at ``information``
    (1 / variance of the estimate), mixture precision ``rho`` (same units), level ``alpha``."""
    info = np.asarray(information, dtype=np.float64)
    mix = np.asarray(rho, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = info + mix
        width = np.sqrt(total * (np.log(total / mix) - 2.0 * math.log(alpha))) / info
    return np.where(info > 0, width, np.inf)


@lru_cache(maxsize=64)
def _best_ratio(alpha: float) -> float:
    """rho / I at which the boundary is narrowest for a given I (scale-free in I)."""
    ratios = np.geomspace(1e-4, 10.0, 2001)
    widths = mixture_half_width(np.ones_like(ratios), ratios, alpha)
    return float(ratios[int(np.argmin(widths))])


def mixture_rho(tuned_for: float, variance: ArrayLike, alpha: float) -> FloatArray:
    """The ``rho`` that makes the boundary narrowest for a difference of two systems judged
    ``tuned_for`` times each, with score variance ``variance`` (information n / (2 var))."""
    info = tuned_for / (2.0 * np.asarray(variance, dtype=np.float64))
    return info * _best_ratio(alpha)


def shrunk_variance(
    count: ArrayLike, total: ArrayLike, total_squares: ArrayLike, pooled: ArrayLike
) -> FloatArray:
    """Each system's score variance from running sums, shrunk toward ``pooled`` by
    ``VARIANCE_PRIOR_WEIGHT`` pseudo-judgments (so it is never zero while pooled is not)."""
    n = np.asarray(count, dtype=np.float64)
    s1 = np.asarray(total, dtype=np.float64)
    s2 = np.asarray(total_squares, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        squares = np.where(n > 0, s2 - s1 * s1 / np.maximum(n, 1.0), 0.0)
    squares = np.maximum(squares, 0.0)
    prior = VARIANCE_PRIOR_WEIGHT * np.asarray(pooled, dtype=np.float64)
    return (squares + prior) / (np.maximum(n - 1.0, 0.0) + VARIANCE_PRIOR_WEIGHT)


def pooled_variance(count: ArrayLike, total: ArrayLike, total_squares: ArrayLike) -> FloatArray:
    """Within-system variance pooled over the last axis (systems); a tiny floor keeps it
    positive when every score so far is equal."""
    n = np.asarray(count, dtype=np.float64)
    s1 = np.asarray(total, dtype=np.float64)
    s2 = np.asarray(total_squares, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        squares = np.where(n > 0, s2 - s1 * s1 / np.maximum(n, 1.0), 0.0)
    degrees = np.maximum(n - 1.0, 0.0).sum(axis=-1)
    pooled = np.maximum(squares, 0.0).sum(axis=-1) / np.maximum(degrees, 1.0)
    return np.maximum(pooled, 1e-9)
