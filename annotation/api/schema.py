"""The error answers every API operation can give, added to the OpenAPI schema in one place.

Every error has one body (``annotation/http_errors.py``): ``{"error": message, "code": code}``,
with ``fields`` (field -> messages) when the body's fields are refused. Views document their
own successes and the errors particular to them (409, 429) with ``ErrorSerializer``; the
errors that come from the framework around them are the same everywhere and are listed here,
so the schema names every status code a client can meet (the fuzz tests hold the API to it):

- 400 on operations that take a body or query parameters;
- 401 without valid credentials, 403 when the user's role does not allow the operation;
- 404 on operations with ids in the path (unknown ids and other campaigns alike);
- 415 when a body comes in a media type the operation does not read;
- 503 with ``Retry-After`` while the database is unreachable (``annotation/middleware.py``);
- and a 202 (results being computed, ``annotation/api/results_figures.py``) has ``Retry-After``,
  as has that operation's 200 when its figures are older than the data.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from annotation.http_errors import CODE_BY_STATUS

# What an answer's ``status`` says, per kind of write; named (settings.SPECTACULAR_SETTINGS'
# ENUM_NAME_OVERRIDES) so that the three enums called "status" get names of their own.
RECORD_STATUSES = ["recorded", "already_recorded"]
SKIP_STATUSES = ["skipped", "already_skipped"]
UPLOAD_STATUSES = ["created", "new_run", "unchanged"]
# A large campaign's results with none computed yet (annotation/api/results_figures.py).
RESULTS_STATUSES = ["computing"]
# What one observation of a live ranking status is (a task's unit is another enum, "unit").
OBSERVATION_UNITS = ["judgment", "output", "page"]
# What a judgment budget counts (annotation/selectors/budget.py).
BUDGET_UNITS = ["judgment", "screen"]

ERROR = {
    "type": "object",
    "properties": {
        "error": {"type": "string", "description": "the reason, for the person"},
        "code": {"type": "string", "enum": sorted(set(CODE_BY_STATUS.values()))},
        "fields": {
            "type": "object",
            "description": "the refused fields of the request and their messages",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
    },
    "required": ["error", "code"],
    "additionalProperties": False,
}
# For the views' own ``extend_schema(responses=...)``: the same body, by name.
ErrorSerializer = inline_serializer(
    "Error",
    {
        "error": serializers.CharField(),
        "code": serializers.ChoiceField(choices=sorted(set(CODE_BY_STATUS.values()))),
        "fields": serializers.DictField(
            child=serializers.ListField(child=serializers.CharField()), required=False
        ),
    },
)
RETRY_AFTER = {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds to wait"}}
# Results answered older than their data (annotation/api/results_figures.py).
STALE_RETRY_AFTER = {
    "Retry-After": {
        "schema": {"type": "integer"},
        "description": "only when the figures are not current: seconds until new ones",
    }
}


def _ref(component: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{component}"}


def _answer(description: str, **extra: Any) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": _ref("Error")}},
        **extra,
    }


def add_common_errors(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    """A drf-spectacular post-processing hook."""
    # The one error body, whether or not a view named it.
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR
    for item in result.get("paths", {}).values():
        for operation in item.values():
            parameters = operation.get("parameters", [])
            responses = operation["responses"]
            takes_input = "requestBody" in operation or any(
                parameter["in"] == "query" for parameter in parameters
            )
            if takes_input:
                responses["400"] = _answer("Invalid input")
            if "requestBody" in operation:
                responses.setdefault("415", _answer("Unsupported media type"))
            responses.setdefault("401", _answer("Not authenticated"))
            responses.setdefault("403", _answer("Not allowed for this role"))
            if "404" not in responses and any(
                parameter["in"] == "path" for parameter in parameters
            ):
                responses["404"] = _answer("No such object, or not yours")
            responses.setdefault("503", _answer("Database unavailable; retry", headers=RETRY_AFTER))
            if "202" in responses:  # results being computed: ask again after Retry-After
                responses["202"].setdefault("headers", RETRY_AFTER)
                responses["200"].setdefault("headers", STALE_RETRY_AFTER)
    return result
