"""What the live ranking status reads of a task: one score per observation, in recorded order.

Each scored protocol has its statistic (issue 23, section 2: "the protocol's procedure"):

- Likert and DA, contrastive DA: the judgment's score, z-standardised per annotator (WMT's
  DA procedure; ``standardise``);
- ESA, ESA^AI, contrastive ESA: the 0-100 score;
- MQM, contrastive MQM: the judgment's MQM score, the sum of its errors' weights under the
  task's weights (``MqmWeights.weight``, as the MQM ranking), lower is better.

A contrastive screen gives one observation per system it shows (``OutputJudgment``). A
document task's observation is a page: the mean of the page's segment scores, since the
segments of a page are read together by one annotator and are not independent judgments (a
contrastive page: one per system it shows, its screen the page).

Only what the rankings count: first judgments of system outputs (no repeats, references or
attention checks), nothing excluded one by one or by an excluded annotator. One query for
the judgments (``status_scores``), besides the campaign's exclusions (and system names for
Likert tasks).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import F, Func, JSONField, OuterRef, QuerySet, Value
from django.db.models.functions import Concat
from numpy.typing import NDArray

from annotation.models import (
    HUMAN,
    ErrorSpan,
    ItemType,
    Judgment,
    OutputJudgment,
    Task,
    Unit,
)
from annotation.protocols import Protocol, protocol_for
from annotation.selectors.human.likert import LikertData, likert_data
from annotation.selectors.human.loading import REF, TGT, exclusions, system_names
from annotation.services.spans import task_mqm_weights
from metrics.rankings import z_scores
from metrics.spans.mqm import MqmWeights

Z, ESA_SCORE, MQM_SCORE = "mean z", "ESA score", "MQM score"
# The statistic of each way a protocol is ranked (``Protocol.ranked_as``).
STATISTIC_OF = {"da": Z, "cda": Z, "esa": ESA_SCORE, "mqm": MQM_SCORE}


def protocol_statistic(protocol: Protocol) -> tuple[str, bool]:
    """A ranked protocol's statistic and whether lower is better."""
    return STATISTIC_OF[str(protocol.ranked_as)], protocol.lower_is_better


# Severity and category of one span in one string (categories hold no tab: a form field).
_SPAN_SEPARATOR = "\t"


@dataclass(frozen=True)
class StatusScores:
    """A task's observations in recorded order: ``system`` codes index ``systems``;
    ``scores`` maps each measure (adequacy and fluency for a combined Likert task; else
    one) to raw scores; ``unit`` is what one observation is (judgment, output of a
    contrastive screen, page)."""

    statistic: str
    lower_is_better: bool
    unit: str
    systems: list[str]
    system: NDArray[np.int64]
    annotator: NDArray[np.int64]
    scores: dict[str, NDArray[np.float64]]
    # Contrastive: each observation's screen (its judgment), for the paired status.
    screen: NDArray[np.int64] | None = None

    @property
    def standardise(self) -> bool:
        return self.statistic == Z

    def values(self, measure: str) -> NDArray[np.float64]:
        """The statistic of each observation: z-scores per annotator, or the raw score."""
        raw = self.scores[measure]
        return z_scores(raw, self.annotator) if self.standardise else raw

    def by_system(self, measure: str) -> dict[str, Any]:
        """Each judged system's statistics (NumPy arrays), by name."""
        return self._split(self.values(measure))

    def screens_by_system(self) -> dict[str, Any]:
        """Each judged system's screens, parallel to ``by_system`` (None: no screens)."""
        return self._split(self.screen) if self.screen is not None else {}

    def _split(self, values: NDArray[Any]) -> dict[str, Any]:
        # One sort, then each system's values are a slice (not k passes over the judgments).
        order = np.argsort(self.system, kind="stable")
        present, starts = np.unique(self.system[order], return_index=True)
        parts = np.split(values[order], starts[1:])
        return {self.systems[int(code)]: part for code, part in zip(present, parts, strict=True)}


