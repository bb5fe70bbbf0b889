"""Appraise's ESA score export, read and written line by line.

No header; twelve columns: ``login, system, itemId, itemType, srcLang, trgLang, score,
documentId#system, isCompleteDocument, error_spans_json, timeStart, timeEnd``. The spans are a
JSON list of ``{"start_i", "end_i", "severity", "error_type"}`` with an inclusive end, or
``"missing"`` for both offsets (the missing-content marker). Written output is canonical: the
JSON compact with the keys in that order, the score an integer when it is one, the times
verbatim; a canonical file therefore comes back byte for byte. The export does not say which
spans were pre-filled: that flag is lost on the way out.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from metrics.spans.span import Span, SpanError, without_bom
from metrics.wmt_csv import InputError

APPRAISE_COLUMNS = (
    "login",
    "system",
    "itemId",
    "itemType",
    "srcLang",
    "trgLang",
    "score",
    "documentId#system",
    "isCompleteDocument",
    "error_spans_json",
    "timeStart",
    "timeEnd",
)
MISSING_OFFSET = "missing"
_BOOLEANS = {"True": True, "False": False}


@dataclass(frozen=True)
class AppraiseScore:
    """One row of the export. ``document`` is the ``documentId#system`` field as written."""

    login: str
    system: str
    item_id: int
    item_type: str
    source_language: str
    target_language: str
    score: float
    document: str
    is_complete_document: bool
    spans: tuple[Span, ...]
    time_start: str
    time_end: str

    @property
    def document_id(self) -> str:
        """The document without the ``#system`` suffix Appraise appends."""
        return self.document.rsplit("#", 1)[0]


def read_appraise_esa(lines: Iterable[str], *, name: str = "<input>") -> Iterator[AppraiseScore]:
    """Yield the rows of an export (pass a file opened with ``newline=""``).

    Raises ``InputError`` naming the line of the first bad row; rows before it were yielded.
    Callers that must validate a whole upload before writing collect the rows first.
    """
    reader = csv.reader(without_bom(lines))
    for row in reader:
        line = reader.line_num
        if not row:
            continue
        if len(row) != len(APPRAISE_COLUMNS):
            raise InputError(
                name, line, f"expected {len(APPRAISE_COLUMNS)} fields, found {len(row)}"
            )
        try:
            yield _parse_row(row)
        except (ValueError, SpanError) as error:
            raise InputError(name, line, str(error)) from None


def _parse_row(row: list[str]) -> AppraiseScore:
    login, system, item, kind, src, tgt, score, document, complete, spans, start, end = row
    if not item.lstrip("-").isdigit():
        raise ValueError(f"itemId must be an integer, not {item!r}")
    if complete not in _BOOLEANS:
        raise ValueError(f"isCompleteDocument must be True or False, not {complete!r}")
    for label, value in (("timeStart", start), ("timeEnd", end)):
        _finite(value, label)
    return AppraiseScore(
        login=login,
        system=system,
        item_id=int(item),
        item_type=kind,
        source_language=src,
        target_language=tgt,
        score=_finite(score, "score"),
        document=document,
        is_complete_document=_BOOLEANS[complete],
        spans=parse_appraise_spans(spans),
        time_start=start,
        time_end=end,
    )


def _finite(text: str, label: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{label} is not a number: {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{label} is not a finite number: {text!r}")
    return value


def parse_appraise_spans(spans: str | list[Any], *, prefilled: bool = False) -> tuple[Span, ...]:
    """Spans in Appraise's form (inclusive ends, ``"missing"`` offsets): the export's
    ``error_spans_json`` text, or the already-parsed list of a batch item's ``mqm`` field
    (pass ``prefilled=True`` for ESA^AI's pre-filled spans)."""
    if isinstance(spans, str):
        try:
            data = json.loads(spans) if spans.strip() else []
        except json.JSONDecodeError as error:
            raise ValueError(f"error_spans_json is not JSON: {error.msg}") from None
    else:
        data = spans
    if not isinstance(data, list) or not all(isinstance(entry, dict) for entry in data):
        raise ValueError("Appraise spans must be a list of objects")
    return tuple(_appraise_span(entry, prefilled) for entry in data)


def _appraise_span(entry: dict[str, object], prefilled: bool) -> Span:
    start, end = entry.get("start_i"), entry.get("end_i")
    severity, category = entry.get("severity"), entry.get("error_type")
    if not isinstance(severity, str):
        raise ValueError(f"a span needs a severity string: {entry}")
    if category is not None and not isinstance(category, str):
        raise ValueError(f"error_type must be a string or null: {entry}")
    if start == MISSING_OFFSET and end == MISSING_OFFSET:
        return Span.missing(severity, category, prefilled=prefilled)
    if type(start) is not int or type(end) is not int:
        raise ValueError(f"start_i and end_i must be integers or both 'missing': {entry}")
    if end < start - 1:
        raise ValueError(f"end_i is before start_i: {entry}")
    return Span.from_inclusive(start, end, severity, category, prefilled=prefilled)


def format_appraise_spans(spans: Iterable[Span]) -> str:
    """Appraise's ``error_spans_json`` for target-side spans (compact, keys in its order)."""
    entries = []
    for span in spans:
        if span.side != "target":
            raise ValueError("Appraise stores target spans only")
        missing = span.start is None
        entries.append(
            {
                "start_i": MISSING_OFFSET if missing else span.start,
                "end_i": MISSING_OFFSET if missing else span.inclusive_end,
                "severity": span.severity,
                "error_type": span.category,
            }
        )
    return json.dumps(entries, separators=(",", ":"), ensure_ascii=False)


def write_appraise_esa(rows: Iterable[AppraiseScore]) -> Iterator[str]:
    """Yield the export one CSV line at a time (``\\n`` line ends, as Appraise writes)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for row in rows:
        writer.writerow(
            [
                row.login,
                row.system,
                str(row.item_id),
                row.item_type,
                row.source_language,
                row.target_language,
                format_number(row.score),
                row.document,
                str(row.is_complete_document),
                format_appraise_spans(row.spans),
                row.time_start,
                row.time_end,
            ]
        )
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def format_number(value: float) -> str:
    """An integer-valued score without ``.0``; any other as Python's shortest repr."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def appraise_segments(rows: Iterable[AppraiseScore]) -> list[str]:
    """A segment key per row: ``document_id#position``.

    The export names no segment, only the document and the annotator's item number. Each
    annotator sees a document's segments as consecutive items, so the position of a row
    among that annotator's rows of the same document and item type (by itemId) is the
    segment's place in the document, the same for every system that translated it.
    """
    rows = list(rows)
    groups: dict[tuple[str, str, str], list[int]] = {}
    for index, row in enumerate(rows):
        groups.setdefault((row.login, row.document, row.item_type), []).append(index)
    keys = [""] * len(rows)
    for members in groups.values():
        for position, index in enumerate(sorted(members, key=lambda i: rows[i].item_id)):
            keys[index] = f"{rows[index].document_id}#{position}"
    return keys
