"""System rankings as WMT25 computed them (``humeval/08-compute_clusters.py`` of
wmt-conference/wmt25-general-mt), for document-level ESA scores collected in waves.

Input: ``scores[s, w, i]``, system s's score of item (segment) i in annotation wave w, NaN
where it was not judged. WMT25 judged every item twice (two waves); a wave here is the w-th
judgment of an output in the order they were made.

- A system's score is the raw mean of all its judgments, both waves pooled (no z-scores, no
  averaging per item first); the per-domain columns are the same mean within each domain.
- Systems are ordered by that mean. "a beats b" is a one-sided Wilcoxon signed-rank test
  (``metrics.rankings._signed_rank``) at p < 0.05 / 2 on the item differences paired across
  waves: each item gives a_w - b_v for *every* pair of waves (w, v) (wave 1 with wave 1, 2
  with 2, then 1 with 2 and 2 with 1), pairs with a missing score dropped. Unlike the textbook
  paired test the pairs are therefore not independent: each judgment is used once per wave
  of the other system.
- A system's rank range runs from just below the nearest system above it that beats it to
  just above the nearest system below it that it beats (not a count of all systems beaten).
- A cluster ends after position k when every system above has its range end at k or
  higher up and every system below has its range start below k.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from metrics.rankings._signed_rank import signed_rank_greater

FloatArray = NDArray[np.float64]
ALPHA = 0.05 / 2  # the script's threshold (a one-sided test at half of 0.05)


@dataclass(frozen=True)
class Wmt25System:
    system: int  # the row of ``scores``
    mean: float
    domain_means: dict[str, float]
    rank_range: tuple[int, int]
    cluster: int  # 1-based, best first
    judgments: int
    items: int


@dataclass(frozen=True)
class Wmt25Ranking:
    """Systems best first; ``p_values[a, b]`` (rows of ``scores``): "a beats b"."""

    systems: list[Wmt25System]
    p_values: FloatArray
    domains: list[str]


def wave_differences(a: FloatArray, b: FloatArray) -> FloatArray:
    """a's scores minus b's on the same items, for every pair of waves, NaN pairs dropped.

    ``a`` and ``b`` are (waves, items). The pairs come in the script's order: for a shift s
    of 0, 1, ..., wave w of a against wave (w + s) mod waves of b.
    """
    waves = a.shape[0]
    d = np.concatenate(
        [a[w] - b[(w + shift) % waves] for shift in range(waves) for w in range(waves)]
    )
    return d[~np.isnan(d)]


def wave_p_values(scores: ArrayLike) -> FloatArray:
    """One-sided signed-rank p-values of every ordered pair (diagonal NaN)."""
    x = np.asarray(scores, dtype=np.float64)
    n = x.shape[0]
    p = np.full((n, n), np.nan)
    for a in range(n):
        for b in range(n):
            if a != b:
                p[a, b] = signed_rank_greater(wave_differences(x[a], x[b]))
    return p


def rank_wmt25(
    scores: ArrayLike, *, domains: Sequence[str] | None = None, alpha: float = ALPHA
) -> Wmt25Ranking:
    """Rank the systems (rows of ``scores``, each with at least one judgment).

    ``domains`` names each item's domain (the columns); systems with equal means keep the
    order of their rows (the script's order there depended on Python's set order).
    """
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 3:
        raise ValueError("scores must be (systems, waves, items)")
    n_systems, _, n_items = x.shape
    flat = [x[s][~np.isnan(x[s])] for s in range(n_systems)]
    if any(f.size == 0 for f in flat):
        raise ValueError("every system needs at least one judgment")
    # statistics.mean is exactly rounded, like the script's sort key.
    order = sorted(range(n_systems), key=lambda s: statistics.mean(flat[s].tolist()), reverse=True)
    p = wave_p_values(x)
    beats = np.nan_to_num(p, nan=1.0) < alpha
    ranges = [_rank_range(position, order, beats) for position in range(n_systems)]
    domain_names = sorted(set(domains)) if domains is not None else []
    if domains is not None and len(domains) != n_items:
        raise ValueError("domains need one entry per item")
    item_domain = np.asarray(domains if domains is not None else [], dtype=str)
    systems = []
    cluster = 1
    for position, s in enumerate(order):
        systems.append(
            Wmt25System(
                system=s,
                mean=float(np.mean(flat[s])),
                domain_means={d: _mean(x[s][:, item_domain == d]) for d in domain_names},
                rank_range=ranges[position],
                cluster=cluster,
                judgments=int(flat[s].size),
                items=int(np.any(~np.isnan(x[s]), axis=0).sum()),
            )
        )
        if position + 1 < n_systems and _cluster_ends_after(position + 1, ranges):
            cluster += 1
    return Wmt25Ranking(systems=systems, p_values=p, domains=domain_names)


def _rank_range(position: int, order: list[int], beats: NDArray[np.bool_]) -> tuple[int, int]:
    s = order[position]
    top = position + 1
    for above in reversed(order[:position]):
        if beats[above, s]:
            break
        top -= 1
    bottom = position + 1
    for below in order[position + 1 :]:
        if beats[s, below]:
            break
        bottom += 1
    return top, bottom


def _cluster_ends_after(k: int, ranges: list[tuple[int, int]]) -> bool:
    return all(end <= k for _, end in ranges[:k]) and all(start > k for start, _ in ranges[k:])


def _mean(values: FloatArray) -> float:
    kept = values[~np.isnan(values)]
    return float(np.mean(kept)) if kept.size else float("nan")
