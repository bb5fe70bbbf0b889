"""Human system rankings: direct assessment / Likert, pairwise comparisons, HTER, and ESA
rankings as WMT25 (``wmt25``) and WMT26 (``wmt26``) computed them.

All functions take parallel NumPy arrays with integer-coded systems, annotators and segments
(see each module's docstring) and return plain dataclasses indexed by those codes.
"""

from metrics.rankings.hter import HterScore, hter_by_system, segment_hter
from metrics.rankings.likert import (
    Clusters,
    SegmentScores,
    SystemScore,
    bootstrap_system_means,
    mannwhitney_greater,
    rank_systems,
    segment_scores,
    wmt_clusters,
    z_scores,
)
from metrics.rankings.pairwise import (
    Comparisons,
    PairwiseScore,
    bradley_terry,
    count_comparisons,
    expected_wins,
    rank_pairwise,
    win_rates,
)
from metrics.rankings.wmt25 import Wmt25Ranking, Wmt25System, rank_wmt25
from metrics.rankings.wmt26 import Wmt26System, item_scores, rank_wmt26

__all__ = [
    "Clusters",
    "Comparisons",
    "HterScore",
    "PairwiseScore",
    "SegmentScores",
    "SystemScore",
    "Wmt25Ranking",
    "Wmt25System",
    "Wmt26System",
    "bootstrap_system_means",
    "bradley_terry",
    "count_comparisons",
    "expected_wins",
    "hter_by_system",
    "item_scores",
    "mannwhitney_greater",
    "rank_pairwise",
    "rank_systems",
    "rank_wmt25",
    "rank_wmt26",
    "segment_hter",
    "segment_scores",
    "win_rates",
    "wmt_clusters",
    "z_scores",
]
