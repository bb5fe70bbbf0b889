"""Agreement statistics against independent implementations and hand-computed values."""

from __future__ import annotations

import csv
import itertools
import math
from collections import defaultdict
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from metrics.agreement import (
    GREATER,
    ITEM_ORDERS,
    LESS,
    LISTED,
    ORDER_FREE,
    TIE,
    Ranking,
    cohen_kappa,
    fleiss_kappa,
    inter_annotator_cohen,
    intra_annotator_cohen,
    krippendorff_alpha,
    landis_koch,
    ranking_labels,
    wmt_kappa,
)
from metrics.agreement.coefficients import Level, Weights
from metrics.wmt_csv import read_wmt_rankings

DATA = Path(__file__).parent.parent / "data"
WMT13 = DATA / "wmt13-ranking-sample" / "sample-fr-en-test.csv"
WMT16 = DATA / "wmt16-rankings"
# Published by the WMT16 organisers (cfedermann/wmt16 README; tests/data/wmt16-rankings/README.md):
# file → {kind: (kappa, pA, pE)}.
WMT16_PUBLISHED = {
    "wmt16.collapsed.ron-eng.csv": {
        "inter": (0.341, 0.586, 0.371),
        "intra": (0.621, 0.755, 0.355),
    },
    "wmt16.collapsed.tur-eng.csv": {
        "inter": (0.319, 0.554, 0.345),
        "intra": (0.559, 0.714, 0.352),
    },
}


# --- A deliberately plain re-implementation of the WMT formula, written from its definition.


def reference_labels(path: Path, listed: bool = True) -> list[tuple[str, str, str, str, str]]:
    """(segment, judge, A, B, label) for every pair of ranked systems: A, B in the order the
    ranking listed them when ``listed``, else A < B by name."""
    labels = []
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            ranked, placed = [], set()
            width = 5 if "system5Id" in row else 2  # the 5-way or the pairwise format
            for k in range(1, width + 1):
                system, rank = row[f"system{k}Id"], int(row[f"system{k}rank"])
                if system in placed:  # a system listed twice keeps its first entry
                    continue
                placed.add(system)
                if rank != -1:
                    ranked.append((system, rank))
            for i in range(len(ranked)):
                for j in range(i + 1, len(ranked)):
                    (x, rx), (y, ry) = ranked[i], ranked[j]
                    if not listed and x > y:
                        x, y, rx, ry = y, x, ry, rx
                    label = "<" if rx < ry else ("=" if rx == ry else ">")
                    judge = row.get("judgeId") or row["judgeID"]
                    labels.append((row["srcIndex"], judge, x, y, label))
    return labels


def reference_kappa(labels: list[tuple[str, str, str, str, str]], intra: bool) -> tuple[float, ...]:
    by_item = defaultdict(list)
    for segment, judge, a, b, label in labels:
        by_item[(segment, a, b)].append((judge, label))
    agree = total = 0
    repeaters = set()  # (segment, judge) where the judge labelled some item twice
    for (segment, _, _), given in by_item.items():
        for (judge1, label1), (judge2, label2) in itertools.combinations(given, 2):
            if intra and judge1 != judge2:
                continue
            total += 1
            agree += label1 == label2
            if judge1 == judge2:
                repeaters.add((segment, judge1))
    if intra:
        counted = [lab for seg, judge, _, _, lab in labels if (seg, judge) in repeaters]
    else:
        counted = [lab for *_, lab in labels]
    p_tie = counted.count("=") / len(counted)
    p_a = agree / total
    p_e = p_tie**2 + 2 * ((1 - p_tie) / 2) ** 2
    return (p_a - p_e) / (1 - p_e), p_a, p_e


@pytest.mark.parametrize("item_order", ITEM_ORDERS)
@pytest.mark.parametrize("intra", [False, True])
def test_wmt_kappa_matches_loop_reference_on_wmt13(intra: bool, item_order: str) -> None:
    rankings = read_wmt_rankings(WMT13)["French-English"]
    result = wmt_kappa(
        ranking_labels(rankings), intra=intra, item_order=item_order, n_boot=200, seed=1
    )
    kappa, p_a, p_e = reference_kappa(reference_labels(WMT13, item_order == LISTED), intra)
    assert result.kappa == pytest.approx(kappa, abs=1e-12)
    assert result.p_a == pytest.approx(p_a, abs=1e-12)
    assert result.p_e == pytest.approx(p_e, abs=1e-12)
    assert result.items > 0
    low, high = result.interval
    assert low <= result.kappa <= high