def has_status(task: Task) -> bool:
    return protocol_for(task.task_type).ranked_as is not None


def likert_status_scores(data: LikertData, included: NDArray[np.bool_]) -> StatusScores:
    """A Likert task's observations from the arrays its results already loaded: system
    outputs and the human reference (as the ranking), excluded annotators left out."""
    kept = included & ((data.kind == TGT) | (data.kind == REF))
    return StatusScores(
        statistic=Z,
        lower_is_better=False,
        unit="judgment",
        systems=list(data.systems),
        system=data.system[kept].astype(np.int64),
        annotator=data.annotator[kept].astype(np.int64),
        scores={measure: values[kept] for measure, values in data.scores.items()},
    )


def status_scores(task: Task) -> StatusScores | None:
    """The task's observations (``None`` for a protocol without a ranking status)."""
    protocol = protocol_for(task.task_type)
    if protocol.ranked_as is None:
        return None
    if protocol.measures and task.unit != Unit.DOCUMENT:
        data = likert_data(task, system_names(task.campaign_id))
        left_out = exclusions(task.campaign_id).for_task(task.id)
        included = ~np.isin(data.annotator, np.fromiter(left_out, dtype=np.int64))
        return likert_status_scores(data, included)
    if protocol.contrastive:
        return _contrastive_scores(task, protocol)
    return _single_output_scores(task, protocol)


def _weighed(weights: MqmWeights, spans: Iterable[str] | None) -> float:
    total = 0.0
    for span in spans or ():
        severity, _, category = span.partition(_SPAN_SEPARATOR)
        total += weights.weight(severity, category or None)
    return total


def _span_strings(**match) -> ArraySubquery:
    """Each matching span of the outer row's judgment as "severity<TAB>category"."""
    spans = ErrorSpan.objects.filter(**match).order_by("id")
    return ArraySubquery(
        spans.values(text=Concat(F("severity"), Value(_SPAN_SEPARATOR), F("category")))
    )


def _single_output_scores(task: Task, protocol: Protocol) -> StatusScores:
    """ESA, ESA^AI, MQM, and Likert document tasks (whose pages the Likert arrays lack)."""
    statistic, lower = protocol_statistic(protocol)
    left_out = exclusions(task.campaign_id)
    # Likert ranks the human reference too (as "Human"), as its ranking does.
    kinds = (ItemType.TGT, ItemType.REF) if protocol.ranks_reference else (ItemType.TGT,)
    judgments = left_out.counted(
        Judgment.objects.filter(task=task, is_repeat=False, item__item_type__in=kinds)
    )
    # An output several systems share is one item without a system: named as the span
    # results name it, by its systems joined with "+".
    shared = Func(
        F("item__candidates"),
        function="jsonb_path_query_array",
        template="%(function)s(%(expressions)s, '$[0].systems')",
        output_field=JSONField(),
    )
    fields: list = ["annotator_id", "item__system__name", shared, "slot__batch_id", "slot__page"]
    fields.append("item__item_type")
    weights = task_mqm_weights(task=task) if protocol.span_categories else None
    columns: dict[str, Any]
    if weights is not None:
        columns = {_measure(statistic): _span_strings(judgment_id=OuterRef("id"))}
    elif protocol.measures:
        columns = dict(protocol.measures)
    else:
        columns = {_measure(statistic): "score"}
    rows = judgments.order_by("id").values_list(*fields, *columns.values())
    labels: list[str] = []
    annotators: list[int] = []
    scores: dict[str, list[float]] = {measure: [] for measure in columns}
    pages: list[tuple[int, int, int]] = []
    for annotator, name, systems, batch, page, kind, *answers in rows.iterator(chunk_size=5000):
        if name is None:
            name = HUMAN if kind == ItemType.REF else "+".join(systems or ())
        labels.append(name)
        annotators.append(annotator)
        for measure, answer in zip(columns, answers, strict=True):
            scores[measure].append(_weighed(weights, answer) if weights else float(answer or 0))
        # A screen of one segment (no page) is a page of its own.
        pages.append((annotator, batch, -1 - len(pages) if page is None else page))
    document = task.unit == Unit.DOCUMENT
    return _observations(statistic, lower, labels, annotators, scores, pages if document else None)


