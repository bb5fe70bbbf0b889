"""A lost database connection answers 503 with Retry-After, not a 500; and answers meant for
one person are marked so that no cache keeps them (``PrivateCacheMiddleware``).

While PostgreSQL restarts, requests in flight and new ones fail to reach it. That is not a
bug in the request: the same request sent again a moment later succeeds (answers are recorded
once per slot, so a retry never duplicates one). Clients, the annotate page's script among
them, retry on 503.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.cache import patch_cache_control
from django.utils.functional import SimpleLazyObject, empty

from annotation.http_errors import error_json, wants_json

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 2
MESSAGE = "The database is briefly unavailable; retry."
# SQLSTATEs of a server going away or not accepting connections yet: connection exceptions
# (class 08), and administrator shutdown, crash shutdown, "cannot connect now" (starting up).
_UNAVAILABLE_STATES = ("08", "57P01", "57P02", "57P03")


def database_unavailable(error: BaseException) -> bool:
    """True for a lost or refused connection; False for constraint and query errors."""
    if isinstance(error, InterfaceError):
        return True
    if not isinstance(error, OperationalError):
        return False
    sqlstate = getattr(error.__cause__, "sqlstate", None)
    # No SQLSTATE: the client library failed (refused, closed, timed out), not a query.
    return sqlstate is None or sqlstate.startswith(_UNAVAILABLE_STATES)


def unavailable_response(request: HttpRequest) -> HttpResponse:
    response: HttpResponse
    if wants_json(request):
        # The code "unavailable" and Retry-After say that the same request may be sent again.
        response = error_json(MESSAGE, status=503)
    else:
        # Rendered without the request: its context processors would query the database.
        html = render_to_string(
            "db_unavailable.html",
            {"retry_after": RETRY_AFTER_SECONDS, "reload": request.method in ("GET", "HEAD")},
        )
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


class DatabaseUnavailableMiddleware:
    """Turns connection errors raised by views (DRF views re-raise them too) into 503s."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not database_unavailable(exception):
            return None
        logger.warning(
            "database unavailable, %s %s answered 503: %s", request.method, request.path, exception
        )
        return unavailable_response(request)


def _user_known_signed_in(request: HttpRequest) -> bool:
    """Whether a user already loaded in this request (a view's, DRF's token user) is signed in."""
    user = getattr(request, "user", None)
    if isinstance(user, SimpleLazyObject) and user._wrapped is empty:
        return False
    return user is not None and user.is_authenticated


class PrivateCacheMiddleware:
    """``Cache-Control: private, no-store`` on every answer to a signed-in user (session or
    API token) and on every attachment (exports name annotators): neither a shared proxy nor
    the browser's disk keeps a copy another person of the same machine could open."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # Read from the request alone, never the database: a user not yet loaded would be
        # loaded here, after DatabaseUnavailableMiddleware, and a database down would turn
        # its 503 into a 500. A session cookie or credentials count as personal.
        personal = (
            settings.SESSION_COOKIE_NAME in request.COOKIES
            or "HTTP_AUTHORIZATION" in request.META
            or _user_known_signed_in(request)
        )
        attachment = response.get("Content-Disposition", "").startswith("attachment")
        if personal or attachment:
            patch_cache_control(response, private=True, no_store=True)
        return response
