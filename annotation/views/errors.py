"""Error pages: styled pages with the site's navigation for people, the one JSON error body
(annotation/http_errors.py) for API clients and pages' scripts; and the page adapter of
``ApplicationError``.

Expected refusals (403, 404, a refused action) are logged by Django in one line each
("Forbidden: /path"); ``PermissionDenied`` is answered here so that it is not logged with its
traceback as well.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme

from annotation.errors import ApplicationError
from annotation.http_errors import error_json, error_status, wants_json

# Status -> (title, what the person can do about it). One place for every error page's words.
ERRORS = {
    400: ("Not done", "The request was refused for the reason below; nothing was changed."),
    403: ("Not allowed", "Your role in this campaign does not allow this page or action."),
    404: ("Not found", "There is no such page, or it belongs to a campaign you are not in."),
    405: (
        "Not available this way",
        "This address takes a form's submission, not a visit: go back and use the button.",
    ),
    409: ("Not now", "The current state does not allow this; nothing was changed."),
    500: ("Something went wrong", "The error is logged. Try again in a moment."),
    503: ("Unavailable", "This is briefly unavailable; try again in a moment."),
}
CSRF_TITLE = "Form expired"
CSRF_ADVICE = (
    "The page this form came from is out of date (it was open a long time, you logged in or "
    "out in another tab, or your browser blocks cookies), so nothing was sent. Go back, "
    "reload the page and submit again."
)


def error_response(request: HttpRequest, status: int, *, detail: str = "") -> HttpResponse:
    """The error page for ``status``; the JSON error body for API clients and scripts."""
    title, advice = ERRORS[status]
    if wants_json(request):
        return error_json(detail or f"{title}.", status=status)
    if status == 500:
        # No request context: its processors may need the database, which may be what failed.
        html = render_to_string(
            "errors/500.html", {"code": status, "title": title, "advice": advice}
        )
    else:
        html = render_to_string(
            [f"errors/{status}.html", "errors/error.html"],
            {"code": status, "title": title, "advice": advice, "detail": detail},
            request=request,
        )
    return HttpResponse(html, status=status)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404 for URLs that match no route and for Http404 raised by a page."""
    return error_response(request, 404, detail="Not found." if wants_json(request) else "")


def forbidden(request: HttpRequest, exception: Exception) -> HttpResponse:
    message = str(exception) if exception and str(exception) else ""
    return error_response(request, 403, detail=message)


def server_error(request: HttpRequest) -> HttpResponse:
    return error_response(request, 500)


def _same_site(request: HttpRequest, url: str) -> str:
    """``url`` if it leads to this site, else "" (a page links back only to itself)."""
    allowed = url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return url if allowed else ""


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: the site's error page with what happened and a way back (Django's
    own page is unstyled and speaks to developers). The reason goes to the log, not the page."""
    if wants_json(request):
        return error_json(f"{CSRF_TITLE}: reload the page and try again.", status=403)
    html = render_to_string(
        "errors/error.html",
        {
            "code": 403,
            "title": CSRF_TITLE,
            "advice": CSRF_ADVICE,
            "back": _same_site(request, request.headers.get("Referer", "")),
        },
        request=request,
    )
    return HttpResponse(html, status=403)


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

    status = error_status(error)
    back = getattr(request, _REFUSED, None)
    if back is not None and status not in (403, 503) and not wants_json(request):
        url_name, url_args, message = back
        # A conflict (the state changed: another tab, a paused task) warns; the rest errs.
        level = messages.warning if error.kind == "conflict" else messages.error
        level(request, message.format(error=error))
        return redirect(url_name, *url_args)
    return error_response(request, status, detail=str(error))


class ApplicationErrorMiddleware:
    """Pages: an ``ApplicationError`` a view lets through becomes its answer here, and so
    does ``PermissionDenied`` (Django would log it with a 20-line traceback, though a
    refusal is expected; the one line Django logs for every 4xx response stays)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, PermissionDenied):
            return forbidden(request, exception)
        if not isinstance(exception, ApplicationError):
            return None
        return page_error_response(request, exception)


class MethodNotAllowedPageMiddleware:
    """Gives Django's empty 405 (``require_POST``, ``LogoutView``) a page with navigation,
    keeping its status and ``Allow`` header; the API's 405s are DRF's JSON already."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or request.path.startswith("/api/") or response.content:
            return response
        page = error_response(request, 405)
        if "Allow" in response:
            page["Allow"] = response["Allow"]
        return page
