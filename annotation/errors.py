"""One application error, and the one place that turns it into an answer.

Services raise ``ApplicationError`` (or a subclass: ``TaskError``, ``UploadError``, ...) with
a message for the person and a ``kind``; they know nothing of HTTP. ``error_status`` maps the
kind to a status, and two thin adapters answer with it: ``ApplicationErrorMiddleware`` for
pages (the styled error page, or back to the page the action came from with the message,
see ``refused_to``) and ``api_exception_handler``, DRF's ``EXCEPTION_HANDLER``, for the API
(``{"error": message}``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse

# What went wrong -> the HTTP status that says it.
STATUS_BY_KIND = {
    "invalid": 400,  # the request asks for something the rules refuse
    "forbidden": 403,
    "not_found": 404,
    "conflict": 409,  # refused because of the current state; may succeed later
    "unavailable": 503,
}


class ApplicationError(Exception):
    """A request the application refuses, with the reason in words for the person.

    Subclasses set a default ``kind``; a raise may name another (``kind="not_found"``).
    """

    kind = "invalid"

    def __init__(self, message: str = "", kind: str | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            if kind not in STATUS_BY_KIND:
                raise ValueError(f"unknown error kind {kind!r}")
            self.kind = kind

    @property
    def message(self) -> str:
        return str(self)


def error_status(error: ApplicationError) -> int:
    """The one mapping from an application error to its HTTP status."""
    return STATUS_BY_KIND[error.kind]


# Set on the request by ``refused_to``: where a refused page action goes back to, and how
# its message reads.
_REFUSED = "refused_to"


def refused_to(
    url_name: str, message: str = "{error}", *, url_kwargs: tuple[str, ...] = ("campaign_id",)
) -> Callable:
    """A page action (a form's POST) whose refusal goes back to ``url_name`` (reversed with
    the view's ``url_kwargs``) with ``message`` shown there, ``{error}`` the reason, rather
    than to an error page. Access errors (403) and 503 still get their page."""

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            back = [kwargs[name] for name in url_kwargs]
            setattr(request, _REFUSED, (url_name, back, message))
            return view(request, *args, **kwargs)

        return wrapper

    return decorate


def page_error_response(request: HttpRequest, error: ApplicationError) -> HttpResponse:
    from django.contrib import messages
    from django.shortcuts import redirect

    from annotation.views.errors import error_response

    status = error_status(error)
    back = getattr(request, _REFUSED, None)
    if back is not None and status not in (403, 503):
        url_name, url_args, message = back
        # A conflict (the state changed: another tab, a paused task) warns; the rest errs.
        level = messages.warning if error.kind == "conflict" else messages.error
        level(request, message.format(error=error))
        return redirect(url_name, *url_args)
    return error_response(request, status, detail=str(error))


class ApplicationErrorMiddleware:
    """Pages: an ``ApplicationError`` a view lets through becomes its answer here."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, ApplicationError):
            return None
        return page_error_response(request, exception)


def api_exception_handler(exception: Exception, context: dict[str, Any]):
    """DRF's ``EXCEPTION_HANDLER``: ``ApplicationError`` answers ``{"error": message}``;
    everything else as DRF does (validation errors, 401, 403, 404, 405, 415)."""
    from rest_framework.response import Response
    from rest_framework.views import exception_handler, set_rollback

    if isinstance(exception, ApplicationError):
        set_rollback()  # as DRF does for its own errors: nothing of the request is kept
        return Response({"error": str(exception)}, status=error_status(exception))
    return exception_handler(exception, context)
