"""Error pages: styled pages with the site's navigation for people, JSON for API clients."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

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


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def error_response(request: HttpRequest, status: int, *, detail: str = "") -> HttpResponse:
    """The error page for ``status`` (JSON under /api/)."""
    title, advice = ERRORS[status]
    if _is_api(request):
        return JsonResponse({"detail": detail or title}, status=status)
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
    return error_response(request, 404, detail="Not found." if _is_api(request) else "")


def forbidden(request: HttpRequest, exception: Exception) -> HttpResponse:
    message = str(exception) if exception and str(exception) else ""
    return error_response(request, 403, detail=message)


def server_error(request: HttpRequest) -> HttpResponse:
    return error_response(request, 500)


class MethodNotAllowedPageMiddleware:
    """Gives Django's empty 405 (``require_POST``, ``LogoutView``) a page with navigation,
    keeping its status and ``Allow`` header; the API's 405s are DRF's JSON already."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or _is_api(request) or response.content:
            return response
        page = error_response(request, 405)
        if "Allow" in response:
            page["Allow"] = response["Allow"]
        return page
