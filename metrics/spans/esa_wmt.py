"""ESA rankings by the procedure WMT used in a given year, all returning an ``EsaRanking``.

``wmt24`` is ``metrics.spans.esa.rank_esa``; ``wmt25`` and ``wmt26`` put one entry per
judgment into the tables of ``metrics.rankings.wmt25`` / ``wmt26``. Neither of those computes
a confidence interval, so their intervals are NaN; ``wins`` (systems beaten) is the number
of systems below the system's rank range.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from metrics.spans.esa import EsaRanking, EsaSystemScore

PROCEDURES = {
    "wmt24": "WMT24: the mean of domain means; one-sided Wilcoxon signed-rank tests per domain"
    " combined with Stouffer's method (p < 0.05), DA clusters",
    "wmt25": "WMT25: the raw mean of all judgments; rank ranges from one-sided Wilcoxon"
    " signed-rank tests against the neighbours, both annotation waves cross-paired (p < 0.025);"
    " clusters where rank ranges stop overlapping; a column per domain",
    "wmt26": "WMT26: the mean of item means; significantly better when a one-sided 95% BCa"
    " bootstrap of the paired differences, or else of the difference of means, excludes 0"
    " (100 resamples, fixed seed); global clusters, and local ones between neighbours",
}
DEFAULT_PROCEDURE = "wmt24"
NO_INTERVAL = (math.nan, math.nan)


def _codes(values: Sequence[str]) -> tuple[list[str], np.ndarray]:
    names, codes = np.unique(np.asarray(values, dtype=str), return_inverse=True)
    return [str(name) for name in names], codes.reshape(-1)


def rank_esa_wmt25(
    scores: Sequence[float],
    systems: Sequence[str],
    segments: Sequence[str],
    *,
    domains: Sequence[str] | None = None,
) -> EsaRanking:
    """WMT25 from one entry per judgment, in the order the judgments were made: an output's
    first judgment is its wave 1, its second wave 2, and so on."""
    from metrics.rankings.wmt25 import rank_wmt25

    raw = np.asarray(scores, dtype=np.float64)
    if not raw.size == len(systems) == len(segments):
        raise ValueError("scores, systems and segments need one entry per judgment")
    if raw.size == 0:
        raise ValueError("no judgments to rank")
    names, sys_codes = _codes(systems)
    seg_names, seg_codes = _codes(segments)
    seen: dict[tuple[int, int], int] = {}
    waves = np.empty(raw.size, dtype=np.int64)
    for k, key in enumerate(zip(sys_codes.tolist(), seg_codes.tolist(), strict=True)):
        waves[k] = seen.get(key, 0)
        seen[key] = waves[k] + 1
    table = np.full((len(names), int(waves.max()) + 1, len(seg_names)), np.nan)
    table[sys_codes, waves, seg_codes] = raw
    item_domains = None
    if domains is not None:
        segment_domain = [""] * len(seg_names)
        for code, domain in zip(seg_codes.tolist(), domains, strict=True):
            segment_domain[code] = domain
        item_domains = segment_domain
    ranking = rank_wmt25(table, domains=item_domains)
    n = len(names)
    p = ranking.p_values
    return EsaRanking(
        systems=[
            EsaSystemScore(
                system=names[s.system],
                score=s.mean,
                interval=NO_INTERVAL,
                segments=s.items,
                judgments=s.judgments,
                wins=n - s.rank_range[1],
                cluster=s.cluster,
                rank_range=s.rank_range,
                domain_scores=s.domain_means,
            )
            for s in ranking.systems
        ],
        p_values={
            names[a]: {names[b]: float(p[a, b]) for b in range(n) if b != a} for a in range(n)
        },
        domains=ranking.domains,
        procedure="wmt25",
    )


def rank_esa_wmt26(
    scores: Sequence[float], systems: Sequence[str], segments: Sequence[str], *, seed: int = 0
) -> EsaRanking:
    """WMT26 from one entry per judgment; items (segments) in sorted order, systems with
    equal scores by name."""
    from metrics.rankings.wmt26 import item_scores, rank_wmt26

    raw = np.asarray(scores, dtype=np.float64)
    if not raw.size == len(systems) == len(segments):
        raise ValueError("scores, systems and segments need one entry per judgment")
    if raw.size == 0:
        raise ValueError("no judgments to rank")
    names, sys_codes = _codes(systems)
    seg_names, seg_codes = _codes(segments)
    table = item_scores(raw, sys_codes, seg_codes, len(names), len(seg_names))
    judgments = np.bincount(sys_codes, minlength=len(names))
    ranking = rank_wmt26(table, seed=seed)
    n = len(names)
    return EsaRanking(
        systems=[
            EsaSystemScore(
                system=names[s.system],
                score=s.mean,
                interval=NO_INTERVAL,
                segments=s.items,
                judgments=int(judgments[s.system]),
                wins=n - s.rank_range[1],
                cluster=s.cluster,
                rank_range=s.rank_range,
                local_cluster=s.local_cluster,
            )
            for s in ranking
        ],
        p_values={},  # decided by bootstrap intervals, not p-values
        domains=[],
        procedure="wmt26",
    )


# How each procedure differs from the others, in a few words (the page's one sentence).
_CONTRASTS = {
    "wmt24": "WMT24 averages domain means and combines per-domain Wilcoxon signed-rank tests"
    " with Stouffer's method",
    "wmt25": "WMT25 takes the raw mean of all judgments and ranks by Wilcoxon signed-rank"
    " tests against neighbours, both waves cross-paired, at p < 0.025",
    "wmt26": "WMT26 averages item means and calls a system better when a paired or an"
    " unpaired bootstrap interval excludes 0",
}


def procedure_sentence(procedure: str) -> str:
    """Which procedure a table uses and how the others differ, in one sentence."""
    others = [text for name, text in _CONTRASTS.items() if name != procedure]
    return (
        f"This table ranks as {_CONTRASTS[procedure]}; {'; '.join(others)}; Likert and DA"
        " tasks rank as WMT21 (z-scores, Wilcoxon rank-sum)."
    )
