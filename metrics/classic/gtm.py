"""GTM, the General Text Matcher (Turian, Shen and Melamed 2003).

The maximum matching size rewards runs of words matched in the same order: for runs (aligned
blocks contiguous in both sentences) of lengths l_k, MMS = (Σ l_k^e)^(1/e). Runs are taken
greedily, longest first (GTM's own approximation; ties go to the earliest in the hypothesis),
among words not yet matched. P = MMS / |hypothesis|, R = MMS / |reference|, GTM = 2PR / (P + R)
on 0-100. With e = 1 the MMS is the number of words in common.

The corpus is matched as one text whose runs never cross a sentence boundary, so it
decomposes: per segment Σ l_k^e, the hypothesis length and the reference length; a segment
keeps its best reference (by its own GTM). Default e = 1 (GTM-1, of Asiya's GTM-1..GTM-3), in
the signature: with e > 1 a corpus score shrinks as the corpus grows, since runs stop at
sentence ends (sqrt(Σ l²) of a thousand sentences is far below their word count), so the
registry scores e = 1 and ``extract``/``score_columns`` take other exponents.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Final

import numpy as np
from numpy.typing import NDArray

from metrics.classic._text import Tokens

EXPONENT: Final = 1.0
N_STATS: Final = 3  # Σ run length ** e, hypothesis length, reference length
SIGNATURE: Final = f"e:{EXPONENT:g}"


def _diagonals(hypothesis: Tokens, reference: Tokens) -> list[tuple[int, int, int]]:
    """Maximal blocks of matching words, (hypothesis start, reference start, length)."""
    positions: dict[str, list[int]] = defaultdict(list)
    for j, word in enumerate(reference):
        positions[word].append(j)
    blocks = []
    for i, word in enumerate(hypothesis):
        for j in positions.get(word, ()):
            if i > 0 and j > 0 and hypothesis[i - 1] == reference[j - 1]:
                continue  # inside a block that starts earlier
            k = 1
            while (
                i + k < len(hypothesis)
                and j + k < len(reference)
                and hypothesis[i + k] == reference[j + k]
            ):
                k += 1
            blocks.append((i, j, k))
    return blocks


def runs(hypothesis: Tokens, reference: Tokens) -> list[int]:
    """Lengths of the greedy runs, longest first (ties: the earliest in the hypothesis, then
    in the reference). Each round scans only the matching blocks, not the whole word grid,
    so document-length segments stay quick."""
    blocks = _diagonals(hypothesis, reference)
    free_h = [True] * len(hypothesis)
    free_r = [True] * len(reference)
    lengths: list[int] = []
    while True:
        best, start = 0, (0, 0)
        alive = []
        for i, j, k in blocks:
            run = 0
            has_free = False
            for d in range(k):
                if not (free_h[i + d] and free_r[j + d]):
                    run = 0
                    continue
                run += 1
                has_free = True
                begin = (i + d - run + 1, j + d - run + 1)
                if run > best or (run == best and begin < start):
                    best, start = run, begin
            if has_free:  # blocks taken whole are dropped
                alive.append((i, j, k))
        blocks = alive
        if best == 0:
            return lengths
        for d in range(best):
            free_h[start[0] + d] = False
            free_r[start[1] + d] = False
        lengths.append(best)


def score_columns(cols: NDArray[np.floating], exponent: float = EXPONENT) -> NDArray[np.float64]:
    """GTM (0-100) from column-major summed statistics."""
    powered, hyp_len, ref_len = cols.astype(np.float64)
    size = powered ** (1 / exponent)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision, recall = size / hyp_len, size / ref_len
        score = 200 * precision * recall / (precision + recall)
    return np.where(size > 0, score, 0.0)


def extract(
    hypotheses: list[Tokens], references: list[list[Tokens]], *, exponent: float = EXPONENT
) -> NDArray[np.float64]:
    out = np.zeros((len(hypotheses), N_STATS))
    for row, (hypothesis, refs) in enumerate(zip(hypotheses, references, strict=True)):
        options = []
        for reference in refs:
            powered = sum(length**exponent for length in runs(hypothesis, reference))
            stats = np.array([powered, len(hypothesis), len(reference)], dtype=np.float64)
            options.append((score_columns(stats[:, None], exponent)[0], stats))
        out[row] = max(options, key=lambda option: option[0])[1]
    return out
