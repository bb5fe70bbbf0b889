"""Paired significance between systems on the segments they share, as WMT24 tests ESA.

For each ordered pair of systems and each domain, a one-sided Wilcoxon signed-rank test
(scipy's defaults: zero differences dropped) on the segments both systems have; the domains'
p-values are combined with Stouffer's method. A domain where the two systems share no segment
or differ on none is left out; with no domain left the p-value is NaN (no evidence).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


def paired_wilcoxon_greater(
    values: ArrayLike,
    systems: ArrayLike,
    segments: ArrayLike,
    n_systems: int,
    domains: ArrayLike | None = None,
) -> FloatArray:
    """``p[a, b]`` for "system a scores higher than system b" (codes 0..n_systems-1).

    One row per (system, segment): ``values`` its score (the mean of its judgments),
    ``segments`` and ``domains`` integer codes, a segment always in the same domain.
    """
    from scipy import stats

    x = np.asarray(values, dtype=np.float64)
    sys_ = np.asarray(systems, dtype=np.int64)
    seg = np.asarray(segments, dtype=np.int64)
    n_segments = int(seg.max(initial=-1)) + 1
    table = np.full((n_systems, n_segments), np.nan)
    table[sys_, seg] = x
    domain_of = np.zeros(n_segments, dtype=np.int64)
    if domains is not None:
        domain_of[seg] = np.asarray(domains, dtype=np.int64)
    domain_masks = [domain_of == d for d in np.unique(domain_of)]
    rated = ~np.isnan(table)
    forward: dict[tuple[int, int], list[float]] = {}
    backward: dict[tuple[int, int], list[float]] = {}
    for domain in domain_masks:
        # Pairs sharing the same segments are tested in one vectorised scipy call: in a
        # campaign where every system has every segment that is all pairs at once.
        by_shared: dict[bytes, list[tuple[int, int]]] = {}
        for a in range(n_systems):
            for b in range(a + 1, n_systems):
                shared = rated[a] & rated[b] & domain
                by_shared.setdefault(shared.tobytes(), []).append((a, b))
        for key, pairs in by_shared.items():
            columns = np.frombuffer(key, dtype=bool)
            first = table[np.ix_([a for a, _ in pairs], columns)]
            second = table[np.ix_([b for _, b in pairs], columns)]
            differ = np.any(first != second, axis=1)
            if not differ.any():
                continue
            first, second = first[differ], second[differ]
            tested = [pair for pair, keep in zip(pairs, differ, strict=True) if keep]
            p_forward = stats.wilcoxon(first, second, alternative="greater", axis=1).pvalue
            p_backward = stats.wilcoxon(second, first, alternative="greater", axis=1).pvalue
            for pair, p_ab, p_ba in zip(tested, p_forward, p_backward, strict=True):
                forward.setdefault(pair, []).append(float(p_ab))
                backward.setdefault(pair, []).append(float(p_ba))
    p = np.full((n_systems, n_systems), np.nan)
    for (a, b), p_values in forward.items():
        p[a, b] = combine_stouffer(p_values)
        p[b, a] = combine_stouffer(backward[(a, b)])
    return p


def combine_stouffer(p_values: list[float]) -> float:
    """Stouffer's combination (unweighted); one p-value is returned as it is."""
    from scipy import stats

    if not p_values:
        return math.nan
    if len(p_values) == 1:
        return float(p_values[0])
    return float(stats.combine_pvalues(p_values, method="stouffer").pvalue)


def p_value_table(names: ArrayLike, p: NDArray[np.float64]) -> dict[str, dict[str, float]]:
    """``p[a, b]`` (row system better than column system) as ``{row: {column: p}}``, the
    diagonal left out: the layout every span ranking returns."""
    labels = [str(name) for name in np.asarray(names)]
    return {
        labels[a]: {labels[b]: float(p[a, b]) for b in range(len(labels)) if b != a}
        for a in range(len(labels))
    }
