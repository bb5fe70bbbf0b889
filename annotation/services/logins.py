"""Failed log-ins and lockouts, for the login page, the admin login and the API token; and
the API token's life (issued, expired after ``API_TOKEN_MAX_AGE_DAYS``, rotated, deleted when
the password changes).

An account (by the username tried, whether or not it exists, so that a lockout reveals
nothing) is locked after ``LOGIN_LOCKOUT_FAILURES`` failures within
``LOGIN_LOCKOUT_WINDOW_SECONDS``; an IP address after ``LOGIN_LOCKOUT_IP_FAILURES`` failures
over all usernames (password spraying). While locked, not even the right password is checked.
A successful log-in clears its username's failures. Rows older than the window are deleted
whenever a failure is recorded, so the table stays small.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from annotation.errors import ApplicationError
from annotation.models import LoginFailure

T = TypeVar("T")

USERNAME_MAX_LENGTH = 150  # Django's user model
# The first key of the two-key advisory lock: our namespace for per-username login locks.
_LOCK_CLASS = 0x4C4F47


def token_expires(*, created: datetime) -> datetime:
    """The one rule of a token's age: when a token made at ``created`` stops working."""
    return created + timedelta(days=settings.API_TOKEN_MAX_AGE_DAYS)


def token_expired(*, created: datetime) -> bool:
    """Checked on every API request, in its one query's row."""
    return token_expires(created=created) <= timezone.now()


def _user_lock(user: Any) -> None:
    """Token writes of one user wait for each other: two first requests (or two rotations) at
    once would otherwise both insert, and one would fail on the one-token-per-user index."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk").first()


@transaction.atomic
def token_for(*, user: Any) -> Token:
    """The user's token, a new one if it has none or it has expired."""
    _user_lock(user)
    token = Token.objects.filter(user=user).first()
    if token is not None and not token_expired(created=token.created):
        return token
    return token_rotate(user=user)


@transaction.atomic
def token_rotate(*, user: Any) -> Token:
    """A new token for the user; the old one stops working at once."""
    _user_lock(user)
    tokens_delete(user=user)
    return Token.objects.create(user=user)


@transaction.atomic
def tokens_delete(*, user: Any) -> int:
    deleted, _ = Token.objects.filter(user=user).delete()
    return deleted


def username_validator(username: str) -> None:
    """``username_clean`` as a Django validator, for the user model's forms (the admin's)."""
    try:
        username_clean(username=username)
    except UsernameError as error:
        raise ValidationError(str(error)) from None


def tokens_delete_on_password_change(sender: Any, instance: Any, created: bool, **kwargs: Any):
    """``post_save`` of the user model: a saved password change (a reset, the admin's form,
    ``changepassword``) ends the account's API token, as it ends its other sessions.
    ``set_password`` leaves the new raw password in ``_password`` until the save is done."""
    if not created and getattr(instance, "_password", None) is not None:
        tokens_delete(user=instance)


@dataclass(frozen=True)
class Lockout:
    retry_after: int  # seconds until another attempt is considered

    @property
    def minutes(self) -> int:
        return max(1, math.ceil(self.retry_after / 60))

    @property
    def message(self) -> str:
        unit = "minute" if self.minutes == 1 else "minutes"
        return f"Too many failed attempts; try again in {self.minutes} {unit}."


class LoginLocked(Exception):
    def __init__(self, lockout: Lockout) -> None:
        super().__init__(lockout.message)
        self.lockout = lockout


class UsernameError(ApplicationError):
    """A username no new account may take, and why."""


# Scripts whose letters look alike ("а" is Cyrillic, "a" Latin): a name mixing them is refused.
_CONFUSABLE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK"})


