"""Standard agreement coefficients over judgments given as parallel arrays.

Conventions shared by the functions here: ``items`` codes what was judged (for Likert a
(system, segment) output; for pairwise and ranking tasks a (segment, system A, system B) item,
see ``PairLabels.item_codes``), ``annotators`` codes who judged it, and ``labels`` holds the
category or value given (ints or floats; categories are the sorted distinct labels). All three
have one entry per judgment. Bootstrap intervals resample items (for intra-annotator Cohen,
(annotator, item) units) with a seeded generator.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from metrics.agreement._common import (
    FloatArray,
    IntArray,
    Kappa,
    bootstrap_weighted,
    encode,
    group_rows,
    pairs_within_groups,
)

Weights = Literal["linear", "quadratic"] | None
Level = Literal["nominal", "ordinal", "interval"]


def _disagreement(n_categories: int, weights: Weights) -> FloatArray:
    """Disagreement weights between category positions, as scikit-learn defines them."""
    index = np.arange(n_categories, dtype=np.float64)
    if weights is None:
        return 1.0 - np.eye(n_categories)
    if weights == "linear":
        return np.abs(index[:, None] - index[None, :])
    if weights == "quadratic":
        return (index[:, None] - index[None, :]) ** 2
    raise ValueError(f"unknown weights {weights!r}")


def cohen_kappa(
    first: ArrayLike,
    second: ArrayLike,
    *,
    weights: Weights = None,
    labels: ArrayLike | None = None,
) -> float:
    """Cohen's kappa of two parallel label sequences, chance from each one's own distribution.

    Same definition as scikit-learn's ``cohen_kappa_score``: with ``weights`` the disagreement
    of two labels is their distance in positions of the sorted category list (``labels``, or
    the labels seen), so pass the full scale as ``labels`` for Likert data.
    """
    a, b = np.asarray(first), np.asarray(second)
    if a.shape != b.shape:
        raise ValueError("both label sequences must have the same length")
    categories = np.unique(np.concatenate([a, b]) if labels is None else np.asarray(labels))
    ia, ib = np.searchsorted(categories, a), np.searchsorted(categories, b)
    c = categories.size
    confusion = np.bincount(ia * c + ib, minlength=c * c).reshape(c, c).astype(np.float64)
    return _kappa_of_confusion(confusion, _disagreement(c, weights))


def _kappa_of_confusion(confusion: FloatArray, disagreement: FloatArray) -> float:
    total = confusion.sum()
    if total == 0:
        return math.nan
    expected = np.outer(confusion.sum(axis=1), confusion.sum(axis=0)) / total
    chance = float((disagreement * expected).sum())
    return 1.0 - float((disagreement * confusion).sum()) / chance if chance > 0 else math.nan


def _first_label_per_rater(
    items: IntArray, annotators: IntArray, labels: IntArray
) -> tuple[IntArray, IntArray, IntArray]:
    """Keep the first label each annotator gave each item (the reliability-matrix view)."""
    key = items * (int(annotators.max(initial=0)) + 1) + annotators
    first = np.unique(key, return_index=True)[1]
    return items[first], annotators[first], labels[first]


def inter_annotator_cohen(
    items: ArrayLike,
    annotators: ArrayLike,
    labels: ArrayLike,
    *,
    weights: Weights = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> Kappa:
    """Cohen's kappa of every pair of annotators over the items both judged, averaged.

    Each annotator pair gets the standard Cohen's kappa on its shared items (an annotator's
    first label per item); the result is the mean over pairs weighted by shared items. Pairs
    whose kappa is undefined (a single category between them) are left out. ``p_a`` and ``p_e``
    are the weighted means of the pairs' observed and chance agreement (unweighted kappa only).
    """
    item, rater, category = _codes(items, annotators, labels)
    item, rater, category = _first_label_per_rater(item, rater, category)
    order, starts, sizes, _ = group_rows(item)
    left, right = pairs_within_groups(order, starts, sizes)
    # Orient each pair of annotators (lower code first) so each pair keeps one role per rater.
    swap = rater[left] > rater[right]
    left, right = np.where(swap, right, left), np.where(swap, left, right)
    n_raters = int(rater.max(initial=0)) + 1
    pair = np.unique(rater[left] * n_raters + rater[right], return_inverse=True)[1].reshape(-1)
    n_pairs = int(pair.max(initial=-1)) + 1
    n_cat = int(category.max(initial=0)) + 1
    disagreement = _disagreement(n_cat, weights)
    # Units: the items with a pair of labels (an item judged once adds nothing to draw).
    paired_items, row_unit = np.unique(item[left], return_inverse=True)
    row_unit = row_unit.reshape(-1)
    cat_a, cat_b = category[left], category[right]
    # What does not depend on the replicate, computed once (the bootstrap calls ``statistic``
    # hundreds of times over tens of thousands of rows).
    row_disagreement = disagreement[cat_a, cat_b]
    cell_a, cell_b = pair * n_cat + cat_a, pair * n_cat + cat_b
    size = n_pairs * n_cat

    def statistic(unit_weights: FloatArray) -> tuple[float, float, float]:
        w = unit_weights[row_unit]
        totals = np.bincount(pair, weights=w, minlength=n_pairs)
        observed = np.bincount(pair, weights=w * row_disagreement, minlength=n_pairs)
        margin_a = np.bincount(cell_a, weights=w, minlength=size)
        margin_b = np.bincount(cell_b, weights=w, minlength=size)
        margin_a_2d = margin_a.reshape(n_pairs, n_cat)
        margin_b_2d = margin_b.reshape(n_pairs, n_cat)
        with np.errstate(invalid="ignore", divide="ignore"):
            chance = ((margin_a_2d @ disagreement) * margin_b_2d).sum(axis=1) / totals
            kappas = 1.0 - observed / chance
            usable = (totals > 0) & (chance > 0)
            if not usable.any():
                return (math.nan, math.nan, math.nan)
            share = totals[usable] / totals[usable].sum()
            p_a = 1.0 - observed[usable] / totals[usable]
            p_e = 1.0 - chance[usable] / totals[usable]
        return (
            float((kappas[usable] * share).sum()),
            float((p_a * share).sum()),
            float((p_e * share).sum()),
        )

    n_units = int(paired_items.size)
    kappa, p_a, p_e = statistic(np.ones(n_units))
    interval = bootstrap_weighted(lambda w: statistic(w)[0], n_units, n_boot, seed, confidence)
    return Kappa(
        kappa=kappa,
        items=n_units,
        interval=interval,
        p_a=p_a if weights is None else None,
        p_e=p_e if weights is None else None,
    )


def intra_annotator_cohen(
    items: ArrayLike,
    annotators: ArrayLike,
    labels: ArrayLike,
    *,
    weights: Weights = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> Kappa:
    """Cohen's kappa of annotators against their own repeats.

    Every pair of labels one annotator gave the same item becomes one observation (the earlier
    judgment, in input order, as the first rater); all annotators' pairs are pooled into one
    Cohen's kappa. ``items`` in the result counts the (annotator, item) units with a repeat.
    """
    item, rater, category = _codes(items, annotators, labels)
    unit = np.unique(item * (int(rater.max(initial=0)) + 1) + rater, return_inverse=True)[1]
    unit = unit.reshape(-1)
    order, starts, sizes, _ = group_rows(unit)
    first, later = pairs_within_groups(order, starts, sizes)
    n_cat = int(category.max(initial=0)) + 1
    disagreement = _disagreement(n_cat, weights)
    row_unit = unit[first]
    key = category[first] * n_cat + category[later]

    def statistic(unit_weights: FloatArray) -> float:
        w = unit_weights[row_unit]
        confusion = np.bincount(key, weights=w, minlength=n_cat * n_cat).reshape(n_cat, n_cat)
        return _kappa_of_confusion(confusion, disagreement)

    n_units = int(unit.max(initial=-1)) + 1
    confusion = np.bincount(key, minlength=n_cat * n_cat).reshape(n_cat, n_cat).astype(float)
    p_a = p_e = None
    if weights is None and confusion.sum() > 0:
        total = confusion.sum()
        p_a = float(np.trace(confusion) / total)
        p_e = float((confusion.sum(axis=1) * confusion.sum(axis=0)).sum() / total**2)
    return Kappa(
        kappa=_kappa_of_confusion(confusion, disagreement),
        items=int(np.unique(row_unit).size),
        interval=bootstrap_weighted(statistic, n_units, n_boot, seed, confidence),
        p_a=p_a,
        p_e=p_e,
    )


def fleiss_kappa(
    items: ArrayLike,
    annotators: ArrayLike,
    labels: ArrayLike,
    *,
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> Kappa:
    """Fleiss' kappa over the items judged by at least two annotators.

    Uses each item's own number of raters n_i in P_i = (sum_j n_ij^2 - n_i) / (n_i (n_i - 1)),
    which is Fleiss' formula when every item has the same number of raters.
    """
    item, rater, category = _codes(items, annotators, labels)
    item, rater, category = _first_label_per_rater(item, rater, category)
    n_items = int(item.max(initial=-1)) + 1
    n_cat = int(category.max(initial=0)) + 1
    cell = np.bincount(item * n_cat + category, minlength=n_items * n_cat)
    table = cell.reshape(n_items, n_cat).astype(np.float64)
    raters = table.sum(axis=1)
    table = table[raters >= 2]
    raters = raters[raters >= 2]
    agreement = ((table**2).sum(axis=1) - raters) / (raters * (raters - 1))

    def statistic(unit_weights: FloatArray) -> tuple[float, float, float]:
        if unit_weights.sum() == 0:
            return (math.nan, math.nan, math.nan)
        p_a = float(unit_weights @ agreement / unit_weights.sum())
        shares = unit_weights @ table
        p_e = float(((shares / shares.sum()) ** 2).sum())
        return ((p_a - p_e) / (1 - p_e) if p_e < 1 else math.nan, p_a, p_e)

    kappa, p_a, p_e = statistic(np.ones(raters.size))
    interval = bootstrap_weighted(lambda w: statistic(w)[0], raters.size, n_boot, seed, confidence)
    return Kappa(kappa=float(kappa), items=int(raters.size), interval=interval, p_a=p_a, p_e=p_e)


def krippendorff_alpha(
    items: ArrayLike,
    annotators: ArrayLike,
    labels: ArrayLike,
    *,
    level: Level = "nominal",
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> Kappa:
    """Krippendorff's alpha (nominal, ordinal or interval) over items with two or more values.

    An annotator's first value per item counts (the reliability-matrix view). Interval alpha
    uses the label values themselves; ordinal alpha the rank order of the distinct values.
    """
    item, rater, category = _codes(items, annotators, labels)
    values = np.unique(np.asarray(labels)).astype(np.float64)
    item, rater, category = _first_label_per_rater(item, rater, category)
    n_units = int(item.max(initial=-1)) + 1
    n_cat = values.size
    m = np.bincount(item, minlength=n_units).astype(np.float64)
    pairable = m[item] >= 2
    item, category = item[pairable], category[pairable]
    # One entry per (unit, category) with its count n_uc.
    cell, count = np.unique(item * n_cat + category, return_counts=True)
    unit, cat = cell // n_cat, cell % n_cat
    count_f = count.astype(np.float64)
    order, starts, sizes, _ = group_rows(unit)
    left, right = pairs_within_groups(order, starts, sizes)

    def statistic(unit_weights: FloatArray) -> float:
        w = unit_weights / np.maximum(m - 1, 1)
        # Coincidences o_ck = sum_u n_uc n_uk / (m_u - 1), minus n_uc on the diagonal.
        diagonal = np.bincount(cat, weights=w[unit] * count_f * (count_f - 1), minlength=n_cat)
        pair_weight = w[unit[left]] * count_f[left] * count_f[right]
        n_c = diagonal + np.bincount(cat[left], weights=pair_weight, minlength=n_cat)
        n_c += np.bincount(cat[right], weights=pair_weight, minlength=n_cat)
        n = n_c.sum()
        if n <= 1:
            return math.nan
        # Pair entries always join two different categories of one unit.
        if level == "nominal":
            pair_delta = np.ones(left.size)
            expected = n * n - float(n_c @ n_c)
        elif level == "interval":
            pair_delta = (values[cat[left]] - values[cat[right]]) ** 2
            expected = 2 * (n * float(n_c @ values**2) - float(n_c @ values) ** 2)
        elif level == "ordinal":
            # delta_ck = (sum of n_g for g from c to k - (n_c + n_k) / 2)^2
            cumulative = np.cumsum(n_c)
            index = np.arange(n_cat)
            lo, hi = np.minimum.outer(index, index), np.maximum.outer(index, index)
            delta = (cumulative[hi] - cumulative[lo] + n_c[lo] - (n_c[:, None] + n_c) / 2) ** 2
            pair_delta = delta[cat[left], cat[right]]
            expected = float(n_c @ delta @ n_c)
        else:
            raise ValueError(f"unknown level {level!r}")
        observed = 2 * float((pair_weight * pair_delta).sum())
        expected /= n - 1
        return 1.0 - observed / expected if expected > 0 else math.nan

    alpha = statistic(np.ones(n_units))
    used = np.unique(unit)
    interval = (math.nan, math.nan)
    if used.size:
        # Resample only the pairable units: map resampled counts back onto unit codes.
        def on_used(w: FloatArray) -> float:
            full = np.zeros(n_units)
            full[used] = w
            return statistic(full)

        interval = bootstrap_weighted(on_used, used.size, n_boot, seed, confidence)
    return Kappa(kappa=float(alpha), items=int(used.size), interval=interval)


def _codes(
    items: ArrayLike, annotators: ArrayLike, labels: ArrayLike
) -> tuple[IntArray, IntArray, IntArray]:
    item, _ = encode(items)
    rater, _ = encode(annotators)
    category, _ = encode(labels)
    if not item.size == rater.size == category.size:
        raise ValueError("items, annotators and labels must have one entry per judgment")
    return item, rater, category
