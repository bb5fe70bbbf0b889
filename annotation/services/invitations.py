"""Invitations: single-use, expiring tokens that create an account and log it in."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.models import Campaign, Invitation, Membership, Role


class InvitationError(ValueError):
    pass


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@transaction.atomic
def invitation_create(
    *,
    campaign: Campaign,
    created_by: User,
    role: str = Role.ANNOTATOR,
    days: int = 7,
    note: str = "",
) -> tuple[Invitation, str]:
    """Returns the invitation and its token; only the token's hash is stored."""
    if role not in Role.values:
        raise InvitationError(f"unknown role {role!r}")
    token = secrets.token_urlsafe(32)
    invitation = Invitation.objects.create(
        campaign=campaign,
        role=role,
        token_hash=_hash(token),
        note=note[:200],
        created_by=created_by,
        expires_at=timezone.now() + timedelta(days=days),
    )
    return invitation, token


@transaction.atomic
def invitation_accept(*, token: str, username: str, password: str) -> User:
    """Creates the account and its membership; the token cannot be used again."""
    invitation = (
        Invitation.objects.select_for_update().filter(token_hash=_hash(token.strip())).first()
    )
    if invitation is None:
        raise InvitationError("this invitation code is not valid")
    if invitation.used_at is not None:
        raise InvitationError("this invitation was used already; ask for a new one")
    if invitation.expires_at < timezone.now():
        raise InvitationError("this invitation has expired; ask for a new one")
    User = get_user_model()
    username = username.strip()
    if not username or User.objects.filter(username__iexact=username).exists():
        raise InvitationError("choose another username: that one is taken or empty")
    user = User(username=username)
    try:
        validate_password(password, user)
    except ValidationError as error:
        raise InvitationError(" ".join(error.messages)) from None
    user.set_password(password)
    user.save()
    Membership.objects.create(campaign=invitation.campaign, user=user, role=invitation.role)
    invitation.used_at = timezone.now()
    invitation.used_by = user
    invitation.save(update_fields=["used_at", "used_by"])
    return user
