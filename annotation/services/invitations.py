"""Invitations: single-use, expiring tokens that join a person to a campaign, creating their
account or adding an existing one."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.errors import ApplicationError
from annotation.models import Campaign, Invitation, Membership, Role
from annotation.services.campaigns import membership_insert
from annotation.services.logins import UsernameError, username_clean

INVITATION_DAYS = 7
# Enough for a crowd of annotators at once; more is a script's job, in several calls.
MAX_INVITATIONS_AT_ONCE = 500


class InvitationError(ApplicationError):
    pass


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invitation_usable(*, token: str, for_update: bool = False) -> Invitation:
    """The unused, unexpired invitation of this token, or InvitationError saying why not."""
    invitations = Invitation.objects.select_related("campaign")
    if for_update:
        invitations = invitations.select_for_update(of=("self",))
    invitation = invitations.filter(token_hash=_hash(token.strip())).first()
    if invitation is None:
        raise InvitationError("this invitation code is not valid (or was revoked)")
    if invitation.used_at is not None:
        raise InvitationError("this invitation was used already; ask for a new one")
    if invitation.expires_at < timezone.now():
        raise InvitationError("this invitation has expired; ask for a new one")
    return invitation


@transaction.atomic
def invitation_create(
    *,
    campaign: Campaign,
    created_by: User,
    role: str = Role.ANNOTATOR,
    days: int = INVITATION_DAYS,
    note: str = "",
) -> tuple[Invitation, str]:
    """Returns the invitation and its token; only the token's hash is stored."""
    ((invitation, token),) = invitations_create(
        campaign=campaign, created_by=created_by, count=1, role=role, days=days, note=note
    )
    return invitation, token


@transaction.atomic
def invitations_create(
    *,
    campaign: Campaign,
    created_by: User,
    count: int,
    role: str = Role.ANNOTATOR,
    days: int = INVITATION_DAYS,
    note: str = "",
) -> list[tuple[Invitation, str]]:
    """``count`` invitations with their tokens, all or none; only the hashes are stored."""
    if role not in Role.values:
        raise InvitationError(f"unknown role {role!r}; use one of {', '.join(Role.values)}")
    if not 1 <= count <= MAX_INVITATIONS_AT_ONCE:
        raise InvitationError(f"create between 1 and {MAX_INVITATIONS_AT_ONCE} invitations at once")
    if not 1 <= days <= 365:
        raise InvitationError("an invitation lasts between 1 and 365 days")
    expires_at = timezone.now() + timedelta(days=days)
    tokens = [secrets.token_urlsafe(32) for _ in range(count)]
    invitations = Invitation.objects.bulk_create(
        Invitation(
            campaign=campaign,
            role=role,
            token_hash=_hash(token),
            note=note[:200],
            created_by=created_by,
            expires_at=expires_at,
        )
        for token in tokens
    )
    return list(zip(invitations, tokens, strict=True))


@transaction.atomic
def invitation_revoke(*, campaign: Campaign, invitation_id: int) -> None:
    """Deletes an unused invitation, so that its link stops working at once."""
    invitation = (
        Invitation.objects.select_for_update().filter(id=invitation_id, campaign=campaign).first()
    )
    if invitation is None:
        raise InvitationError("no such invitation in this campaign", kind="not_found")
    if invitation.used_at is not None:
        raise InvitationError("this invitation was used already; remove the member instead")
    invitation.delete()


def _use(invitation: Invitation, user: User) -> Membership:
    membership = membership_insert(campaign=invitation.campaign, user=user, role=invitation.role)
    if membership is None:
        raise _already_member(invitation, user)
    invitation.used_at = timezone.now()
    invitation.used_by = user
    invitation.save(update_fields=["used_at", "used_by"])
    return membership


@transaction.atomic
def invitation_accept(*, token: str, username: str, password: str) -> User:
    """Creates the account and its membership; the token cannot be used again."""
    invitation = invitation_usable(token=token, for_update=True)
    User = get_user_model()
    try:
        username = username_clean(username=username)
    except UsernameError as error:
        raise InvitationError(str(error)) from None
    taken = InvitationError("that username is taken: if it is yours, log in below to join with it")
    if User.objects.filter(username__iexact=username).exists():
        raise taken
    user = User(username=username)
    try:
        validate_password(password, user)
    except ValidationError as error:
        raise InvitationError(" ".join(error.messages)) from None
    user.set_password(password)
    try:
        # A savepoint: the same name (in any case, by the index on lower(username)) taken by
        # a concurrent sign-up after the check above is refused like the check.
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise taken from None
    _use(invitation, user)
    return user


@transaction.atomic
def invitation_join(*, token: str, user: User) -> Membership:
    """Joins an existing account to the invitation's campaign with its role. A member keeps
    their role and the invitation stays unused, so that a link cannot change anyone's role."""
    invitation = invitation_usable(token=token, for_update=True)
    if Membership.objects.filter(campaign=invitation.campaign, user=user).exists():
        raise _already_member(invitation, user)
    return _use(invitation, user)


def _already_member(invitation: Invitation, user: User) -> InvitationError:
    existing = Membership.objects.get(campaign=invitation.campaign, user=user)
    return InvitationError(
        f"you are {existing.role} of {invitation.campaign.name} already; "
        "this invitation was not used"
    )
