"""ESA system rankings as WMT24 computes them (Kocmi et al., 2024).

A segment's score is the mean of its raw 0-100 judgments; a system's score is the mean of its
segments' scores within each domain, averaged over the domains (a plain mean of its segments
when there are no domains). Higher is better. System pairs are tested with the one-sided
Wilcoxon signed-rank test on shared segments per domain, combined with Stouffer's method
(``metrics.spans.significance``); clusters and rank ranges are DA's (``wmt_clusters``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from metrics.spans.ranked import ranked_rows
from metrics.spans.significance import p_value_table, paired_wilcoxon_greater


@dataclass(frozen=True)
class EsaSystemScore:
    system: str
    score: float
    interval: tuple[float, float]
    segments: int
    judgments: int
    wins: int
    cluster: int
    rank_range: tuple[int, int]
    # WMT26's clusters between neighbours (``cluster`` holds its global ones); else None.
    local_cluster: int | None = None
    # WMT25's per-domain columns: the system's mean in each domain; else empty.
    domain_scores: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class EsaRanking:
    """Systems best first; ``p_values[a][b]``: a better than b (one-sided, Stouffer over
    domains); ``domains`` lists the domains averaged over (empty when there are none).
    ``procedure`` names how it was ranked (``metrics.spans.esa_wmt.PROCEDURES``)."""

    systems: list[EsaSystemScore]
    p_values: dict[str, dict[str, float]]
    domains: list[str]
    procedure: str = "wmt24"


def rank_esa(
    scores: ArrayLike,
    systems: Sequence[str],
    segments: Sequence[str],
    *,
    domains: Sequence[str] | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
    alpha: float = 0.05,
) -> EsaRanking:
    """Rank systems from one entry per judgment (the ranked items only: no quality checks).

    ``segments`` identifies what two systems' outputs have in common (the source segment);
    ``domains`` gives each judgment's domain, the same for every judgment of a segment.
    Intervals: percentile bootstrap resampling segments within each (system, domain).
    """
    # Imported here: metrics.rankings loads scipy.stats, and metrics.spans stays quick to import.
    from metrics.rankings._resample import percentiles, resampled_group_means
    from metrics.rankings.likert import segment_scores, wmt_clusters

    raw = np.asarray(scores, dtype=np.float64)
    if not raw.size == len(systems) == len(segments):
        raise ValueError("scores, systems and segments need one entry per judgment")
    if raw.size == 0:
        raise ValueError("no judgments to rank")
    if not np.isfinite(raw).all():
        raise ValueError("scores must be finite numbers")
    names, sys_codes = np.unique(np.asarray(systems, dtype=str), return_inverse=True)
    seg_names, seg_codes = np.unique(np.asarray(segments, dtype=str), return_inverse=True)
    sys_codes, seg_codes = sys_codes.reshape(-1), seg_codes.reshape(-1)
    domain_names: list[str] = []
    segment_domain = np.zeros(seg_names.size, dtype=np.int64)
    if domains is not None:
        if len(domains) != raw.size:
            raise ValueError("domains need one entry per judgment")
        unique_domains, dom_codes = np.unique(np.asarray(domains, dtype=str), return_inverse=True)
        domain_names = [str(d) for d in unique_domains]
        segment_domain[seg_codes] = dom_codes.reshape(-1)
        if np.any(segment_domain[seg_codes] != dom_codes.reshape(-1)):
            raise ValueError("a segment's judgments carry different domains")
    n_systems, n_domains = names.size, max(len(domain_names), 1)
    per_segment = segment_scores(raw, sys_codes, seg_codes)
    seg_domain = segment_domain[per_segment.segment]
    group = per_segment.system * n_domains + seg_domain
    n_groups = n_systems * n_domains
    with np.errstate(invalid="ignore", divide="ignore"):
        domain_means = (
            np.bincount(group, weights=per_segment.mean, minlength=n_groups)
            / np.bincount(group, minlength=n_groups)
        ).reshape(n_systems, n_domains)
        means = np.nanmean(domain_means, axis=1)
        replicates = resampled_group_means(per_segment.mean, group, n_groups, n_boot, seed)
        by_system = np.nanmean(replicates.reshape(n_systems, n_domains, -1), axis=1)
    low, high = percentiles(by_system, confidence)
    p = paired_wilcoxon_greater(
        per_segment.mean, per_segment.system, per_segment.segment, n_systems, seg_domain
    )
    clusters = wmt_clusters(means, p, alpha=alpha)
    return EsaRanking(
        systems=ranked_rows(
            EsaSystemScore,
            names,
            means,
            (low, high),
            np.bincount(per_segment.system, minlength=n_systems),
            np.bincount(sys_codes, minlength=n_systems),
            clusters,
            lower_is_better=False,
        ),
        p_values=p_value_table(names, p),
        domains=domain_names,
    )
