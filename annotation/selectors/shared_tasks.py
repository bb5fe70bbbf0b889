"""What a shared task's page, API and downloads show: each visible pair's ranking
(annotation.selectors.shared_task_pairs), the global table, per-domain tables and AutoRank
(annotation.selectors.shared_task_tables); which shared tasks and campaigns a user sees."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from annotation.models import Campaign, SharedTask, SharedTaskCampaign
from annotation.permissions import results_campaign_ids
from annotation.selectors.shared_task_pairs import PairResults, pair_results
from metrics.report.shared_task import GlobalRow, global_ranking


def readable_campaigns(user) -> list[Campaign]:
    """The campaigns whose results ``user`` reads (what a shared task may take from them)."""
    ids = results_campaign_ids(user, Campaign.objects.values_list("id", flat=True))
    return list(Campaign.objects.filter(id__in=ids).order_by("name"))


@dataclass(frozen=True)
class SharedTaskEntry:
    shared_task: SharedTask
    pairs: list[Campaign]  # those the user sees
    hidden: int  # pairs the user does not see


def visible_shared_tasks(user) -> list[SharedTaskEntry]:
    """The shared tasks with a pair the user sees, and those the user owns (admins: all)."""
    campaign_ids = results_campaign_ids(user, Campaign.objects.values_list("id", flat=True))
    entries = []
    for shared_task in SharedTask.objects.prefetch_related("pairs__campaign").order_by("name"):
        pairs = [link.campaign for link in shared_task.pairs.all()]
        seen = [c for c in pairs if c.id in campaign_ids]
        if seen or user.is_superuser or shared_task.owner_id == user.id:
            entries.append(SharedTaskEntry(shared_task, seen, len(pairs) - len(seen)))
    return entries


def shared_task_pair(shared_task: SharedTask, campaign_id: int) -> SharedTaskCampaign | None:
    return (
        SharedTaskCampaign.objects.filter(shared_task=shared_task, campaign_id=campaign_id)
        .select_related("campaign")
        .first()
    )


@dataclass(frozen=True)
class SharedTaskResults:
    shared_task: SharedTask
    pairs: list[PairResults]  # the pairs the reader may see, in the order they were added
    hidden_pairs: int  # pairs of the shared task the reader may not see
    global_rows: list[GlobalRow]
    autorank_metrics: list[str]

    @property
    def ranked_pairs(self) -> list[PairResults]:
        return [p for p in self.pairs if p.table is not None and p.rows]


# Reads pairs, each (campaign, the procedure its shared task chose), in order.
PairReader = Callable[[list[tuple[Campaign, str]]], list[PairResults]]


def shared_task_results(
    shared_task: SharedTask,
    visible_campaign_ids: set[int],
    *,
    read_pairs: PairReader | None = None,
) -> SharedTaskResults:
    """The shared task as the reader may see it: only the campaigns in
    ``visible_campaign_ids`` (annotation.permissions.shared_task_access) are read, each
    ranked by the procedure chosen for it, by ``pair_results`` or by ``read_pairs`` (their
    stored snapshots: annotation.services.results_snapshots.SnapshotReader)."""
    links = list(shared_task.pairs.select_related("campaign").order_by("id"))
    visible = [
        (link.campaign, link.procedure)
        for link in links
        if link.campaign_id in visible_campaign_ids
    ]
    pairs = (
        read_pairs(visible)
        if read_pairs is not None
        else [pair_results(campaign, procedure) for campaign, procedure in visible]
    )
    ranked = {p.pair: p.participants() for p in pairs if p.rows}
    chosen = [m for m in shared_task.autorank_metrics.split(",") if m]
    return SharedTaskResults(
        shared_task=shared_task,
        pairs=pairs,
        hidden_pairs=len(links) - len(visible),
        global_rows=global_ranking(ranked),
        autorank_metrics=chosen,
    )
