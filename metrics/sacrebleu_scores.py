"""BLEU, chrF and TER from summed sacrebleu statistics, vectorised over rows.

The functions take the sums column-major, one row per statistic (n_stats, n_rows), and repeat
sacrebleu's ``_compute_score_from_stats`` operation by operation (see ``metrics.automatic``).
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import NDArray

BLEU_ORDER: Final = 4
CHRF_BETA: Final = 2
# sacrebleu's ``my_log(0)``: a floor that drives the geometric mean to zero.
LOG_ZERO: Final = -9999999999.0

FloatArray = NDArray[np.floating]

# Scores from summed statistics. The functions below take the sums column-major, one row per
# statistic (n_stats, n_rows), and repeat sacrebleu's ``_compute_score_from_stats`` operation by
# operation. The arithmetic follows the dtype of the sums as sacrebleu's scalar code does under
# NumPy 2 promotion: float32 sums (what sacrebleu's bootstrap feeds it) give float32 precisions,
# so resampled scores are bit-identical to sacrebleu's; other dtypes are computed in float64.


def bleu_columns(cols: FloatArray, *, plus_one: bool = False) -> NDArray[np.float64]:
    dtype = cols.dtype.type
    hyp_len = cols[0].astype(np.float64)
    ref_len = cols[1].astype(np.float64)
    correct = cols[2 : 2 + BLEU_ORDER]
    total = cols[2 + BLEU_ORDER : 2 + 2 * BLEU_ORDER]
    any_match = (correct != 0).any(axis=0)
    if plus_one:
        # Lin and Och (2004): add one to both counts for n > 1.
        correct, total = correct.copy(), total.copy()
        correct[1:] += dtype(1)
        total[1:] += dtype(1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        precision = dtype(100) * correct / total
        zero = correct == 0
        empty = total == 0
        if zero.any() or empty.any():
            # sacrebleu stops at the first order without n-grams (its precision and the
            # following ones stay 0); with NIST "exp" smoothing, each order without a match
            # halves a pseudo-precision of 100 / total.
            stopped = np.logical_or.accumulate(empty, axis=0)
            if plus_one:
                smoothed = np.zeros_like(precision)
            else:
                halvings = np.cumsum(zero & ~stopped, axis=0).astype(np.int32)
                smoothed = dtype(100) / (np.ldexp(np.ones_like(total), halvings) * total)
            precision = np.where(zero, smoothed, precision)
            precision = np.where(stopped, dtype(0), precision)
        positive = precision > 0
        logs = np.log(precision.astype(np.float64))
        if not positive.all():
            logs = np.where(positive, logs, LOG_ZERO)
        log_sum = logs[0]
        for n in range(1, BLEU_ORDER):  # sacrebleu adds the logs in order
            log_sum = log_sum + logs[n]
        short = np.exp(1.0 - ref_len / hyp_len)
        brevity = np.where(hyp_len < ref_len, np.where(hyp_len > 0, short, 0.0), 1.0)
        score = brevity * np.exp(log_sum / BLEU_ORDER)
    return np.where(any_match, score, 0.0)


def chrf_columns(cols: FloatArray) -> FloatArray:
    dtype = cols.dtype.type
    factor = dtype(CHRF_BETA**2)
    n_hyp, n_ref, n_match = cols[0::3], cols[1::3], cols[2::3]
    # sacrebleu's default "effective order": orders without n-grams are left out.
    valid = (n_hyp > 0) & (n_ref > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = n_match / n_hyp
        rec = n_match / n_ref
        if not valid.all():
            prec = np.where(valid, prec, dtype(0))
            rec = np.where(valid, rec, dtype(0))
        avg_prec, avg_rec = prec[0], rec[0]
        for i in range(1, len(prec)):  # summed in order, as sacrebleu does
            avg_prec = avg_prec + prec[i]
            avg_rec = avg_rec + rec[i]
        effective = valid.sum(axis=0).astype(dtype)
        avg_prec = np.where(effective > 0, avg_prec / effective, dtype(0))
        avg_rec = np.where(effective > 0, avg_rec / effective, dtype(0))
        score = (factor + dtype(1)) * avg_prec * avg_rec
        score = dtype(100) * (score / (factor * avg_prec + avg_rec))
    return np.where(avg_prec + avg_rec != 0, score, dtype(0))


def ter_columns(cols: FloatArray) -> FloatArray:
    dtype = cols.dtype.type
    edits, ref_len = cols[0], cols[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(ref_len > 0, edits / ref_len, np.where(edits > 0, dtype(1), dtype(0)))
    return dtype(100) * rate
