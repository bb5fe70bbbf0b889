"""HTER: the translation edit rate of a machine translation against its own human post-edit.

HTER is TER with the post-edit as the only reference (Snover et al., 2006): the fewest word
insertions, deletions, substitutions and block shifts (a shift of any run of words counts as one
edit) that turn the MT output into the post-edit, divided by the post-edit's length in words.
It is computed with sacrebleu's ``TER()`` on its default settings (case-insensitive, plain
whitespace tokenisation, punctuation kept), which reproduces the published HTER of the MLQE-PE
data set.

Scores are fractions (0.25, not 25). Each result keeps its sufficient statistics, so a corpus
HTER is ``sum(edits) / sum(length)`` (:func:`corpus_hter`), not the mean of segment scores.
A post-edit with no words scores 1.0 if the MT output has any word to delete and 0.0 if it is
empty too, as sacrebleu does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sacrebleu.metrics import TER


@dataclass(frozen=True)
class Hter:
    """Edits from the MT output to the post-edit, and the post-edit's length in TER words."""

    edits: float
    length: float

    @property
    def score(self) -> float:
        return _rate(self.edits, self.length)


def hter(mt: str, post_edit: str) -> Hter:
    """HTER of one MT output against its post-edit."""
    return hter_many([mt], [post_edit])[0]


def hter_many(mts: Sequence[str], post_edits: Sequence[str]) -> list[Hter]:
    """HTER of each MT output against its post-edit, with one metric object for all of them."""
    if len(mts) != len(post_edits):
        raise ValueError(f"{len(mts)} MT outputs but {len(post_edits)} post-edits")
    if not mts:
        return []
    # One reference stream; sacrebleu returns [edits, average reference length] per segment,
    # the same numbers sentence_score() and corpus_score() are computed from.
    stats = TER()._extract_corpus_statistics(list(mts), [list(post_edits)])
    return [Hter(edits=float(edits), length=float(length)) for edits, length in stats]


def corpus_hter(results: Iterable[Hter]) -> float:
    """Corpus HTER: all edits over all post-edit words (empty corpus: 0.0)."""
    edits = length = 0.0
    for result in results:
        edits += result.edits
        length += result.length
    return _rate(edits, length)


def _rate(edits: float, length: float) -> float:
    # sacrebleu's rule for an empty reference: everything in the hypothesis is an edit.
    if length > 0:
        return edits / length
    return 1.0 if edits > 0 else 0.0
