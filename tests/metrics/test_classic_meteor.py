"""METEOR: the worked examples of the original formula, and nltk's meteor_score where the two
alignments must agree (no repeated word or stem)."""

from __future__ import annotations

from pathlib import Path

import pytest
from nltk.translate.meteor_score import single_meteor_score

from metrics.automatic import corpus_score, extract_statistics, sentence_scores
from metrics.classic._text import tokenize
from metrics.classic.meteor import (
    align,
    count_chunks,
    forget_wordnet,
    stemmer,
    wordnet_available,
    wordnet_data_dir,
)
from metrics.signatures import signature
from tests.metrics.classic_data import references, system
from tests.metrics.tiny_wordnet import write_wordnet


class NoSynonyms:
    """nltk's meteor_score takes its WordNet as an argument: this one has no synsets, so nltk
    runs the same modules as ours (exact and stem; WordNet data is not installed)."""

    @staticmethod
    def synsets(word: str) -> list:
        return []


@pytest.mark.parametrize(
    ("hypothesis", "expected"),
    [
        # P = R = 1, one chunk of 6: 1 - 0.5 (1/6)^3.
        ("the cat sat on the mat", 0.9977),
        # P = 6/7, R = 1, Fmean = 10PR/(R + 9P) = 0.9836; chunks 2 of 6 matches,
        # penalty 0.5 (2/6)^3 = 0.0185: 0.9836 x 0.9815.
        ("the cat was sat on the mat", 0.9654),
        # Every word matches but the alignment with the fewest crossings leaves six chunks of
        # one word (the two "the" keep their order): penalty 0.5, score 0.5.
        ("on the mat sat the cat", 0.5000),
    ],
)
def test_worked_examples(hypothesis, expected):
    # The examples of the METEOR article on Wikipedia (reference "the cat sat on the mat"),
    # checked by hand above with Banerjee and Lavie's formula, alpha 0.9, beta 3, gamma 0.5.
    stats = extract_statistics("meteor", [hypothesis], [["the cat sat on the mat"]])
    assert corpus_score("meteor", stats) == pytest.approx(100 * expected, abs=0.005)


def test_crossing_tie_break():
    hyp, ref = ["on", "the", "mat", "sat", "the", "cat"], ["the", "cat", "sat", "on", "the", "mat"]
    links = align(hyp, ref, ["exact"])
    assert links == [(0, 3), (1, 0), (2, 5), (3, 2), (4, 4), (5, 1)]
    assert count_chunks(links) == 6


def test_stem_module_and_signature():
    stats = extract_statistics("meteor", ["the cats sat"], [["the cat sat"]])
    assert stats.tolist() == [[3.0, 1.0, 3.0, 3.0]]  # "cats" meets "cat" through its stem
    modules = "exact+stem+synonym" if wordnet_available() else "exact+stem"
    assert f"mod:{modules}" in signature("meteor", n_refs=1)
    assert "lang:german" in signature("meteor", n_refs=1, language="german")
    with pytest.raises(ValueError, match="no stemmer"):
        extract_statistics("meteor", ["a"], [["a"]], language="klingon")


class Stems:
    """Our German stemmer in nltk's stemmer interface: the comparison is of the formula and
    the alignment, with the same stems on both sides."""

    stem = staticmethod(stemmer("german"))


def _unique(tokens: list[str], stem) -> bool:
    return len(set(tokens)) == len(tokens) and len({stem(t) for t in tokens}) == len(tokens)


def test_sentences_equal_nltk_where_alignment_is_unique():
    stems = Stems()
    refs, hyps = references(300)[0], system("Facebook-AI", 300)
    compared = 0
    for ref, hyp in zip(refs, hyps, strict=True):
        ref_tokens = tokenize(ref, tokenizer="13a", lowercase=True)
        hyp_tokens = tokenize(hyp, tokenizer="13a", lowercase=True)
        if not (_unique(ref_tokens, stems.stem) and _unique(hyp_tokens, stems.stem)):
            continue
        expected = single_meteor_score(ref_tokens, hyp_tokens, stemmer=stems, wordnet=NoSynonyms())
        stats = extract_statistics("meteor", [hyp], [[ref]], language="german")
        assert sentence_scores("meteor", stats)[0] == pytest.approx(100 * expected, rel=1e-9)
        compared += 1
    assert compared >= 20


