"""Per-annotator reliability scores: check pass rates, consistency, consensus, time and flags.

Pure functions, so that any protocol can feed them. Those over every judgment take parallel
arrays (one entry per judgment: NumPy, a million judgments in well under a second); the two
WMT26 figures take records, as the scripts read them:

- ``pass_rates``: (annotator, passed) of attention checks or tutorial items;
  ``bad_reference_checks`` makes them of the bad references Likert and DA tasks plan;
- ``repeat_differences``: (annotator, item, score), an annotator's own scores of one item;
- ``duplicate_differences``: (annotator, item, score) records, WMT26's mean absolute
  difference between different annotators' scores of one item
  (``humeval/05-annotation_table.py``);
- ``consensus_likelihood``: (annotator, screen, system, score) records, WMT26's filter for
  contrastive screens (``humeval/02a-filter_data.py``);
- ``time_per_item``: (annotator, seconds), each item's time capped at ``IDLE_CAP_SECONDS``;
- ``straight_lining`` (annotator, score) and ``too_fast``: the two flags.

Thresholds (each defined once, here):

- ``IDLE_CAP_SECONDS`` = 60: WMT26's cap on the time between two actions; an item left open
  longer counts as 60 s, so a coffee break does not hide a careless rater's speed.
- ``TOO_FAST_SECONDS`` = 2: a median below 2 s per item is too fast to read a segment and its
  translation (WMT's annotators take 10-40 s per segment).
- ``STRAIGHT_LINE_SHARE`` = 0.8 over at least ``FLAG_MIN_SCORES`` = 10 scores: four scores in
  five exactly equal is a rater holding one key (or leaving the slider where it was); real
  outputs of mixed quality do not score alike that often on a 0-100 or 1-5 scale.
- ``ATTENTION_MIN_RATE`` = 0.7 over at least ``ATTENTION_MIN_CHECKS`` = 5 checks: a careful
  rater scores a damaged output below its original nearly always; one at random about half
  the time, one who gives every item the same score never.
- ``CONSENSUS_THRESHOLD`` = 0.75, ``CONSENSUS_MIN_SCREENS`` = 3, ``CONSENSUS_MIN_SCORES`` = 11
  (WMT26 uses a system pair only when both systems have more than 10 scores).
"""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from metrics.quality import FloatArray, IntArray, median_by_group

A = TypeVar("A", bound=Hashable)  # an annotator (an id, a name)

IDLE_CAP_SECONDS = 60.0
TOO_FAST_SECONDS = 2.0
STRAIGHT_LINE_SHARE = 0.8
FLAG_MIN_SCORES = 10
ATTENTION_MIN_RATE = 0.7
ATTENTION_MIN_CHECKS = 5
CONSENSUS_THRESHOLD = 0.75
CONSENSUS_MIN_SCREENS = 3
CONSENSUS_MIN_SCORES = 11
CONSENSUS_EPSILON = 1e-6  # WMT26's guard against a zero variance


@dataclass(frozen=True)
class PassRate:
    passed: int
    total: int

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None


def _groups(annotators: ArrayLike) -> tuple[list[Any], IntArray]:
    """The distinct annotators (as Python values) and each entry's index among them."""
    values, codes = np.unique(np.asarray(annotators), return_inverse=True)
    return values.tolist(), codes.reshape(-1).astype(np.int64)


def pass_rates(annotators: ArrayLike, passed: ArrayLike) -> dict[Any, PassRate]:
    """Per annotator: checks (or tutorial items) passed out of those taken; one entry per
    check outcome in each array."""
    names, code = _groups(annotators)
    total = np.bincount(code, minlength=len(names))
    ok = np.bincount(code, weights=np.asarray(passed, dtype=bool), minlength=len(names))
    return {a: PassRate(int(ok[i]), int(total[i])) for i, a in enumerate(names)}


def _keys(first: IntArray, second: ArrayLike) -> IntArray:
    """One integer per (first, second) pair of integer codes."""
    other = np.asarray(second, dtype=np.int64)
    return first * (int(other.max(initial=0)) + 1) + other


def bad_reference_checks(
    annotators: ArrayLike, originals: ArrayLike, kinds: ArrayLike, scores: ArrayLike
) -> tuple[NDArray[Any], NDArray[np.bool_]]:
    """Attention checks from bad references. One entry per judgment: ``originals`` is an
    integer code of the output a bad reference damages (of a TGT judgment: the output
    itself), ``kinds`` TGT, BAD or another. Returns one (annotator, passed) entry per bad
    reference whose original the annotator scored: passed when scored strictly below the
    original (the mean of their scores of it, if they scored it twice)."""
    names = np.asarray(annotators)
    _, code = _groups(names)
    kind = np.asarray(kinds).astype(str)
    x = np.asarray(scores, dtype=np.float64)
    key = _keys(code, originals)
    tgt, bad = kind == "TGT", kind == "BAD"
    tgt_keys, group = np.unique(key[tgt], return_inverse=True)
    if tgt_keys.size == 0:
        return names[:0], np.zeros(0, dtype=bool)
    mean = np.bincount(group.reshape(-1), weights=x[tgt]) / np.bincount(group.reshape(-1))
    at = np.minimum(np.searchsorted(tgt_keys, key[bad]), tgt_keys.size - 1)
    found = tgt_keys[at] == key[bad]
    return names[bad][found], x[bad][found] < mean[at][found]