def pairwise(segment: str, judge: str, x: str, rank_x: int, y: str, rank_y: int) -> Ranking:
    return Ranking(segment=segment, judge=judge, outputs=[(x,), (y,)], ranks=[rank_x, rank_y])


def test_wmt_inter_kappa_hand_computed() -> None:
    rankings = [
        pairwise("s1", "j1", "A", 1, "B", 2),  # A-B <
        pairwise("s1", "j2", "A", 1, "B", 2),  # A-B <
        pairwise("s1", "j3", "A", 1, "B", 1),  # A-B =
        pairwise("s1", "j1", "A", 2, "C", 1),  # A-C >
        pairwise("s1", "j2", "C", 1, "A", 2),  # A-C > (listed in the other order)
    ]
    labels = ranking_labels(rankings)
    # Order-free: A-B 3 pairs, 1 agreeing; A-C 1 pair, agreeing. P(=) = 1/5.
    result = wmt_kappa(labels, item_order=ORDER_FREE, n_boot=0)
    assert result.p_a == pytest.approx(2 / 4)
    assert result.p_e == pytest.approx(0.2**2 + 2 * 0.4**2)
    assert result.kappa == pytest.approx((0.5 - 0.36) / 0.64)
    assert result.items == 2
    assert math.isnan(result.interval[0])
    # Listed order (the default, as the WMT script): (A, C) and (C, A) are two items of one
    # label each, so only the A-B pairs count. P(=) is still 1/5.
    result = wmt_kappa(labels, n_boot=0)
    assert result.p_a == pytest.approx(1 / 3)
    assert result.p_e == pytest.approx(0.36)
    assert result.kappa == pytest.approx((1 / 3 - 0.36) / 0.64)
    assert result.items == 1


def test_wmt_intra_kappa_hand_computed() -> None:
    rankings = [
        pairwise("s1", "j1", "A", 1, "B", 2),  # <
        pairwise("s1", "j1", "A", 1, "B", 3),  # <
        pairwise("s1", "j1", "B", 4, "A", 4),  # =
        pairwise("s1", "j1", "A", 2, "C", 2),  # = (same segment, same judge: counts in P(=))
        pairwise("s1", "j2", "A", 2, "B", 1),  # > (j2 never repeats: not counted)
        pairwise("s2", "j1", "A", 2, "B", 2),  # = (no repeat in s2: not counted)
    ]
    labels = ranking_labels(rankings)
    result = wmt_kappa(labels, intra=True, item_order=ORDER_FREE, n_boot=0)
    assert result.p_a == pytest.approx(1 / 3)
    assert result.p_e == pytest.approx(0.5**2 + 2 * 0.25**2)
    assert result.kappa == pytest.approx((1 / 3 - 0.375) / 0.625)
    assert result.items == 1
    # Listed order: (B, A) is another item, so j1's A-B repeat is the two "<" that agree.
    result = wmt_kappa(labels, intra=True, n_boot=0)
    assert result.p_a == pytest.approx(1.0)
    assert result.p_e == pytest.approx(0.375)
    assert result.kappa == pytest.approx(1.0)
    assert result.items == 1


@pytest.mark.parametrize("name", sorted(WMT16_PUBLISHED))
def test_wmt_kappa_reproduces_the_published_wmt16_figures(name: str) -> None:
    """The default is the organisers' computation: their published kappa, pA and pE."""
    (rankings,) = read_wmt_rankings(WMT16 / name).values()
    labels = ranking_labels(rankings)
    for kind, published in WMT16_PUBLISHED[name].items():
        result = wmt_kappa(labels, intra=kind == "intra", n_boot=0)
        assert (round(result.kappa, 3), round(result.p_a, 3), round(result.p_e, 3)) == published
        # The order-free variant is a different figure (and equals its own plain loop).
        free = wmt_kappa(labels, intra=kind == "intra", item_order=ORDER_FREE, n_boot=0)
        assert round(free.kappa, 3) != published[0]
        expected = reference_kappa(reference_labels(WMT16 / name, listed=False), kind == "intra")
        assert (free.kappa, free.p_a, free.p_e) == pytest.approx(expected, abs=1e-12)


