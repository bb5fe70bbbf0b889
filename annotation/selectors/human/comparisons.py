"""Pairwise and n-way ranking tasks: win rates, Expected Wins, Bradley-Terry and WMT kappa.

Every judgment becomes a ``Ranking`` of its candidates (a pairwise preference is a ranking of
two; side-by-side 0-100 scores rank by score), each candidate standing for all the systems
whose identical output it shows; ``ranking_labels`` expands them into pairwise labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db.models import F, Func, JSONField
from numpy.typing import NDArray

from annotation.models import Item, ItemType, Task
from annotation.protocols import protocol_for
from annotation.selectors.human.common import (
    N_BOOT,
    SEED,
    Agreement,
    AnnotatorRow,
    agreement_resamples,
)
from annotation.selectors.human.loading import Usernames, task_judgments
from metrics.agreement import (
    LISTED,
    ORDER_FREE,
    PairLabels,
    Ranking,
    fleiss_kappa,
    krippendorff_alpha,
    ranking_labels,
    wmt_kappa,
)
from metrics.quality import annotator_quality, median_by_group
from metrics.rankings import PairwiseScore, count_comparisons, rank_pairwise

MIN_DECIDED = 10


@dataclass(frozen=True)
class Judged:
    """One judgment as a ranking, with who gave it and whether it was a planned repeat."""

    ranking: Ranking
    annotator_id: int
    is_repeat: bool
    seconds: float
    scores: tuple[int, ...] | None = None  # side-by-side scores of the candidates, if given


def candidate_systems(task: Task) -> dict[int, list[list[str]]]:
    """Item id → the systems of each candidate, without fetching the texts."""
    systems = Func(
        F("candidates"),
        function="jsonb_path_query_array",
        template="%(function)s(%(expressions)s, '$[*].systems')",
        output_field=JSONField(),
    )
    return dict(Item.objects.filter(task=task).values_list("id", systems))


def ranks_of(task_type: str, judgment: Mapping[str, Any], size: int) -> list[int] | None:
    """Rank per candidate (1 = best), or None when the judgment compares nothing."""
    if "ranks" in protocol_for(task_type).export_columns:  # the answer ranks the outputs
        return list(judgment["ranks"])
    scores = judgment["candidate_scores"]
    if scores and len(scores) == size:
        # Side-by-side scores: a candidate's rank is 1 + the candidates scored higher.
        return [1 + sum(other > own for other in scores) for own in scores]
    preference = judgment["preference"]
    if size != 2 or preference is None:
        return None
    return {"A": [1, 2], "B": [2, 1], "T": [1, 1]}[preference]


def comparison_data(task: Task, usernames: Usernames) -> list[Judged]:
    """The task's judgments as rankings, in judgment order (the order of the exports)."""
    systems = candidate_systems(task)
    # Attention-check screens (a shuffled output among clean ones) rank no system.
    rows = (
        task_judgments(task)
        .exclude(item__item_type=ItemType.CHK)
        .values(
            "annotator_id",
            "item_id",
            "item__segment__index",
            "preference",
            "ranks",
            "candidate_scores",
            "is_repeat",
            "duration_ms",
        )
    )
    result = []
    for row in rows.iterator(chunk_size=5000):
        outputs = [tuple(names) for names in systems[row["item_id"]]]
        ranks = ranks_of(task.task_type, row, len(outputs))
        if ranks is None:
            continue
        result.append(
            Judged(
                Ranking(
                    segment=str(row["item__segment__index"]),
                    judge=usernames[row["annotator_id"]],
                    outputs=outputs,
                    ranks=ranks,
                ),
                row["annotator_id"],
                row["is_repeat"],
                row["duration_ms"] / 1000.0,
                tuple(row["candidate_scores"]) if row["candidate_scores"] else None,
            )
        )
    return result


@dataclass(frozen=True)
class PairwiseSystem:
    name: str
    score: PairwiseScore


def pairwise_ranking(
    judged: Sequence[Judged], excluded: set[int]
) -> tuple[list[PairwiseSystem], int]:
    """Win rates, Expected Wins and Bradley-Terry (ties dropped) with bootstrap rank ranges
    (judgments resampled, each with all its comparisons), over the judgments of included
    annotators that are not planned repeats; and the number of resamples behind the rank
    ranges.

    A system that never wins (or never loses) has no finite Bradley-Terry strength and the
    fit runs to its iteration limit (tens of milliseconds). Resamples of a system with few
    wins or losses often have none, and a thousand such refits take minutes, so the rank
    ranges are left out (0 resamples) unless every system won and lost ``MIN_DECIDED``
    comparisons, which makes such resamples rare (about e**-MIN_DECIDED of them).
    """
    labels = ranking_labels(
        j.ranking for j in judged if not j.is_repeat and j.annotator_id not in excluded
    )
    if len(labels) == 0:
        return [], 0
    n_systems = len(labels.systems)
    wins = count_comparisons(labels.system_a, labels.system_b, labels.label, n_systems).wins
    decided = min(wins.sum(axis=1).min(), wins.sum(axis=0).min())
    n_boot = N_BOOT if decided >= MIN_DECIDED else 0
    ranking = rank_pairwise(
        labels.system_a,
        labels.system_b,
        labels.label,
        n_systems,
        judgments=labels.ranking,
        n_boot=n_boot,
        seed=SEED,
    )
    return [PairwiseSystem(labels.systems[s.system], s) for s in ranking], n_boot


