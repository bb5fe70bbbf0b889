"""WMT agreement for relative rankings and pairwise judgments (WMT13-16).

Every ranking is expanded into one label per pair of systems in it: for the canonical pair
(A, B), A's id sorting before B's, the label is ``LESS`` when A was ranked better (a lower
rank number), ``TIE`` when both got the same rank and ``GREATER`` when A was ranked worse.
Each label also records whether the ranking listed B before A (``b_listed_first``).

Outputs shared by several systems (identical translations collapsed before judging) are given
as one ranked entry listing all those systems. Expansion pairs every system of one entry with
every system of another; it never pairs systems of the same entry (they stand for one output,
so their "tie" would be no judgment) and never pairs a system with itself: should a system
occur in two entries of one ranking, only its first entry counts. Entries ranked -1 (or None)
were not ranked and are skipped.

The kappa follows the WMT formula: P(A) is the share of agreeing pairs among all pairs of
labels on the same item; P(E) = P(=)^2 + 2((1 - P(=))/2)^2 with P(=) the share of ties among
the labels counted; kappa = (P(A) - P(E)) / (1 - P(E)).

Two definitions of "the same item" (``item_order``):

* ``LISTED`` (the default) is the WMT organisers' computation, the one behind the published
  WMT13-16 figures (``compute_agreement_scores.py`` in Appraise and in the WMT16 data
  repository). Their script keys an item by the segment and the two system ids *in the order
  the ranking listed them* and compares the labels as strings such as ``A>B``; so a judgment
  of (A, B) and one of the same two outputs listed as (B, A) are two different items and are
  never compared, and the same holds for intra-annotator repeats. For evalsite tasks the
  listed order is the order in which the item displays its candidates.
* ``ORDER_FREE`` is the textbook version: an item is the unordered pair {A, B} in a segment,
  so every two labels on the same two outputs are compared, whichever order they were shown
  in. It compares more pairs of labels and gives different figures (WMT16 Romanian-English:
  inter 0.357 instead of the published 0.341, intra 0.569 instead of 0.621).

Both count P(=) over the same labels (a tie is a tie in either order). The script would also
pair a system listed twice in one ranking with itself; the expansion here never does, which
makes no difference on WMT data (a system appears once per ranking there).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np

from metrics.agreement._common import (
    IntArray,
    Kappa,
    percentile_interval,
    resampled_counts,
)

LESS, TIE, GREATER = -1, 0, 1

ItemOrder = Literal["listed", "order-free"]
LISTED: ItemOrder = "listed"
ORDER_FREE: ItemOrder = "order-free"
ITEM_ORDERS: tuple[ItemOrder, ...] = (LISTED, ORDER_FREE)


@dataclass(frozen=True)
class Ranking:
    """One judge's ranking of the outputs for one segment (rank 1 = best; -1/None = unranked)."""

    segment: Hashable
    judge: str
    outputs: Sequence[Sequence[str]]
    ranks: Sequence[int | None]


@dataclass(frozen=True)
class PairLabels:
    """Pairwise labels, one row per (judge's ranking, canonical system pair).

    ``system_a < system_b`` always (codes into ``systems``, which is sorted); ``segment`` and
    ``judge`` are codes into ``segments`` and ``judges``; ``label`` is LESS, TIE or GREATER;
    ``b_listed_first`` is 1 where the ranking listed system B before system A, else 0;
    ``ranking`` is the position of the row's ranking in the input (for resampling judgments).
    """

    segment: IntArray
    judge: IntArray
    ranking: IntArray
    system_a: IntArray
    system_b: IntArray
    label: IntArray
    b_listed_first: IntArray
    systems: tuple[str, ...]
    judges: tuple[str, ...]
    segments: tuple[Hashable, ...]

    def __len__(self) -> int:
        return int(self.label.size)

    def item_keys(self, item_order: ItemOrder = ORDER_FREE) -> IntArray:
        """An integer key per row, equal for rows on the same item (see the module docstring)."""
        if item_order not in ITEM_ORDERS:
            raise ValueError(f"item_order must be one of {', '.join(ITEM_ORDERS)}")
        n_sys = len(self.systems)
        key = (self.segment * n_sys + self.system_a) * n_sys + self.system_b
        return key * 2 + self.b_listed_first if item_order == LISTED else key

    def item_codes(self, item_order: ItemOrder = ORDER_FREE) -> IntArray:
        """Item codes 0..n-1 (see ``item_keys``), for the generic coefficients."""
        keys = self.item_keys(item_order)
        return np.unique(keys, return_inverse=True)[1].reshape(-1).astype(np.int64)


def ranking_labels(rankings: Iterable[Ranking]) -> PairLabels:
    """Expand rankings into canonical pairwise labels (see the module docstring)."""
    rows: list[tuple[Hashable, str, str, str, int, int, int]] = []
    for position, ranking in enumerate(rankings):
        if len(ranking.outputs) != len(ranking.ranks):
            raise ValueError("a ranking needs one rank per output")
        # A system listed twice in one ranking keeps its first entry only.
        placed: set[str] = set()
        ranked: list[tuple[list[str], int]] = []
        for systems, rank in zip(ranking.outputs, ranking.ranks, strict=True):
            fresh = [s for s in dict.fromkeys(systems) if s not in placed]
            placed.update(fresh)
            if rank is not None and rank != -1 and fresh:
                ranked.append((fresh, rank))
        for (systems_x, rank_x), (systems_y, rank_y) in combinations(ranked, 2):
            for x in systems_x:
                for y in systems_y:
                    # x was listed before y: B is listed first when the canonical order swaps.
                    if x < y:
                        label, a, b, b_first = _compare(rank_x, rank_y), x, y, 0
                    else:
                        label, a, b, b_first = _compare(rank_y, rank_x), y, x, 1
                    rows.append((ranking.segment, ranking.judge, a, b, label, b_first, position))
    return _labels_from_rows(rows)


