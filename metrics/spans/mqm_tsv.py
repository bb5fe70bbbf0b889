"""Google's MQM TSV, read and written line by line, in the layouts Google publishes.

One row per error, tab-separated, no quoting (open with ``csv.QUOTE_NONE``). Two layouts:

- wmt-mqm-human-evaluation (the TED/WMT files): a header
  ``system doc doc_id seg_id rater source target category severity [comment]``.
- Anthea's export as Marot reads it: ``system doc docSegId globalSegId rater source target
  category severity metadata``, the header optional (a first line holding ``system\tdoc``);
  ``metadata`` is a JSON object (its ``note`` becomes the comment) or, in older files, a plain
  note. ``docSegId`` is read as ``doc_id`` and ``globalSegId`` as ``seg_id``, the same roles.
  A side-by-side (``MQM-SxS``) evaluation writes the rows of each of its two systems in turn:
  one rating per system, as for any other file. Rows without a rater, a category and a
  severity only carry segment metadata and are skipped.

The error's span is marked ``<v>…</v>`` in the target, or in the source for omissions and
source errors (``Source error``, Anthea's ``Source issue``); a row marking neither text is a
missing-content marker. A segment a rater found clean has one row with category and severity
``No-error``. Offsets count characters of the text with the markers taken out.

``HOTW-test`` rows (category ``Found`` or ``Missed``) are Anthea's "hands on the wheel"
attention checks: an error injected into a translation that the rater had to find. They are
never errors: a row of that kind yields ``MqmRow.hotw`` (``"found"``/``"missed"``) and no span,
and ``group_ratings`` keeps them beside the rating as ``MqmRating.checks``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

from metrics.spans.span import Span, SpanError, without_bom
from metrics.wmt_csv import InputError

MQM_COLUMNS = (
    "system",
    "doc",
    "doc_id",
    "seg_id",
    "rater",
    "source",
    "target",
    "category",
    "severity",
)
# Marot's names for the first four columns and the metadata column (marot/README.md).
MAROT_COLUMNS = ("system", "doc", "docSegId", "globalSegId", *MQM_COLUMNS[4:])
COMMENT_COLUMN = "comment"
METADATA_COLUMN = "metadata"
# Anthea's row times beyond this (the end of year 9999, in ms) are not times.
LAST_TIMESTAMP_MS = 253_402_300_800_000
NO_ERROR = "No-error"
HOTW_SEVERITY = "hotw-test"
HOTW_RESULTS = {"found": "found", "missed": "missed"}
OPEN_MARK, CLOSE_MARK = "<v>", "</v>"


@dataclass(frozen=True)
class MqmRow:
    """One rater's error on one system's segment; ``span`` is None on a No-error row."""

    system: str
    doc: str
    doc_id: str
    seg_id: str
    rater: str
    source: str
    target: str
    span: Span | None
    comment: str | None = None
    # An attention check's result ("found" or "missed"); such a row is never an error.
    hotw: str | None = None
    metadata: dict[str, Any] | None = dataclass_field(default=None, compare=False, repr=False)

    @property
    def severity(self) -> str:
        if self.hotw is not None:
            return "HOTW-test"
        return NO_ERROR if self.span is None else self.span.severity

    @property
    def category(self) -> str:
        if self.hotw is not None:
            return self.hotw.capitalize()
        return NO_ERROR if self.span is None else self.span.category or ""


@dataclass(frozen=True)
class HotwCheck:
    """One HOTW attention check: whether the rater found the injected error, and which."""

    found: bool
    injected: str = ""
    kind: str = ""

    @classmethod
    def from_row(cls, row: MqmRow) -> HotwCheck:
        metadata = row.metadata or {}
        return cls(
            found=row.hotw == "found",
            injected=str(metadata.get("hotw_error") or ""),
            kind=str(metadata.get("hotw_type") or ""),
        )


def read_mqm_tsv(lines: Iterable[str], *, name: str = "<input>") -> Iterator[MqmRow]:
    """Yield the rows of an MQM TSV in either layout; ``InputError`` names the first bad line."""
    iterator = without_bom(lines)
    first = next(iterator, "")
    last_column = _last_column(first, name)
    pending = [] if last_column is not None else [first]
    start = 2 if last_column is not None else 1
    for line_number, line in enumerate(_chain(pending, iterator), start=start):
        text = line.rstrip("\r\n")
        if not text:
            continue
        fields = text.split("\t")
        if len(fields) not in (len(MQM_COLUMNS), len(MQM_COLUMNS) + 1):
            expected = len(MQM_COLUMNS) + (0 if last_column in (None, "") else 1)
            raise InputError(name, line_number, f"expected {expected} fields, found {len(fields)}")
        if not fields[4] and not fields[7] and not fields[8]:
            continue  # a Marot row that only carries segment metadata
        try:
            yield _parse_row(fields, METADATA_COLUMN if last_column is None else last_column)
        except (ValueError, SpanError) as error:
            raise InputError(name, line_number, str(error)) from None


def _chain(first: list[str], rest: Iterator[str]) -> Iterator[str]:
    yield from first
    yield from rest


def _last_column(first_line: str, name: str) -> str | None:
    """The header's tenth column (``""`` if it has nine), or None for a file without a header
    (Marot's layout, where the header is optional)."""
    header = first_line.rstrip("\r\n").split("\t")
    if header[:2] != ["system", "doc"]:
        if len(header) in (len(MQM_COLUMNS), len(MQM_COLUMNS) + 1) and first_line.strip():
            return None
        raise InputError(
            name,
            1,
            f"expected the header {' '.join(MQM_COLUMNS)} [comment], or Marot's"
            f" {' '.join(MAROT_COLUMNS)}",
        )
    names = tuple(header[: len(MQM_COLUMNS)])
    extra = header[len(MQM_COLUMNS) :]
    if (
        names not in (MQM_COLUMNS, MAROT_COLUMNS[:9])
        or len(extra) > 1
        or (extra and extra[0] not in (COMMENT_COLUMN, METADATA_COLUMN, "note"))
    ):
        raise InputError(
            name,
            1,
            f"expected the header {' '.join(MQM_COLUMNS)} [comment], or Marot's"
            f" {' '.join(MAROT_COLUMNS)}",
        )
    return extra[0] if extra else ""


def _parse_row(fields: list[str], last_column: str) -> MqmRow:
    system, doc, doc_id, seg_id, rater, source, target, category, severity = fields[:9]
    comment, metadata = _last_field(fields[9] if len(fields) > 9 else None, last_column)
    clean_source, source_marks = unmark(source)
    clean_target, target_marks = unmark(target)
    key = (system, doc, doc_id, seg_id, rater, clean_source, clean_target)
    if severity.lower() == HOTW_SEVERITY:
        result = HOTW_RESULTS.get(category.lower())
        if result is None:
            raise ValueError(f"a HOTW-test row's category is Found or Missed, not {category!r}")
        return MqmRow(*key, None, comment, hotw=result, metadata=metadata)
    span: Span | None = None
    if severity.lower() == NO_ERROR.lower() or category.lower() == NO_ERROR.lower():
        if source_marks or target_marks:
            raise ValueError("a No-error row marks a span")
    else:
        if source_marks and target_marks:
            raise ValueError("a row marks a span in both the source and the target")
        severity_lower = severity.lower()
        if target_marks:
            span = Span(*target_marks, severity_lower, category)
        elif source_marks:
            span = Span(*source_marks, severity_lower, category, side="source")
        else:
            span = Span.missing(severity_lower, category)
    return MqmRow(*key, span, comment, metadata=metadata)


def _last_field(value: str | None, column: str) -> tuple[str | None, dict[str, Any] | None]:
    """The comment and the metadata of a row's tenth field: a comment column is text; a
    metadata column holds a JSON object (its ``note`` is the comment) or a legacy note."""
    if value is None:
        return ("" if column in (COMMENT_COLUMN, "note") else None), None
    if column == METADATA_COLUMN and value.startswith("{"):
        try:
            metadata = json.loads(value)
        except json.JSONDecodeError as error:
            raise ValueError(f"the metadata column is not JSON: {error}") from None
        if not isinstance(metadata, dict):
            raise ValueError("the metadata column is not a JSON object")
        note = metadata.get("note")
        return (note if isinstance(note, str) else ""), metadata
    return value, None


def unmark(text: str) -> tuple[str, tuple[int, int] | None]:
    """The text without its ``<v>…</v>`` marks and the marked offsets (end exclusive).

    An unclosed ``<v>`` marks everything after it.
    """
    start = text.find(OPEN_MARK)
    if start < 0:
        if CLOSE_MARK in text:
            raise ValueError("</v> without <v>")
        return text, None
    end = text.find(CLOSE_MARK, start)
    if end < 0:
        # Google's TED zh-en file has one such row: the span runs to the end of the text.
        end = len(text)
    inner = text[start + len(OPEN_MARK) : end]
    clean = text[:start] + inner + text[end + len(CLOSE_MARK) :]
    if OPEN_MARK in clean or CLOSE_MARK in clean:
        raise ValueError("more than one <v>…</v> span in a text")
    return clean, (start, start + len(inner))


def mark(text: str, start: int, end: int) -> str:
    """Put ``<v>…</v>`` around ``text[start:end]``."""
    return f"{text[:start]}{OPEN_MARK}{text[start:end]}{CLOSE_MARK}{text[end:]}"


# Google's MQM TSV has no quoting: a tab or a line break inside a field would cut the row.
# Each becomes one space, so a span's offsets into its text stay right (a download that is
# a stream cannot refuse a row halfway through; a segment with a line break is rare).
_TSV_BREAKS = str.maketrans({"\t": " ", "\n": " ", "\r": " "})


def write_mqm_tsv(rows: Iterable[MqmRow], *, with_comment: bool = False) -> Iterator[str]:
    """Yield the header and one line per row (the severity capitalised as Google writes it);
    a tab or a line break inside a field is written as a space (``_TSV_BREAKS``)."""
    header = MQM_COLUMNS + ((COMMENT_COLUMN,) if with_comment else ())
    yield "\t".join(header) + "\n"
    for row in rows:
        source, target = row.source, row.target
        span = row.span
        if span is not None and span.start is not None and span.end is not None:
            text = target if span.side == "target" else source
            span.check_within(text)
            if span.side == "target":
                target = mark(target, span.start, span.end)
            else:
                source = mark(source, span.start, span.end)
        severity = NO_ERROR if span is None else span.severity.capitalize()
        fields = [row.system, row.doc, row.doc_id, row.seg_id, row.rater, source, target]
        fields += [row.category, severity]
        if with_comment:
            fields.append(row.comment or "")
        yield "\t".join(field.translate(_TSV_BREAKS) for field in fields) + "\n"


@dataclass(frozen=True)
class MqmRating:
    """One rater's judgment of one system's segment with all its spans (none if clean)."""

    system: str
    doc: str
    doc_id: str
    seg_id: str
    rater: str
    source: str
    target: str
    spans: tuple[Span, ...]
    # HOTW attention checks given with this rating (never errors), and whether the file
    # rates the segment at all (a rating made of HOTW rows only does not).
    checks: tuple[HotwCheck, ...] = ()
    rated: bool = True
    # The first and last of its rows' times (Anthea's ``timestamp``, ms since the epoch);
    # None when the file has none (Google's TED/WMT layout).
    timestamps: tuple[int, int] | None = None

    def rows(self) -> list[MqmRow]:
        """The TSV rows of this rating: one per span, or a single No-error row."""
        key = (self.system, self.doc, self.doc_id, self.seg_id, self.rater)
        if not self.spans:
            return [MqmRow(*key, self.source, self.target, None)]
        return [MqmRow(*key, self.source, self.target, span) for span in self.spans]


def group_ratings(rows: Iterable[MqmRow]) -> Iterator[MqmRating]:
    """Join consecutive rows of the same (system, doc, doc_id, seg_id, rater) into ratings,
    as Google's files list them; a No-error row contributes no span, a HOTW-test row a check."""
    current: MqmRating | None = None
    current_key: tuple[str, ...] = ()
    for row in rows:
        key = (row.system, row.doc, row.doc_id, row.seg_id, row.rater)
        spans = () if row.span is None else (row.span,)
        checks = () if row.hotw is None else (HotwCheck.from_row(row),)
        rated = row.hotw is None
        stamp = _timestamp(row)
        times = None if stamp is None else (stamp, stamp)
        if current is not None and key == current_key:
            current = MqmRating(
                *key,
                current.source,
                current.target,
                current.spans + spans,
                current.checks + checks,
                current.rated or rated,
                _widened(current.timestamps, times),
            )
            continue
        if current is not None:
            yield current
        current = MqmRating(*key, row.source, row.target, spans, checks, rated, times)
        current_key = key
    if current is not None:
        yield current


def _timestamp(row: MqmRow) -> int | None:
    """Anthea's time of a row (ms since the epoch), if its metadata gives one."""
    value = (row.metadata or {}).get("timestamp")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not 0 < value < LAST_TIMESTAMP_MS:  # NaN too
        return None
    return int(value)


def _widened(times: tuple[int, int] | None, more: tuple[int, int] | None) -> tuple[int, int] | None:
    if times is None or more is None:
        return times or more
    return min(times[0], more[0]), max(times[1], more[1])


def hotw_by_rater(rows: Iterable[MqmRow]) -> dict[str, tuple[int, int]]:
    """Per rater, in the file's order: (found, missed) HOTW attention checks."""
    counts: dict[str, tuple[int, int]] = {}
    for row in rows:
        if row.hotw is not None:
            found, missed = counts.get(row.rater, (0, 0))
            counts[row.rater] = (found + 1, missed) if row.hotw == "found" else (found, missed + 1)
    return counts


def write_ratings(ratings: Iterable[MqmRating]) -> Iterator[str]:
    """The TSV of whole ratings (header first), for exports that hold judgments, not rows."""
    return write_mqm_tsv(row for rating in ratings for row in rating.rows())