def attention_failed(rate: PassRate | None) -> bool:
    """Flag: fewer than ``ATTENTION_MIN_RATE`` of at least ``ATTENTION_MIN_CHECKS`` passed."""
    return (
        rate is not None
        and rate.total >= ATTENTION_MIN_CHECKS
        and (rate.passed < ATTENTION_MIN_RATE * rate.total)
    )


@dataclass(frozen=True)
class Differences:
    pairs: int
    mean: float | None  # mean absolute difference over the pairs; None without a pair


def _mean_differences(pairs: dict[A, list[float]]) -> dict[A, Differences]:
    return {a: Differences(len(d), statistics.fmean(d) if d else None) for a, d in pairs.items()}


def _equal_key_pairs(key: IntArray) -> tuple[IntArray, IntArray]:
    """Every index pair (i, j), i < j, of entries with equal keys; ``key`` sorted. Entries of
    one key are adjacent, so comparing each with the one ``offset`` later, for growing
    offsets, finds all pairs (groups are small: an item and its repeat, a few annotators)."""
    first, second = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    offset = 1
    while offset < key.size:
        same = np.flatnonzero(key[offset:] == key[:-offset])
        if same.size == 0:
            break
        first.append(same)
        second.append(same + offset)
        offset += 1
    return np.concatenate(first), np.concatenate(second)


def _per_annotator(
    names: list[Any], owners: list[IntArray], diffs: list[FloatArray]
) -> dict[Any, Differences]:
    n = len(names)
    count = sum((np.bincount(o, minlength=n) for o in owners), np.zeros(n, dtype=np.int64))
    total = sum(
        (np.bincount(o, weights=d, minlength=n) for o, d in zip(owners, diffs, strict=True)),
        np.zeros(n),
    )
    return {
        a: Differences(int(count[i]), float(total[i] / count[i]) if count[i] else None)
        for i, a in enumerate(names)
    }


def repeat_differences(
    annotators: ArrayLike, items: ArrayLike, scores: ArrayLike
) -> dict[Any, Differences]:
    """Per annotator: mean |s1 - s2| over every pair of their own scores of one item (an item
    and its repeat make one pair; three scores of one item make three). ``items`` are
    integer codes. Annotators with no repeated item have 0 pairs."""
    names, code = _groups(annotators)
    key = _keys(code, items)
    order = np.argsort(key, kind="stable")
    i, j = _equal_key_pairs(key[order])
    x = np.asarray(scores, dtype=np.float64)[order]
    return _per_annotator(names, [code[order][i]], [np.abs(x[i] - x[j])])


def duplicate_differences(
    annotators: ArrayLike, items: ArrayLike, scores: ArrayLike
) -> tuple[Differences, dict[Any, Differences]]:
    """WMT26's MAE(dup): one score per (item, annotator), the last given; every pair of
    different annotators' scores of one item (``items`` integer codes). Returns the overall
    mean (WMT26's figure) and, per annotator, the mean over the pairs they are part of."""
    names, code = _groups(annotators)
    item = np.asarray(items, dtype=np.int64)
    x = np.asarray(scores, dtype=np.float64)
    order = np.argsort(_keys(item, code), kind="stable")
    key = _keys(item, code)[order]
    last = order[np.append(key[1:] != key[:-1], True)] if key.size else order
    by_item = last[np.argsort(item[last], kind="stable")]
    i, j = _equal_key_pairs(item[by_item])
    diff = np.abs(x[by_item][i] - x[by_item][j])
    overall = Differences(int(diff.size), float(diff.mean()) if diff.size else None)
    owner = code[by_item]
    return overall, _per_annotator(names, [owner[i], owner[j]], [diff, diff])


@dataclass(frozen=True)
class Consensus:
    screens: int
    pairs: int  # candidate pairs scored that entered the mean
    likelihood: float | None  # None: no pair of systems with enough scores
    kept: bool  # passes: likelihood >= threshold, or too few screens / no pair to judge


