"""Span agreement (character F1, hand-computed), score agreement (krippendorff, scipy) and the
per-system error breakdown (counted independently)."""

from __future__ import annotations

import csv
import io
import math
from collections import Counter
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy import stats

from metrics.spans import (
    Span,
    annotator_pairs,
    corpus_span_f1,
    error_breakdown,
    read_mqm_tsv,
    score_agreement,
    span_f1,
    span_overlap,
)
from metrics.spans.breakdown import span_statistics

MQM_TSV = Path(__file__).resolve().parents[1] / "data" / "mqm-ted-zh-en" / "mqm_ted_zhen.tsv"


def test_character_f1_by_hand():
    # A marks characters 0-9 (10), B marks 5-14 (10): 5 shared -> F1 = 2*5 / 20 = 0.5.
    assert span_f1([Span(0, 10, "minor")], [Span(5, 15, "major")]) == 0.5
    # With severity the shared characters differ in severity: nothing matches.
    assert span_f1([Span(0, 10, "minor")], [Span(5, 15, "major")], severity=True) == 0.0
    # Identical spans agree fully; disjoint ones not at all.
    assert span_f1([Span(2, 6, "major")], [Span(2, 6, "major")], severity=True) == 1.0
    assert span_f1([Span(0, 3, "minor")], [Span(3, 6, "minor")]) == 0.0


def test_character_f1_with_overlaps_severity_and_markers_by_hand():
    first = [Span(0, 4, "minor"), Span(2, 6, "major"), Span.missing("major")]
    # First marks 0-5 (6 chars): 0,1 minor; 2-5 major (the more severe wins where they overlap).
    second = [Span(1, 3, "minor"), Span(3, 8, "major"), Span(0, 2, "minor", side="source")]
    # Second marks 1-7 (7 chars): 1,2 minor; 3-7 major. Shared positions 1-5 = 5.
    overlap = span_overlap(first, second)
    assert (overlap.first, overlap.second, overlap.matched) == (6, 7, 5)
    assert overlap.f1 == pytest.approx(10 / 13)
    # Same severity: 1 (minor, minor), 3, 4, 5 (major, major); 2 is major vs minor -> 4.
    assert span_f1(first, second, severity=True) == pytest.approx(8 / 13)


def test_no_marks_on_either_side_is_undefined_and_corpus_f1_is_micro_averaged():
    assert math.isnan(span_f1([], [Span.missing("minor")]))
    items = [
        ([Span(0, 10, "minor")], [Span(5, 15, "minor")]),  # 10, 10, 5 shared
        ([], []),  # nothing: adds nothing
        ([Span(0, 2, "major")], []),  # 2, 0, 0
    ]
    total = corpus_span_f1(items)
    assert (total.first, total.second, total.matched) == (12, 10, 5)
    assert total.f1 == pytest.approx(10 / 22)


def test_score_agreement_against_krippendorff_and_scipy():
    rng = np.random.default_rng(4)
    truth = rng.uniform(20, 100, size=40)
    items, annotators, scores = [], [], []
    matrix = np.full((3, 40), np.nan)
    for rater in range(3):
        for item in range(40):
            if rater == 2 and item % 3 == 0:
                continue  # the third annotator skipped some items
            value = float(np.clip(round(truth[item] + rng.normal(0, 12)), 0, 100))
            items.append(f"seg{item}")
            annotators.append(f"r{rater}")
            scores.append(value)
            matrix[rater, item] = value
    result = score_agreement(items, annotators, scores, n_boot=50)
    expected_alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
    assert result.alpha.kappa == pytest.approx(expected_alpha, rel=1e-9)
    # Kendall's tau-b per pair on shared items, weighted by their number.
    taus, weights = [], []
    for a, b in ((0, 1), (0, 2), (1, 2)):
        shared = ~np.isnan(matrix[a]) & ~np.isnan(matrix[b])
        taus.append(stats.kendalltau(matrix[a, shared], matrix[b, shared]).statistic)
        weights.append(int(shared.sum()))
    assert result.tau == pytest.approx(np.average(taus, weights=weights), rel=1e-12)
    assert (result.tau_pairs, result.tau_items) == (3, sum(weights))
    two = score_agreement(items[:80], annotators[:80], scores[:80], n_boot=0)
    assert two.tau == pytest.approx(stats.kendalltau(matrix[0], matrix[1]).statistic, rel=1e-12)


def test_error_breakdown_counts_the_ted_file():
    with open(MQM_TSV, encoding="utf-8", newline="") as handle:
        rows = list(read_mqm_tsv(handle))
    breakdown = error_breakdown(
        (row.system, row.span.severity, row.span.category) for row in rows if row.span
    )
    with open(MQM_TSV, encoding="utf-8", newline="") as handle:
        raw = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    expected = Counter(
        (r["system"], r["category"], r["severity"].lower())
        for r in raw
        if r["severity"] != "No-error"
    )
    got = {
        (system, category, severity): n
        for system, categories in breakdown.counts.items()
        for category, severities in categories.items()
        for severity, n in severities.items()
    }
    assert got == dict(expected)
    assert breakdown.categories[0] == "Accuracy/Mistranslation"
    assert breakdown.severities == ["major", "minor"]
    series = breakdown.series()
    assert sum(sum(s["counts"]) for s in series) == sum(expected.values())


def test_breakdown_keeps_error_free_systems_and_uncategorised_spans():
    breakdown = error_breakdown([("A", "minor", None), ("A", "major", None)], systems=["B", "A"])
    assert breakdown.systems == ["B", "A"]
    assert breakdown.categories == ["(none)"]
    assert breakdown.series() == [
        {"category": "(none)", "severity": "major", "counts": [0, 1]},
        {"category": "(none)", "severity": "minor", "counts": [0, 1]},
    ]


def test_span_statistics_by_hand():
    judgments = [
        ("A", [Span(0, 4, "minor"), Span(10, 20, "major")]),
        ("A", []),
        ("A", [Span.missing("major")]),
        ("B", []),
    ]
    a, b = span_statistics(judgments)
    assert (a.system, a.judgments, a.spans, a.missing) == ("A", 3, 3, 1)
    assert a.by_severity == {"major": 2, "minor": 1}
    assert a.error_free_share == pytest.approx(1 / 3)
    assert a.spans_per_judgment == 1.0 and a.mean_length == 7.0
    assert (b.spans, b.error_free_share) == (0, 1.0) and math.isnan(b.mean_length)


def test_round_trip_reader_accepts_any_text_stream():
    text = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
    text += "s\td\t1\t1\tr\tsrc\t<v>Ab</v>c\tStyle/Awkward\tMinor\n"
    (row,) = read_mqm_tsv(io.StringIO(text))
    assert row.span == Span(0, 2, "minor", "Style/Awkward") and row.target == "Abc"


def test_annotator_pairs_pair_every_two_annotators_of_an_item():
    a, b, c = [Span(0, 1, "minor")], [Span(1, 2, "minor")], []
    judgments = [("x", "r1", a), ("x", "r2", b), ("x", "r3", c), ("y", "r1", a), ("x", "r1", c)]
    # Item x: r1 (first judgment a), r2, r3 -> 3 pairs; item y has one annotator.
    assert annotator_pairs(judgments) == [(a, b), (a, c), (b, c)]
