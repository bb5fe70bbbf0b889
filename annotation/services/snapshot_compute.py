"""Computing and storing a campaign's results snapshots: what the refresh job
(``results_snapshots_refresh``, run by annotation.services.jobs) and a page that finds none
current (annotation.services.results_snapshots) both do. Apart from the read path so that the
job table can name the job without an import circle (the read path asks for the job)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, Generic, TypeVar

from django.db import connection
from django.db.models import F
from django.utils import timezone

from annotation.models import Campaign, ResultsSnapshot, SharedTaskCampaign
from annotation.selectors.results_snapshots import (
    COMPUTE,
    HumanPage,
    Version,
    pair_page,
    results_versions,
    snapshot_payload,
    snapshot_value,
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
    judgments_since: int = 0  # judgments counted since these figures (stale ones only)

    @property
    def updating(self) -> bool:
        return not self.current


def _store(
    *, kind: str, variant: str, campaign_id: int, version: Version, seconds: float, value
) -> datetime | None:
    """Keeps these results unless newer ones (whose version was read later) were stored
    meanwhile; the time they are stored as computed at (None: not kept)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """INSERT INTO annotation_resultssnapshot
                   (campaign_id, kind, variant, version, judgments, started_at, computed_at,
                    seconds, payload)
               VALUES (%s, %s, %s, %s, %s, %s, now(), %s, %s)
               ON CONFLICT (campaign_id, kind, variant) DO UPDATE
                  SET version = EXCLUDED.version, judgments = EXCLUDED.judgments,
                      started_at = EXCLUDED.started_at, computed_at = EXCLUDED.computed_at,
                      seconds = EXCLUDED.seconds, payload = EXCLUDED.payload
                WHERE annotation_resultssnapshot.started_at <= EXCLUDED.started_at
            RETURNING computed_at""",
            [
                campaign_id,
                kind,
                variant,
                version.digest,
                version.judgments,
                version.read_at,
                seconds,
                snapshot_payload(value),
            ],
        )
        row = cursor.fetchone()
    return row[0] if row is not None else None


def snapshot_compute(
    *,
    kind: str,
    campaign: Campaign,
    version: Version,
    variant: str = "",
    compute: Callable[[], Any] | None = None,
) -> Snapshotted:
    """Computes and stores; ``version`` was read before, so newer data only makes it stale.
    ``compute``: how, when not ``COMPUTE[kind]`` from nothing."""
    clock = time.perf_counter()
    value = compute() if compute is not None else COMPUTE[kind](campaign, variant)
    seconds = time.perf_counter() - clock
    stored_at = _store(
        kind=kind,
        variant=variant,
        campaign_id=campaign.id,
        version=version,
        seconds=seconds,
        value=value,
    )
    # As of the time a later read finds (the API's "as_of" is the same on every answer).
    return Snapshotted(value, version.judgments, stored_at or timezone.now(), current=True)


def _kept(campaign_id: int) -> set[tuple[str, str]]:
    """The (kind, variant)s kept current: the human results page as first shown, the pair
    table by each procedure its shared tasks chose, and any other variant a reader asked for
    since its last computation (the others are left stale until asked for)."""
    kept = {(ResultsSnapshot.Kind.HUMAN.value, "")}
    kept |= {
        (ResultsSnapshot.Kind.PAIR.value, procedure)
        for procedure in SharedTaskCampaign.objects.filter(campaign_id=campaign_id).values_list(
            "procedure", flat=True
        )
    }
    asked = ResultsSnapshot.objects.filter(
        campaign_id=campaign_id, asked_at__isnull=False, asked_at__gt=F("started_at")
    ).values_list("kind", "variant")
    return kept | set(asked)


def results_snapshots_refresh(
    *, target_id: int, report_progress: Callable[[int], None] | None = None
) -> None:
    """The job: brings the campaign's kept snapshots to its current version (those already
    current are left alone: running it twice does the work once); pair tables by a procedure
    no shared task chooses any more are dropped."""
    campaign = Campaign.objects.filter(id=target_id).first()
    if campaign is None:
        return  # deleted since it was asked for
    version = results_versions([campaign.id])[campaign.id]
    kept = sorted(_kept(campaign.id))
    pair = ResultsSnapshot.Kind.PAIR.value
    ResultsSnapshot.objects.filter(campaign_id=campaign.id, kind=pair).exclude(
        variant__in=[variant for kind, variant in kept if kind == pair]
    ).delete()
    human = ResultsSnapshot.Kind.HUMAN.value
    page: HumanPage | None = None  # the human page as first shown, of this version
    for done, (kind, variant) in enumerate(kept):  # (sorted: that page before the pairs)
        snapshot = stored_snapshots(kind, [(campaign.id, variant)]).get((campaign.id, variant))
        first_page = (kind, variant) == (human, "")
        if snapshot is not None and snapshot.version == version.digest and snapshot.payload:
            if first_page:
                page = snapshot_value(snapshot)
        else:
            reuse = partial(pair_page, campaign, variant, page) if kind == pair and page else None
            computed = snapshot_compute(
                kind=kind, campaign=campaign, version=version, variant=variant, compute=reuse
            )
            if first_page:
                page = computed.value
        if report_progress is not None:
            report_progress(100 * (done + 1) // len(kept))
