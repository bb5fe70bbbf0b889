"""Inter- and intra-annotator agreement for Likert, pairwise and ranking judgments.

``wmt_kappa`` is the WMT13-16 coefficient over pairwise labels expanded from rankings
(``ranking_labels``), by default as the WMT organisers' script computed it (items keyed by the
order the ranking listed the systems in); the standard coefficients (Cohen, weighted Cohen,
Fleiss, Krippendorff) work on parallel ``items`` / ``annotators`` / ``labels`` arrays. Every
result is a ``Kappa`` with its Landis-Koch label, the number of items it rests on and a seeded
bootstrap interval.
"""

from metrics.agreement._common import Kappa, landis_koch
from metrics.agreement.coefficients import (
    cohen_kappa,
    fleiss_kappa,
    inter_annotator_cohen,
    intra_annotator_cohen,
    krippendorff_alpha,
)
from metrics.agreement.wmt import (
    GREATER,
    ITEM_ORDERS,
    LESS,
    LISTED,
    ORDER_FREE,
    TIE,
    ItemOrder,
    PairLabels,
    Ranking,
    ranking_labels,
    wmt_kappa,
)

__all__ = [
    "GREATER",
    "ITEM_ORDERS",
    "LESS",
    "LISTED",
    "ORDER_FREE",
    "TIE",
    "ItemOrder",
    "Kappa",
    "PairLabels",
    "Ranking",
    "cohen_kappa",
    "fleiss_kappa",
    "inter_annotator_cohen",
    "intra_annotator_cohen",
    "krippendorff_alpha",
    "landis_koch",
    "ranking_labels",
    "wmt_kappa",
]
