"""JSON with a nesting limit and whole characters, for every JSON a client sends (API bodies,
form fields, uploads).

Python's decoder recurses once per ``[`` or ``{``: a body nested 100,000 deep raises
``RecursionError`` deep inside it, a 500 with a traceback. No document evalsite reads nests
beyond a handful of levels, so anything past ``MAX_DEPTH`` is refused before decoding, as a
``json.JSONDecodeError`` (what callers already catch for bad JSON). So is a lone surrogate
(``"\\ud800"`` without its pair): JSON lets it through, but it is no character, and writing it
to PostgreSQL fails (a 500).
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 100
# A JSON string (its brackets do not nest), or one bracket.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def depth_check(text: str, *, max_depth: int = MAX_DEPTH) -> None:
    """``json.JSONDecodeError`` if ``text`` opens more than ``max_depth`` arrays or objects
    inside each other."""
    if text.count("[") + text.count("{") <= max_depth:
        return  # cannot nest deeper (almost every document: no scan)
    depth = 0
    for token in _TOKEN.finditer(text):
        bracket = token.group()
        if bracket in ("[", "{"):
            depth += 1
            if depth > max_depth:
                raise json.JSONDecodeError(
                    f"nested more than {max_depth} levels deep", text, token.start()
                )
        elif bracket in ("]", "}"):
            depth -= 1


def characters_check(value: Any, text: str = "") -> None:
    """``json.JSONDecodeError`` if a decoded document holds a lone surrogate."""
    if "\\u" not in text and text:
        return  # surrogates reach decoded JSON only through escapes
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        raise json.JSONDecodeError(
            f"a lone surrogate \\u{ord(error.object[error.start]):04x} is not a character",
            text,
            0,
        ) from None


def loads(text: str | bytes, **options: Any) -> Any:
    """``json.loads`` refusing documents nested deeper than ``MAX_DEPTH`` or holding lone
    surrogates."""
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8")
    depth_check(text)
    try:
        value = json.loads(text, **options)
    except RecursionError:  # a limit set below the decoder's stack: refused all the same
        raise json.JSONDecodeError("nested too deep", text, 0) from None
    characters_check(value, text)
    return value