def _compare(rank_x: int, rank_y: int) -> int:
    return LESS if rank_x < rank_y else TIE if rank_x == rank_y else GREATER


def _labels_from_rows(
    rows: list[tuple[Hashable, str, str, str, int, int, int]],
) -> PairLabels:
    systems = tuple(sorted({r[2] for r in rows} | {r[3] for r in rows}))
    judges = tuple(sorted({r[1] for r in rows}))
    segments = tuple(dict.fromkeys(r[0] for r in rows))
    system_code = {s: i for i, s in enumerate(systems)}
    judge_code = {j: i for i, j in enumerate(judges)}
    segment_code = {s: i for i, s in enumerate(segments)}

    def column(values: Iterable[int]) -> IntArray:
        return np.fromiter(values, dtype=np.int64, count=len(rows))

    return PairLabels(
        segment=column(segment_code[r[0]] for r in rows),
        judge=column(judge_code[r[1]] for r in rows),
        ranking=column(r[6] for r in rows),
        system_a=column(system_code[r[2]] for r in rows),
        system_b=column(system_code[r[3]] for r in rows),
        label=column(r[4] for r in rows),
        b_listed_first=column(r[5] for r in rows),
        systems=systems,
        judges=judges,
        segments=segments,
    )


def _kappa_from_sums(
    agree: float, pairs: float, ties: float, labels: float
) -> tuple[float, float, float]:
    if pairs == 0 or labels == 0:
        return (math.nan, math.nan, math.nan)
    p_a = float(agree) / float(pairs)
    p_tie = float(ties) / float(labels)
    p_e = p_tie**2 + 2 * ((1 - p_tie) / 2) ** 2
    kappa = (p_a - p_e) / (1 - p_e) if p_e < 1 else math.nan
    return (kappa, p_a, p_e)


def _label_counts(group: IntArray, label: IntArray, n_groups: int) -> IntArray:
    """(n_groups, 3) counts of LESS, TIE, GREATER labels per group."""
    flat = np.bincount(group * 3 + (label + 1), minlength=n_groups * 3)
    return flat.reshape(n_groups, 3)


def _pair_stats(counts: IntArray) -> tuple[IntArray, IntArray]:
    """Agreeing pairs and all pairs of labels within each group of label counts."""
    total = counts.sum(axis=1)
    return (counts * (counts - 1) // 2).sum(axis=1), total * (total - 1) // 2


def wmt_kappa(
    labels: PairLabels,
    *,
    intra: bool = False,
    item_order: ItemOrder = LISTED,
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> Kappa:
    """WMT inter- or intra-annotator kappa of pairwise labels.

    ``item_order`` says which labels are on the same item: ``LISTED`` (the WMT organisers'
    script, the default) or ``ORDER_FREE`` (see the module docstring).

    Inter: every pair of labels given to the same item counts (a judge's own repeats
    included) and P(=) is the share of ties among all labels. Intra: only pairs of labels
    the same judge gave to the same item count, and P(=) is the share of ties among all
    labels, in that segment, of the judges who judged some item of the segment more than
    once (as the WMT16 organisers' script does).

    The bootstrap resamples items for inter-annotator agreement and (judge, segment) groups
    for intra-annotator agreement, the unit P(E) is defined over there.
    """
    item_key = labels.item_keys(item_order)
    if intra:
        n_judges = max(len(labels.judges), 1)
        judged_item = np.unique(item_key * n_judges + labels.judge, return_inverse=True)[1]
        judged_item = judged_item.reshape(-1)
        counts = _label_counts(judged_item, labels.label, int(judged_item.max(initial=-1)) + 1)
        agree, pairs = _pair_stats(counts)
        repeated_item = pairs > 0
        # Units: the (judge, segment) groups in which the judge repeated some item.
        unit_key = labels.segment * n_judges + labels.judge
        units, unit_of_row = np.unique(unit_key, return_inverse=True)
        unit_of_row = unit_of_row.reshape(-1)
        unit_of_item = np.zeros(counts.shape[0], dtype=np.int64)
        unit_of_item[judged_item] = unit_of_row
        has_repeat = np.zeros(units.size, dtype=bool)
        has_repeat[unit_of_item[repeated_item]] = True
        unit_labels = _label_counts(unit_of_row, labels.label, units.size)
        stats = np.column_stack(
            [
                np.bincount(unit_of_item, weights=agree, minlength=units.size),
                np.bincount(unit_of_item, weights=pairs, minlength=units.size),
                unit_labels[:, 1],
                unit_labels.sum(axis=1),
            ]
        )[has_repeat]
        n_items = int(repeated_item.sum())
    else:
        item_of_row = np.unique(item_key, return_inverse=True)[1].reshape(-1)
        counts = _label_counts(item_of_row, labels.label, int(item_of_row.max(initial=-1)) + 1)
        agree, pairs = _pair_stats(counts)
        stats = np.column_stack([agree, pairs, counts[:, 1], counts.sum(axis=1)])
        n_items = int((pairs > 0).sum())
    stats = stats.astype(np.float64)
    kappa, p_a, p_e = _kappa_from_sums(*stats.sum(axis=0))
    interval = (math.nan, math.nan)
    if n_boot > 0 and stats.shape[0] > 0:
        sums = np.concatenate(
            [block @ stats for block in resampled_counts(stats.shape[0], n_boot, seed)]
        )
        replicates = np.array([_kappa_from_sums(*row)[0] for row in sums])
        interval = percentile_interval(replicates, confidence)
    return Kappa(kappa=kappa, items=n_items, interval=interval, p_a=p_a, p_e=p_e)
