"""The error-span value type and its conversions at the edges.

A span is a pair of character offsets into the text exactly as shown to the annotator (Python
``str`` indices, so code points), ``end`` exclusive, as mt-metrics-eval stores them. Appraise
and Pearmut write an inclusive end: convert with ``Span.from_inclusive`` / ``inclusive_end``.

The missing-content marker is a span without a position (``start`` and ``end`` both ``None``):
an omission that the annotator records as "missing content" rather than at a place in the
translation, which is what Appraise exports as ``"start_i": "missing"``. A zero-width span
(``start == end``) is an ordinary span, an error located between two characters.

``side`` says which text the offsets point into: ``"target"`` (the translation, the default) or
``"source"``; Google's MQM raters mark omissions and source errors in the source.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

Side = Literal["target", "source"]
SIDES: tuple[Side, ...] = ("target", "source")

MINOR = "minor"
MAJOR = "major"
# Most severe first: where one annotator's spans overlap, a character takes the first listed.
SEVERITY_ORDER = ("critical", MAJOR, MINOR, "neutral", "undecided")


class SpanError(ValueError):
    """A span that cannot stand: bad offsets, an empty severity, an unknown side."""


@dataclass(frozen=True, slots=True)
class Span:
    start: int | None
    end: int | None
    severity: str
    category: str | None = None
    prefilled: bool = False
    side: Side = "target"

    def __post_init__(self) -> None:
        if (self.start is None) != (self.end is None):
            raise SpanError("a span has both offsets or neither (the missing-content marker)")
        if self.start is not None and self.end is not None:
            if isinstance(self.start, bool) or isinstance(self.end, bool):
                raise SpanError("span offsets must be integers")
            if not isinstance(self.start, int) or not isinstance(self.end, int):
                raise SpanError("span offsets must be integers")
            if not 0 <= self.start <= self.end:
                raise SpanError(
                    f"span offsets must satisfy 0 <= start <= end: {self.start}, {self.end}"
                )
        if not isinstance(self.severity, str) or not self.severity.strip():
            raise SpanError("a span needs a severity")
        if self.side not in SIDES:
            raise SpanError(f"unknown span side {self.side!r}")

    @classmethod
    def missing(
        cls, severity: str, category: str | None = None, *, prefilled: bool = False
    ) -> Span:
        """The missing-content marker: an omission without a position in the translation."""
        return cls(None, None, severity, category, prefilled)

    @classmethod
    def from_inclusive(
        cls,
        start: int,
        end_inclusive: int,
        severity: str,
        category: str | None = None,
        *,
        prefilled: bool = False,
        side: Side = "target",
    ) -> Span:
        """A span from an inclusive end (Appraise, Pearmut): characters start..end_inclusive."""
        return cls(start, end_inclusive + 1, severity, category, prefilled, side)

    @property
    def is_missing(self) -> bool:
        return self.start is None

    @property
    def inclusive_end(self) -> int | None:
        """The end as Appraise and Pearmut write it (start - 1 for a zero-width span)."""
        return None if self.end is None else self.end - 1

    @property
    def length(self) -> int:
        return 0 if self.start is None or self.end is None else self.end - self.start

    def check_within(self, text: str) -> None:
        """Raise ``SpanError`` unless the span fits in ``text`` (the text it points into)."""
        if self.end is not None and self.end > len(text):
            raise SpanError(f"span end {self.end} is past the end of the text ({len(text)} chars)")


def severity_rank(severity: str) -> int:
    """Position in ``SEVERITY_ORDER`` (0 = most severe); unknown severities come last."""
    lowered = severity.lower()
    return SEVERITY_ORDER.index(lowered) if lowered in SEVERITY_ORDER else len(SEVERITY_ORDER)


def without_bom(lines: Iterable[str]) -> Iterator[str]:
    """The lines with a UTF-8 byte-order mark (spreadsheet exports) dropped from the first."""
    iterator = iter(lines)
    first = next(iterator, None)
    if first is None:
        return
    yield first.removeprefix("\ufeff")
    yield from iterator
