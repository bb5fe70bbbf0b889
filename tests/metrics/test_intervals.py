"""Bootstrap intervals against an independent computation of the same procedure.

Each interval is recomputed here with ``scipy.stats.bootstrap(..., method="percentile")`` on
the resampling unit the product documents (segments for z, raw and HTER; items or (judge,
segment) groups for kappa), or, for the rank ranges, with a plain loop and the same seed. The
statistic is written plainly in the test. Two Monte Carlo runs with different generators agree
only up to resampling noise, so the endpoints are compared within ``TOLERANCE`` of the
interval's width (about eight standard errors at 10,000 resamples); each test also shows that
the same procedure on a wrong unit lands outside that tolerance, so the check can fail: single
judgments instead of segments (z, raw, HTER), whole annotators instead of (judge, segment)
groups (WMT intra kappa), source segments instead of items (WMT inter kappa, order-free; on
the listed order the two units' intervals differ by less than the tolerance, see the test),
each rater's labels drawn on their own instead of items with all their labels (Fleiss, Cohen,
Krippendorff), single comparisons instead of rankings (rank ranges).
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest
from scipy import optimize, stats

from metrics.agreement import (
    ORDER_FREE,
    fleiss_kappa,
    inter_annotator_cohen,
    intra_annotator_cohen,
    krippendorff_alpha,
    ranking_labels,
    wmt_kappa,
)
from metrics.rankings import hter_by_system, rank_pairwise, rank_systems
from metrics.wmt_csv import read_wmt_rankings
from tests.metrics.test_agreement import WMT13, WMT16, reference_labels

B = 10_000
TOLERANCE = 0.08  # of the interval's width


def scipy_percentile(data, statistic, *, paired: bool = False, seed: int = 1) -> tuple:
    result = stats.bootstrap(
        data,
        statistic,
        n_resamples=B,
        method="percentile",
        paired=paired,
        vectorized=True,
        batch=500,  # resamples per batch: keeps memory small for thousands of units
        rng=np.random.default_rng(seed),
    )
    return (float(result.confidence_interval.low), float(result.confidence_interval.high))


def assert_close(ours: tuple, expected: tuple) -> None:
    width = expected[1] - expected[0]
    assert width > 0
    assert ours == pytest.approx(expected, abs=TOLERANCE * width)


def assert_apart(wrong: tuple, expected: tuple) -> None:
    width = expected[1] - expected[0]
    assert max(abs(wrong[0] - expected[0]), abs(wrong[1] - expected[1])) > TOLERANCE * width


# --- z and raw means: segments resampled within each system.


def clustered_likert(seed: int) -> dict[str, np.ndarray]:
    """4 systems x 80 segments x 4 judgments with a strong segment effect, so that judgments
    of one segment move together and resampling judgments instead of segments is visible."""
    rng = np.random.default_rng(seed)
    system, segment = np.meshgrid(np.arange(4), np.arange(80), indexing="ij")
    system = np.repeat(system.ravel(), 4)
    segment = np.repeat(segment.ravel(), 4)
    effect = rng.normal(0, 1.0, (4, 80))[system, segment]
    score = np.clip(np.round(3 + 0.3 * system + effect + rng.normal(0, 0.3, system.size)), 1, 5)
    annotator = rng.integers(0, 12, system.size)
    return {"score": score, "system": system, "segment": segment, "annotator": annotator}


def test_z_and_raw_intervals_equal_scipy_bootstrap_over_segments() -> None:
    d = clustered_likert(3)
    result = rank_systems(d["score"], d["annotator"], d["system"], d["segment"], n_boot=B)
    z = np.empty_like(d["score"])
    for a in np.unique(d["annotator"]):
        rows = d["annotator"] == a
        z[rows] = stats.zscore(d["score"][rows], ddof=1)
    for entry in result:
        rows = d["system"] == entry.system
        segments = sorted(set(d["segment"][rows].tolist()))
        for values, interval in ((d["score"], entry.raw_interval), (z, entry.z_interval)):
            means = np.array([values[rows & (d["segment"] == g)].mean() for g in segments])
            expected = scipy_percentile((means,), np.mean)
            assert_close(interval, expected)
            # Resampling single judgments would give a much narrower interval.
            assert_apart(scipy_percentile((values[rows],), np.mean), expected)


# --- HTER: segments (with all their post-edits) resampled within each system.


def test_hter_intervals_equal_scipy_bootstrap_over_segments() -> None:
    """Three post-edits of each output, alike within a segment (some outputs need far more
    editing than others): the segment, not the single post-edit, is the unit."""
    rng = np.random.default_rng(9)
    system = np.repeat(np.arange(3), 3 * 120)
    segment = np.tile(np.repeat(np.arange(120), 3), 3)
    lengths = rng.integers(5, 40, system.size)
    difficulty = rng.beta(1, 4, (3, 120))[system, segment]
    edits = rng.binomial(lengths, np.clip(difficulty + 0.05 * system, 0, 1))
    result = hter_by_system(system, edits, lengths, segments=segment, n_boot=B, seed=2)
    for entry in result:
        rows = system == entry.system
        e, n, g = edits[rows].astype(float), lengths[rows].astype(float), segment[rows]
        # HTER in percent, as sacrebleu gives TER.
        seg_hter = np.array([np.mean(100 * e[g == k] / n[g == k]) for k in range(120)])
        seg_edits = np.array([e[g == k].sum() for k in range(120)])
        seg_words = np.array([n[g == k].sum() for k in range(120)])
        assert entry.segments == 120
        assert entry.mean_hter == pytest.approx(seg_hter.mean())
        assert entry.corpus_hter == pytest.approx(100 * e.sum() / n.sum())

        def corpus(e, n, axis=-1):
            return 100 * e.sum(axis=axis) / n.sum(axis=axis)

        expected = scipy_percentile((seg_hter,), np.mean)
        assert_close(entry.mean_interval, expected)
        # Resampling single post-edits would give a much narrower interval.
        assert_apart(scipy_percentile((100 * e / n,), np.mean), expected)
        expected = scipy_percentile((seg_edits, seg_words), corpus, paired=True)
        assert_close(entry.corpus_interval, expected)
        assert_apart(scipy_percentile((e, n), corpus, paired=True), expected)


# --- WMT kappa: items resampled (inter), (judge, segment) groups with a repeat (intra).


def item_sums(labels: list[tuple], intra: bool, wrong_unit: bool = False) -> np.ndarray:
    """Per resampling unit: (agreeing pairs, pairs, ties, labels), from the definition. The
    unit is the item (inter) or the (segment, judge) group (intra); ``wrong_unit`` sums them
    by source segment (inter) or by judge (intra) instead."""
    by_item = defaultdict(list)
    for segment, judge, a, b, label in labels:
        by_item[(segment, a, b)].append((judge, label))
    if not intra:
        rows: dict[tuple, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
        for key, given in by_item.items():
            found = [label for _, label in given]
            pairs = list(itertools.combinations(found, 2))
            row = rows[key[:1] if wrong_unit else key]
            row[0] += sum(x == y for x, y in pairs)
            row[1] += len(pairs)
            row[2] += found.count("=")
            row[3] += len(found)
        return np.array(list(rows.values()), dtype=float)

    def unit(segment, judge) -> tuple:
        return (judge,) if wrong_unit else (segment, judge)

    units: dict[tuple, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    repeated = set()
    for (segment, _, _), given in by_item.items():
        for (j1, l1), (j2, l2) in itertools.combinations(given, 2):
            if j1 == j2:
                units[unit(segment, j1)][0] += l1 == l2
                units[unit(segment, j1)][1] += 1
                repeated.add((segment, j1))
    for segment, judge, _, _, label in labels:
        if (segment, judge) in repeated:
            units[unit(segment, judge)][2] += label == "="
            units[unit(segment, judge)][3] += 1
    return np.array([units[u] for u in sorted(units)], dtype=float)


def kappa_of_sums(sums: np.ndarray) -> np.ndarray:
    agree, pairs, ties, total = np.moveaxis(sums, -1, 0)
    p_a = agree / pairs
    p_tie = ties / total
    p_e = p_tie**2 + 2 * ((1 - p_tie) / 2) ** 2
    return (p_a - p_e) / (1 - p_e)


@pytest.mark.parametrize("intra", [False, True], ids=["inter", "intra"])
@pytest.mark.parametrize("listed", [True, False], ids=["listed", "order-free"])
def test_wmt_kappa_interval_equals_scipy_bootstrap(intra: bool, listed: bool) -> None:
    path = WMT16 / "wmt16.collapsed.tur-eng.csv"
    (rankings,) = read_wmt_rankings(path).values()
    kwargs = {} if listed else {"item_order": ORDER_FREE}
    ours = wmt_kappa(ranking_labels(rankings), intra=intra, n_boot=B, seed=5, **kwargs)
    labels = reference_labels(path, listed=listed)

    def interval(sums: np.ndarray) -> tuple:
        def kappa(i: np.ndarray, axis: int = -1) -> np.ndarray:
            resampled = np.stack([sums[:, c][i].sum(axis=axis) for c in range(4)], axis=-1)
            return kappa_of_sums(resampled)

        return scipy_percentile((np.arange(len(sums)),), kappa)

    expected = interval(item_sums(labels, intra))
    assert_close(ours.interval, expected)
    wrong = interval(item_sums(labels, intra, wrong_unit=True))
    if intra or not listed:
        # Whole annotators (intra), or source segments (inter), as the unit.
        assert_apart(wrong, expected)
    else:
        # Items of one segment are nearly independent on the listed order: segments as the
        # unit land within the tolerance here (about 7% of the width), so that case cannot
        # tell the units apart; the order-free one above does.
        assert wrong != expected


# --- Standard coefficients: items resampled.


def test_fleiss_kappa_interval_equals_scipy_bootstrap() -> None:
    from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

    rng = np.random.default_rng(11)
    truth = rng.integers(0, 3, 150)
    table = np.zeros((150, 3))
    items, raters, labels = [], [], []
    for item in range(150):
        for rater in range(3):
            label = truth[item] if rng.random() < 0.6 else rng.integers(0, 3)
            items.append(item)
            raters.append(rater)
            labels.append(label)
            table[item, label] += 1
    ours = fleiss_kappa(items, raters, labels, n_boot=B, seed=4)
    expected = stats.bootstrap(
        (np.arange(150),),
        lambda i: statsmodels_fleiss(table[i]),
        n_resamples=2000,
        method="percentile",
        vectorized=False,
        rng=np.random.default_rng(1),
    ).confidence_interval
    # 2,000 scipy resamples (statsmodels is not vectorised): a looser Monte Carlo tolerance.
    width = expected.high - expected.low
    assert ours.interval == pytest.approx((expected.low, expected.high), abs=0.12 * width)
    # Each rater's labels drawn on their own, not items with their three labels: far off.
    by_rater = np.array(labels).reshape(150, 3).T

    def unpaired(*draws: np.ndarray) -> float:
        drawn = np.zeros((150, 3))
        for rater, i in enumerate(draws):
            np.add.at(drawn, (np.arange(150), by_rater[rater][i]), 1)
        return statsmodels_fleiss(drawn)

    wrong = stats.bootstrap(
        (np.arange(150),) * 3,
        unpaired,
        n_resamples=2000,
        method="percentile",
        vectorized=False,
        rng=np.random.default_rng(1),
    ).confidence_interval
    assert_apart((wrong.low, wrong.high), (expected.low, expected.high))


def test_inter_annotator_cohen_resamples_the_items_it_rests_on() -> None:
    """The unit is an item with a pair of labels; an item judged once is not drawn. A plain
    loop with the same seed draws the 120 paired items (in item order) and asks sklearn."""
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(12)
    truth = rng.integers(0, 3, 120)
    first = np.where(rng.random(120) < 0.7, truth, rng.integers(0, 3, 120))
    second = np.where(rng.random(120) < 0.7, truth, rng.integers(0, 3, 120))
    # 120 items judged by raters 0 and 1, and 360 more judged by rater 0 alone.
    solo = rng.integers(0, 3, 360)
    items = np.concatenate([np.arange(120), np.arange(120), np.arange(120, 480)])
    raters = np.concatenate([np.zeros(120), np.ones(120), np.zeros(360)]).astype(int)
    labels = np.concatenate([first, second, solo])
    n_boot, seed = 2000, 6
    ours = inter_annotator_cohen(items, raters, labels, n_boot=n_boot, seed=seed)
    assert ours.items == 120
    draws = np.random.default_rng(seed)
    replicates = []
    for _ in range(n_boot):
        drawn = draws.integers(0, 120, size=120)
        replicates.append(cohen_kappa_score(first[drawn], second[drawn]))
    expected = np.percentile(replicates, [2.5, 97.5])
    assert ours.interval == pytest.approx(tuple(expected), abs=1e-12)
    # Each rater's labels drawn on their own, not the item with its pair of labels: far off.
    wrong = np.percentile(
        [
            cohen_kappa_score(
                first[draws.integers(0, 120, 120)], second[draws.integers(0, 120, 120)]
            )
            for _ in range(n_boot)
        ],
        [2.5, 97.5],
    )
    assert_apart(tuple(wrong), tuple(expected))


def test_intra_annotator_cohen_interval_equals_scipy_bootstrap() -> None:
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(8)
    first = rng.integers(1, 6, 200)
    repeat = np.clip(first + rng.integers(-1, 2, 200), 1, 5)
    raters = rng.integers(0, 10, 200)
    items = np.arange(200)
    ours = intra_annotator_cohen(
        np.concatenate([items, items]),
        np.concatenate([raters, raters]),
        np.concatenate([first, repeat]),
        n_boot=B,
        seed=3,
    )
    # The unit: an annotator's item with its repeat.
    expected = stats.bootstrap(
        (np.arange(200),),
        lambda i: cohen_kappa_score(first[i], repeat[i], labels=[1, 2, 3, 4, 5]),
        n_resamples=3000,
        method="percentile",
        vectorized=False,
        rng=np.random.default_rng(1),
    ).confidence_interval
    width = expected.high - expected.low
    assert ours.interval == pytest.approx((expected.low, expected.high), abs=0.1 * width)
    # The first judgments and the repeats drawn on their own, not as pairs: far off.
    wrong = stats.bootstrap(
        (np.arange(200), np.arange(200)),
        lambda i, j: cohen_kappa_score(first[i], repeat[j], labels=[1, 2, 3, 4, 5]),
        n_resamples=3000,
        method="percentile",
        vectorized=False,
        rng=np.random.default_rng(1),
    ).confidence_interval
    assert_apart((wrong.low, wrong.high), (expected.low, expected.high))


def test_krippendorff_alpha_interval_equals_scipy_bootstrap() -> None:
    import krippendorff

    rng = np.random.default_rng(13)
    truth = rng.integers(1, 6, 150)
    matrix = np.full((4, 150), np.nan)
    items, raters, labels = [], [], []
    for item in range(150):
        for rater in rng.choice(4, size=rng.integers(2, 5), replace=False):
            label = int(np.clip(truth[item] + rng.integers(-1, 2), 1, 5))
            matrix[rater, item] = label
            items.append(item)
            raters.append(rater)
            labels.append(label)
    ours = krippendorff_alpha(items, raters, labels, level="ordinal", n_boot=B, seed=2)
    expected = stats.bootstrap(
        (np.arange(150),),
        lambda i: krippendorff.alpha(reliability_data=matrix[:, i], level_of_measurement="ordinal"),
        n_resamples=2000,
        method="percentile",
        vectorized=False,
        rng=np.random.default_rng(1),
    ).confidence_interval
    width = expected.high - expected.low
    assert ours.interval == pytest.approx((expected.low, expected.high), abs=0.12 * width)

    # Each rater's labels drawn on their own, not items with all their labels: far off.
    def unpaired(*draws: np.ndarray) -> float:
        drawn = np.stack([matrix[rater, i] for rater, i in enumerate(draws)])
        return krippendorff.alpha(reliability_data=drawn, level_of_measurement="ordinal")

    wrong = stats.bootstrap(
        (np.arange(150),) * 4,
        unpaired,
        n_resamples=2000,
        method="percentile",
        vectorized=False,
        rng=np.random.default_rng(1),
    ).confidence_interval
    assert_apart((wrong.low, wrong.high), (expected.low, expected.high))


# --- Pairwise rank ranges: judgments (rankings) resampled; a plain loop with the same seed.


def likelihood_fit(wins: np.ndarray) -> np.ndarray:
    """Bradley-Terry log-strengths by maximising the likelihood with scipy."""

    def negative_log_likelihood(theta: np.ndarray) -> float:
        return float(np.sum(wins * np.logaddexp(0, -(theta[:, None] - theta[None, :]))))

    return optimize.minimize(negative_log_likelihood, np.zeros(len(wins)), method="BFGS").x


def plain_rank_ranges(rankings: list, systems: list[str], n_boot: int, seed: int, by_ranking):
    """Each replicate draws ``by_ranking`` units with replacement (a 5-way ranking and all its
    comparisons, or single comparisons), counts wins, fits BT, ranks (1 = best)."""
    code = {s: i for i, s in enumerate(systems)}
    comparisons = []  # per ranking: (winner, loser) of its decided pairs
    for ranking in rankings:
        ranked = [(o[0], r) for o, r in zip(ranking.outputs, ranking.ranks, strict=True) if r != -1]
        decided = []
        for (x, rx), (y, ry) in itertools.combinations(ranked, 2):
            if rx < ry:
                decided.append((code[x], code[y]))
            elif ry < rx:
                decided.append((code[y], code[x]))
            else:
                decided.append(None)  # a tie: a comparison, dropped by the fit
        if decided:
            comparisons.append(decided)
    units = comparisons if by_ranking else [[c] for r in comparisons for c in r]
    rng = np.random.default_rng(seed)
    ranks = np.empty((n_boot, len(systems)), dtype=int)
    for r in range(n_boot):
        wins = np.zeros((len(systems), len(systems)))
        for unit in rng.integers(0, len(units), size=len(units)):
            for pair in units[unit]:
                if pair is not None:
                    wins[pair] += 1
        strength = likelihood_fit(wins)
        ranks[r] = [1 + int(np.sum(strength > s + 1e-6)) for s in strength]
    low, high = np.quantile(ranks, [0.025, 0.975], axis=0, method="inverted_cdf")
    return {s: (int(low[i]), int(high[i])) for i, s in enumerate(systems)}


def test_rank_ranges_equal_a_plain_loop_with_the_same_seed() -> None:
    rankings = read_wmt_rankings(WMT13)["French-English"]
    labels = ranking_labels(rankings)
    n_boot, seed = 200, 8
    result = rank_pairwise(
        labels.system_a,
        labels.system_b,
        labels.label,
        len(labels.systems),
        judgments=labels.ranking,
        n_boot=n_boot,
        seed=seed,
    )
    ours = {labels.systems[entry.system]: entry.rank_range for entry in result}
    systems = list(labels.systems)
    assert ours == plain_rank_ranges(rankings, systems, n_boot, seed, by_ranking=True)
    # Drawing single comparisons, as if a ranking's ten were independent, is too narrow.
    single = plain_rank_ranges(rankings, systems, n_boot, seed, by_ranking=False)
    assert sum(h - low for low, h in single.values()) < sum(h - low for low, h in ours.values())
