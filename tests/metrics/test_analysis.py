"""compare-mt style analysis against compare-mt itself, on compare-mt's TED example.

Two independent references: compare-mt's stored report (``tests/data/compare-mt-ted/README.md``)
at its printed precision, and compare-mt's library (a test dependency) for exact counts.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
import sacrebleu
from compare_mt import bucketers, ngram_utils, scorers

from metrics import automatic
from metrics.analysis import Comparison, compare_systems, tokenise
from metrics.analysis.buckets import bucket_labels, bucket_of
from metrics.analysis.ngrams import matched_ngrams, ngram_differences
from metrics.analysis.sentences import bleu_statistics
from metrics.analysis.words import word_accuracy_by_frequency

TED = Path(__file__).resolve().parents[1] / "data" / "compare-mt-ted"
REPORT = TED / "compare-mt.report.txt"


def lines(name: str) -> list[str]:
    return (TED / name).read_text(encoding="utf-8").splitlines()


@cache
def corpus() -> tuple[list[list[str]], list[list[str]], list[list[str]]]:
    return tuple(tokenise(lines(f"ted.{name}.eng")) for name in ("ref", "sys1", "sys2"))  # type: ignore[return-value]


@cache
def comparison() -> Comparison:
    return compare_systems(*corpus())


def report_section(title: str) -> list[str]:
    """The lines of the compare-mt report after ``title`` up to the next blank line."""
    text = REPORT.read_text(encoding="utf-8").splitlines()
    start = text.index(title) + 1
    end = text.index("", start)
    return text[start:end]


def report_table(title: str) -> dict[str, tuple[float, float]]:
    rows = report_section(title)[1:]  # the first line is the column header
    return {row.split("\t")[0]: tuple(float(v) for v in row.split("\t")[1:3]) for row in rows}  # type: ignore[misc]


def test_bucket_labels_and_boundaries_are_compare_mt_s() -> None:
    cutoffs = [1, 2, 3, 4, 5, 10, 100, 1000]
    ours = bucket_labels(cutoffs)
    theirs = bucketers.FreqWordBucketer(freq_counts={"a": 1}, bucket_cutoffs=cutoffs)
    assert ours == theirs.bucket_strs
    for value in range(0, 1200, 7):
        assert bucket_of(value, cutoffs) == theirs.cutoff_into_bucket(value)


def test_word_f_measure_by_frequency_matches_the_report() -> None:
    table = report_table("--- word fmeas by frequency bucket")
    result = comparison()
    assert list(table) == [bucket.label for bucket in result.word_buckets_1]
    for first, second in zip(result.word_buckets_1, result.word_buckets_2, strict=True):
        assert (round(first.f_measure, 4), round(second.f_measure, 4)) == table[first.label]


def test_word_counts_match_compare_mt_exactly() -> None:
    reference, sys1, sys2 = corpus()
    bucketer = bucketers.FreqWordBucketer(freq_data=reference)
    statistics, *_ = bucketer.calc_statistics(reference, [sys1, sys2])
    for ours, theirs in zip(
        (word_accuracy_by_frequency(reference, sys1), word_accuracy_by_frequency(reference, sys2)),
        statistics,
        strict=True,
    ):
        for bucket, (matches, ref_total, out_total, rec, prec, fmeas) in zip(
            ours, theirs, strict=True
        ):
            assert (bucket.matches, bucket.reference_words, bucket.output_words) == (
                matches,
                ref_total,
                out_total,
            )
            assert bucket.f_measure == pytest.approx(fmeas, abs=1e-12)
            assert bucket.recall == pytest.approx(rec, abs=1e-12)
            assert bucket.precision == pytest.approx(prec, abs=1e-12)


def test_bleu_by_length_matches_the_report_where_the_definitions_agree() -> None:
    """compare-mt's own BLEU differs only when an output has fewer than four words (see
    metrics/analysis/sentences.py): buckets without such outputs agree with its report, and
    every bucket is sacrebleu's corpus BLEU of exactly its sentences."""
    reference, sys1, sys2 = corpus()
    table = report_table("--- bucket type: length, statistic type: BLEU")
    buckets = comparison().length_buckets
    assert [bucket.label for bucket in buckets] == list(table)
    assert sum(bucket.sentences for bucket in buckets) == 2445
    cutoffs = [10, 20, 30, 40, 50, 60]
    agreeing = 0
    for index, bucket in enumerate(buckets):
        chosen = [i for i, s in enumerate(reference) if bucket_of(len(s), cutoffs) == index]
        assert bucket.sentences == len(chosen)
        for column, (output, ours) in enumerate(((sys1, bucket.bleu_1), (sys2, bucket.bleu_2))):
            expected = sacrebleu.corpus_bleu(
                [" ".join(output[i]) for i in chosen],
                [[" ".join(reference[i]) for i in chosen]],
                tokenize="none",
                force=True,
            ).score
            assert ours == pytest.approx(expected, abs=1e-9)
            if all(len(output[i]) >= 4 for i in chosen):
                assert round(ours, 4) == table[bucket.label][column]
                agreeing += 1
    assert agreeing == 11  # all but <10 for both systems and [10,20) for system 1
    assert (round(buckets[0].bleu_1, 4), round(buckets[0].bleu_2, 4)) == (23.4568, 26.4456)
    assert table["<10"] == (23.3613, 26.3236)