def consensus_likelihood(
    rows: Iterable[tuple[A, Hashable, Hashable, float]],
    *,
    threshold: float = CONSENSUS_THRESHOLD,
    min_screens: int = CONSENSUS_MIN_SCREENS,
    min_scores: int = CONSENSUS_MIN_SCORES,
) -> dict[A, Consensus]:
    """WMT26's consensus likelihood of each annotator on contrastive screens.

    Rows are (annotator, screen, system, score), several systems per screen. Over everyone's
    scores (the annotator's own included, as WMT26 does), each system has a mean and a sample
    variance; a pair of systems (A, B) has mu = mean(A) - mean(B) and var = var(A) + var(B),
    used only when both systems have ``min_scores`` scores. For every pair of candidates on one
    of the annotator's screens with difference d = score(A) - score(B), the likelihood is
    2 ** (-(d - mu) ** 2 / (2 var + 1e-6)); the annotator's is the mean of these. Annotators
    with fewer than ``min_screens`` screens are kept whatever their likelihood; the others
    are kept when it reaches ``threshold``."""
    screens: dict[A, dict[Hashable, dict[Hashable, float]]] = defaultdict(dict)
    by_system: dict[Hashable, list[float]] = defaultdict(list)
    for annotator, screen, system, score in rows:
        screens[annotator].setdefault(screen, {})[system] = float(score)
    for mine in screens.values():
        for candidates in mine.values():
            for system, score in candidates.items():
                by_system[system].append(score)
    mean = {s: statistics.fmean(x) for s, x in by_system.items() if len(x) >= min_scores}
    variance = {s: statistics.variance(by_system[s]) for s in mean}
    result: dict[A, Consensus] = {}
    for annotator, mine in screens.items():
        likelihoods = [
            2
            ** (
                -((x - y - (mean[a] - mean[b])) ** 2)
                / (2 * (variance[a] + variance[b]) + CONSENSUS_EPSILON)
            )
            for candidates in mine.values()
            for (a, x), (b, y) in itertools.combinations(candidates.items(), 2)
            if a in mean and b in mean
        ]
        value = statistics.fmean(likelihoods) if likelihoods else None
        few = len(mine) < min_screens
        result[annotator] = Consensus(
            screens=len(mine),
            pairs=len(likelihoods),
            likelihood=value,
            kept=few or value is None or value >= threshold,
        )
    return result


@dataclass(frozen=True)
class ItemTime:
    items: int
    mean_seconds: float | None  # capped seconds per item, over the items with a time
    median_seconds: float | None


def active_seconds(action_times: Sequence[float], cap: float = IDLE_CAP_SECONDS) -> float | None:
    """WMT26's time on one screen from its action timestamps: the gaps between consecutive
    actions, each capped. None with fewer than two actions."""
    times = sorted(action_times)
    if len(times) < 2:
        return None
    return sum(min(later - earlier, cap) for earlier, later in itertools.pairwise(times))


def time_per_item(
    annotators: ArrayLike, seconds: ArrayLike, cap: float = IDLE_CAP_SECONDS
) -> dict[Any, ItemTime]:
    """Per annotator: mean and median time per item, each item's time capped at ``cap``.
    Items without a time (NaN) count as items but not in the times."""
    names, code = _groups(annotators)
    n = len(names)
    t = np.clip(np.asarray(seconds, dtype=np.float64), 0.0, cap)
    timed = np.isfinite(t)
    items = np.bincount(code, minlength=n)
    with_time = np.bincount(code[timed], minlength=n)
    total = np.bincount(code[timed], weights=t[timed], minlength=n)
    median = median_by_group(t, code, n)
    return {
        a: ItemTime(
            int(items[i]),
            float(total[i] / with_time[i]) if with_time[i] else None,
            float(median[i]) if with_time[i] else None,
        )
        for i, a in enumerate(names)
    }


def too_fast(median_seconds: float | None, items: int) -> bool:
    """Flag: a median time per item below ``TOO_FAST_SECONDS`` over enough items."""
    return (
        median_seconds is not None
        and items >= FLAG_MIN_SCORES
        and (median_seconds < TOO_FAST_SECONDS)
    )


@dataclass(frozen=True)
class StraightLining:
    scores: int
    identical_share: float | None  # share of the most common score
    flagged: bool


def straight_lining(annotators: ArrayLike, scores: ArrayLike) -> dict[Any, StraightLining]:
    """Per annotator, flagged when their most common score makes ``STRAIGHT_LINE_SHARE`` of
    at least ``FLAG_MIN_SCORES`` scores (NaN scores left out)."""
    names, code = _groups(annotators)
    x = np.asarray(scores, dtype=np.float64)
    keep = np.isfinite(x)
    code, x = code[keep], x[keep]
    n = len(names)
    total = np.bincount(code, minlength=n)
    labels, label = np.unique(x, return_inverse=True)
    keys, counts = np.unique(code * max(labels.size, 1) + label.reshape(-1), return_counts=True)
    most = np.zeros(n, dtype=np.int64)
    np.maximum.at(most, keys // max(labels.size, 1), counts)
    result = {}
    for i, a in enumerate(names):
        share = most[i] / total[i] if total[i] else None
        flagged = bool(
            total[i] >= FLAG_MIN_SCORES and share is not None and share >= STRAIGHT_LINE_SHARE
        )
        result[a] = StraightLining(int(total[i]), share, flagged)
    return result
