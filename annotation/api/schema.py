"""The error answers every API operation can give, added to the OpenAPI schema in one place.

Views document their own successes and the errors particular to them (409, 429); the errors
that come from the framework around them are the same everywhere and are listed here, so the
schema names every status code a client can meet (the fuzz tests hold the API to it). The
400 is always the one below, whatever a view says: validation errors have more shapes than
a view's own ``{"error": ...}``.

- 400 on operations that take a body or query parameters: ``{"error": "..."}`` from the
  services, ``{"detail": "..."}`` for a body that does not parse, or the serializers'
  ``{"field": ["message", ...]}``;
- 401 without valid credentials, 403 when the user's role does not allow the operation;
- 404 on operations with ids in the path (unknown ids and other campaigns alike):
  ``{"detail": "..."}`` from the permission check, ``{"error": "..."}`` from a service
  (``annotation/errors.py``: every ``ApplicationError`` answers ``{"error": message}``);
- 415 when a body comes in a media type the operation does not read;
- 503 with ``Retry-After`` while the database is unreachable (``annotation/middleware.py``).
"""

from __future__ import annotations

from typing import Any

DETAIL = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}
ERROR = {
    "type": "object",
    "properties": {"error": {"type": "string"}},
    "required": ["error"],
    "additionalProperties": False,
}
NOT_FOUND = {"anyOf": [DETAIL, ERROR]}
BAD_REQUEST = {
    "description": '{"error": message} from the services, {"detail": message} for a body'
    " that does not parse, or field names (and non_field_errors) mapped to the serializers'"
    " messages.",
    # The services' message first: Swagger UI shows the first alternative as the example.
    "anyOf": [
        ERROR,
        {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {"oneOf": [{"type": "array"}, {"type": "object"}]},
        },
        DETAIL,
    ],
}
UNAVAILABLE = {
    "type": "object",
    "properties": {"detail": {"type": "string"}, "retryable": {"type": "boolean"}},
    "required": ["detail", "retryable"],
}
COMPONENTS = {
    "Detail": DETAIL,
    "NotFound": NOT_FOUND,
    "BadRequest": BAD_REQUEST,
    "Unavailable": UNAVAILABLE,
}
RETRY_AFTER = {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds to wait"}}


def _ref(component: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{component}"}


def _answer(description: str, component: str, **extra: Any) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": _ref(component)}},
        **extra,
    }


def _also_detail(response: dict[str, Any]) -> None:
    """A code a view documents with its own body may also come from the framework, with
    ``{"detail": ...}`` (a 404 from the permission check before the view's own 404)."""
    media = response.get("content", {}).get("application/json")
    if media is not None and media.get("schema") not in (_ref("Detail"), _ref("NotFound")):
        media["schema"] = {"oneOf": [media["schema"], _ref("Detail")]}


def add_common_errors(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    """A drf-spectacular post-processing hook."""
    result.setdefault("components", {}).setdefault("schemas", {}).update(COMPONENTS)
    for item in result.get("paths", {}).values():
        for operation in item.values():
            parameters = operation.get("parameters", [])
            responses = operation["responses"]
            takes_input = "requestBody" in operation or any(
                parameter["in"] == "query" for parameter in parameters
            )
            if takes_input:
                responses["400"] = _answer("Invalid input", "BadRequest")
            if "requestBody" in operation:
                responses.setdefault("415", _answer("Unsupported media type", "Detail"))
            responses.setdefault("401", _answer("Not authenticated", "Detail"))
            responses.setdefault("403", _answer("Not allowed for this role", "Detail"))
            if "404" in responses:
                _also_detail(responses["404"])
            elif any(parameter["in"] == "path" for parameter in parameters):
                responses["404"] = _answer("No such object, or not yours", "NotFound")
            responses.setdefault(
                "503", _answer("Database unavailable; retry", "Unavailable", headers=RETRY_AFTER)
            )
    return result
