"""METEOR (Banerjee and Lavie 2005; Lavie and Agarwal 2007), the original formula.

Words are aligned in stages, each stage mapping only words still unaligned: exact forms, then
stems (Porter's original algorithm for English, the Snowball stemmer for other languages),
then WordNet synonyms when nltk's WordNet data is installed (it is never downloaded). Within a
stage each word type is aligned order-preservingly and, where it occurs more often on one side,
with the occurrences that cross the fewest links already made (METEOR's tie-break: the
alignment with the fewest crossing links).

    P = m / |hypothesis|, R = m / |reference|, Fmean = P·R / (α·P + (1 − α)·R)
    Penalty = γ · (chunks / m)^β,  score = Fmean · (1 − Penalty)

with α = 0.9, β = 3, γ = 0.5. With several references a segment keeps the statistics of its
best-scoring reference. The corpus score is computed from the statistics summed over segments
(as the METEOR tool's system score), so it decomposes: per segment (matches, chunks, hypothesis
length, reference length).

Deliberate differences from nltk's ``meteor_score``: nltk aligns greedily (first candidate
wins) where this picks the occurrences with the fewest crossings, nltk always consults WordNet
and uses its Porter variant with NLTK extensions, nltk looks synonyms up for the stems the stem
module left (this module: for the words, through WordNet's own lemmatiser), and nltk scores
single sentences only. The two agree where no word or stem repeats, with and without a WordNet
(tested with a WordNet of a few synsets written by the test).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import combinations
from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from metrics.classic._text import Tokens

ALPHA: Final = 0.9
BETA: Final = 3.0
GAMMA: Final = 0.5
N_STATS: Final = 4  # matches, chunks, hypothesis length, reference length
SIGNATURE: Final = f"a:{ALPHA:g}|b:{BETA:g}|g:{GAMMA:g}"
_MAX_SUBSETS: Final = 256  # occurrence subsets tried for one word type before going by position

Link = tuple[int, int]
NO_STEMMER: Final = "none"
# ISO 639-1 codes of the Snowball stemmers' languages.
_CODES: Final = {
    **{"ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech"},
    **{"da": "danish", "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian"},
    **{"fi": "finnish", "fr": "french", "de": "german", "el": "greek", "hi": "hindi"},
    **{"hu": "hungarian", "id": "indonesian", "ga": "irish", "it": "italian", "lt": "lithuanian"},
    **{"ne": "nepali", "no": "norwegian", "nb": "norwegian", "fa": "persian", "pl": "polish"},
    **{"pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian", "st": "sesotho"},
    **{"es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish"},
}


def stemmer(language: str) -> Callable[[str], str]:
    """The stem function of ``language``: Porter's original algorithm for English (METEOR's),
    the Snowball stemmer of the ``snowballstemmer`` package otherwise."""
    return _stemmer(check_language(language))


def check_language(language: str) -> str:
    """A Snowball language name (ISO 639-1 codes accepted, e.g. "de"), or ``NO_STEMMER``
    for a language without a stemmer: METEOR then runs the exact module only."""
    import snowballstemmer

    key = language.lower()
    known = [name for name in snowballstemmer.algorithms() if name != "porter"]
    key = _CODES.get(key, key)
    if key not in known and key != NO_STEMMER:
        raise ValueError(
            f"no stemmer for {language!r}; expected one of {', '.join(known)}, their ISO 639-1 "
            f"codes, or {NO_STEMMER} (exact matching only)"
        )
    return key


@lru_cache(maxsize=4)
def _stemmer(language: str) -> Callable[[str], str]:
    import snowballstemmer

    algorithm = snowballstemmer.stemmer("porter" if language == "english" else language)
    return lru_cache(maxsize=200_000)(algorithm.stemWord)


def _nltk_data_dirs() -> list[Path]:
    # nltk's default search path (nltk.data.path), without importing nltk (over a second).
    dirs = [Path(p) for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    dirs += [Path.home() / "nltk_data", Path(sys.prefix) / "nltk_data"]
    dirs += [Path(sys.prefix) / "share/nltk_data", Path(sys.prefix) / "lib/nltk_data"]
    for root in ("/usr/share", "/usr/local/share", "/usr/lib", "/usr/local/lib"):
        dirs.append(Path(root) / "nltk_data")
    return dirs


def wordnet_data_dir() -> Path | None:
    """The first nltk data directory holding WordNet (``corpora/wordnet`` or its zip)."""
    for data_dir in _nltk_data_dirs():
        if data_dir.is_dir() and any((data_dir / "corpora").glob("wordnet*")):
            return data_dir
    return None


@lru_cache(maxsize=1)
def _wordnet() -> Any:
    """nltk's WordNet reader over the installed data, or None (it is never downloaded)."""
    data_dir = wordnet_data_dir()
    if data_dir is None:
        return None
    try:
        import nltk.data
        from nltk.corpus.reader.wordnet import WordNetCorpusReader

        root = nltk.data.find("corpora/wordnet", paths=[str(data_dir)])
        with warnings.catch_warnings():
            # "multilingual functions are not available": METEOR reads English synsets only.
            warnings.simplefilter("ignore", UserWarning)
            return WordNetCorpusReader(root, None)
    except (LookupError, OSError, ImportError, ValueError):
        return None


def wordnet_available() -> bool:
    """Whether nltk's WordNet data loads from this machine: the synonym module then runs."""
    return _wordnet() is not None


def forget_wordnet() -> None:
    """Look for WordNet afresh on the next use (data installed or moved while running)."""
    _wordnet.cache_clear()
    _synsets.cache_clear()


