"""The one application error type.

Services raise ``ApplicationError`` (or a subclass: ``TaskError``, ``UploadError``, ...) with
a message for the person and a ``kind``; they know nothing of HTTP. ``annotation/http_errors.py``
turns it into an answer: the kind is the ``code`` of the one JSON error body and fixes the
status.
"""

from __future__ import annotations

# What went wrong. Each kind is also the ``code`` of the JSON error body (http_errors.py).
KINDS = (
    "invalid",  # the request asks for something the rules refuse
    "forbidden",
    "not_found",
    "conflict",  # refused because of the current state; may succeed later
    "unavailable",
)


class ApplicationError(Exception):
    """A request the application refuses, with the reason in words for the person.

    Subclasses set a default ``kind``; a raise may name another (``kind="not_found"``).
    """

    kind = "invalid"

    def __init__(self, message: str = "", kind: str | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            if kind not in KINDS:
                raise ValueError(f"unknown error kind {kind!r}")
            self.kind = kind

    @property
    def message(self) -> str:
        return str(self)
