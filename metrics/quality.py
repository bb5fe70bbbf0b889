"""Annotator quality control for absolute (Likert / direct assessment) judgments.

Input convention: parallel arrays with one entry per judgment: ``scores`` (float),
``annotators``, ``systems``, ``segments`` (integer codes), ``item_types`` (strings TGT, BAD,
REF, CHK, REPEAT) and optionally ``seconds`` spent on the item (NaN when unknown). Pass one
language pair at a time. A BAD item of system X, segment S is paired with the same
annotator's TGT score of X, S (their mean, if they scored it twice); a REPEAT likewise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class PairedTest:
    """Per annotator (by code): number of pairs, mean difference, t statistic and p-value."""

    pairs: IntArray
    mean_difference: FloatArray
    t: FloatArray
    p: FloatArray


def paired_t_greater(
    groups: ArrayLike, first: ArrayLike, second: ArrayLike, n_groups: int
) -> PairedTest:
    """One-sided paired t-test per group, H1: first > second (scipy's ``ttest_rel``).

    Groups with fewer than two pairs get NaN. Constant differences give t = +/-inf (p 0 or 1)
    or, all zero, NaN, as scipy does.
    """
    g = np.asarray(groups, dtype=np.int64)
    d = np.asarray(first, dtype=np.float64) - np.asarray(second, dtype=np.float64)
    n = np.bincount(g, minlength=n_groups).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(g, weights=d, minlength=n_groups) / n
        centred = d - mean[g]
        sd = np.sqrt(np.bincount(g, weights=centred**2, minlength=n_groups) / (n - 1))
        # Differences that are all equal leave rounding noise in sd, not a spread.
        sd = np.where(sd > 1e-12 * np.maximum(np.abs(mean), 1.0), sd, 0.0)
        t = mean / (sd / np.sqrt(n))
        p = stats.t.sf(t, n - 1)
    few = n < 2
    t[few] = np.nan
    p[few] = np.nan
    return PairedTest(pairs=n.astype(np.int64), mean_difference=mean, t=t, p=p)


def _tgt_lookup(
    keys: IntArray, is_tgt: NDArray[np.bool_], scores: FloatArray, wanted: NDArray[np.bool_]
) -> tuple[NDArray[np.bool_], FloatArray]:
    """For each wanted row, whether its key has TGT scores and their mean."""
    tgt_keys, group = np.unique(keys[is_tgt], return_inverse=True)
    tgt_mean = np.bincount(group.reshape(-1), weights=scores[is_tgt]) / np.bincount(
        group.reshape(-1)
    )
    query = keys[wanted]
    at = np.minimum(np.searchsorted(tgt_keys, query), max(tgt_keys.size - 1, 0))
    found = tgt_keys[at] == query if tgt_keys.size else np.zeros(query.size, dtype=bool)
    return found, tgt_mean[at] if tgt_keys.size else np.zeros(query.size)


def median_by_group(values: ArrayLike, groups: ArrayLike, n_groups: int) -> FloatArray:
    """Median of each group's finite values (NaN for groups without any)."""
    v = np.asarray(values, dtype=np.float64)
    g = np.asarray(groups, dtype=np.int64)
    keep = np.isfinite(v)
    v, g = v[keep], g[keep]
    order = np.lexsort((v, g))
    v, g = v[order], g[order]
    start = np.searchsorted(g, np.arange(n_groups), side="left")
    count = np.searchsorted(g, np.arange(n_groups), side="right") - start
    median = np.full(n_groups, np.nan)
    has = count > 0
    lower = v[start[has] + (count[has] - 1) // 2]
    upper = v[start[has] + count[has] // 2]
    median[has] = (lower + upper) / 2
    return median


@dataclass(frozen=True)
class AnnotatorQuality:
    """Quality-control summary for one annotator (``annotator`` is its code)."""

    annotator: int
    judgments: int
    median_seconds: float
    bad_reference_pairs: int
    bad_reference_p: float | None
    passed: bool
    verdict: str
    repeat_pairs: int
    repeat_mean_abs_difference: float | None
    repeat_exact_share: float | None
    agreement_pairs: int
    agreement_with_others: float | None
    correlation_with_others: float | None


def annotator_quality(
    scores: ArrayLike,
    annotators: ArrayLike,
    systems: ArrayLike,
    segments: ArrayLike,
    item_types: ArrayLike,
    *,
    seconds: ArrayLike | None = None,
    alpha: float = 0.05,
) -> list[AnnotatorQuality]:
    """Per annotator: judgments, median time per item, WMT bad-reference test, consistency on
    repeats and exact agreement with other annotators on the same TGT items.

    The bad-reference test is the one-sided paired t-test of the annotator's original (TGT)
    scores against their scores for the degraded versions (H1: original > bad); it passes at
    p < ``alpha``. Fewer than two pairs: p is None and the verdict "not enough data".
    Agreement with others is the share of exactly equal scores among all pairs of this
    annotator's TGT score with another annotator's on the same (system, segment); correlation
    with others is Pearson's r between their score and the others' mean score on those items.
    """
    x = np.asarray(scores, dtype=np.float64)
    ann = np.asarray(annotators, dtype=np.int64)
    kinds = np.asarray(item_types).astype(str)
    n_ann = int(ann.max(initial=-1)) + 1
    sys_ = np.asarray(systems, dtype=np.int64)
    seg = np.asarray(segments, dtype=np.int64)
    n_seg = int(seg.max(initial=0)) + 1
    n_sys = int(sys_.max(initial=0)) + 1
    item = sys_ * n_seg + seg
    key = ann * (n_sys * n_seg) + item
    is_tgt = kinds == "TGT"

    bad = kinds == "BAD"
    found, original = _tgt_lookup(key, is_tgt, x, bad)
    test = paired_t_greater(ann[bad][found], original[found], x[bad][found], n_ann)

    repeat = kinds == "REPEAT"
    found_r, first = _tgt_lookup(key, is_tgt, x, repeat)
    diff = np.abs(x[repeat][found_r] - first[found_r])
    repeat_ann = ann[repeat][found_r]
    repeat_pairs = np.bincount(repeat_ann, minlength=n_ann)
    with np.errstate(invalid="ignore", divide="ignore"):
        repeat_mad = np.bincount(repeat_ann, weights=diff, minlength=n_ann) / repeat_pairs
        repeat_exact = np.bincount(repeat_ann, weights=diff == 0, minlength=n_ann) / repeat_pairs

    agree, others, correlation = _agreement_with_others(x[is_tgt], ann[is_tgt], item[is_tgt], n_ann)
    times = median_by_group(np.full(x.size, np.nan) if seconds is None else seconds, ann, n_ann)
    judgments = np.bincount(ann, minlength=n_ann)

    result = []
    for a in np.flatnonzero(judgments):
        p = float(test.p[a])
        enough = test.pairs[a] >= 2
        passed = bool(enough and p < alpha)
        result.append(
            AnnotatorQuality(
                annotator=int(a),
                judgments=int(judgments[a]),
                median_seconds=float(times[a]),
                bad_reference_pairs=int(test.pairs[a]),
                bad_reference_p=p if enough and not math.isnan(p) else None,
                passed=passed,
                verdict="passed" if passed else ("failed" if enough else "not enough data"),
                repeat_pairs=int(repeat_pairs[a]),
                repeat_mean_abs_difference=_optional(repeat_mad[a]),
                repeat_exact_share=_optional(repeat_exact[a]),
                agreement_pairs=int(others[a]),
                agreement_with_others=_optional(agree[a] / others[a] if others[a] else math.nan),
                correlation_with_others=_optional(correlation[a]),
            )
        )
    return result


def _agreement_with_others(
    scores: FloatArray, annotators: IntArray, items: IntArray, n_ann: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per annotator: agreeing pairs and all pairs with other annotators' labels on an item,
    and the Pearson correlation of their score with the mean of the others' on shared items."""
    # One label per (annotator, item): the first.
    n_items = int(items.max(initial=0)) + 1
    first = np.unique(annotators * n_items + items, return_index=True)[1]
    a, i, s = annotators[first], items[first], scores[first]
    label = np.unique(s, return_inverse=True)[1].reshape(-1)
    n_labels = int(label.max(initial=0)) + 1
    item_label = np.unique(i * n_labels + label, return_inverse=True)[1].reshape(-1)
    same = np.bincount(item_label)[item_label] - 1
    per_item = np.unique(i, return_inverse=True)[1].reshape(-1)
    count = np.bincount(per_item)[per_item]
    shared = count > 1
    others_mean = (np.bincount(per_item, weights=s)[per_item] - s)[shared] / (count[shared] - 1)
    return (
        np.bincount(a, weights=same, minlength=n_ann),
        np.bincount(a, weights=count - 1, minlength=n_ann),
        _pearson_by_group(s[shared], others_mean, a[shared], n_ann),
    )


def _pearson_by_group(x: FloatArray, y: FloatArray, g: IntArray, n: int) -> FloatArray:
    count = np.bincount(g, minlength=n).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        dx = x - (np.bincount(g, weights=x, minlength=n) / count)[g]
        dy = y - (np.bincount(g, weights=y, minlength=n) / count)[g]
        sxy = np.bincount(g, weights=dx * dy, minlength=n)
        sxx = np.bincount(g, weights=dx * dx, minlength=n)
        syy = np.bincount(g, weights=dy * dy, minlength=n)
        return sxy / np.sqrt(sxx * syy)


def _optional(value: float) -> float | None:
    return None if math.isnan(value) else float(value)
