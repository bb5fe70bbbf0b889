"""The one JSON error body, and the API's handler that answers every error with it.

Every error answered as JSON (by the API, by a page to its script, by the 503 of a lost
database) has the body

    {"error": "<the reason, for the person>", "code": "<what went wrong>"}

plus ``"fields": {"<field>": ["<message>", ...]}`` when fields of the request are refused, and
``"next": "<url>"`` when the annotate page's script is shown the way on. ``error_body`` builds
it; nothing else does. ``code`` follows the status (``CODE_BY_STATUS``); an
``ApplicationError``'s kind is the code of its status. Pages render errors in
``annotation/views/errors.py``.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse

from annotation.errors import KINDS, ApplicationError

# Status -> the body's code. The application errors' kinds are among them.
CODE_BY_STATUS = {
    400: "invalid",
    401: "not_authenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    429: "too_many_requests",
    500: "server_error",
    503: "unavailable",
}
STATUS_BY_CODE = {code: status for status, code in CODE_BY_STATUS.items()}
STATUS_BY_KIND = {kind: STATUS_BY_CODE[kind] for kind in KINDS}


def error_status(error: ApplicationError) -> int:
    """The one mapping from an application error to its HTTP status."""
    return STATUS_BY_KIND[error.kind]


def error_body(
    message: str,
    *,
    status: int,
    fields: dict[str, list[str]] | None = None,
    next_url: str | None = None,
) -> dict[str, Any]:
    """The JSON body of every error answer (see the module's docstring)."""
    body: dict[str, Any] = {"error": message, "code": CODE_BY_STATUS.get(status, "invalid")}
    if fields:
        body["fields"] = fields
    if next_url is not None:
        body["next"] = next_url
    return body


def error_json(message: str, *, status: int, **extra: Any) -> JsonResponse:
    return JsonResponse(error_body(message, status=status, **extra), status=status)


def wants_json(request: HttpRequest) -> bool:
    """API clients and pages' scripts (fetch with X-Requested-With, or Accept: JSON)."""
    return (
        request.path.startswith("/api/")
        or "X-Requested-With" in request.headers
        or "application/json" in request.headers.get("Accept", "")
    )


def _field_messages(detail: Any) -> list[str]:
    if isinstance(detail, dict):
        return [
            f"{name}: {message}"
            for name, inner in detail.items()
            for message in _field_messages(inner)
        ]
    if isinstance(detail, list):
        return [message for inner in detail for message in _field_messages(inner)]
    return [str(detail)]


def _fields(detail: Any) -> dict[str, list[str]]:
    """A serializer's errors as field -> messages (a nested field's name is its path)."""
    if isinstance(detail, list):
        detail = {"non_field_errors": detail}
    return {name: _field_messages(inner) for name, inner in detail.items()}


def api_exception_handler(exception: Exception, context: dict[str, Any]):
    """DRF's ``EXCEPTION_HANDLER``: every error the API answers (``ApplicationError``, and
    DRF's own: validation, 401, 403, 404, 405, 415, a body that does not parse) in the one
    body, with DRF's status and headers (``WWW-Authenticate``, ``Allow``, ``Retry-After``)."""
    from rest_framework.exceptions import ValidationError
    from rest_framework.response import Response
    from rest_framework.views import exception_handler, set_rollback

    if isinstance(exception, ApplicationError):
        set_rollback()  # as DRF does for its own errors: nothing of the request is kept
        status = error_status(exception)
        return Response(error_body(str(exception), status=status), status=status)
    response = exception_handler(exception, context)
    if response is None:
        return None  # not an API error: a 500 (or the database's 503, middleware.py)
    if isinstance(exception, ValidationError):
        fields = _fields(response.data)
        messages = [
            message if name == "non_field_errors" else f"{name}: {message}"
            for name, field_messages in fields.items()
            for message in field_messages
        ]
        response.data = error_body(
            "; ".join(messages) or "Invalid input.", status=response.status_code, fields=fields
        )
    else:
        response.data = error_body(
            str(response.data.get("detail", "")), status=response.status_code
        )
    return response
