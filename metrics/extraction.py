"""Statistics of several metrics for several systems at once, spread over processes.

Each process takes a share of the systems and extracts every requested metric for them, so
the references are tokenised once per process and metric, and a ULC is assembled from its
components' statistics instead of being extracted again.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
from numpy.typing import NDArray

from metrics import ulc
from metrics.automatic import check_metric, extract_statistics_many, tokenize_applies

Table = dict[str, list[NDArray[np.float64]]]


def base_metrics(metrics: Sequence[str]) -> list[str]:
    """The metrics to extract: the requested ones, ULCs replaced by their components."""
    out: list[str] = []
    for metric in metrics:
        key = check_metric(metric)
        parts = ulc.components(key) if ulc.is_ulc(key) else (key,)
        out += [part for part in parts if part not in out]
    return out


def _extract_share(
    metrics: list[str],
    systems: list[list[str]],
    references: list[list[str]],
    tokenize: str | None,
    lowercase: bool | None,
    language: str | None,
) -> Table:
    return {
        metric: extract_statistics_many(
            metric,
            systems,
            references,
            tokenize=tokenize if tokenize_applies(metric) else None,
            lowercase=lowercase,
            language=language,
        )
        for metric in metrics
    }


def default_jobs(n_systems: int) -> int:
    """One process per available CPU, at most one per system."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cpus or 1, n_systems))


def extract_table(
    metrics: Sequence[str],
    systems: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    tokenize: str | None = None,
    lowercase: bool | None = None,
    language: str | None = None,
    jobs: int = 1,
) -> Table:
    """``{metric: [statistics of each system, in order]}`` for every metric requested.

    ``jobs > 1`` spreads the systems over that many spawned processes (not from a daemonic
    process such as a Celery prefork worker: keep ``jobs=1`` there).
    """
    keys = [check_metric(metric) for metric in metrics]
    bases = base_metrics(keys)
    hyps = [list(system) for system in systems]
    refs = [list(stream) for stream in references]
    jobs = max(1, min(jobs, len(hyps)))
    args = (tokenize, lowercase, language)
    if jobs == 1:
        table = _extract_share(bases, hyps, refs, *args)
    else:
        shares = [hyps[i::jobs] for i in range(jobs)]
        with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(_extract_share, bases, s, refs, *args) for s in shares]
            parts = [future.result() for future in futures]
        table = {}
        for metric in bases:
            arrays: list[NDArray[np.float64]] = [np.empty(0)] * len(hyps)
            for i, part in enumerate(parts):
                arrays[i::jobs] = part[metric]  # undo the round-robin split
            table[metric] = arrays
    for key in keys:
        if ulc.is_ulc(key):
            columns = [table[part] for part in ulc.components(key)]
            table[key] = [np.hstack(row) for row in zip(*columns, strict=True)]
    return {key: table[key] for key in keys}
