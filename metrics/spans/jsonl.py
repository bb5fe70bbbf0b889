"""JSON Lines, one annotated item per line with its spans.

Each line is an object with at least ``"spans"``: a list of ``{"start", "end", "severity",
"category", "prefilled"}`` (``end`` exclusive; ``start`` and ``end`` null for the
missing-content marker; ``"side": "source"`` for source-side spans, omitted for the target).
Every other key of the line (item id, system, segment, source, target, score, ...) is kept as
it is. When the line has a ``"target"`` string, target spans must fit in it (``"source"``
likewise).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from metrics.spans.span import SIDES, Span, SpanError, without_bom
from metrics.wmt_csv import InputError

SPAN_KEYS = ("start", "end", "severity", "category", "prefilled")


@dataclass(frozen=True)
class SpanItem:
    """One item's fields (everything but ``spans``, in the line's order) and its spans."""

    fields: Mapping[str, Any]
    spans: tuple[Span, ...] = field(default_factory=tuple)


def read_spans_jsonl(lines: Iterable[str], *, name: str = "<input>") -> Iterator[SpanItem]:
    """Yield one ``SpanItem`` per non-blank line; ``InputError`` names the first bad line."""
    for line_number, line in enumerate(without_bom(lines), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError("each line must be a JSON object")
            yield _item(data)
        except json.JSONDecodeError as error:
            raise InputError(name, line_number, f"not JSON: {error.msg}") from None
        except (ValueError, SpanError) as error:
            raise InputError(name, line_number, str(error)) from None


def _item(data: dict[str, Any]) -> SpanItem:
    raw_spans = data.pop("spans", None)
    if not isinstance(raw_spans, list):
        raise ValueError('"spans" must be a list')
    spans = tuple(span_from_dict(entry) for entry in raw_spans)
    for span in spans:
        text = data.get(span.side)
        if isinstance(text, str):
            span.check_within(text)
    return SpanItem(fields=data, spans=spans)


def span_from_dict(entry: object) -> Span:
    """A span from its JSON object (see the module docstring)."""
    if not isinstance(entry, dict):
        raise ValueError("each span must be a JSON object")
    unknown = set(entry) - {*SPAN_KEYS, "side"}
    if unknown:
        raise ValueError(f"unknown span keys: {', '.join(sorted(unknown))}")
    start, end = entry.get("start"), entry.get("end")
    for label, value in (("start", start), ("end", end)):
        if value is not None and type(value) is not int:
            raise ValueError(f"span {label} must be an integer or null")
    severity, category = entry.get("severity"), entry.get("category")
    if not isinstance(severity, str):
        raise ValueError("a span needs a severity string")
    if category is not None and not isinstance(category, str):
        raise ValueError("span category must be a string or null")
    prefilled = entry.get("prefilled", False)
    if not isinstance(prefilled, bool):
        raise ValueError("span prefilled must be true or false")
    side = entry.get("side", "target")
    if side not in SIDES:
        raise ValueError(f"span side must be one of {', '.join(SIDES)}")
    return Span(start, end, severity, category, prefilled, side)


def span_to_dict(span: Span) -> dict[str, Any]:
    data: dict[str, Any] = {
        "start": span.start,
        "end": span.end,
        "severity": span.severity,
        "category": span.category,
        "prefilled": span.prefilled,
    }
    if span.side != "target":
        data["side"] = span.side
    return data


def write_spans_jsonl(items: Iterable[SpanItem]) -> Iterator[str]:
    """Yield one JSON line per item, its fields first and ``"spans"`` last."""
    for item in items:
        line = {**item.fields, "spans": [span_to_dict(span) for span in item.spans]}
        yield json.dumps(line, ensure_ascii=False) + "\n"
