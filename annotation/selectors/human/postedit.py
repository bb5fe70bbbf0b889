"""Post-editing tasks: HTER per system, and the annotators' quality-control figures."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from annotation.models import Task
from annotation.selectors.human.common import N_BOOT, SEED, AnnotatorRow, annotator_rows
from annotation.selectors.human.loading import (
    ITEM_TYPES,
    REF,
    TGT,
    Usernames,
    codes_by_name,
    copy_columns,
    float_column,
    int_column,
    item_type_column,
    task_judgments,
)
from metrics.rankings import HterScore, hter_by_system


@dataclass(frozen=True)
class PosteditData:
    annotator: NDArray[np.int64]
    kind: NDArray[np.int64]
    system: NDArray[np.int64]
    systems: list[str]
    segment: NDArray[np.int64]
    edits: NDArray[np.float64]
    length: NDArray[np.float64]
    hter: NDArray[np.float64]
    seconds: NDArray[np.float64]


def postedit_data(task: Task, names: dict[int, str]) -> PosteditData:
    arrays = copy_columns(
        task_judgments(task),
        [
            int_column("annotator", "annotator_id"),
            item_type_column(),
            int_column("system", "item__system_id"),
            int_column("segment", "item__segment__index"),
            int_column("ms", "duration_ms"),
            float_column("edits", "edits"),
            float_column("length", "post_edit_length"),
            float_column("hter", "hter"),
        ],
    )
    system, systems = codes_by_name(arrays["system"], names)
    return PosteditData(
        annotator=arrays["annotator"],
        kind=arrays["kind"],
        system=system,
        systems=systems,
        segment=arrays["segment"],
        edits=arrays["edits"],
        length=arrays["length"],
        hter=arrays["hter"],
        seconds=arrays["ms"] / 1000.0,
    )


@dataclass(frozen=True)
class HterSystem:
    name: str
    score: HterScore


def hter_ranking(data: PosteditData, included: NDArray[np.bool_]) -> list[HterSystem]:
    """Mean segment HTER and corpus HTER (all edits / all post-edit words) per system, best
    (lowest corpus HTER) first, over the first post-edits of each output. The post-edits of
    one output by several annotators are one segment (their mean HTER), resampled together."""
    rows = included & ((data.kind == TGT) | (data.kind == REF)) & np.isfinite(data.edits)
    if not rows.any():
        return []
    present, system = np.unique(data.system[rows], return_inverse=True)
    scores = hter_by_system(
        system.reshape(-1),
        data.edits[rows],
        data.length[rows],
        segments=data.segment[rows],
        n_boot=N_BOOT,
        seed=SEED,
    )
    ranked = sorted(scores, key=lambda s: (s.corpus_hter, s.mean_hter))
    return [HterSystem(data.systems[int(present[s.system])], s) for s in ranked]


def postedit_quality(
    data: PosteditData, usernames: Usernames, excluded: set[int]
) -> list[AnnotatorRow]:
    """Judgments, median time and, on HTER, consistency on repeats and correlation with the
    other post-editors of the same output."""
    if data.annotator.size == 0:
        return []
    return annotator_rows(
        np.nan_to_num(data.hter),
        data.annotator,
        systems=data.system,
        segments=data.segment,
        item_types=ITEM_TYPES[data.kind],
        seconds=data.seconds,
        usernames=usernames,
        excluded=excluded,
    )
