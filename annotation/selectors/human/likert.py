"""Likert and direct-assessment tasks: rankings, agreement and quality control."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from annotation.models import Scale, Task
from annotation.protocols import protocol_for
from annotation.selectors.human.common import (
    N_BOOT,
    SEED,
    Agreement,
    AnnotatorRow,
    agreement_resamples,
    annotator_rows,
)
from annotation.selectors.human.loading import (
    BAD,
    ITEM_TYPES,
    REF,
    REPEAT,
    TGT,
    Usernames,
    codes_by_name,
    copy_columns,
    float_column,
    int_column,
    item_type_column,
    segment_codes,
    task_judgments,
)
from metrics.agreement import (
    fleiss_kappa,
    inter_annotator_cohen,
    intra_annotator_cohen,
    krippendorff_alpha,
)
from metrics.agreement.coefficients import Level, Weights
from metrics.rankings import SystemScore, rank_systems


@dataclass(frozen=True)
class LikertData:
    """A Likert task's judgments, one entry per judgment in every array.

    ``system`` codes index ``systems`` (sorted names, "Human" for the reference);
    ``segment`` codes follow the numeric order of segment indices (see ``loading``).
    """

    annotator: NDArray[np.int32]
    kind: NDArray[np.int16]
    system: NDArray[np.int32]
    systems: list[str]
    segment: NDArray[np.int32]
    item: NDArray[np.int64]
    scores: dict[str, NDArray[np.float64]]
    seconds: NDArray[np.float64]

    def __len__(self) -> int:
        return int(self.annotator.size)


def likert_data(task: Task, names: dict[int, str]) -> LikertData:
    """The task's judgments (not those excluded one by one) in one COPY query."""
    measures = protocol_for(task.task_type).measures
    columns = [
        int_column("annotator", "annotator_id"),
        item_type_column(),
        int_column("system", "item__system_id"),
        int_column("segment", "item__segment__index"),
        int_column("item", "item_id", big=True),
        int_column("ms", "duration_ms"),
        float_column("score", "score"),
    ]
    # Each measure's column beside the score (the fluency of a combined task).
    columns += [
        float_column(name, name) for name in dict.fromkeys(measures.values()) if name != "score"
    ]
    arrays = copy_columns(task_judgments(task), columns)
    system, systems = codes_by_name(arrays["system"], names)
    scores = {measure: arrays[column] for measure, column in measures.items()}
    return LikertData(
        annotator=arrays["annotator"],
        kind=arrays["kind"],
        system=system,
        systems=systems,
        segment=segment_codes(arrays["segment"]),
        item=arrays["item"],
        scores=scores,
        seconds=arrays["ms"] / 1000.0,
    )


@dataclass(frozen=True)
class RankedSystem:
    name: str
    score: SystemScore


@dataclass(frozen=True)
class LikertRanking:
    measure: str
    systems: list[RankedSystem]


def likert_rankings(data: LikertData, included: NDArray[np.bool_]) -> list[LikertRanking]:
    """Per measure: the systems by mean z, with raw means, intervals, clusters and rank ranges.

    Ranked: system outputs (TGT) and the human reference (REF, as "Human"); quality-control
    items and repeats are not.
    """
    ranked = included & ((data.kind == TGT) | (data.kind == REF))
    if not ranked.any():
        return []
    # Codes without gaps, still in name order.
    present, system = np.unique(data.system[ranked], return_inverse=True)
    result = []
    for measure, scores in data.scores.items():
        ranking = rank_systems(
            scores[ranked],
            data.annotator[ranked],
            system.reshape(-1),
            data.segment[ranked],
            n_boot=N_BOOT,
            seed=SEED,
        )
        names = [data.systems[int(code)] for code in present]
        result.append(LikertRanking(measure, [RankedSystem(names[s.system], s) for s in ranking]))
    return result


def likert_agreement(
    task: Task, data: LikertData, included: NDArray[np.bool_], *, weights: Weights = None
) -> list[Agreement]:
    """Inter- and intra-annotator Cohen's kappa on exact labels (or weighted), and Fleiss'
    kappa and Krippendorff's alpha when some item has more than two annotators."""
    judged = included & ((data.kind == TGT) | (data.kind == REF))
    repeat_rows = included & (data.kind == REPEAT)
    result = []
    level: Level = "interval" if task.scale == Scale.DA100 else "ordinal"
    for measure, scores in data.scores.items():
        items, raters, labels = data.item[judged], data.annotator[judged], scores[judged]
        if items.size == 0:
            continue
        n_raters = np.unique(raters).size
        boot = agreement_resamples(items.size)
        weighting = f", {weights} weights" if weights else ""
        result.append(
            Agreement(
                measure,
                f"Cohen's kappa, inter-annotator{weighting}",
                inter_annotator_cohen(
                    items, raters, labels, weights=weights, n_boot=boot, seed=SEED
                ),
                boot,
                n_raters,
            )
        )
        intra = _units_with_repeats(data, judged | repeat_rows)
        if intra.any():
            boot_intra = agreement_resamples(int(intra.sum()))
            result.append(
                Agreement(
                    measure,
                    f"Cohen's kappa, intra-annotator{weighting}",
                    intra_annotator_cohen(
                        data.item[intra],
                        data.annotator[intra],
                        scores[intra],
                        weights=weights,
                        n_boot=boot_intra,
                        seed=SEED,
                    ),
                    boot_intra,
                    int(np.unique(data.annotator[intra]).size),
                )
            )
        if _most_raters(items) > 2:
            result.append(
                Agreement(
                    measure,
                    "Fleiss' kappa",
                    fleiss_kappa(items, raters, labels, n_boot=boot, seed=SEED),
                    boot,
                    n_raters,
                )
            )
            result.append(
                Agreement(
                    measure,
                    f"Krippendorff's alpha ({level})",
                    krippendorff_alpha(items, raters, labels, level=level, n_boot=boot, seed=SEED),
                    boot,
                    n_raters,
                )
            )
    # A coefficient no item contributes to (one annotator per item) says nothing.
    return [agreement for agreement in result if agreement.kappa.items]


def _units_with_repeats(data: LikertData, rows: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """The rows (among ``rows``) of (annotator, item) units that have a repeat: only these
    pairs count for intra-annotator agreement, and leaving the others out keeps its
    bootstrap to the units that matter."""
    size = int(data.item.max(initial=0)) + 1
    key = data.annotator.astype(np.int64) * size + data.item
    repeated = key[rows & (data.kind == REPEAT)]
    return rows & np.isin(key, repeated)


def _most_raters(items: NDArray[np.int64]) -> int:
    """The largest number of annotators on one item: an annotator judges an item once,
    repeats aside (a database constraint), so this counts first judgments per item."""
    if items.size == 0:
        return 0
    return int(np.bincount(items - items.min()).max())


def likert_quality(
    data: LikertData, usernames: Usernames, excluded: set[int]
) -> list[AnnotatorRow]:
    """Quality control of every annotator (excluded ones too, so they can be let back in).

    The bad-reference test pairs each BAD score with the annotator's score of the original
    output; scores are the first measure's (adequacy in a combined task).
    """
    if len(data) == 0:
        return []
    return annotator_rows(
        next(iter(data.scores.values())),
        data.annotator,
        systems=data.system,
        segments=data.segment,
        item_types=ITEM_TYPES[data.kind],
        seconds=data.seconds,
        usernames=usernames,
        excluded=excluded,
    )


def has_bad_references(data: LikertData) -> bool:
    return bool((data.kind == BAD).any())
