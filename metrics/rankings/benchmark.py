"""Timing of the Likert dashboard pipeline on synthetic data.

Run ``python -m metrics.rankings.benchmark``.

Covers z-scores, segment and system means, bootstrap intervals, Wilcoxon clusters and the
annotator quality checks (bad-reference tests, repeats, agreement, median time).
"""

from __future__ import annotations

import time

import numpy as np
from numpy.typing import NDArray

from metrics.quality import annotator_quality
from metrics.rankings.likert import rank_systems


def synthetic_likert(
    n: int = 1_000_000,
    *,
    systems: int = 20,
    annotators: int = 500,
    segments: int = 2_000,
    seed: int = 0,
) -> dict[str, NDArray[np.generic]]:
    """Random 0-100 judgments with system quality, annotator bias and 5% BAD, 2% REPEAT items."""
    rng = np.random.default_rng(seed)
    system = rng.integers(0, systems, n)
    annotator = rng.integers(0, annotators, n)
    segment = rng.integers(0, segments, n)
    quality = np.linspace(40, 80, systems)
    score = quality[system] + rng.normal(0, 15, annotators)[annotator] + rng.normal(0, 20, n)
    kind = np.full(n, "TGT", dtype="<U6")
    draw = rng.random(n)
    kind[draw < 0.05] = "BAD"
    kind[(draw >= 0.05) & (draw < 0.07)] = "REPEAT"
    score[kind == "BAD"] -= 30
    return {
        "score": np.clip(score, 0, 100),
        "annotator": annotator,
        "system": system,
        "segment": segment,
        "kind": kind,
        "seconds": rng.gamma(2.0, 10.0, n),
    }


def run(n: int = 1_000_000, n_boot: int = 1000) -> dict[str, float]:
    """Seconds spent by each stage on ``n`` synthetic judgments."""
    data = synthetic_likert(n)
    tgt = data["kind"] == "TGT"
    start = time.perf_counter()
    rank_systems(
        data["score"][tgt],
        data["annotator"][tgt],
        data["system"][tgt],
        data["segment"][tgt],
        n_boot=n_boot,
    )
    ranked = time.perf_counter()
    annotator_quality(
        data["score"],
        data["annotator"],
        data["system"],
        data["segment"],
        data["kind"],
        seconds=data["seconds"],
    )
    done = time.perf_counter()
    return {
        "rank_systems": ranked - start,
        "annotator_quality": done - ranked,
        "total": done - start,
    }


if __name__ == "__main__":
    for stage, seconds in run().items():
        print(f"{stage:<18} {seconds:6.2f} s")
