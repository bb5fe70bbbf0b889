"""Results snapshots kept current (annotation/selectors/results_snapshots.py): a page reads a
campaign's stored results when they are of its current version. A small campaign's results
(fewer than ``RESULTS_SNAPSHOT_SYNC_JUDGMENTS`` judgments) are computed on the page when they
are missing or stale, and stored. A large campaign's are never computed on a page: stale
ones are shown marked "as of N judgments, updating", missing ones as "being computed" (a
page that refreshes itself), and the refresh job is asked for new ones.

Why: while annotators work, a large campaign's version changes every few seconds, and
computing it on a view (seconds at WMT scale, ten and more from nothing) would make every
view slow; the page says how old what it shows is, never passing it off as current. The job
(``snapshot_compute.results_snapshots_refresh``, a ``Job`` of the outbox: idempotent, one at
a time per campaign, run once more when asked while running) is asked by those views, by
imports (``results_snapshots_prepare``) and by a periodic sweep of the stored snapshots
(``results_snapshots_refresh_stale``), which debounces the judgments that keep arriving
into one computation per campaign and sweep period, at no cost to the annotator path.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import router, transaction
from django.db.models import F, Q
from django.db.models.functions import Now
from django.utils import timezone

from annotation.models import Batch, Campaign, Job, ResultsSnapshot
from annotation.selectors.results_snapshots import (
    results_versions,
    snapshot_value,
    stored_snapshots,
)
from annotation.services.jobs import job_request
from annotation.services.snapshot_compute import Snapshotted, snapshot_compute

logger = logging.getLogger(__name__)

# A page waiting for a large campaign's first results reloads itself this often.
PENDING_REFRESH_SECONDS = 10
# The times of a snapshot only asked for (nothing computed): before any computation.
NOT_COMPUTED = datetime(1970, 1, 1, tzinfo=UTC)


def results_snapshot_read(
    *,
    kind: str,
    campaigns: Sequence[Campaign],
    variants: Sequence[str] | None = None,
    stale_ok: bool = True,
    placeholder: Callable[[Campaign, str], Any] | None = None,
) -> list[Snapshotted]:
    """Each campaign's results of ``kind`` (a ``ResultsSnapshot.Kind``) and variant (one per
    campaign, "" each by default), in order; ``stale_ok`` False (an answer that cannot say
    how old it is: the downloads): always current ones. ``placeholder``: what a page or the
    API shows for a large campaign with none stored yet (computing it could take the
    request minutes), while the job computes it; without it they are computed here."""
    chosen = list(variants) if variants is not None else [""] * len(campaigns)
    keys = [(campaign.id, variant) for campaign, variant in zip(campaigns, chosen, strict=True)]
    versions = results_versions(campaign_id for campaign_id, _ in keys)
    stored = stored_snapshots(kind, keys)
    answers = []
    for campaign, variant in zip(campaigns, chosen, strict=True):
        version = versions[campaign.id]
        snapshot = stored.get((campaign.id, variant))
        value = snapshot_value(snapshot) if snapshot is not None else None
        costly = version.judgments >= settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS
        if snapshot is not None and value is not None:
            current = snapshot.version == version.digest
            if current or (stale_ok and costly):
                if not current:
                    _refresh_ask(kind=kind, campaign_id=campaign.id, variant=variant)
                answers.append(
                    Snapshotted(
                        value,
                        snapshot.judgments,
                        snapshot.computed_at,
                        current,
                        judgments_since=max(0, version.judgments - snapshot.judgments),
                    )
                )
                continue
        if placeholder is not None and stale_ok and costly:
            _refresh_ask(kind=kind, campaign_id=campaign.id, variant=variant)
            answers.append(
                Snapshotted(
                    placeholder(campaign, variant),
                    version.judgments,
                    timezone.now(),
                    current=False,
                    pending=True,
                )
            )
            continue
        answers.append(
            snapshot_compute(kind=kind, campaign=campaign, version=version, variant=variant)
        )
    return answers


def _refresh_ask(*, kind: str, campaign_id: int, variant: str) -> None:
    """Asks the refresh job for this snapshot. The job keeps the page as first shown and the
    shared tasks' pairs current anyway; another variant is marked as asked for (a row with
    nothing computed yet when there is none), so that the job computes it too."""
    if variant and kind != ResultsSnapshot.Kind.PAIR:
        with transaction.atomic():
            ResultsSnapshot.objects.get_or_create(
                campaign_id=campaign_id,
                kind=kind,
                variant=variant,
                defaults={
                    "version": "",
                    "judgments": 0,
                    "started_at": NOT_COMPUTED,
                    "computed_at": NOT_COMPUTED,
                    "seconds": 0.0,
                    "payload": b"",
                },
            )
            ResultsSnapshot.objects.filter(
                campaign_id=campaign_id, kind=kind, variant=variant
            ).update(asked_at=Now())
            results_snapshot_refresh_request(campaign_id=campaign_id)
        return
    results_snapshot_refresh_request(campaign_id=campaign_id)


def results_snapshots_prepare(*, campaign_id: int) -> None:
    """After an import or upload: asks the refresh job for a large campaign's results, so
    that its first reader finds them computed (a small one is computed on its page at
    once). Reads the judgments in the caller's transaction, queued on its commit."""
    version = results_versions([campaign_id], using=router.db_for_write(Batch))
    found = version.get(campaign_id)
    if found is not None and found.judgments >= settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS:
        results_snapshot_refresh_request(campaign_id=campaign_id)


class SnapshotReader:
    """Reads shared-task pairs (each a campaign and the procedure chosen for it) through
    their snapshots: a callable for ``shared_task_results(read_pairs=...)``, keeping how
    current each was in ``read``."""

    def __init__(
        self,
        kind: str,
        *,
        stale_ok: bool = True,
        placeholder: Callable[[Campaign, str], Any] | None = None,
    ) -> None:
        self.kind = kind
        self.stale_ok = stale_ok
        self.placeholder = placeholder
        self.read: list[Snapshotted] = []

    @property
    def pending(self) -> set[int]:
        """Ids of the campaigns shown by a placeholder."""
        return {snapshot.value.campaign.id for snapshot in self.read if snapshot.pending}

    def __call__(self, pairs: Sequence[tuple[Campaign, str]]) -> list[Any]:
        got = results_snapshot_read(
            kind=self.kind,
            campaigns=[campaign for campaign, _ in pairs],
            variants=[variant for _, variant in pairs],
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
    """The sweep: asks the refresh job for every campaign with a stale snapshot it keeps
    current (``snapshot_compute``: the page as first shown, the pairs, variants asked for);
    returns how many were asked for."""
    kept = Q(variant="") | Q(kind=ResultsSnapshot.Kind.PAIR) | Q(asked_at__gt=F("started_at"))
    stored = list(ResultsSnapshot.objects.filter(kept).values_list("campaign_id", "version"))
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
