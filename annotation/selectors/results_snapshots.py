"""Results snapshots: what a campaign's human results page and its shared-task pair show,
computed once per version of their inputs and stored (``ResultsSnapshot``).

A campaign's version is read in one query for any number of campaigns, from two counters
that cost the annotator path nothing new: the loop's batch counters (judgments and skips:
``Batch.judged``/``skipped``, which imports set too) and ``ResultsVersion``, which triggers
bump on every other write that changes results (exclusions, judgments or spans edited or
deleted, systems, metric scores, task settings: sql/0040_scale_results_version.sql). The
statistics are the selectors' own (``human_results``, ``span_results``, ``pair_results``):
a snapshot is their output, pickled, so it cannot differ from computing them again.

A snapshot holds one variant of its kind: the human results page as first shown ("") or with
query choices (``HumanVariant``: a ranking procedure, weighted kappa, only passing annotators),
and a shared-task pair ranked by the WMT procedure its shared task chose ("" the default).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import pickle
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode

from django.db import connections, router
from django.utils import timezone

from annotation.models import Batch, Campaign, ResultsSnapshot
from annotation.selectors.hotw import HotwResult, hotw_results
from annotation.selectors.human import HumanResults, human_results
from annotation.selectors.human.correlation import correlations
from annotation.selectors.human.meta import MetaRow, meta_evaluation
from annotation.selectors.human.spans import SpanTaskResults, span_results
from annotation.selectors.shared_task_pairs import KnownResults, PairResults, pair_results
from metrics.agreement.coefficients import Weights
from metrics.spans.esa_wmt import DEFAULT_PROCEDURE, PROCEDURES

logger = logging.getLogger(__name__)

# Part of every version: a snapshot stored by code that computed (or pickled) results
# differently is never read as current. Raise it when what a snapshot holds changes.
# 2: reliability rows name the checks failed; 3: variant snapshots; 4: ranking statuses
# carry their tuning and pairing (Task.tuned_for, Task.paired_status); 5: reliability rows
# carry the annotator's attempt; 6: ranking statuses carry the budget's unit
SNAPSHOT_FORMAT = 6


@dataclass(frozen=True)
class Version:
    digest: str
    judgments: int  # the loop's count of judged slots: "as of N judgments"
    read_at: datetime  # results computed after this read count as of this time


def results_versions(
    campaign_ids: Iterable[int], *, using: str | None = None
) -> dict[int, Version]:
    """Each campaign's version, in one query (an index lookup and its batches' counters),
    read where the results themselves are read (the replica, when the router sends them
    there), so that a snapshot is never labelled with a version newer than its data;
    ``using``: another connection (a write's transaction, to see its own rows)."""
    ids = sorted(set(campaign_ids))
    if not ids:
        return {}
    read_at = timezone.now()
    with connections[using or router.db_for_read(Batch) or "default"].cursor() as cursor:
        cursor.execute(
            """SELECT c.id, COALESCE(v.version, 0), COALESCE(b.judged, 0),
                      COALESCE(b.skipped, 0), COALESCE(b.batches, 0), COALESCE(b.last, 0)
                 FROM annotation_campaign c
                 LEFT JOIN annotation_resultsversion v ON v.campaign_id = c.id
                 LEFT JOIN LATERAL (
                      SELECT sum(b.judged) AS judged, sum(b.skipped) AS skipped,
                             count(*) AS batches, max(b.id) AS last
                        FROM annotation_batch b JOIN annotation_task t ON t.id = b.task_id
                       WHERE t.campaign_id = c.id) b ON true
                WHERE c.id = ANY(%s)""",
            [ids],
        )
        rows = cursor.fetchall()
    return {
        row[0]: Version(
            hashlib.sha256(repr((SNAPSHOT_FORMAT, *row)).encode()).hexdigest(),
            int(row[2]),
            read_at,
        )
        for row in rows
    }


# A snapshot: (campaign id, variant).
Key = tuple[int, str]


def stored_snapshots(kind: str, keys: Iterable[Key]) -> dict[Key, ResultsSnapshot]:
    wanted = set(keys)
    if not wanted:
        return {}
    found = ResultsSnapshot.objects.filter(
        kind=kind,
        campaign_id__in={campaign_id for campaign_id, _ in wanted},
        variant__in={variant for _, variant in wanted},
    )
    return {(s.campaign_id, s.variant): s for s in found if (s.campaign_id, s.variant) in wanted}


def snapshot_value(snapshot: ResultsSnapshot) -> Any | None:
    """The stored results; None when there are none yet (only asked for) or they cannot be
    read back (stored by other code)."""
    if not snapshot.payload:
        return None
    try:
        # Only this module writes these bytes, into the project's own database.
        return pickle.loads(bytes(snapshot.payload))  # noqa: S301
    except Exception:  # an unreadable snapshot is recomputed, never shown
        logger.warning("results snapshot %s unreadable; recomputed", snapshot.id, exc_info=True)
        return None


def snapshot_payload(value: Any) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


@dataclass(frozen=True)
class HumanVariant:
    """The human results' query choices (the page's and the API's): how ESA tasks are ranked,
    the Likert agreement's kappa weights, and whether the rankings without the annotators
    who fail a reliability check are added. Its ``key`` names its snapshot."""

    procedure: str = DEFAULT_PROCEDURE
    weights: Weights = None
    passing: bool = False

    def __post_init__(self) -> None:
        if self.procedure not in PROCEDURES:
            raise ValueError(f"unknown ranking procedure {self.procedure!r}")
        if self.weights not in (None, "linear", "quadratic"):
            raise ValueError(f"unknown kappa weights {self.weights!r}")

    @property
    def key(self) -> str:
        """ "" for the page as first shown, else its choices as a query string."""
        choices = {
            "procedure": self.procedure if self.procedure != DEFAULT_PROCEDURE else None,
            "weights": self.weights,
            "passing": "1" if self.passing else None,
        }
        return urlencode({name: value for name, value in choices.items() if value})

    @classmethod
    def from_key(cls, key: str) -> HumanVariant:
        choices = dict(parse_qsl(key))
        return cls(
            procedure=choices.get("procedure", DEFAULT_PROCEDURE),
            weights=choices.get("weights"),  # type: ignore[arg-type]
            passing=choices.get("passing") == "1",
        )


@dataclass(frozen=True)
class HumanPage:
    """The data of the human results page (and of the results API) for one variant: the
    page's selectors' outputs, in the view's order."""

    results: HumanResults
    meta_rows: list[MetaRow]
    span_results: list[SpanTaskResults]
    hotw: list[tuple[int, list[HotwResult]]] = field(default_factory=list)


def human_page(campaign: Campaign, variant: str = "") -> HumanPage:
    choices = HumanVariant.from_key(variant)
    results = human_results(campaign, weights=choices.weights, passing_only=choices.passing)
    spans = span_results(campaign, procedure=choices.procedure, passing_only=choices.passing)
    return HumanPage(
        results=results,
        meta_rows=meta_evaluation(campaign, results.excluded),
        span_results=spans,
        hotw=[(r.task.id, checks) for r in spans if (checks := hotw_results(task=r.task))],
    )


def page_of_task(page: HumanPage, task_id: int | None) -> HumanPage:
    """The page restricted to one task (the results API's ``task``), as ``human_results``
    and ``span_results`` of that task compute it: its correlations only from its own human
    scores."""
    if task_id is None:
        return page
    tasks = [result for result in page.results.tasks if result.task.id == task_id]
    human: dict[str, dict[str, float]] = {}
    for result in tasks:
        human.update(result.human_scores())
    results = dataclasses.replace(
        page.results,
        tasks=tasks,
        human=human,
        correlations=correlations(human, page.results.automatic),
    )
    return dataclasses.replace(
        page,
        results=results,
        span_results=[result for result in page.span_results if result.task.id == task_id],
    )


def pair_page(campaign: Campaign, variant: str = "", human: HumanPage | None = None) -> PairResults:
    """The pair's table by the procedure ``variant``; ``human``: the campaign's human page as
    first shown, computed for the same version, whose task results it reuses (the refresh job
    computes both: the pair's task would otherwise be computed twice)."""
    known: KnownResults | None = None
    if human is not None:
        known = {result.task.id: result for result in human.results.tasks}
        known |= {result.task.id: result for result in human.span_results}
    return pair_results(campaign, variant, known=known)


# Snapshot kind -> what it holds, computed from the campaign and the variant.
COMPUTE: dict[str, Callable[[Campaign, str], Any]] = {
    ResultsSnapshot.Kind.HUMAN: human_page,
    ResultsSnapshot.Kind.PAIR: pair_page,
}