def test_corpus_score_aggregates_statistics():
    # Two segments: (m, chunks, |h|, |r|) = (6, 1, 6, 6) and (6, 2, 7, 6). Corpus P = 12/13,
    # R = 1, Fmean = 10PR / (R + 9P), penalty 0.5 (3/12)^3.
    hyps = ["the cat sat on the mat", "the cat was sat on the mat"]
    stats = extract_statistics("meteor", hyps, [["the cat sat on the mat"] * 2])
    assert stats.tolist() == [[6, 1, 6, 6], [6, 2, 7, 6]]
    p, r = 12 / 13, 1.0
    expected = 10 * p * r / (r + 9 * p) * (1 - 0.5 * (3 / 12) ** 3)
    assert corpus_score("meteor", stats) == pytest.approx(100 * expected)


def test_best_reference_per_segment():
    stats = extract_statistics("meteor", ["a b c"], [["x y z"], ["a b c"]])
    assert stats.tolist() == [[3, 1, 3, 3]]


def test_language_codes_and_exact_only():
    hyps, refs = ["Die Häuser der Katzen"], [["Das Haus einer Katze"]]
    german = extract_statistics("meteor", hyps, refs, language="german")
    assert german.tolist() == extract_statistics("meteor", hyps, refs, language="de").tolist()
    assert german[0, 0] == 2  # Häuser/Haus and Katzen/Katze meet by their stems
    exact = extract_statistics("meteor", hyps, refs, language="none")
    assert exact[0, 0] == 0
    assert "mod:exact|" in signature("meteor", n_refs=1, language="none")


@pytest.fixture
def tiny_wordnet(tmp_path, monkeypatch):
    """A WordNet of three synsets installed as nltk data in ``tmp_path`` (NLTK_DATA for the
    metric; nltk.data.path for nltk's reader, which looks its own corpus up there too)."""
    import nltk.data

    # Porter leaves these words unchanged: nltk looks synonyms up after stemming the words
    # the stem module left ("automobile" would be "automobil" there and miss).
    write_wordnet(tmp_path, {"n": [("car", "auto"), ("dog", "hound"), ("road", "street")]})
    monkeypatch.setenv("NLTK_DATA", str(tmp_path))
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    forget_wordnet()
    yield tmp_path
    monkeypatch.undo()
    forget_wordnet()


class EnglishStems:
    stem = staticmethod(stemmer("english"))


@pytest.mark.filterwarnings("ignore:The multilingual functions:UserWarning")
def test_synonym_module_equals_nltk_with_the_same_wordnet(tiny_wordnet):
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    wordnet = WordNetCorpusReader(str(tiny_wordnet / "corpora" / "wordnet"), None)
    assert wordnet_available()
    pairs = [
        # No word repeats: the two alignments cannot differ (see the module docstring).
        ("my auto stopped on the street", "my car stopped on the road"),
        ("a hound barked at my car", "a dog barked at my auto"),
        ("the red auto and a big dog", "one big hound saw my red car"),
    ]
    for hypothesis, reference in pairs:
        stats = extract_statistics("meteor", [hypothesis], [[reference]])
        expected = single_meteor_score(
            reference.split(), hypothesis.split(), stemmer=EnglishStems(), wordnet=wordnet
        )
        assert sentence_scores("meteor", stats)[0] == pytest.approx(100 * expected, rel=1e-12)
    # The synonyms count: two more matches and one chunk instead of three.
    with_synonyms = extract_statistics("meteor", [pairs[0][0]], [[pairs[0][1]]])
    assert with_synonyms.tolist() == [[6, 1, 6, 6]]
    assert "mod:exact+stem+synonym|" in signature("meteor", n_refs=1)
    # German has no WordNet here: the module neither runs nor appears in the signature.
    assert "mod:exact+stem|" in signature("meteor", n_refs=1, language="german")


def test_no_wordnet_no_synonym_module(tmp_path, monkeypatch):
    import nltk.data

    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("NLTK_DATA", str(empty))
    monkeypatch.setattr(nltk.data, "path", [str(empty)])
    monkeypatch.setattr(Path, "home", lambda: empty)
    forget_wordnet()
    try:
        if wordnet_data_dir() is not None:
            pytest.skip(f"WordNet is installed system-wide in {wordnet_data_dir()}")
        stats = extract_statistics("meteor", ["the auto stopped"], [["the car stopped"]])
        assert stats.tolist() == [[2, 2, 3, 3]]
        assert "mod:exact+stem|" in signature("meteor", n_refs=1)
    finally:
        monkeypatch.undo()
        forget_wordnet()
