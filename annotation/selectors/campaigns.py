from __future__ import annotations

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery

from annotation.models import Campaign, Membership


def campaigns_for_user(user) -> QuerySet[Campaign]:
    """The campaigns a user belongs to (all of them for admins), with their role and sizes."""
    campaigns = Campaign.objects.all()
    if not user.is_superuser:
        campaigns = campaigns.filter(memberships__user=user)
    role = Membership.objects.filter(campaign=OuterRef("pk"), user=user).values("role")[:1]
    return campaigns.annotate(
        role=Subquery(role),
        segment_count=Count("segments", distinct=True),
        system_count=Count("systems", distinct=True),
    ).order_by("-created_at")


def campaign_tasks(campaign: Campaign) -> list:
    """The campaign's tasks with their judgment counts (planned, done) and skips, in one
    query. Every slot, repeats included, is planned at launch; a skipped slot is no judgment
    (its item gets a slot of its own, its companions are cancelled), so skips are counted
    apart and the done count cannot pass the total."""
    return list(
        campaign.tasks.annotate(
            slots_total=Count("slots", filter=Q(slots__skip__isnull=True)),
            slots_done=Count("slots", filter=Q(slots__judgment__isnull=False)),
            slots_skipped=Count("slots", filter=Q(slots__skip__isnull=False)),
        ).order_by("id")
    )


def campaign_overview(campaign: Campaign) -> dict[str, object]:
    return {
        "tasks": campaign_tasks(campaign),
        "segments": campaign.segments.count(),
        "documents": campaign.documents.filter(implicit=False).count(),
        "references": list(campaign.references.values_list("name", flat=True)),
    }