def test_item_order_is_checked() -> None:
    labels = ranking_labels([pairwise("s1", "j1", "A", 1, "B", 2)])
    with pytest.raises(ValueError, match="item_order"):
        wmt_kappa(labels, item_order="sorted")  # type: ignore[arg-type]


def test_ranking_expansion_collapses_shared_outputs() -> None:
    shared = Ranking(
        segment=1,
        judge="j",
        outputs=[("B", "A"), ("C",), ("D",), ("A",)],
        ranks=[1, 2, -1, 3],
    )
    labels = ranking_labels([shared])
    pairs = {
        (labels.systems[a], labels.systems[b]): int(lab)
        for a, b, lab in zip(labels.system_a, labels.system_b, labels.label, strict=True)
    }
    # No A-B (one output), no A-A, nothing with the unranked D; A-C keeps its first label.
    assert pairs == {("A", "C"): LESS, ("B", "C"): LESS}
    assert set(pairs.values()) <= {LESS, TIE, GREATER}


def test_landis_koch_labels() -> None:
    expected = {
        -0.1: "poor",
        0.0: "slight",
        0.2: "slight",
        0.21: "fair",
        0.4: "fair",
        0.41: "moderate",
        0.6: "moderate",
        0.61: "substantial",
        0.8: "substantial",
        0.81: "almost perfect",
        1.0: "almost perfect",
    }
    for kappa, label in expected.items():
        assert landis_koch(kappa) == label
    assert landis_koch(math.nan) == "undefined"


# --- Standard coefficients against scikit-learn, statsmodels and krippendorff.


def synthetic_likert(seed: int, items: int = 120, raters: int = 6) -> tuple[np.ndarray, ...]:
    """Items judged by a random subset of raters on a 1-5 scale, noisy around a true score."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, items)
    rows = [
        (u, r, int(np.clip(truth[u] + rng.integers(-1, 2), 1, 5)))
        for u in range(items)
        for r in rng.choice(raters, size=rng.integers(1, 4), replace=False)
    ]
    return tuple(np.array(column) for column in zip(*rows, strict=True))


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_matches_sklearn(weights: Weights) -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(1, 6, 300)
    b = np.clip(a + rng.integers(-2, 2, 300), 1, 5)
    assert cohen_kappa(a, b, weights=weights) == pytest.approx(
        cohen_kappa_score(a, b, weights=weights), abs=1e-12
    )
    scale = [1, 2, 3, 4, 5, 6, 7]
    assert cohen_kappa(a, b, weights=weights, labels=scale) == pytest.approx(
        cohen_kappa_score(a, b, weights=weights, labels=scale), abs=1e-12
    )


def sklearn_pair_mean(
    items: np.ndarray, raters: np.ndarray, labels: np.ndarray, weights: Weights, scale: list[int]
) -> float:
    """Items-weighted mean over rater pairs of sklearn's kappa on their shared items."""
    given: dict[int, dict[int, int]] = defaultdict(dict)
    for item, rater, label in zip(items, raters, labels, strict=True):
        given[rater].setdefault(item, label)
    total = weight = 0.0
    for r1, r2 in itertools.combinations(sorted(given), 2):
        shared = sorted(set(given[r1]) & set(given[r2]))
        if not shared:
            continue
        first = [given[r1][i] for i in shared]
        second = [given[r2][i] for i in shared]
        kappa = cohen_kappa_score(first, second, weights=weights, labels=scale)
        if np.isfinite(kappa):
            total += kappa * len(shared)
            weight += len(shared)
    return total / weight


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_inter_annotator_cohen_is_mean_of_sklearn_pairs(weights: Weights) -> None:
    items, raters, labels = synthetic_likert(5)
    result = inter_annotator_cohen(items, raters, labels, weights=weights, n_boot=100)
    scale = sorted(set(labels.tolist()))
    assert result.kappa == pytest.approx(
        sklearn_pair_mean(items, raters, labels, weights, scale), abs=1e-12
    )
    assert result.items == len({i for i in items if (items == i).sum() >= 2})


@pytest.mark.filterwarnings("ignore:.*only one label in common")
def test_inter_annotator_cohen_on_wmt13_pair_labels() -> None:
    labels = ranking_labels(read_wmt_rankings(WMT13)["French-English"])
    items = labels.item_codes()
    result = inter_annotator_cohen(items, labels.judge, labels.label, n_boot=50)
    expected = sklearn_pair_mean(items, labels.judge, labels.label, None, [-1, 0, 1])
    assert result.kappa == pytest.approx(expected, abs=1e-12)


