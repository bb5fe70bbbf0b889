"""HTER against the published MLQE-PE en-de values, sacrebleu's own scores and hand counts.

HTER is in percent, the unit of sacrebleu's TER: exactly sacrebleu's TER with the post-edit as
the reference (the published MLQE-PE values are fractions, so they are compared × 100)."""

from __future__ import annotations

import dataclasses
import tarfile
from functools import cache
from pathlib import Path

import pytest
from sacrebleu.metrics import TER

from metrics.postedit import Hter, corpus_hter, hter, hter_many

MLQE = Path(__file__).resolve().parents[1] / "data" / "mlqe-pe-en-de" / "en-de-dev.tar.gz"


@cache
def mlqe_dev() -> dict[str, list[str]]:
    """dev.src, dev.mt, dev.pe and dev.hter as lists of 1000 lines, found by base name."""
    wanted = {"dev.src", "dev.mt", "dev.pe", "dev.hter"}
    columns: dict[str, list[str]] = {}
    with tarfile.open(MLQE) as archive:
        for member in archive.getmembers():
            name = member.name.rsplit("/", 1)[-1]
            if member.isfile() and name in wanted:
                handle = archive.extractfile(member)
                assert handle is not None
                lines = handle.read().decode("utf-8").split("\n")
                assert lines[-1] == ""  # each file ends with a newline
                columns[name] = lines[:-1]
    assert set(columns) == wanted
    assert {len(lines) for lines in columns.values()} == {1000}
    return columns


def test_reproduces_published_mlqe_pe_hter_on_every_segment() -> None:
    data = mlqe_dev()
    results = hter_many(data["dev.mt"], data["dev.pe"])
    published = [100 * float(value) for value in data["dev.hter"]]
    assert len(results) == len(published) == 1000
    misses = [
        (i, result.score, expected)
        for i, (result, expected) in enumerate(zip(results, published, strict=True))
        if abs(result.score - expected) >= 1e-2
    ]
    assert misses == []
    # The data are not degenerate: untouched, lightly and heavily edited segments all occur.
    assert sum(value == 0 for value in published) > 50
    assert sum(value > 50 for value in published) > 20


def test_score_equals_sacrebleu_sentence_and_corpus_ter() -> None:
    data = mlqe_dev()
    mts, pes = data["dev.mt"][:300], data["dev.pe"][:300]
    results = hter_many(mts, pes)
    ter = TER()
    for mt, pe, result in zip(mts, pes, results, strict=True):
        sentence = ter.sentence_score(mt, [pe])
        assert result.edits == sentence.num_edits
        assert result.length == sentence.ref_length
        # The same unit as sacrebleu's TER: percent, equal up to the last bit.
        assert result.score == pytest.approx(sentence.score, rel=1e-12, abs=0)
    assert corpus_hter(results) == pytest.approx(ter.corpus_score(mts, [pes]).score, rel=1e-12)


def test_corpus_hter_is_total_edits_over_total_length() -> None:
    data = mlqe_dev()
    results = hter_many(data["dev.mt"], data["dev.pe"])
    edits = sum(r.edits for r in results)
    length = sum(r.length for r in results)
    assert corpus_hter(results) == pytest.approx(100 * edits / length, rel=1e-15)
    # Not the mean of segment scores (long segments weigh more).
    mean = sum(r.score for r in results) / len(results)
    assert abs(corpus_hter(results) - mean) > 0.1
    # Hand-made: 1 edit in 4 words and 3 edits in 2 words is 4/6 = 66.7%, not (25 + 150) / 2.
    assert corpus_hter([Hter(1.0, 4.0), Hter(3.0, 2.0)]) == pytest.approx(400 / 6)
    assert corpus_hter([]) == 0.0


@pytest.mark.parametrize(
    ("mt", "post_edit", "edits", "length"),
    [
        ("a b c d", "a b c d", 0, 4),
        ("a x c d", "a b c d", 1, 4),  # one substitution
        ("a b c", "a b c d", 1, 4),  # one insertion
        ("a b c d e", "a b c d", 1, 4),  # one deletion
        ("c d a b", "a b c d", 1, 4),  # "c d" shifted after "a b": one edit, not four
        ("yesterday I went home", "I went home yesterday", 1, 4),  # a shift, not delete + insert
        ("The Cat", "the cat", 0, 2),  # default TER ignores case
        ("the cat.", "the cat .", 2, 3),  # words are whitespace tokens: "cat." -> "cat", + "."
        ("", "a b c", 3, 3),  # everything inserted
    ],
)
def test_hand_counted_edits(mt: str, post_edit: str, edits: int, length: int) -> None:
    result = hter(mt, post_edit)
    assert result == Hter(edits=float(edits), length=float(length))
    assert result.score == pytest.approx(100 * edits / length)


@pytest.mark.parametrize(
    ("mt", "post_edit", "expected"),
    [("a b", "", 100.0), ("", "", 0.0), ("   ", "  ", 0.0), ("a", "   ", 100.0)],
)
def test_empty_post_edit_follows_sacrebleu(mt: str, post_edit: str, expected: float) -> None:
    result = hter(mt, post_edit)
    assert result.length == 0
    assert result.score == expected
    assert result.score == TER().sentence_score(mt, [post_edit]).score


def test_many_matches_one_by_one_and_checks_lengths() -> None:
    data = mlqe_dev()
    mts, pes = data["dev.mt"][:50], data["dev.pe"][:50]
    assert hter_many(mts, pes) == [hter(mt, pe) for mt, pe in zip(mts, pes, strict=True)]
    assert hter_many([], []) == []
    with pytest.raises(ValueError, match="2 MT outputs but 1 post-edits"):
        hter_many(["a", "b"], ["a"])


def test_result_is_frozen() -> None:
    result = hter("a b", "a c")
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.edits = 0.0  # type: ignore[misc]
