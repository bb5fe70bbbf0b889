"""compare-mt's buckets: half-open ranges between cutoffs, labelled as compare-mt labels them."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence

# compare-mt's defaults (``bucketers.py``).
LENGTH_CUTOFFS = (10, 20, 30, 40, 50, 60)  # reference length in words
FREQUENCY_CUTOFFS = (1, 2, 3, 4, 5, 10, 100, 1000)  # occurrences of the word in the reference
# output length minus reference length, in words
LENGTH_DIFFERENCE_CUTOFFS = (-20, -10, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 11, 21)


def bucket_labels(cutoffs: Sequence[int]) -> list[str]:
    """``<c0``, then ``[a,b)`` (or ``a`` when the range holds one integer), then ``>=c_last``."""
    if not cutoffs or list(cutoffs) != sorted(set(cutoffs)):
        raise ValueError("bucket cutoffs must be a non-empty increasing sequence")
    labels = [f"<{cutoffs[0]}"]
    for low, high in itertools.pairwise(cutoffs):
        labels.append(f"{low}" if high - 1 == low else f"[{low},{high})")
    labels.append(f">={cutoffs[-1]}")
    return labels


def bucket_of(value: float, cutoffs: Sequence[int]) -> int:
    """Index of the bucket of ``value``: the number of cutoffs at or below it."""
    return bisect.bisect_right(cutoffs, value)
