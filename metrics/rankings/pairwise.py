"""System rankings from pairwise comparisons (pairwise tasks, or rankings expanded to pairs).

Input convention: parallel arrays ``system_a``, ``system_b`` (integer codes 0..n_systems-1)
and ``label`` with LESS (-1) when A was judged better, TIE (0), GREATER (1) when B was better,
as produced by ``metrics.agreement.ranking_labels``. Each row is one comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
TieMode = Literal["drop", "split"]


@dataclass(frozen=True)
class Comparisons:
    """``wins[i, j]``: times i was judged better than j; ``ties[i, j]`` (symmetric): ties."""

    wins: FloatArray
    ties: FloatArray


def count_comparisons(
    system_a: ArrayLike, system_b: ArrayLike, label: ArrayLike, n_systems: int
) -> Comparisons:
    a = np.asarray(system_a, dtype=np.int64)
    b = np.asarray(system_b, dtype=np.int64)
    lab = np.asarray(label, dtype=np.int64)
    return _count(a, b, lab, n_systems, np.ones(a.size))


def _count(a: IntArray, b: IntArray, lab: IntArray, n: int, weight: FloatArray) -> Comparisons:
    winner = np.where(lab < 0, a, b)
    loser = np.where(lab < 0, b, a)
    decided = lab != 0
    wins = np.bincount(
        winner[decided] * n + loser[decided], weights=weight[decided], minlength=n * n
    ).reshape(n, n)
    tied = np.bincount(a[~decided] * n + b[~decided], weights=weight[~decided], minlength=n * n)
    tied = tied.reshape(n, n)
    return Comparisons(wins=wins, ties=tied + tied.T)


def win_rates(comparisons: Comparisons) -> FloatArray:
    """Share of a system's comparisons it won, ties counting as comparisons (NaN if none)."""
    total = comparisons.wins.sum(axis=1) + comparisons.wins.sum(axis=0)
    total = total + comparisons.ties.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return comparisons.wins.sum(axis=1) / total


def expected_wins(comparisons: Comparisons) -> FloatArray:
    """WMT13/14 Expected Wins: mean over other systems o of wins(s,o) / (wins(s,o) + wins(o,s)).

    Ties are dropped; opponents never compared with s (without ties) are left out of the mean.
    """
    w = comparisons.wins
    decided = w + w.T
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(decided > 0, w / decided, np.nan)
    np.fill_diagonal(share, np.nan)
    counted = np.isfinite(share).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counted > 0, np.nansum(share, axis=1) / counted, np.nan)


def bradley_terry(
    comparisons: Comparisons,
    *,
    ties: TieMode = "drop",
    max_iter: int = 10_000,
    tol: float = 1e-10,
) -> FloatArray:
    """Bradley-Terry log-strengths (mean 0 over finite values) by Hunter's (2004) MM algorithm.

    ``ties="drop"`` ignores ties; ``"split"`` counts a tie as half a win for each side. A
    system that never wins has maximum-likelihood strength 0, i.e. log-strength -inf, and one
    that never loses makes the others' -inf; the MLE is finite when every system can be
    reached from every other by a chain of wins.
    """
    w = comparisons.wins.astype(np.float64)
    if ties == "split":
        w = w + comparisons.ties / 2.0
    elif ties != "drop":
        raise ValueError(f"unknown tie mode {ties!r}")
    games = w + w.T
    won = w.sum(axis=1)
    n = w.shape[0]
    strength = np.ones(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        for _ in range(max_iter):
            rate = games / (strength[:, None] + strength[None, :])
            new = won / rate.sum(axis=1)
            new = np.where(np.isfinite(new), new, 0.0)
            total = new.sum()
            if total <= 0:
                break
            new = new * n / total
            done = np.max(np.abs(new - strength)) < tol
            strength = new
            if done:
                break
        log_strength = np.log(strength)
    finite = np.isfinite(log_strength)
    if finite.any():
        log_strength[finite] -= log_strength[finite].mean()
    return log_strength


@dataclass(frozen=True)
class PairwiseScore:
    """A system in a pairwise ranking; ``rank_range`` is the bootstrap interval of its BT rank."""

    system: int
    wins: int
    losses: int
    ties: int
    win_rate: float
    expected_wins: float
    bradley_terry: float
    rank_range: tuple[int, int]


def rank_pairwise(
    system_a: ArrayLike,
    system_b: ArrayLike,
    label: ArrayLike,
    n_systems: int,
    *,
    judgments: ArrayLike | None = None,
    ties: TieMode = "drop",
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> list[PairwiseScore]:
    """Win rates, Expected Wins and Bradley-Terry, best BT first.

    The rank range resamples judgments with replacement ``n_boot`` times, refits BT, ranks
    the systems in each replicate (1 = best) and takes the percentile interval of each
    system's rank. ``judgments`` codes the judgment each comparison comes from: the
    comparisons of one n-way ranking were made together and are drawn together. Without it
    each comparison is a judgment of its own.
    """
    a = np.asarray(system_a, dtype=np.int64)
    b = np.asarray(system_b, dtype=np.int64)
    lab = np.asarray(label, dtype=np.int64)
    if judgments is None:
        unit = np.arange(a.size)
    else:
        unit = np.unique(np.asarray(judgments), return_inverse=True)[1].reshape(-1)
    n_units = int(unit.max(initial=-1)) + 1
    counts = _count(a, b, lab, n_systems, np.ones(a.size))
    rating = bradley_terry(counts, ties=ties)
    ew = expected_wins(counts)
    rates = win_rates(counts)
    rng = np.random.default_rng(seed)
    ranks = np.empty((max(n_boot, 0), n_systems), dtype=np.int64)
    for r in range(max(n_boot, 0)):
        drawn = np.bincount(rng.integers(0, n_units, size=n_units), minlength=n_units)
        weight = drawn[unit].astype(float)
        replicate = bradley_terry(_count(a, b, lab, n_systems, weight), ties=ties)
        ranks[r] = _ranks(replicate)
    tail = (1.0 - confidence) / 2.0 * 100.0
    order = sorted(range(n_systems), key=lambda s: -rating[s])
    result = []
    for s in order:
        if n_boot > 0:
            low, high = np.percentile(ranks[:, s], [tail, 100 - tail], method="inverted_cdf")
            rank_range = (int(low), int(high))
        else:
            rank_range = (0, 0)
        result.append(
            PairwiseScore(
                system=s,
                wins=int(counts.wins[s].sum()),
                losses=int(counts.wins[:, s].sum()),
                ties=int(counts.ties[s].sum()),
                win_rate=float(rates[s]),
                expected_wins=float(ew[s]),
                bradley_terry=float(rating[s]),
                rank_range=rank_range,
            )
        )
    return result


def _ranks(rating: FloatArray) -> IntArray:
    """Competition ranks, 1 = best; equal ratings share the better rank."""
    ordered = np.sort(-rating)
    return (np.searchsorted(ordered, -rating, side="left") + 1).astype(np.int64)
