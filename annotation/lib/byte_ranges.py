"""HTTP byte ranges (RFC 9110 §14): the one range of a ``Range`` header a media file serves."""

from __future__ import annotations

import re

_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


class UnsatisfiableRange(ValueError):
    """A range this file cannot serve: the answer is 416 with ``Content-Range: bytes */size``."""


def byte_range(header: str | None, size: int) -> tuple[int, int] | None:
    """(first, last) byte, inclusive, asked for by ``header``; None for the whole file (no
    header, another unit, or several ranges, which the RFC lets a server answer whole)."""
    if not header:
        return None
    header = header.strip()
    if not header.startswith("bytes=") or "," in header:
        return None
    match = _RANGE.fullmatch(header.replace(" ", ""))
    if match is None:
        raise UnsatisfiableRange(header)
    start, end = match.groups()
    if not start:
        if not end or int(end) == 0:
            raise UnsatisfiableRange(header)
        # A suffix: the last N bytes (all of a shorter file).
        return max(size - int(end), 0), size - 1
    first = int(start)
    last = min(int(end), size - 1) if end else size - 1
    if first >= size or (end and int(end) < first):
        raise UnsatisfiableRange(header)
    return first, last
