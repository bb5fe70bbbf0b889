"""Campaigns and memberships."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from annotation.errors import ApplicationError
from annotation.lib.languages import LanguageCodeError, language_code_normalise
from annotation.models import Campaign, Membership, Role


class CampaignError(ApplicationError):
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
    taken = CampaignError(f"a campaign named {name!r} exists already")
    if Campaign.objects.filter(name=name).exists():
        raise taken
    codes = {}
    for label, code in (("source", source_language), ("target", target_language)):
        if len(code) > 16:
            raise CampaignError(f"the {label} language code is too long: at most 16 characters")
        try:
            codes[label] = language_code_normalise(code)
        except LanguageCodeError as error:
            raise CampaignError(f"{label} language: {error}") from None
    try:
        # A savepoint: a concurrent request that created the name first (after the check
        # above) makes this insert fail on the unique index, refused like the check.
        with transaction.atomic():
            campaign = Campaign.objects.create(
                name=name,
                source_language=codes["source"],
                target_language=codes["target"],
                description=description,
                owner=owner,
            )
    except IntegrityError:
        raise taken from None
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


@transaction.atomic
def membership_add(*, campaign: Campaign, username: str, role: str) -> Membership:
    """Adds an existing account to the campaign; a member keeps their role (change it with
    ``membership_set``), so that adding cannot demote a manager by mistake."""
    if role not in Role.values:
        raise CampaignError(f"unknown role {role!r}; use one of {', '.join(Role.values)}")
    user = User.objects.filter(username__iexact=username.strip()).first()
    if user is None or not username.strip():
        raise CampaignError(f"no account is called {username.strip()!r}; send an invitation")
    existing = Membership.objects.filter(campaign=campaign, user=user).first()
    if existing is None:
        membership = membership_insert(campaign=campaign, user=user, role=role)
        if membership is not None:
            return membership
        existing = Membership.objects.get(campaign=campaign, user=user)
    raise CampaignError(f"{user.username} is {existing.role} of this campaign already")


def membership_insert(*, campaign: Campaign, user: User, role: str) -> Membership | None:
    """The new membership, or None when the user became a member meanwhile (a concurrent
    request's row won the unique index; the caller's transaction goes on)."""
    try:
        with transaction.atomic():
            return Membership.objects.create(campaign=campaign, user=user, role=role)
    except IntegrityError:
        return None
