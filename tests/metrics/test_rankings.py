"""System rankings against scipy and plain re-implementations written in the test."""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest
from scipy import optimize, stats

from metrics.agreement import ranking_labels
from metrics.rankings import (
    bradley_terry,
    count_comparisons,
    expected_wins,
    hter_by_system,
    mannwhitney_greater,
    rank_pairwise,
    rank_systems,
    segment_hter,
    win_rates,
    wmt_clusters,
    z_scores,
)
from metrics.wmt_csv import read_wmt_rankings
from tests.metrics.test_agreement import WMT13


def likert_data(seed: int, n: int = 3000, systems: int = 6) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    system = rng.integers(0, systems, n)
    annotator = rng.integers(0, 25, n)
    score = np.clip(
        np.round(np.linspace(2, 4, systems)[system] + rng.normal(0, 1, 25)[annotator] * 0.5)
        + rng.integers(-1, 2, n),
        1,
        5,
    )
    return {
        "score": score.astype(float),
        "annotator": annotator,
        "pair": rng.integers(0, 2, n),
        "system": system,
        "segment": rng.integers(0, 150, n),
    }


def test_z_scores_match_scipy_per_annotator_and_language_pair() -> None:
    d = likert_data(1)
    d["score"][(d["annotator"] == 3) & (d["pair"] == 1)] = 4.0  # a constant annotator
    z = z_scores(d["score"], d["annotator"], d["pair"])
    for a, p in itertools.product(range(25), range(2)):
        rows = (d["annotator"] == a) & (d["pair"] == p)
        if (a, p) == (3, 1):
            assert np.all(z[rows] == 0)
        else:
            assert np.allclose(z[rows], stats.zscore(d["score"][rows], ddof=1), atol=1e-12)


def test_rank_systems_means_match_plain_reference() -> None:
    d = likert_data(2)
    result = rank_systems(d["score"], d["annotator"], d["system"], d["segment"], n_boot=300)
    mean = {a: np.mean(d["score"][d["annotator"] == a]) for a in range(25)}
    sd = {a: np.std(d["score"][d["annotator"] == a], ddof=1) for a in range(25)}
    by_segment: dict[tuple[int, int], list[tuple[float, float]]] = defaultdict(list)
    for x, a, s, g in zip(d["score"], d["annotator"], d["system"], d["segment"], strict=True):
        by_segment[(s, g)].append((x, (x - mean[a]) / sd[a]))
    for entry in result:
        segments = [v for (s, _), v in by_segment.items() if s == entry.system]
        raw = np.mean([np.mean([x for x, _ in v]) for v in segments])
        z = np.mean([np.mean([zz for _, zz in v]) for v in segments])
        assert entry.raw == pytest.approx(raw, abs=1e-12)
        assert entry.z == pytest.approx(z, abs=1e-12)
        assert entry.segments == len(segments)
        assert entry.z_interval[0] < entry.z < entry.z_interval[1]
        assert entry.raw_interval[0] < entry.raw < entry.raw_interval[1]
    assert [e.z for e in result] == sorted((e.z for e in result), reverse=True)
    again = rank_systems(d["score"], d["annotator"], d["system"], d["segment"], n_boot=300)
    assert again == result


def test_mannwhitney_matches_scipy_with_ties_and_small_samples() -> None:
    rng = np.random.default_rng(4)
    sizes = [40, 60, 5, 30, 8, 9]
    values = np.concatenate(
        [np.round(rng.normal(k * 0.2, 1, size) * 2) / 2 for k, size in enumerate(sizes)]
    )
    values[:10] = rng.normal(size=10)  # a few untied values too
    groups = np.repeat(np.arange(len(sizes)), sizes)
    p = mannwhitney_greater(values, groups, len(sizes))
    for a, b in itertools.permutations(range(len(sizes)), 2):
        expected = stats.mannwhitneyu(
            values[groups == a], values[groups == b], alternative="greater"
        ).pvalue
        assert p[a, b] == pytest.approx(expected, rel=1e-9, abs=1e-15)
    assert np.isnan(np.diag(p)).all()