def test_intra_annotator_cohen_matches_sklearn_on_repeat_pairs() -> None:
    rng = np.random.default_rng(8)
    first = rng.integers(1, 6, 150)
    repeat = np.clip(first + rng.integers(-1, 2, 150), 1, 5)
    raters = rng.integers(0, 10, 150)
    items = np.arange(150)
    # Interleave repeats later in the input: first judgments come first.
    all_items = np.concatenate([items, items])
    all_raters = np.concatenate([raters, raters])
    all_labels = np.concatenate([first, repeat])
    options: tuple[Weights, ...] = (None, "quadratic")
    for weights in options:
        result = intra_annotator_cohen(all_items, all_raters, all_labels, weights=weights)
        assert result.kappa == pytest.approx(
            cohen_kappa_score(first, repeat, weights=weights, labels=[1, 2, 3, 4, 5]), abs=1e-12
        )
        assert result.items == 150


def test_fleiss_kappa_matches_statsmodels() -> None:
    rng = np.random.default_rng(11)
    items, raters, labels = [], [], []
    for item in range(80):
        truth = rng.integers(0, 4)
        for rater in range(4):
            items.append(item)
            raters.append(rater)
            labels.append(truth if rng.random() < 0.6 else rng.integers(0, 4))
    table = np.zeros((80, 4))
    for item, label in zip(items, labels, strict=True):
        table[item, label] += 1
    result = fleiss_kappa(items, raters, labels, n_boot=100)
    assert result.kappa == pytest.approx(statsmodels_fleiss(table), abs=1e-12)
    assert result.items == 80


def test_fleiss_kappa_on_wmt13_items_with_two_judges() -> None:
    labels = ranking_labels(read_wmt_rankings(WMT13)["French-English"])
    items = labels.item_codes()
    first: dict[tuple[int, int], int] = {}
    for index, (item, judge) in enumerate(zip(items, labels.judge, strict=True)):
        first.setdefault((item, judge), index)
    per_item = defaultdict(list)
    for (item, _), index in first.items():
        per_item[item].append(int(labels.label[index]))
    two = [item for item, given in per_item.items() if len(given) == 2]
    table = np.array([[per_item[i].count(c) for c in (-1, 0, 1)] for i in two])
    keep = np.isin(items, two)
    result = fleiss_kappa(items[keep], labels.judge[keep], labels.label[keep], n_boot=0)
    assert result.kappa == pytest.approx(statsmodels_fleiss(table), abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_matches_package(level: Level) -> None:
    items, raters, labels = synthetic_likert(13, items=150, raters=5)
    matrix = np.full((5, 150), np.nan)
    matrix[raters, items] = labels
    result = krippendorff_alpha(items, raters, labels, level=level, n_boot=100)
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
    assert result.kappa == pytest.approx(expected, abs=1e-10)


def test_krippendorff_alpha_on_wmt13() -> None:
    labels = ranking_labels(read_wmt_rankings(WMT13)["French-English"])
    items = labels.item_codes()
    judges = labels.judge
    matrix = np.full((int(judges.max()) + 1, int(items.max()) + 1), np.nan)
    # The reliability matrix holds a judge's first label per item, as our function uses.
    for item, judge, label in list(zip(items, judges, labels.label, strict=True))[::-1]:
        matrix[judge, item] = label
    levels: tuple[Level, ...] = ("nominal", "ordinal")
    for level in levels:
        result = krippendorff_alpha(items, judges, labels.label, level=level, n_boot=0)
        expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
        assert result.kappa == pytest.approx(expected, abs=1e-10)


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    items, raters, labels = synthetic_likert(21, items=200)
    runs = [fleiss_kappa(items, raters, labels, n_boot=300, seed=seed) for seed in (4, 4, 5)]
    assert runs[0] == runs[1]
    assert runs[0].interval != runs[2].interval
    low, high = runs[0].interval
    assert low < runs[0].kappa < high
    assert high - low < 0.5
    result = inter_annotator_cohen(items, raters, labels, n_boot=200, seed=9)
    assert (
        result.interval == inter_annotator_cohen(items, raters, labels, n_boot=200, seed=9).interval
    )
    assert result.as_dict()["label"] == landis_koch(result.kappa)
