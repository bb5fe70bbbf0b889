"""Campaigns and memberships."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from annotation.models import Campaign, Membership, Role


class CampaignError(ValueError):
    """A request the campaign cannot take, with a message for the person who made it."""


@transaction.atomic
def campaign_create(
    *,
    name: str,
    source_language: str,
    target_language: str,
    owner: User,
    description: str = "",
) -> Campaign:
    name = name.strip()
    if not name:
        raise CampaignError("a campaign needs a name")
    if Campaign.objects.filter(name=name).exists():
        raise CampaignError(f"a campaign named {name!r} exists already")
    for label, code in (("source", source_language), ("target", target_language)):
        if not code.strip() or len(code) > 16:
            raise CampaignError(f"the {label} language needs a code such as 'en' or 'deu'")
    campaign = Campaign.objects.create(
        name=name,
        source_language=source_language.strip(),
        target_language=target_language.strip(),
        description=description,
        owner=owner,
    )
    Membership.objects.create(campaign=campaign, user=owner, role=Role.MANAGER)
    return campaign


@transaction.atomic
def membership_set(*, campaign: Campaign, user: User, role: str) -> Membership:
    if role not in Role.values:
        raise CampaignError(f"unknown role {role!r}; use one of {', '.join(Role.values)}")
    membership, _ = Membership.objects.update_or_create(
        campaign=campaign, user=user, defaults={"role": role}
    )
    return membership
