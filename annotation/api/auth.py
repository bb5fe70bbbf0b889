"""The API token, with the same lockout as the login page (annotation/services/logins.py)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, parsers, serializers, status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.fields import StrictCharField
from annotation.api.parsers import DepthLimitedJSONParser
from annotation.api.schema import ErrorSerializer
from annotation.http_errors import error_body
from annotation.lib.client_ip import client_ip
from annotation.services.logins import LoginLocked, login_attempt, token_for, token_rotate

TokenSerializer = inline_serializer("Token", {"token": serializers.CharField()})


class TokenApi(ObtainAuthToken):
    """A token for a username and password; 429 with Retry-After while the account or the
    client's address is locked out after repeated failures."""

    # DRF's view names its own parsers; JSON here too is depth-limited.
    parser_classes = (parsers.FormParser, parsers.MultiPartParser, DepthLimitedJSONParser)

    class TokenInputSerializer(serializers.Serializer):
        username = StrictCharField(max_length=150)
        password = StrictCharField(max_length=4096, trim_whitespace=False)

    @extend_schema(
        request=TokenInputSerializer,
        responses={200: TokenSerializer, 429: ErrorSerializer},
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # A malformed request (missing fields, NUL bytes, a username no account can have)
        # checks no password and records no failure: a 400 naming the fields.
        data = self.TokenInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        username = data.validated_data["username"]
        password = data.validated_data["password"]
        try:
            user = login_attempt(
                username=username,
                ip=client_ip(request._request),
                authenticate=lambda: authenticate(
                    request._request, username=username, password=password
                ),
            )
        except LoginLocked as locked:
            return Response(
                error_body(locked.lockout.message, status=429),
                status=status.HTTP_429_TOO_MANY_REQUESTS,
                headers={"Retry-After": str(locked.lockout.retry_after)},
            )
        if user is None:
            raise exceptions.ValidationError(
                {"non_field_errors": ["Unable to log in with provided credentials."]},
                code="authorization",
            )
        return Response({"token": token_for(user=user).key})


class TokenRotateApi(APIView):
    """A new token for the caller (authenticated by token or session); the old one stops
    working at once. Tokens also expire after ``API_TOKEN_MAX_AGE_DAYS`` days."""

    @extend_schema(request=None, responses={200: TokenSerializer})
    def post(self, request: Request) -> Response:
        return Response({"token": token_rotate(user=request.user).key})