def modules(language: str, *, synonyms: bool = True) -> tuple[str, ...]:
    """The matching stages that run: exact, stem, and synonym when WordNet is there."""
    if language == NO_STEMMER:
        return ("exact",)
    stages = ["exact", "stem"]
    if synonyms and language == "english" and wordnet_available():
        stages.append("synonym")
    return tuple(stages)


@lru_cache(maxsize=200_000)
def _synsets(word: str) -> frozenset[str]:
    # WordNet's own lemmatiser (morphy) maps inflected forms to their synsets.
    return frozenset(synset.name() for synset in _wordnet().synsets(word))


def _crossings(links: Sequence[Link], candidate: Sequence[Link]) -> int:
    return sum((h - h2) * (r - r2) < 0 for h, r in candidate for h2, r2 in links)


def _align_group(
    hyp_positions: list[int], ref_positions: list[int], links: list[Link]
) -> list[Link]:
    """Order-preserving links for one word type, choosing the occurrences of the more
    frequent side that cross the fewest existing links."""
    k = min(len(hyp_positions), len(ref_positions))
    if len(hyp_positions) == len(ref_positions):
        return list(zip(hyp_positions, ref_positions, strict=True))
    hyp_longer = len(hyp_positions) > len(ref_positions)
    longer, shorter = (
        (hyp_positions, ref_positions) if hyp_longer else (ref_positions, hyp_positions)
    )
    best: list[Link] = []
    best_cost = -1
    subsets = list(combinations(longer, k)) if _few_subsets(len(longer), k) else []
    if not subsets:
        # Too many choices: the occurrences nearest the other side's first one.
        subsets = [tuple(sorted(sorted(longer, key=lambda p: abs(p - shorter[0]))[:k]))]
    for subset in subsets:
        pairs = zip(subset, shorter, strict=True)
        candidate = [(a, b) if hyp_longer else (b, a) for a, b in pairs]
        cost = _crossings(links, candidate)
        if best_cost < 0 or cost < best_cost:
            best, best_cost = candidate, cost
    return best


def _few_subsets(n: int, k: int) -> bool:
    from math import comb

    return comb(n, k) <= _MAX_SUBSETS


def align(
    hypothesis: Tokens, reference: Tokens, stages: Sequence[str], language: str = "english"
) -> list[Link]:
    """(hypothesis position, reference position) links, sorted by hypothesis position."""
    links: list[Link] = []
    free_h = set(range(len(hypothesis)))
    free_r = set(range(len(reference)))
    for stage in stages:
        if not free_h or not free_r:
            break
        if stage == "synonym":
            new = _synonym_links(hypothesis, reference, free_h, free_r)
        else:
            key = (lambda w: w) if stage == "exact" else stemmer(language)
            groups: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
            for i in sorted(free_h):
                groups[key(hypothesis[i])][0].append(i)
            for j in sorted(free_r):
                if (word := key(reference[j])) in groups:
                    groups[word][1].append(j)
            matched = [g for g in groups.values() if g[1]]
            # Unambiguous words first: they constrain the choice for repeated ones.
            matched.sort(key=lambda g: (len(g[0]) + len(g[1]) > 2, g[0][0]))
            new = []
            for hyp_positions, ref_positions in matched:
                new += _align_group(hyp_positions, ref_positions, links + new)
        links += new
        free_h -= {h for h, _ in new}
        free_r -= {r for _, r in new}
    return sorted(links)


def _synonym_links(
    hypothesis: Tokens, reference: Tokens, free_h: set[int], free_r: set[int]
) -> list[Link]:
    links: list[Link] = []
    taken: set[int] = set()
    for i in sorted(free_h):
        senses = _synsets(hypothesis[i])
        options = [j for j in sorted(free_r - taken) if senses & _synsets(reference[j])]
        if options:
            j = min(options, key=lambda j: abs(j - i))
            links.append((i, j))
            taken.add(j)
    return links


def count_chunks(links: Sequence[Link]) -> int:
    """Runs of links adjacent in both sentences (links sorted by hypothesis position)."""
    chunks = 0
    previous: Link | None = None
    for h, r in links:
        if previous is None or h != previous[0] + 1 or r != previous[1] + 1:
            chunks += 1
        previous = (h, r)
    return chunks


def score_columns(cols: NDArray[np.floating]) -> NDArray[np.floating]:
    """METEOR (0-100) from column-major summed statistics."""
    matches, chunks, hyp_len, ref_len = (c.astype(np.float64) for c in cols)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = matches / hyp_len
        recall = matches / ref_len
        fmean = precision * recall / (ALPHA * precision + (1 - ALPHA) * recall)
        penalty = GAMMA * (chunks / matches) ** BETA
        score = 100 * fmean * (1 - penalty)
    return np.where(matches > 0, score, 0.0)


def extract(
    hypotheses: list[Tokens],
    references: list[list[Tokens]],
    *,
    language: str = "english",
    synonyms: bool = True,
) -> NDArray[np.float64]:
    """Per-segment (matches, chunks, hypothesis length, reference length)."""
    stages = modules(check_language(language), synonyms=synonyms)
    out = np.zeros((len(hypotheses), N_STATS))
    for row, (hypothesis, refs) in enumerate(zip(hypotheses, references, strict=True)):
        best = None
        for reference in refs:
            links = align(hypothesis, reference, stages, language)
            stats = np.array([len(links), count_chunks(links), len(hypothesis), len(reference)])
            value = score_columns(stats[:, None].astype(np.float64))[0]
            if best is None or value > best[0]:
                best = (value, stats)
        assert best is not None
        out[row] = best[1]
    return out
