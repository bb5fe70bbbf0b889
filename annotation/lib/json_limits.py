"""JSON with a nesting limit, for every JSON a client sends (API bodies, form fields, uploads).

Python's decoder recurses once per ``[`` or ``{``: a body nested 100,000 deep raises
``RecursionError`` deep inside it, a 500 with a traceback. No document evalsite reads nests
beyond a handful of levels, so anything past ``MAX_DEPTH`` is refused before decoding, as a
``json.JSONDecodeError`` (what callers already catch for bad JSON).
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


def loads(text: str | bytes, **options: Any) -> Any:
    """``json.loads`` refusing documents nested deeper than ``MAX_DEPTH``."""
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8")
    depth_check(text)
    try:
        return json.loads(text, **options)
    except RecursionError:  # a limit set below the decoder's stack: refused all the same
        raise json.JSONDecodeError("nested too deep", text, 0) from None