def test_wmt_clusters_hand_computed() -> None:
    # A beats C, D; B beats C, D; C beats D; D beats nobody.
    p = np.ones((4, 4))
    for a, b in [(0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]:
        p[a, b] = 0.01
    clusters = wmt_clusters([4.0, 3.0, 2.0, 1.0], p)
    assert clusters.wins.tolist() == [2, 2, 1, 0]
    assert clusters.cluster.tolist() == [1, 1, 2, 3]
    assert clusters.rank_low.tolist() == [1, 1, 3, 4]
    assert clusters.rank_high.tolist() == [2, 2, 3, 4]
    # A beats everyone; B and C beat only D. A closes a cluster alone (3 wins = 3 below);
    # B's 1 win < 2 below, so B and C share one that closes after C (1 win = 1 below).
    p = np.ones((4, 4))
    for a, b in [(0, 1), (0, 2), (0, 3), (1, 3), (2, 3)]:
        p[a, b] = 0.001
    clusters = wmt_clusters([4.0, 3.0, 2.0, 1.0], p)
    assert clusters.cluster.tolist() == [1, 2, 2, 3]
    assert clusters.rank_low.tolist() == [1, 2, 2, 4]
    assert clusters.rank_high.tolist() == [1, 3, 3, 4]


def test_rank_systems_clusters_follow_wilcoxon_on_segment_z() -> None:
    d = likert_data(6, n=4000)
    result = rank_systems(d["score"], d["annotator"], d["system"], d["segment"], n_boot=50)
    z = z_scores(d["score"], d["annotator"])
    seg: dict[int, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for value, s, g in zip(z, d["system"], d["segment"], strict=True):
        seg[s][g].append(value)
    seg_means = {s: [np.mean(v) for _, v in sorted(g.items())] for s, g in seg.items()}
    for entry in result:
        wins = sum(
            stats.mannwhitneyu(seg_means[entry.system], seg_means[o], alternative="greater").pvalue
            < 0.05
            for o in seg_means
            if o != entry.system
        )
        losses = sum(
            stats.mannwhitneyu(seg_means[o], seg_means[entry.system], alternative="greater").pvalue
            < 0.05
            for o in seg_means
            if o != entry.system
        )
        assert entry.wins == wins
        assert entry.rank_range == (1 + losses, len(seg_means) - wins)


# --- Pairwise comparisons.


def comparisons_from_wmt13() -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    labels = ranking_labels(read_wmt_rankings(WMT13)["French-English"])
    return labels.system_a, labels.system_b, labels.label, len(labels.systems)


def test_win_rates_and_expected_wins_hand_computed() -> None:
    # A beats B twice, B beats A once, A-B tie once; A beats C once; B-C tie.
    a = [0, 0, 1, 0, 0, 1]
    b = [1, 1, 0, 1, 2, 2]
    label = [-1, -1, -1, 0, -1, 0]
    counts = count_comparisons(a, b, label, 3)
    assert counts.wins[0, 1] == 2 and counts.wins[1, 0] == 1 and counts.wins[0, 2] == 1
    assert win_rates(counts).tolist() == pytest.approx([3 / 5, 1 / 5, 0 / 2])
    # A: mean(2/3, 1/1); B: mean(1/3) (no decided B-C games); C: mean(0/1).
    assert expected_wins(counts).tolist() == pytest.approx([(2 / 3 + 1) / 2, 1 / 3, 0.0])


def independent_bt(wins: np.ndarray) -> np.ndarray:
    """Maximise the Bradley-Terry log-likelihood with scipy; returns mean-centred logits."""
    n = wins.shape[0]

    def negative_log_likelihood(theta: np.ndarray) -> float:
        diff = theta[:, None] - theta[None, :]
        return float(np.sum(wins * np.logaddexp(0, -diff)))

    fit = optimize.minimize(negative_log_likelihood, np.zeros(n), method="BFGS", tol=1e-12)
    return fit.x - fit.x.mean()


@pytest.mark.parametrize("ties", ["drop", "split"])
def test_bradley_terry_matches_direct_likelihood_fit(ties: str) -> None:
    a, b, label, n = comparisons_from_wmt13()
    counts = count_comparisons(a, b, label, n)
    ratings = bradley_terry(counts, ties=ties)  # type: ignore[arg-type]
    wins = counts.wins + (counts.ties / 2 if ties == "split" else 0)
    assert np.allclose(ratings, independent_bt(wins), atol=1e-4)


def test_rank_pairwise_is_seeded_and_orders_by_bt() -> None:
    a, b, label, n = comparisons_from_wmt13()
    result = rank_pairwise(a, b, label, n, n_boot=100, seed=3)
    assert result == rank_pairwise(a, b, label, n, n_boot=100, seed=3)
    ratings = [r.bradley_terry for r in result]
    assert ratings == sorted(ratings, reverse=True)
    for r in result:
        assert 1 <= r.rank_range[0] <= r.rank_range[1] <= n
    assert sum(r.wins for r in result) == sum(r.losses for r in result)


# --- HTER.


def test_hter_matches_plain_reference() -> None:
    rng = np.random.default_rng(9)
    systems = rng.integers(0, 3, 200)
    lengths = rng.integers(0, 30, 200)
    edits = rng.integers(0, 12, 200)
    result = hter_by_system(systems, edits, lengths, n_boot=300, seed=2)
    for entry in result:
        rows = systems == entry.system
        # In percent, as sacrebleu reports TER.
        per_segment = [
            100 * e / n if n else (100.0 if e else 0.0)
            for e, n in zip(edits[rows], lengths[rows], strict=True)
        ]
        assert entry.mean_hter == pytest.approx(np.mean(per_segment))
        assert entry.corpus_hter == pytest.approx(100 * edits[rows].sum() / lengths[rows].sum())
        assert entry.mean_interval[0] < entry.mean_hter < entry.mean_interval[1]
        assert entry.corpus_interval[0] < entry.corpus_hter < entry.corpus_interval[1]
    assert segment_hter([0, 3, 2], [0, 0, 4]).tolist() == [0.0, 100.0, 50.0]
    assert result == hter_by_system(systems, edits, lengths, n_boot=300, seed=2)
