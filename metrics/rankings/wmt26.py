"""System rankings as WMT26 computed them (``humeval/02b-analyze_results.py`` of
wmt-conference/wmt26-general-mt), for contrastive ESA scores.

Input: ``scores[s, i]``, the mean of system s's judgments of item i (NaN: not judged);
``item_scores`` builds it from one entry per judgment.

- A system's score is the mean of its item means (items weigh the same however often they
  were judged); systems are ordered by it.
- "a is significantly better than b" when a one-sided 95% BCa bootstrap interval
  (``metrics.rankings._bca``, 100 resamples as in the script) excludes 0 from below for
  either the mean of the paired differences on the items both have (tried only with two or
  more such items, one of them positive) or, failing that, the difference of the two means
  resampling each system's items on its own. Taking whichever of two tests succeeds makes the
  rule more liberal than either test alone; a textbook comparison would use one.
- Rank range: up to just below the nearest system above that is significantly better, down
  to just above the nearest system below that it is significantly better than. As in the
  script, when no system below is beaten the range stops at the second-to-last place (its
  loop never reaches the last one) unless the system is itself last.
- After each system but the last: a *local* cluster boundary when it is significantly
  better than the next system, a *global* one when every system down to it is
  significantly better than every system below it (global implies local).
- The decisions are drawn from one generator seeded with ``seed``, in the script's order,
  each pair decided once (the script caches them); this includes the script's comparison of
  the last system with each system when a rank range reaches the top (its index -1), which
  never changes a range but draws resamples. Same seed, same decisions as the script given
  the same generator.
"""

from __future__ import annotations

import statistics
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from metrics.rankings._bca import bca_lower_bound

FloatArray = NDArray[np.float64]
N_RESAMPLES = 100  # the script's
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Wmt26System:
    system: int  # the row of ``scores``
    mean: float
    rank_range: tuple[int, int]
    boundary: str  # after this system: "global", "local" or "" (none; always "" for the last)
    cluster: int  # 1-based global cluster
    local_cluster: int  # 1-based local cluster
    items: int


def item_scores(
    scores: ArrayLike, systems: ArrayLike, items: ArrayLike, n_systems: int, n_items: int
) -> FloatArray:
    """(n_systems, n_items): the mean of each output's judgments, NaN where there are none
    (integer codes for systems and items)."""
    x = np.asarray(scores, dtype=np.float64)
    key = np.asarray(systems, dtype=np.int64) * n_items + np.asarray(items, dtype=np.int64)
    size = n_systems * n_items
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.bincount(key, weights=x, minlength=size) / np.bincount(key, minlength=size)
    return means.reshape(n_systems, n_items)


def significantly_better(
    a: FloatArray,
    b: FloatArray,
    rng: np.random.Generator,
    *,
    n_resamples: int = N_RESAMPLES,
    confidence: float = CONFIDENCE,
) -> bool:
    """The script's decision for item means ``a`` and ``b`` (NaN: not judged)."""
    both = ~np.isnan(a) & ~np.isnan(b)
    differences = a[both] - b[both]
    if differences.size >= 2 and np.any(differences > 0):
        low = bca_lower_bound((differences,), rng, n_resamples=n_resamples, confidence=confidence)
        if low > 0:
            return True
    valid_a, valid_b = a[~np.isnan(a)], b[~np.isnan(b)]
    if valid_a.size >= 2 and valid_b.size >= 2:
        low = bca_lower_bound(
            (valid_a, valid_b), rng, n_resamples=n_resamples, confidence=confidence
        )
        if low > 0:
            return True
    return False


def rank_wmt26(
    scores: ArrayLike,
    *,
    seed: int = 0,
    n_resamples: int = N_RESAMPLES,
    confidence: float = CONFIDENCE,
) -> list[Wmt26System]:
    """Rank the systems (rows of ``scores``, each with at least one item), best first;
    systems with equal means keep the order of their rows."""
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError("scores must be (systems, items)")
    n = x.shape[0]
    kept = [row[~np.isnan(row)].tolist() for row in x]
    if any(not values for values in kept):
        raise ValueError("every system needs at least one judged item")
    # statistics.mean is exactly rounded, like the script's sort key and score.
    means = [statistics.mean(values) for values in kept]
    order = sorted(range(n), key=lambda s: means[s], reverse=True)
    rows = [x[s] for s in order]
    rng = np.random.default_rng(seed)
    decided: dict[tuple[Hashable, Hashable], bool] = {}
    # The script caches on the score tuples: two systems with the same scores (and no NaN,
    # which never equals itself) share their decisions.
    keys: list[Hashable] = [
        tuple(row.tolist()) if not np.isnan(row).any() else ("row", i) for i, row in enumerate(rows)
    ]

    def better(i: int, j: int) -> bool:
        key = (keys[i], keys[j])
        if key not in decided:
            decided[key] = significantly_better(
                rows[i], rows[j], rng, n_resamples=n_resamples, confidence=confidence
            )
        return decided[key]

    result = []
    cluster = local_cluster = 1
    for position in range(n):
        boundary = ""
        if position < n - 1:
            local = better(position, position + 1)
            # all() stops at the first failure, and so does the drawing.
            global_ = all(
                better(up, down) for up in range(position + 1) for down in range(position + 1, n)
            )
            boundary = "global" if global_ else "local" if local else ""
        top = position
        for top in range(position, -1, -1):
            if better(top - 1, position):  # top - 1 = -1: the last system, as in the script
                break
        bottom = position
        for bottom in range(position, n - 1):
            if better(position, bottom + 1):
                break
        result.append(
            Wmt26System(
                system=order[position],
                mean=float(means[order[position]]),
                rank_range=(top + 1, bottom + 1),
                boundary=boundary,
                cluster=cluster,
                local_cluster=local_cluster,
                items=len(kept[order[position]]),
            )
        )
        cluster += boundary == "global"
        local_cluster += boundary != ""
    return result
