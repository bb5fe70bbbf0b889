"""Annotator quality control against scipy and plain loops."""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
import pytest
from scipy import stats

from metrics.quality import annotator_quality, median_by_group, paired_t_greater


def judgments(seed: int) -> dict[str, np.ndarray]:
    """TGT items plus BAD and REPEAT copies of some of them, 8 annotators, 3 systems."""
    rng = np.random.default_rng(seed)
    rows = []
    for annotator in range(8):
        careless = annotator == 7
        for system, segment in itertools.product(range(3), range(rng.integers(1, 12))):
            score = float(rng.integers(20, 101))
            rows.append((annotator, system, segment, "TGT", score))
            draw = rng.random()
            if draw < 0.4 and annotator != 6:  # annotator 6 never sees a bad reference
                drop = 0.0 if careless else rng.integers(-5, 40)
                rows.append((annotator, system, segment, "BAD", score - drop))
            elif draw < 0.6:
                rows.append((annotator, system, segment, "REPEAT", score + rng.integers(-3, 4)))
            elif draw < 0.7:
                rows.append((annotator, system, segment, "CHK", 100.0))
    columns = list(zip(*rows, strict=True))
    return {
        "annotator": np.array(columns[0]),
        "system": np.array(columns[1]),
        "segment": np.array(columns[2]),
        "kind": np.array(columns[3]),
        "score": np.array(columns[4], dtype=float),
        "seconds": rng.gamma(2.0, 10.0, len(rows)),
    }


def test_bad_reference_test_matches_scipy_ttest_rel() -> None:
    d = judgments(1)
    result = annotator_quality(
        d["score"], d["annotator"], d["system"], d["segment"], d["kind"], seconds=d["seconds"]
    )
    tgt = {
        (a, s, g): x
        for a, s, g, k, x in zip(
            *(d[c] for c in ("annotator", "system", "segment", "kind", "score")), strict=True
        )
        if k == "TGT"
    }
    pairs = defaultdict(list)
    for a, s, g, k, x in zip(
        *(d[c] for c in ("annotator", "system", "segment", "kind", "score")), strict=True
    ):
        if k == "BAD":
            pairs[a].append((tgt[(a, s, g)], x))
    by_annotator = {q.annotator: q for q in result}
    for annotator, q in by_annotator.items():
        given = pairs.get(annotator, [])
        assert q.bad_reference_pairs == len(given)
        assert q.judgments == int((d["annotator"] == annotator).sum())
        assert q.median_seconds == pytest.approx(
            np.median(d["seconds"][d["annotator"] == annotator])
        )
        if len(given) < 2:
            assert q.bad_reference_p is None and q.verdict == "not enough data"
            continue
        original, bad = zip(*given, strict=True)
        expected = stats.ttest_rel(original, bad, alternative="greater").pvalue
        if np.isnan(expected):
            assert q.bad_reference_p is None and q.verdict == "failed"
        else:
            assert q.bad_reference_p == pytest.approx(expected, rel=1e-9, abs=1e-300)
            assert q.passed == (expected < 0.05)
    # The careless annotator scores bad references as high as the originals.
    assert by_annotator[7].verdict == "failed" and not by_annotator[7].passed
    assert by_annotator[6].verdict == "not enough data"


def test_repeats_and_agreement_match_loops() -> None:
    d = judgments(2)
    result = {
        q.annotator: q
        for q in annotator_quality(d["score"], d["annotator"], d["system"], d["segment"], d["kind"])
    }
    rows = list(zip(d["annotator"], d["system"], d["segment"], d["kind"], d["score"], strict=True))
    tgt = {(a, s, g): x for a, s, g, k, x in rows if k == "TGT"}
    for annotator, q in result.items():
        diffs = [
            abs(x - tgt[(a, s, g)]) for a, s, g, k, x in rows if k == "REPEAT" and a == annotator
        ]
        assert q.repeat_pairs == len(diffs)
        if diffs:
            assert q.repeat_mean_abs_difference == pytest.approx(np.mean(diffs))
            assert q.repeat_exact_share == pytest.approx(np.mean([v == 0 for v in diffs]))
        agree = total = 0
        mine, others_mean = [], []
        for (a, s, g), x in tgt.items():
            if a != annotator:
                continue
            others = [y for (b, t, h), y in tgt.items() if b != a and (t, h) == (s, g)]
            agree += sum(y == x for y in others)
            total += len(others)
            if others:
                mine.append(x)
                others_mean.append(np.mean(others))
        assert q.agreement_pairs == total
        if total:
            assert q.agreement_with_others == pytest.approx(agree / total)
        if len(mine) > 2 and np.ptp(mine) > 0 and np.ptp(others_mean) > 0:
            expected = stats.pearsonr(mine, others_mean).statistic
            assert q.correlation_with_others == pytest.approx(expected)


def test_paired_t_edge_cases_follow_scipy() -> None:
    groups = [0, 0, 0, 1, 1, 2, 3, 3]
    first = [5, 5, 5, 4, 4, 9, 1, 2]
    second = [3, 3, 3, 4, 4, 1, 3, 3]
    test = paired_t_greater(groups, first, second, 5)
    assert test.p[0] == 0.0  # constant positive difference: t = +inf
    assert np.isnan(test.p[1])  # no difference at all
    assert np.isnan(test.p[2]) and np.isnan(test.p[4])  # fewer than two pairs
    assert test.p[3] == pytest.approx(stats.ttest_rel([1, 2], [3, 3], alternative="greater").pvalue)


def test_median_by_group() -> None:
    values = [3.0, 1.0, np.nan, 4.0, 10.0, 2.0]
    groups = [0, 0, 0, 0, 2, 2]
    medians = median_by_group(values, groups, 3)
    assert medians[0] == np.median([3.0, 1.0, 4.0])
    assert np.isnan(medians[1])
    assert medians[2] == np.median([10.0, 2.0])
