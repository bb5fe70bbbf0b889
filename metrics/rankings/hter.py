"""HTER per system: mean segment HTER and corpus HTER, with bootstrap intervals.

Input convention: one entry per post-edit, ``systems`` as integer codes, ``edits`` the number
of edits turning the output into its post-edit and ``lengths`` the post-edit's length in words
(the reference length of TER), and optionally ``segments`` coding which segment the output is
of. Several post-edits of one output (several annotators) are one segment: its HTER is their
mean, and it is drawn whole by the bootstrap, as the Likert rankings draw segments. HTER is in
percent, the unit sacrebleu gives TER in (25.0 for one edit in four words); a segment with an
empty post-edit has HTER 0 without edits and 100 with edits, as sacrebleu's TER scores it
(``metrics.postedit.segment_hter``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from metrics.postedit import segment_hter
from metrics.rankings._resample import percentiles, resampled_group_means


@dataclass(frozen=True)
class HterScore:
    system: int
    segments: int
    mean_hter: float
    mean_interval: tuple[float, float]
    corpus_hter: float
    corpus_interval: tuple[float, float]


def hter_by_system(
    systems: ArrayLike,
    edits: ArrayLike,
    lengths: ArrayLike,
    *,
    segments: ArrayLike | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> list[HterScore]:
    """Mean segment HTER and corpus HTER (total edits / total post-edit words) per system.

    Without ``segments`` every post-edit is a segment of its own. Intervals resample each
    system's segments (with all their post-edits); both statistics share the same draws (the
    corpus ratio is the ratio of the resampled mean edits to the resampled mean length).
    """
    row_system = np.asarray(systems, dtype=np.int64)
    e = np.asarray(edits, dtype=np.float64)
    n = np.asarray(lengths, dtype=np.float64)
    n_systems = int(row_system.max(initial=-1)) + 1
    if segments is None:
        unit = np.arange(row_system.size)
    else:
        seg = np.asarray(segments, dtype=np.int64)
        n_seg = int(seg.max(initial=0)) + 1
        unit = np.unique(row_system * n_seg + seg, return_inverse=True)[1].reshape(-1)
    # One row per segment: its mean HTER, total edits and total post-edit words.
    n_units = int(unit.max(initial=-1)) + 1
    per_unit = np.bincount(unit, minlength=n_units).astype(np.float64)
    columns = np.column_stack(
        [
            np.bincount(unit, weights=segment_hter(e, n), minlength=n_units) / per_unit,
            np.bincount(unit, weights=e, minlength=n_units),
            np.bincount(unit, weights=n, minlength=n_units),
        ]
    )
    sys_ = np.zeros(n_units, dtype=np.int64)
    sys_[unit] = row_system
    count = np.bincount(sys_, minlength=n_systems)
    sums = np.stack([np.bincount(sys_, weights=c, minlength=n_systems) for c in columns.T], axis=1)
    replicates = resampled_group_means(columns, sys_, n_systems, n_boot, seed)
    # Ratio of resampled means = ratio of resampled totals (empty post-edits as above).
    corpus_replicates = segment_hter(replicates[:, :, 1], replicates[:, :, 2])
    low, high = percentiles(np.stack([replicates[:, :, 0], corpus_replicates], axis=2), confidence)
    result = []
    for s in np.flatnonzero(count):
        corpus = float(segment_hter(sums[s, 1], sums[s, 2]))
        result.append(
            HterScore(
                system=int(s),
                segments=int(count[s]),
                mean_hter=float(sums[s, 0] / count[s]),
                mean_interval=(float(low[s, 0]), float(high[s, 0])),
                corpus_hter=float(corpus),
                corpus_interval=(float(low[s, 1]), float(high[s, 1])),
            )
        )
    return result