def _contrastive_scores(task: Task, protocol: Protocol) -> StatusScores:
    statistic, lower = protocol_statistic(protocol)
    left_out = exclusions(task.campaign_id).for_task(task.id)
    outputs: QuerySet = (
        OutputJudgment.objects.filter(task=task, is_repeat=False, system__isnull=False)
        .filter(judgment__excluded=False)
        .exclude(annotator_id__in=left_out)
    )
    mqm = protocol.span_categories
    answer = (
        _span_strings(judgment_id=OuterRef("judgment_id"), candidate=OuterRef("position"))
        if mqm
        else "score"
    )
    weights = task_mqm_weights(task=task) if mqm else None
    rows = outputs.order_by("judgment_id", "position", "system__name").values_list(
        "annotator_id",
        "system__name",
        answer,
        "judgment_id",
        "judgment__slot__batch_id",
        "judgment__slot__page",
    )
    labels, annotators, scores, screens = [], [], [], []
    pages: list[tuple[int, int, int]] = []
    # A document page is one screen: named by its first judgment (each of its segments
    # shows every system of the page).
    page_screen: dict[tuple[int, int, int], int] = {}
    for annotator, name, value, screen, batch, page in rows.iterator(chunk_size=5000):
        labels.append(name)
        annotators.append(annotator)
        scores.append(_weighed(weights, value) if weights else float(value or 0))
        key = (annotator, batch, -screen if page is None else page)
        pages.append(key)
        screens.append(page_screen.setdefault(key, screen))
    document = task.unit == Unit.DOCUMENT
    observed = _observations(
        statistic,
        lower,
        labels,
        annotators,
        {_measure(statistic): scores},
        pages if document else None,
        screens=screens,
    )
    # One observation is an output of a screen, or a system's outputs on a document page
    # (selectors/budget.py: the budget counts screens, or segments of pages).
    return observed if document else dataclasses.replace(observed, unit="output")


def _observations(
    statistic: str,
    lower: bool,
    labels: list[str],
    annotators: list[int],
    scores: dict[str, list[float]],
    pages: list[tuple[int, int, int]] | None,
    *,
    screens: list[int] | None = None,
) -> StatusScores:
    """Codes the systems in name order; a document task's rows become one per page (the
    mean of its scores, placed where the page's first judgment was recorded); ``screens``:
    a contrastive row's screen (the same on every row of a page)."""
    systems = sorted(set(labels))
    code = {name: i for i, name in enumerate(systems)}
    system = np.array([code[name] for name in labels], dtype=np.int64)
    annotator = np.array(annotators, dtype=np.int64)
    values = {measure: np.array(v, dtype=np.float64) for measure, v in scores.items()}
    unit = "judgment"
    screen = None if screens is None else np.array(screens, dtype=np.int64)
    if pages is not None and system.size:
        keys = [(*page, int(s)) for page, s in zip(pages, system, strict=True)]
        first: dict[tuple[int, ...], int] = {}
        group = np.array([first.setdefault(key, len(first)) for key in keys], dtype=np.int64)
        size = np.bincount(group).astype(np.float64)
        values = {m: np.bincount(group, weights=v) / size for m, v in values.items()}
        head = np.unique(group, return_index=True)[1]
        system, annotator, unit = system[head], annotator[head], "page"
        screen = None if screen is None else screen[head]
    return StatusScores(
        statistic=statistic,
        lower_is_better=lower,
        unit=unit,
        systems=systems,
        system=system,
        annotator=annotator,
        scores=values,
        screen=screen,
    )


def _measure(statistic: str) -> str:
    return {Z: "score", ESA_SCORE: "esa", MQM_SCORE: "mqm"}[statistic]
