"""API token authentication with the token and its user in one raw query: every API
request (the annotator's judgments above all) pays no ORM compilation for it. The token's
age comes in the same row, so expiry costs no query."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.authtoken.models import Token

from annotation.db_prepared import model_columns, model_from_row, prepared_cursor
from annotation.services.logins import token_expired

_User = get_user_model()
_TOKEN_USER_SQL = (
    f"SELECT {model_columns(_User, 'u')}, t.created"  # noqa: S608 (model tables)
    f" FROM {_User._meta.db_table} u"
    f" JOIN {Token._meta.db_table} t ON t.user_id = u.{_User._meta.pk.column}"
    " WHERE t.key = %s"
)


def _wrong_scheme() -> str:
    return (
        "Send the token with the Token scheme: 'Authorization: Token <your token>' "
        "(Bearer and other schemes are not accepted). Your token is on the page "
        f"{reverse('account-token')}."
    )


class TokenUserAuthentication(TokenAuthentication):
    """DRF's ``TokenAuthentication`` (same header, same answers), its lookup in one query."""

    def authenticate(self, request):
        # DRF lets any other scheme through as "no credentials" (a 401 that names nothing);
        # a client sending "Bearer …" is told the one scheme this API takes.
        scheme = get_authorization_header(request).split(b" ", 1)[0]
        if scheme and scheme.lower() != self.keyword.lower().encode():
            raise exceptions.AuthenticationFailed(_wrong_scheme())
        return super().authenticate(request)

    def authenticate_credentials(self, key: str):
        with prepared_cursor() as cursor:
            cursor.execute(_TOKEN_USER_SQL, [key])
            row = cursor.fetchone()
        if row is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        user = model_from_row(_User, row[:-1])
        user.token_created = row[-1]
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        if token_expired(created=user.token_created):
            raise exceptions.AuthenticationFailed(
                "Token expired; get a new one with POST /api/v1/auth/token."
            )
        return user, Token(key=key, user=user, created=user.token_created)