def test_length_difference_counts_match_the_report() -> None:
    table = report_table("--- bucket type: len(output)-len(reference), statistic type: count")
    result = comparison()
    assert list(table) == list(result.length_differences_1)
    for label, (first, second) in table.items():
        assert (result.length_differences_1[label], result.length_differences_2[label]) == (
            first,
            second,
        )


NGRAM_ROW = re.compile(r"^(.*)\t([0-9.]+) \(sys1=(\d+), sys2=(\d+)\)$")


def report_ngrams(title: str) -> list[tuple[str, float, int, int]]:
    rows = []
    for row in report_section(title):
        match = NGRAM_ROW.match(row)
        assert match, row
        rows.append((match[1], float(match[2]), int(match[3]), int(match[4])))
    return rows


@pytest.mark.parametrize(
    ("title", "attribute"),
    [
        ("--- 50 n-grams where sys1>sys2 in match", "ngrams_better_1"),
        ("--- 50 n-grams where sys2>sys1 in match", "ngrams_better_2"),
    ],
)
def test_ngram_differences_match_the_report(title: str, attribute: str) -> None:
    theirs = report_ngrams(title)
    ours = [
        (" ".join(d.ngram), round(d.score, 4), d.matches_1, d.matches_2)
        for d in getattr(comparison(), attribute)
    ]
    assert len(ours) == len(theirs) == 50
    assert [row[1] for row in ours] == [row[1] for row in theirs]  # the same scores, in order
    # compare-mt orders equal scores by hash: compare the n-grams above the last score as sets.
    boundary = theirs[-1][1]
    assert {row for row in ours if row[1] != boundary} == {
        row for row in theirs if row[1] != boundary
    }


def test_ngram_match_counts_equal_compare_mt_s() -> None:
    reference, sys1, _ = corpus()
    _, theirs, _, _ = ngram_utils.compare_ngrams(reference, sys1, min_length=1, max_length=4)
    assert dict(matched_ngrams(reference, sys1, 1, 4)) == {k: v for k, v in theirs.items() if v}


SENTENCE_ROW = re.compile(r"^sys1-sys2=(-?[0-9.]+), sys1=([0-9.]+), sys2=([0-9.]+)$")


def report_examples(title: str) -> list[tuple[float, str, str, str]]:
    text = REPORT.read_text(encoding="utf-8").splitlines()
    start = text.index(title) + 1
    rows = []
    for index in range(start, start + 50, 5):
        match = SENTENCE_ROW.match(text[index])
        assert match, text[index]
        ref, one, two = (text[index + k].split(": ", 1)[1].strip() for k in (1, 2, 3))
        rows.append((float(match[1]), ref, one, two))
    return rows


@pytest.mark.parametrize(
    ("title", "attribute"),
    [
        ("--- 10 sentences where sys1>sys2 at sentence-level BLEU", "sentences_better_1"),
        ("--- 10 sentences where sys2>sys1 at sentence-level BLEU", "sentences_better_2"),
    ],
)
def test_sentence_examples_match_the_report_for_outputs_of_four_words(
    title: str, attribute: str
) -> None:
    """compare-mt's sentence BLEU (nltk method2) and BLEU+1 differ only for outputs shorter
    than four words; leaving those out, the examples are the same, as far down as compare-mt
    lists them."""
    reference, sys1, sys2 = corpus()

    def long_enough(row: tuple[float, str, str, str]) -> bool:
        return min(len(row[2].split()), len(row[3].split())) >= 4

    theirs = {row for row in report_examples(title) if long_enough(row)}
    ours = {
        (
            round(d.difference, 4),
            " ".join(reference[d.index]),
            " ".join(sys1[d.index]),
            " ".join(sys2[d.index]),
        )
        for d in getattr(comparison(), attribute)
    }
    ours = {row for row in ours if long_enough(row)}
    assert len(ours) >= 8 and len(theirs) >= 8
    # Both lists stop at ten: compare them down to the smaller of their last differences.
    floor = max(min(abs(row[0]) for row in ours), min(abs(row[0]) for row in theirs))
    assert {row for row in ours if abs(row[0]) >= floor} == {
        row for row in theirs if abs(row[0]) >= floor
    }


def test_sentence_bleu_equals_nltk_method2_from_four_words() -> None:
    reference, sys1, _ = corpus()
    scorer = scorers.SentBleuScorer()
    ours = automatic.sentence_scores("bleu", bleu_statistics(reference, sys1))
    checked = 0
    for index, (ref, out) in enumerate(zip(reference, sys1, strict=True)):
        if len(out) >= 4:
            assert ours[index] == pytest.approx(scorer.score_sentence(ref, out)[0], abs=1e-9)
            checked += 1
    assert checked > 2400


def test_ngram_lists_are_ordered_and_bounded() -> None:
    reference, sys1, sys2 = corpus()
    better_1, better_2 = ngram_differences(reference, sys1, sys2, top=5, max_order=2)
    assert len(better_1) == len(better_2) == 5
    assert all(len(d.ngram) <= 2 for d in better_1 + better_2)
    assert [d.score for d in better_1] == sorted((d.score for d in better_1), reverse=True)


def test_mismatched_lengths_are_refused() -> None:
    reference, sys1, sys2 = corpus()
    with pytest.raises(ValueError, match="system 2 has 2444 lines"):
        compare_systems(reference, sys1, sys2[:-1])
    with pytest.raises(ValueError, match="empty"):
        compare_systems([], [], [])
