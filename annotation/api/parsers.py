"""The API's JSON parser: DRF's, refusing bodies nested deeper than ``json_limits.MAX_DEPTH``
with a 400 (DRF's own recurses until ``RecursionError``, a 500)."""

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
            json_limits.depth_check(body.decode(encoding))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ParseError(f"JSON parse error - {error}") from None
        return super().parse(io.BytesIO(body), media_type, parser_context)
