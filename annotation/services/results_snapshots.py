"""Results snapshots kept current (annotation/selectors/results_snapshots.py): a page reads a
campaign's stored results when they are of its current version; when they are missing, or
stale and cheap to redo, it computes them and stores them; when they are stale and costly
(a campaign of ``RESULTS_SNAPSHOT_SYNC_JUDGMENTS`` judgments or more), it shows them marked
"as of N judgments, updating" and asks the refresh job for new ones.

Why stale ones are shown: while annotators work, a large campaign's version changes every
few seconds, and recomputing it on each view (seconds at WMT scale) would make every view
slow; the page says how old what it shows is, never passing it off as current. The job
(``snapshot_compute.results_snapshots_refresh``, a ``Job`` of the outbox: idempotent, one at
a time per campaign, run once more when asked while running) is asked by those views and by
a periodic sweep of the stored snapshots (``results_snapshots_refresh_stale``), which debounces the
judgments that keep arriving into one computation per campaign and sweep period, at no cost
to the annotator path.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.models import Campaign, Job, ResultsSnapshot
from annotation.selectors.results_snapshots import (
    results_versions,
    snapshot_value,
    stored_snapshots,
)
from annotation.services.jobs import job_request
from annotation.services.snapshot_compute import Snapshotted, snapshot_compute

logger = logging.getLogger(__name__)


def results_snapshot_read(
    *,
    kind: str,
    campaigns: Sequence[Campaign],
    stale_ok: bool = True,
    placeholder: Callable[[Campaign], Any] | None = None,
) -> list[Snapshotted]:
    """Each campaign's results of ``kind`` (a ``ResultsSnapshot.Kind``), in order;
    ``stale_ok`` False (an answer that cannot say how old it is: the API, downloads): always
    current ones. ``placeholder``: what a page of many campaigns shows for a large one with
    no results stored yet (computing them all could take the page minutes), while the job
    computes them; without it they are computed here."""
    ids = [campaign.id for campaign in campaigns]
    versions = results_versions(ids)
    stored = stored_snapshots(kind, ids)
    answers = []
    for campaign in campaigns:
        version = versions[campaign.id]
        snapshot = stored.get(campaign.id)
        value = snapshot_value(snapshot) if snapshot is not None else None
        costly = version.judgments >= settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS
        if snapshot is not None and value is not None:
            current = snapshot.version == version.digest
            if current or (stale_ok and costly):
                if not current:
                    results_snapshot_refresh_request(campaign_id=campaign.id)
                answers.append(
                    Snapshotted(value, snapshot.judgments, snapshot.computed_at, current)
                )
                continue
        if placeholder is not None and stale_ok and costly:
            results_snapshot_refresh_request(campaign_id=campaign.id)
            answers.append(
                Snapshotted(placeholder(campaign), 0, timezone.now(), current=False, pending=True)
            )
            continue
        answers.append(snapshot_compute(kind=kind, campaign=campaign, version=version))
    return answers


class SnapshotReader:
    """Reads campaigns' results of one kind through their snapshots (a callable for
    ``shared_task_results(read_pairs=...)``), keeping how current each was in ``read``."""

    def __init__(
        self,
        kind: str,
        *,
        stale_ok: bool = True,
        placeholder: Callable[[Campaign], Any] | None = None,
    ) -> None:
        self.kind = kind
        self.stale_ok = stale_ok
        self.placeholder = placeholder
        self.read: list[Snapshotted] = []

    @property
    def pending(self) -> set[int]:
        """Ids of the campaigns shown by a placeholder."""
        return {snapshot.value.campaign.id for snapshot in self.read if snapshot.pending}

    def __call__(self, campaigns: Sequence[Campaign]) -> list[Any]:
        got = results_snapshot_read(
            kind=self.kind,
            campaigns=campaigns,
            stale_ok=self.stale_ok,
            placeholder=self.placeholder,
        )
        self.read.extend(got)
        return [snapshot.value for snapshot in got]


def results_snapshot_refresh_request(*, campaign_id: int) -> None:
    """Asks the refresh job for the campaign (queued on commit; nothing if already asked)."""
    waiting = Job.objects.filter(
        kind=Job.Kind.RESULTS_SNAPSHOT,
        target_id=campaign_id,
        state__in=(Job.State.PENDING, Job.State.QUEUED),
    )
    if not waiting.exists():  # the common case on a busy page: no lock taken
        job_request(kind=Job.Kind.RESULTS_SNAPSHOT, target_id=campaign_id)


def results_snapshots_refresh_stale() -> int:
    """The sweep: asks the refresh job for every campaign with a stale snapshot; returns
    how many were asked for."""
    stored = list(ResultsSnapshot.objects.values_list("campaign_id", "version"))
    versions = results_versions(campaign_id for campaign_id, _ in stored)
    stale = sorted(
        {
            campaign_id
            for campaign_id, version in stored
            if campaign_id in versions and versions[campaign_id].digest != version
        }
    )
    for campaign_id in stale:
        with transaction.atomic():
            results_snapshot_refresh_request(campaign_id=campaign_id)
    return len(stale)


@dataclass(frozen=True)
class StaleNote:
    """What a page says when it shows older results: how many of its campaigns' results are
    stale, of how many, and the oldest one's count and time."""

    stale: int
    total: int
    judgments: int
    computed_at: datetime


def snapshot_context(*, snapshots: Sequence[Snapshotted[Any]]) -> dict[str, object]:
    """The page's ``snapshot_stale`` (templates/results/_snapshot_stale.html): None when all
    it shows is current."""
    stale = [s for s in snapshots if not s.current and not s.pending]
    if not stale:
        return {"snapshot_stale": None}
    oldest = min(stale, key=lambda s: s.computed_at)
    return {
        "snapshot_stale": StaleNote(
            len(stale), len(snapshots), oldest.judgments, oldest.computed_at
        )
    }
