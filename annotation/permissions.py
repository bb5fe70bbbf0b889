"""Who may do what in a campaign. Every view and API view goes through these."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from annotation.models import Campaign, Membership, Role

# What each role may do; admins (superusers) may do everything.
CAN_MANAGE = {Role.MANAGER}
CAN_SEE_RESULTS = {Role.MANAGER, Role.ORGANISER}
CAN_ANNOTATE = {Role.ANNOTATOR}


def campaign_role(user, campaign_id: int) -> str | None:
    if not user.is_authenticated:
        return None
    return (
        Membership.objects.filter(campaign_id=campaign_id, user=user)
        .values_list("role", flat=True)
        .first()
    )


def campaign_for(user, campaign_id: int, allowed: set[str]) -> tuple[Campaign, str]:
    """The campaign and the user's role, or 404 for non-members and 403 for the wrong role.

    Non-members get 404, not 403, so that campaign ids reveal nothing.
    """
    campaign = get_object_or_404(Campaign, id=campaign_id)
    if user.is_authenticated and user.is_superuser:
        return campaign, "admin"
    role = campaign_role(user, campaign_id)
    if role is None:
        raise_not_found()
    if role not in allowed:
        raise PermissionDenied("your role in this campaign does not allow this")
    return campaign, role


def raise_not_found():
    from django.http import Http404

    raise Http404("no such campaign")
