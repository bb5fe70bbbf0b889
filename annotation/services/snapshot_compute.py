"""Computing and storing a campaign's results snapshots: what the refresh job
(``results_snapshots_refresh``, run by annotation.services.jobs) and a page that finds none
current (annotation.services.results_snapshots) both do. Apart from the read path so that the
job table can name the job without an import circle (the read path asks for the job)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

from django.db import connection
from django.utils import timezone

from annotation.models import Campaign, ResultsSnapshot, SharedTaskCampaign
from annotation.selectors.results_snapshots import (
    COMPUTE,
    Version,
    results_versions,
    snapshot_payload,
    stored_snapshots,
)

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


def snapshot_compute(*, kind: str, campaign: Campaign, version: Version) -> Snapshotted:
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
            snapshot_compute(kind=kind, campaign=campaign, version=version)
        if report_progress is not None:
            report_progress(100 * (done + 1) // len(kinds))