# The WMT kappa's two definitions of an item (``metrics.agreement.wmt``): the WMT organisers'
# (pairs of systems in the order the item displays them, as published) first, then the
# order-free variant, labelled as such.
WMT_KAPPA_VARIANTS = ((LISTED, ""), (ORDER_FREE, " (order-free)"))


def comparison_agreement(judged: Sequence[Judged], excluded: set[int]) -> list[Agreement]:
    """WMT inter- and intra-annotator kappa over every label (repeats included, as WMT
    counted them), as the WMT organisers computed it and order-free; and Fleiss' kappa and
    nominal Krippendorff's alpha over the first judgments when some pair of outputs has more
    than two annotators (standard coefficients: an item is a pair of outputs in either
    order)."""
    counted = [j for j in judged if j.annotator_id not in excluded]
    result = []
    every = ranking_labels(j.ranking for j in counted)
    if len(every):
        boot = agreement_resamples(len(every))
        annotators = len(every.judges)
        for item_order, suffix in WMT_KAPPA_VARIANTS:
            for kind in ("inter", "intra"):
                kappa = wmt_kappa(
                    every, intra=kind == "intra", item_order=item_order, n_boot=boot, seed=SEED
                )
                if kappa.items:
                    name = f"WMT kappa, {kind}-annotator{suffix}"
                    result.append(Agreement("preference", name, kappa, boot, annotators))
    first = ranking_labels(j.ranking for j in counted if not j.is_repeat)
    if len(first) and _most_judges(first) > 2:
        items = first.item_codes()
        boot = agreement_resamples(len(first))
        for name, coefficient in (
            ("Fleiss' kappa", fleiss_kappa),
            ("Krippendorff's alpha (nominal)", krippendorff_alpha),
        ):
            result.append(
                Agreement(
                    "preference",
                    name,
                    coefficient(items, first.judge, first.label, n_boot=boot, seed=SEED),
                    boot,
                    len(first.judges),
                )
            )
    return result


def _most_judges(labels: PairLabels) -> int:
    n_judges = max(len(labels.judges), 1)
    pairs = np.unique(labels.item_codes() * n_judges + labels.judge)
    return int(np.unique(pairs // n_judges, return_counts=True)[1].max(initial=0))


def comparison_quality(
    judged: Sequence[Judged], usernames: Usernames, excluded: set[int]
) -> list[AnnotatorRow]:
    """Per annotator: judgments, median time, exact agreement of their pairwise labels with
    other annotators' on the same pair of outputs, and consistency on their repeats."""
    if not judged:
        return []
    ids = sorted({j.annotator_id for j in judged})
    code = {annotator_id: i for i, annotator_id in enumerate(ids)}
    owner = np.array([code[j.annotator_id] for j in judged], dtype=np.int64)
    seconds = np.array([j.seconds for j in judged], dtype=np.float64)
    counts = np.bincount(owner, minlength=len(ids))
    medians = median_by_group(seconds, owner, len(ids))
    first = ranking_labels(j.ranking for j in judged if not j.is_repeat)
    repeats = ranking_labels(j.ranking for j in judged if j.is_repeat)
    arrays = [_global_codes(first, code, usernames, ids)]
    if len(repeats):
        arrays.append(_global_codes(repeats, code, usernames, ids))
    judge = np.concatenate([a[0] for a in arrays])
    item = np.concatenate([a[1] for a in arrays])
    label = np.concatenate([a[2] for a in arrays])
    kinds = np.array(["TGT"] * len(first) + ["REPEAT"] * len(repeats))
    _, item = np.unique(item, return_inverse=True)
    # Each pair of outputs is an "item" with the label as its score: agreement with others
    # is then the share of equal labels, and repeat consistency the share kept.
    quality = {
        q.annotator: q
        for q in annotator_quality(
            label.astype(np.float64), judge, item.reshape(-1), np.zeros_like(judge), kinds
        )
    }
    return [
        AnnotatorRow(
            annotator_id=annotator_id,
            username=usernames[annotator_id],
            excluded=annotator_id in excluded,
            judgments=int(counts[i]),
            median_seconds=float(medians[i]),
            quality=quality[i],
        )
        for i, annotator_id in enumerate(ids)
        if i in quality
    ]


def _global_codes(
    labels: PairLabels, code: dict[int, int], usernames: Usernames, ids: list[int]
) -> tuple[NDArray[np.int64], NDArray[Any], NDArray[np.int64]]:
    """Annotator codes, (segment, system A, system B) keys and labels of one expansion."""
    by_name = {usernames[i]: code[i] for i in ids}
    judge = np.array([by_name[name] for name in labels.judges], dtype=np.int64)[labels.judge]
    segments = np.array([str(s) for s in labels.segments], dtype=object)
    systems = np.array(labels.systems, dtype=object)
    item = (
        segments[labels.segment] + "\t" + systems[labels.system_a] + "\t" + systems[labels.system_b]
    )
    return judge, item.astype(str), labels.label
