"""The API's JSON parser: DRF's, refusing bodies nested deeper than ``json_limits.MAX_DEPTH``
or holding a lone surrogate with a 400 (DRF's own recurses until ``RecursionError``, and lets
surrogates through to the database: 500s)."""

from __future__ import annotations

import io
import json
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from annotation.lib import json_limits


class DepthLimitedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        body = stream.read() if stream is not None else b""
        try:
            text = body.decode(encoding)
            json_limits.depth_check(text)
            value = super().parse(io.BytesIO(body), media_type, parser_context)
            json_limits.characters_check(value, text)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ParseError(f"JSON parse error - {error}") from None
        return value
