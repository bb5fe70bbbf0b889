"""HTER: the translation edit rate of a machine translation against its own human post-edit.

HTER is TER with the post-edit as the only reference (Snover et al., 2006): the fewest word
insertions, deletions, substitutions and block shifts (a shift of any run of words counts as one
edit) that turn the MT output into the post-edit, divided by the post-edit's length in words.
It is computed with sacrebleu's ``TER()`` on its default settings (case-insensitive, plain
whitespace tokenisation, punctuation kept), which reproduces the published HTER of the MLQE-PE
data set.

Scores are in percent, as sacrebleu reports TER (25.0 for one edit in four words; the
published MLQE-PE ``.hter`` files hold fractions, 0.25). Each result keeps its sufficient
statistics, so a corpus HTER is ``100 × sum(edits) / sum(length)`` (:func:`corpus_hter`), not
the mean of segment scores. A post-edit with no words scores 100 if the MT output has any word
to delete and 0 if it is empty too, as sacrebleu does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

PERCENT = 100.0  # HTER, like sacrebleu's TER, is edits per 100 post-edit words


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
    from sacrebleu.metrics import TER  # imported here: it is slow to import

    stats = TER()._extract_corpus_statistics(list(mts), [list(post_edits)])
    return [Hter(edits=float(edits), length=float(length)) for edits, length in stats]


def corpus_hter(results: Iterable[Hter]) -> float:
    """Corpus HTER in percent: all edits over all post-edit words (empty corpus: 0.0)."""
    edits = length = 0.0
    for result in results:
        edits += result.edits
        length += result.length
    return _rate(edits, length)


def segment_hter(edits: ArrayLike, lengths: ArrayLike) -> NDArray[np.float64]:
    """HTER in percent of each (edits, post-edit length); an empty post-edit scores 100 if
    there is anything to delete and 0 otherwise, sacrebleu's rule for an empty reference."""
    e = np.asarray(edits, dtype=np.float64)
    n = np.asarray(lengths, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        fraction = np.where(n > 0, e / np.where(n > 0, n, 1.0), np.where(e > 0, 1.0, 0.0))
    return PERCENT * fraction


def _rate(edits: float, length: float) -> float:
    return float(segment_hter(edits, length))
