"""Results snapshots: what a campaign's human results page and its shared-task pair show,
computed once per version of their inputs and stored (``ResultsSnapshot``).

A campaign's version is read in one query for any number of campaigns, from two counters
that cost the annotator path nothing new: the loop's batch counters (judgments and skips:
``Batch.judged``/``skipped``, which imports set too) and ``ResultsVersion``, which triggers
bump on every other write that changes results (exclusions, judgments or spans edited or
deleted, systems, metric scores, task settings: sql/0040_scale_results_version.sql). The
statistics are the selectors' own (``human_results``, ``span_results``, ``pair_results``):
a snapshot is their output, pickled, so it cannot differ from computing them again.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connections, router
from django.utils import timezone

from annotation.models import Batch, Campaign, ResultsSnapshot
from annotation.selectors.hotw import HotwResult, hotw_results
from annotation.selectors.human import HumanResults, human_results
from annotation.selectors.human.meta import MetaRow, meta_evaluation
from annotation.selectors.human.spans import SpanTaskResults, span_results
from annotation.selectors.shared_tasks import pair_results

logger = logging.getLogger(__name__)

# Part of every version: a snapshot stored by code that computed (or pickled) results
# differently is never read as current. Raise it when what a snapshot holds changes.
SNAPSHOT_FORMAT = 2  # 2: reliability rows name the checks failed (ReliabilityTable)


@dataclass(frozen=True)
class Version:
    digest: str
    judgments: int  # the loop's count of judged slots: "as of N judgments"
    read_at: datetime  # results computed after this read count as of this time


def results_versions(campaign_ids: Iterable[int]) -> dict[int, Version]:
    """Each campaign's version, in one query (an index lookup and its batches' counters),
    read where the results themselves are read (the replica, when the router sends them
    there), so that a snapshot is never labelled with a version newer than its data."""
    ids = sorted(set(campaign_ids))
    if not ids:
        return {}
    read_at = timezone.now()
    with connections[router.db_for_read(Batch) or "default"].cursor() as cursor:
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


def stored_snapshots(kind: str, campaign_ids: Iterable[int]) -> dict[int, ResultsSnapshot]:
    return {
        s.campaign_id: s
        for s in ResultsSnapshot.objects.filter(kind=kind, campaign_id__in=list(campaign_ids))
    }


def snapshot_value(snapshot: ResultsSnapshot) -> Any | None:
    """The stored results; None when they cannot be read back (stored by other code)."""
    try:
        # Only this module writes these bytes, into the project's own database.
        return pickle.loads(bytes(snapshot.payload))  # noqa: S301
    except Exception:  # an unreadable snapshot is recomputed, never shown
        logger.warning("results snapshot %s unreadable; recomputed", snapshot.id, exc_info=True)
        return None


def snapshot_payload(value: Any) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


@dataclass(frozen=True)
class HumanPage:
    """The data of the human results page as first shown (no query choices): the page's
    selectors' outputs, in the view's order."""

    results: HumanResults
    meta_rows: list[MetaRow]
    span_results: list[SpanTaskResults]
    hotw: list[tuple[int, list[HotwResult]]] = field(default_factory=list)


def human_page(campaign: Campaign) -> HumanPage:
    results = human_results(campaign)
    spans = span_results(campaign)
    return HumanPage(
        results=results,
        meta_rows=meta_evaluation(campaign, results.excluded),
        span_results=spans,
        hotw=[(r.task.id, checks) for r in spans if (checks := hotw_results(task=r.task))],
    )


# Snapshot kind -> what it holds, computed from the campaign.
COMPUTE: dict[str, Callable[[Campaign], Any]] = {
    ResultsSnapshot.Kind.HUMAN: human_page,
    ResultsSnapshot.Kind.PAIR: pair_results,
}
