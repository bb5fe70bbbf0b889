"""API token authentication with the token and its user in one raw query: every API
request (the annotator's judgments above all) pays no ORM compilation for it. The token's
age comes in the same row, so expiry costs no query."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from annotation.services.logins import token_expired

_User = get_user_model()
_TOKEN_USER_SQL = (
    f"SELECT u.*, t.created AS token_created FROM {_User._meta.db_table} u"  # noqa: S608
    f" JOIN {Token._meta.db_table} t ON t.user_id = u.{_User._meta.pk.column}"
    " WHERE t.key = %s"
)


class TokenUserAuthentication(TokenAuthentication):
    """DRF's ``TokenAuthentication`` (same header, same answers), its lookup in one query."""

    def authenticate_credentials(self, key: str):
        found = list(_User.objects.raw(_TOKEN_USER_SQL, [key]))
        if not found:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        user = found[0]
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        if token_expired(user.token_created):
            raise exceptions.AuthenticationFailed(
                "Token expired; get a new one with POST /api/v1/auth/token."
            )
        return user, Token(key=key, user=user, created=user.token_created)
