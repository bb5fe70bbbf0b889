"""Results snapshots kept current (annotation/selectors/results_snapshots.py): a page reads a
campaign's stored results when they are of its current version; when they are missing, or
stale and cheap to redo, it computes them and stores them; when they are stale and costly
(a campaign of ``RESULTS_SNAPSHOT_SYNC_JUDGMENTS`` judgments or more), it shows them marked
"as of N judgments, updating" and asks the refresh job for new ones.

Why stale ones are shown: while annotators work, a large campaign's version changes every
few seconds, and recomputing it on each view (seconds at WMT scale) would make every view
slow; the page says how old what it shows is, never passing it off as current. The job
(``results_snapshots_refresh``, a ``Job`` of the outbox: idempotent, one at a time per
campaign, run once more when asked while running) is asked by those views and by a periodic
sweep of the stored snapshots (``results_snapshots_refresh_stale``), which debounces the
judgments that keep arriving into one computation per campaign and sweep period, at no cost
to the annotator path.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from annotation.models import Campaign, Job, ResultsSnapshot, SharedTaskCampaign
from annotation.selectors.results_snapshots import (
    COMPUTE,
    Version,
    results_versions,
    snapshot_payload,
    snapshot_value,
    stored_snapshots,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class Snapshotted(Generic[T]):
    """Results and how current they are."""

    value: T
    judgments: int  # as of this many judgments
    computed_at: datetime
    current: bool  # False: older than the data, a new computation is asked for
    pending: bool = False  # none stored yet: ``value`` is a placeholder, computation asked for

    @property
    def updating(self) -> bool:
        return not self.current


def _store(*, kind: str, campaign_id: int, version: Version, seconds: float, value) -> None:
    """Keeps these results unless newer ones (whose version was read later) were stored
    meanwhile."""
    with connection.cursor() as cursor:
        cursor.execute(
            """INSERT INTO annotation_resultssnapshot
                   (campaign_id, kind, version, judgments, started_at, computed_at, seconds,
                    payload)
               VALUES (%s, %s, %s, %s, %s, now(), %s, %s)
               ON CONFLICT (campaign_id, kind) DO UPDATE
                  SET version = EXCLUDED.version, judgments = EXCLUDED.judgments,
                      started_at = EXCLUDED.started_at, computed_at = EXCLUDED.computed_at,
                      seconds = EXCLUDED.seconds, payload = EXCLUDED.payload
                WHERE annotation_resultssnapshot.started_at <= EXCLUDED.started_at""",
            [
                campaign_id,
                kind,
                version.digest,
                version.judgments,
                version.read_at,
                seconds,
                snapshot_payload(value),
            ],
        )


def _computed(kind: str, campaign: Campaign, version: Version) -> Snapshotted:
    """Computes and stores; ``version`` was read before, so newer data only makes it stale."""
    clock = time.perf_counter()
    value = COMPUTE[kind](campaign)
    seconds = time.perf_counter() - clock
    _store(
        kind=kind,
        campaign_id=campaign.id,
        version=version,
        seconds=seconds,
        value=value,
    )
    return Snapshotted(value, version.judgments, timezone.now(), current=True)


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
        answers.append(_computed(kind, campaign, version))
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
        from annotation.services.jobs import job_request  # it runs this module's job

        job_request(kind=Job.Kind.RESULTS_SNAPSHOT, target_id=campaign_id)


def _kinds(campaign_id: int) -> list[str]:
    """What to keep current: the human results page, and the pair table of a campaign that
    is a shared task's pair."""
    kinds: list[str] = [ResultsSnapshot.Kind.HUMAN]
    if SharedTaskCampaign.objects.filter(campaign_id=campaign_id).exists():
        kinds.append(ResultsSnapshot.Kind.PAIR)
    return kinds


def results_snapshots_refresh(
    *, target_id: int, report_progress: Callable[[int], None] | None = None
) -> None:
    """The job: brings the campaign's snapshots to its current version (those already
    current are left alone: running it twice does the work once)."""
    campaign = Campaign.objects.filter(id=target_id).first()
    if campaign is None:
        return  # deleted since it was asked for
    version = results_versions([campaign.id])[campaign.id]
    kinds = _kinds(campaign.id)
    for done, kind in enumerate(kinds):
        snapshot = stored_snapshots(kind, [campaign.id]).get(campaign.id)
        if snapshot is None or snapshot.version != version.digest:
            _computed(kind, campaign, version)
        if report_progress is not None:
            report_progress(100 * (done + 1) // len(kinds))


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
