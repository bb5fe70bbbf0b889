"""Google's MQM TSV (wmt-mqm-human-evaluation), read and written line by line.

One row per error, tab-separated with a header, no quoting (open with ``csv.QUOTE_NONE``):
``system doc doc_id seg_id rater source target category severity [comment]``. The error's
span is marked ``<v>…</v>`` in the target, or in the source for omissions and source errors;
a row marking neither text is a missing-content marker. A segment a rater found clean has one
row with category and severity ``No-error``. Offsets count characters of the text with the
markers taken out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

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
COMMENT_COLUMN = "comment"
NO_ERROR = "No-error"
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

    @property
    def severity(self) -> str:
        return NO_ERROR if self.span is None else self.span.severity

    @property
    def category(self) -> str:
        return NO_ERROR if self.span is None else self.span.category or ""


def read_mqm_tsv(lines: Iterable[str], *, name: str = "<input>") -> Iterator[MqmRow]:
    """Yield the rows of an MQM TSV; ``InputError`` names the first bad line."""
    iterator = without_bom(lines)
    header = next(iterator, "").rstrip("\r\n").split("\t")
    if tuple(header[: len(MQM_COLUMNS)]) != MQM_COLUMNS or len(header) > len(MQM_COLUMNS) + 1:
        raise InputError(name, 1, f"expected the header {' '.join(MQM_COLUMNS)} [comment]")
    with_comment = len(header) == len(MQM_COLUMNS) + 1
    for line_number, line in enumerate(iterator, start=2):
        text = line.rstrip("\r\n")
        if not text:
            continue
        fields = text.split("\t")
        if len(fields) not in (len(MQM_COLUMNS), len(MQM_COLUMNS) + 1):
            raise InputError(
                name, line_number, f"expected {len(header)} fields, found {len(fields)}"
            )
        try:
            yield _parse_row(fields, with_comment)
        except (ValueError, SpanError) as error:
            raise InputError(name, line_number, str(error)) from None


def _parse_row(fields: list[str], with_comment: bool) -> MqmRow:
    system, doc, doc_id, seg_id, rater, source, target, category, severity = fields[:9]
    comment = fields[9] if len(fields) > 9 else ("" if with_comment else None)
    clean_source, source_marks = unmark(source)
    clean_target, target_marks = unmark(target)
    span: Span | None = None
    if severity == NO_ERROR or category == NO_ERROR:
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
    return MqmRow(system, doc, doc_id, seg_id, rater, clean_source, clean_target, span, comment)


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


def write_mqm_tsv(rows: Iterable[MqmRow], *, with_comment: bool = False) -> Iterator[str]:
    """Yield the header and one line per row (the severity capitalised as Google writes it)."""
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
        for field in fields:
            if "\t" in field or "\n" in field or "\r" in field:
                raise ValueError(f"an MQM TSV field cannot hold a tab or a line break: {field!r}")
        yield "\t".join(fields) + "\n"


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

    def rows(self) -> list[MqmRow]:
        """The TSV rows of this rating: one per span, or a single No-error row."""
        key = (self.system, self.doc, self.doc_id, self.seg_id, self.rater)
        if not self.spans:
            return [MqmRow(*key, self.source, self.target, None)]
        return [MqmRow(*key, self.source, self.target, span) for span in self.spans]


def group_ratings(rows: Iterable[MqmRow]) -> Iterator[MqmRating]:
    """Join consecutive rows of the same (system, doc, doc_id, seg_id, rater) into ratings,
    as Google's files list them; a No-error row contributes no span."""
    current: MqmRating | None = None
    current_key: tuple[str, ...] = ()
    for row in rows:
        key = (row.system, row.doc, row.doc_id, row.seg_id, row.rater)
        spans = () if row.span is None else (row.span,)
        if current is not None and key == current_key:
            current = MqmRating(*key, current.source, current.target, current.spans + spans)
            continue
        if current is not None:
            yield current
        current, current_key = MqmRating(*key, row.source, row.target, spans), key
    if current is not None:
        yield current


def write_ratings(ratings: Iterable[MqmRating]) -> Iterator[str]:
    """The TSV of whole ratings (header first), for exports that hold judgments, not rows."""
    return write_mqm_tsv(row for rating in ratings for row in rating.rows())