def username_clean(*, username: str) -> str:
    """The one rule for a new account's name, on every path that creates one (invitation
    sign-up, imported raters, the admin's forms): NFKC (a full-width "ｂｏｂ" is "bob"), no
    invisible or control characters (zero-width joiners, right-to-left overrides), Django's
    username characters, and no Latin, Cyrillic and Greek letters mixed. Returns the name to
    store, or raises ``UsernameError``."""
    name = unicodedata.normalize("NFKC", username).strip()
    if not name:
        raise UsernameError("choose a username")
    if len(name) > USERNAME_MAX_LENGTH:
        raise UsernameError(f"a username has at most {USERNAME_MAX_LENGTH} characters")
    for char in name:
        if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            raise UsernameError(
                f"a username cannot contain the invisible or control character U+{ord(char):04X}"
            )
    try:
        UnicodeUsernameValidator()(name)
    except ValidationError as error:
        raise UsernameError(" ".join(error.messages)) from None
    scripts = {unicodedata.name(c, "").split(" ")[0] for c in name if c.isalpha()}
    if len(scripts & _CONFUSABLE_SCRIPTS) > 1:
        raise UsernameError(
            "a username cannot mix Latin, Cyrillic and Greek letters (they look alike)"
        )
    return name


def username_normalise(*, username: str) -> str:
    """The key failures are counted under: "Alice" and "alice " are the same account."""
    return unicodedata.normalize("NFKC", username).strip().casefold()[:USERNAME_MAX_LENGTH]


def _window() -> timedelta:
    return timedelta(seconds=settings.LOGIN_LOCKOUT_WINDOW_SECONDS)


def _locked_until(times: list[datetime], limit: int) -> datetime | None:
    """``times`` newest first: locked while ``limit`` of them are inside the window, that is
    until the ``limit``-th newest leaves it."""
    if limit <= 0 or len(times) < limit:
        return None
    return times[limit - 1] + _window()


def login_lockout_check(*, username: str, ip: str | None) -> Lockout | None:
    """The lockout in force for this username or IP address, if any."""
    now = timezone.now()
    since = now - _window()
    recent = LoginFailure.objects.filter(at__gt=since).order_by("-at")
    until = [
        _locked_until(
            list(
                recent.filter(username=username_normalise(username=username)).values_list(
                    "at", flat=True
                )[: settings.LOGIN_LOCKOUT_FAILURES]
            ),
            settings.LOGIN_LOCKOUT_FAILURES,
        )
    ]
    if ip is not None:
        limit = settings.LOGIN_LOCKOUT_IP_FAILURES
        until.append(
            _locked_until(list(recent.filter(ip=ip).values_list("at", flat=True)[:limit]), limit)
        )
    latest = max((moment for moment in until if moment is not None), default=None)
    if latest is None or latest <= now:
        return None
    return Lockout(retry_after=math.ceil((latest - now).total_seconds()))


@transaction.atomic
def login_failure_record(*, username: str, ip: str | None) -> LoginFailure:
    LoginFailure.objects.filter(at__lt=timezone.now() - _window()).delete()
    return LoginFailure.objects.create(username=username_normalise(username=username), ip=ip)


@transaction.atomic
def login_failures_clear(*, username: str) -> int:
    deleted, _ = LoginFailure.objects.filter(
        username=username_normalise(username=username)
    ).delete()
    return deleted


@transaction.atomic
def login_attempt(
    *, username: str, ip: str | None, authenticate: Callable[[], T | None]
) -> T | None:
    """Runs ``authenticate`` unless the username or IP is locked out, and records the outcome:
    returns what it returned (None: a failure) or raises :class:`LoginLocked`.

    Attempts on one username wait for each other (a transaction-scoped advisory lock), so that
    a burst of parallel guesses cannot all pass the check before the first failure is written.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
            [_LOCK_CLASS, username_normalise(username=username)],
        )
    lockout = login_lockout_check(username=username, ip=ip)
    if lockout is not None:
        # Not recorded: the password was not checked, and counting these would let anyone
        # keep an account locked for ever.
        raise LoginLocked(lockout)
    user = authenticate()
    if user is None:
        login_failure_record(username=username, ip=ip)
    else:
        login_failures_clear(username=username)
    return user
