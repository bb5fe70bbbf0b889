"""Error spans: validating an ESA / MQM answer and storing its spans with the judgment.

Offsets are checked against the text exactly as the page shows it (the item's translation,
or the segment's source for source-side spans), end exclusive. The span rules live here once:
ESA's spans have a severity and no category; MQM's take a category of the task's typology,
and Non-translation is always major and covers the whole translation. Which rules a task
follows, whether its items come with pre-filled spans and what else its answer holds (ESA's
score), its protocol declares (``annotation.protocols``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, models, transaction

from annotation.db_prepared import prepared_cursor
from annotation.errors import ApplicationError
from annotation.lib import json_limits
from annotation.models import ErrorSpan, Item, ItemType, Judgment, Task
from annotation.protocols import AnswerError, protocol_for
from metrics.spans import (
    DEFAULT_MQM_WEIGHTS,
    GOOGLE_MQM_CATEGORIES,
    MAJOR,
    MINOR,
    MqmWeights,
    Span,
    SpanError,
    read_spans_jsonl,
    span_from_dict,
    span_to_dict,
)
from metrics.wmt_csv import InputError

SPAN_SEVERITIES = (MINOR, MAJOR)
MAX_SPANS_PER_JUDGMENT = 200
# Below this ESA score a translation without any marked error is suspicious (ESA guidelines).
ESA_WARN_BELOW = 66


class SpanAnswerError(ApplicationError):
    """A span answer that cannot be stored; the message says why, for a 400 response."""


@dataclass(frozen=True)
class CheckedSpan:
    span: Span
    changed: bool = False
    origin: dict[str, Any] | None = None
    candidate: int | None = None  # a contrastive screen's candidate (its position)


def task_mqm_categories(*, task: Task) -> tuple[str, ...]:
    """The task's MQM typology: its own list, or Google's."""
    return tuple(task.mqm_categories) or GOOGLE_MQM_CATEGORIES


def task_mqm_weights(*, task: Task) -> MqmWeights:
    """The task's MQM weights: its own, or Google's (major 5, minor 1, ...)."""
    if not task.mqm_weights:
        return DEFAULT_MQM_WEIGHTS
    # Severities the campaign leaves out (neutral, no-error) keep Google's weights.
    given = {str(k).lower(): v for k, v in task.mqm_weights.get("severity", {}).items()}
    return MqmWeights.from_dict(
        {**task.mqm_weights, "severity": {**DEFAULT_MQM_WEIGHTS.severity, **given}}
    )


def mqm_settings_problem(*, categories: object, weights: object) -> str | None:
    """Why a campaign's MQM typology or weights cannot be used, or None."""
    if not isinstance(categories, list) or not all(
        isinstance(c, str) and c.strip() and len(c) <= 100 for c in categories
    ):
        return "mqm_categories must be a list of category names (up to 100 characters)"
    if len(set(categories)) != len(categories):
        return "mqm_categories lists a category twice"
    if not isinstance(weights, dict):
        return "mqm_weights must be an object (severity weights, exceptions, non_translation)"
    try:
        MqmWeights.from_dict(weights)
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        return f"mqm_weights cannot be read: {error}"
    return None


def is_non_translation(*, category: str | None, weights: MqmWeights = DEFAULT_MQM_WEIGHTS) -> bool:
    return (category or "").lower() in weights.non_translation_categories


def item_prefilled(*, item: Item) -> list[Span]:
    """The item's pre-filled spans (ESA^AI), as stored at import."""
    return [span_from_dict({**entry, "prefilled": True}) for entry in item.prefilled_spans]


def _span(
    entry: object,
    target: str,
    source: str,
    categories: Sequence[str],
    weights: MqmWeights | None,
) -> Span:
    """One span checked: by MQM's rules where ``weights`` are given (a category of
    ``categories``), else by ESA's (no category)."""
    if not isinstance(entry, dict):
        raise SpanAnswerError("each span must be an object with start, end and severity")
    fields = {key: entry.get(key) for key in ("start", "end", "severity", "category", "side")}
    if fields["side"] is None:
        fields.pop("side")
    try:
        span = span_from_dict(fields)
    except (SpanError, ValueError, TypeError) as error:
        raise SpanAnswerError(str(error)) from None
    severity = span.severity.lower()
    if severity not in SPAN_SEVERITIES:
        raise SpanAnswerError(f"severity must be {' or '.join(SPAN_SEVERITIES)}")
    category = span.category or None
    if weights is None and category:
        raise SpanAnswerError("ESA spans have a severity only, no category")
    if weights is not None:
        if category not in categories:
            raise SpanAnswerError(f"unknown MQM category {category!r}")
        if is_non_translation(category=category, weights=weights):
            return Span(0, len(target), MAJOR, category)
    text = source if span.side == "source" else target
    try:
        span.check_within(text)
    except SpanError as error:
        raise SpanAnswerError(f"{span.side} {error}") from None
    return Span(span.start, span.end, severity, category, side=span.side)


def span_answer_validated(
    *, task: Task, item: Item, answer: dict[str, Any]
) -> tuple[dict[str, Any], list[CheckedSpan]]:
    """The judgment's columns and its checked spans, or ``SpanAnswerError``: the spans
    checked here, the rest of the answer (ESA's score) by the task's protocol.

    A span that came pre-filled names it with ``"prefilled": index`` into the item's
    pre-filled spans; it is stored as pre-filled, ``changed`` when it differs from it.
    """
    protocol = protocol_for(task.task_type)
    prefilled = item_prefilled(item=item) if protocol.prefilled_spans else []
    checked = spans_checked(
        task=task,
        raw=answer.get("spans", []),
        target=item.candidates[0]["text"],
        source=item.segment.source,
        prefilled=prefilled,
    )
    try:
        values = protocol.answer(task.scale, item.candidates, answer)
    except AnswerError as error:
        raise SpanAnswerError(str(error)) from None
    return values, checked


def spans_checked(
    *, task: Task, raw: object, target: str, source: str, prefilled: Sequence[Span] = ()
) -> list[CheckedSpan]:
    """The spans of one translation (``target``), checked by the task's rules, or
    ``SpanAnswerError``."""
    if not isinstance(raw, list):
        raise SpanAnswerError("spans must be a list")
    if len(raw) > MAX_SPANS_PER_JUDGMENT:
        raise SpanAnswerError(f"at most {MAX_SPANS_PER_JUDGMENT} spans per item")
    # MQM's rules where the protocol categorises its spans, else ESA's.
    categorised = protocol_for(task.task_type).span_categories
    categories = task_mqm_categories(task=task)
    weights = task_mqm_weights(task=task) if categorised else None
    checked: list[CheckedSpan] = []
    used: set[int] = set()
    for entry in raw:
        span = _span(entry, target, source, categories, weights)
        origin_index = entry.get("prefilled")
        if origin_index is None or origin_index is False:
            checked.append(CheckedSpan(span))
            continue
        if (
            isinstance(origin_index, bool)
            or not isinstance(origin_index, int)
            or not 0 <= origin_index < len(prefilled)
            or origin_index in used
        ):
            raise SpanAnswerError("prefilled must name one of the item's pre-filled spans")
        used.add(origin_index)
        original = prefilled[origin_index]
        shown = Span(original.start, original.end, original.severity.lower(), original.category)
        changed = shown != Span(span.start, span.end, span.severity, span.category, side=span.side)
        checked.append(
            CheckedSpan(
                Span(span.start, span.end, span.severity, span.category, True, span.side),
                changed=changed,
                origin=span_to_dict(original) if changed else None,
            )
        )
    return checked


@dataclass(frozen=True)
class SpanColumn:
    """How one column of a span row is filled: from a checked span (``value``), and its
    element type in the prepared insert's arrays (``sql_type``; jsonb travels as text)."""

    field: str
    sql_type: str
    value: Callable[[CheckedSpan], Any]

    @property
    def column(self) -> str:
        field = ErrorSpan._meta.get_field(self.field)
        assert isinstance(field, models.Field) and field.column  # a concrete column
        return field.column

    def parameter(self, checked: CheckedSpan) -> Any:
        """The value as the prepared insert takes it."""
        value = self.value(checked)
        return json.dumps(value) if self.sql_type == "jsonb" and value is not None else value


# The one definition of a span row's columns (besides its judgment): the ORM rows of the
# imports (``error_span_row``) and the annotator's prepared insert (``SPANS_INSERT_SQL``)
# are both filled from it.
SPAN_COLUMNS = (
    SpanColumn("start", "integer", lambda c: c.span.start),
    SpanColumn("end", "integer", lambda c: c.span.end),
    SpanColumn("severity", "text", lambda c: c.span.severity),
    SpanColumn("category", "text", lambda c: c.span.category or ""),
    SpanColumn("side", "text", lambda c: c.span.side),
    SpanColumn("prefilled", "boolean", lambda c: c.span.prefilled),
    SpanColumn("changed", "boolean", lambda c: c.changed),
    SpanColumn("candidate", "smallint", lambda c: c.candidate),
    SpanColumn("origin", "jsonb", lambda c: c.origin),
)


def error_span_row(*, judgment: Judgment, span: Span, **changes: Any) -> ErrorSpan:
    """The (unsaved) row of one span of a judgment; ``changes``: ``changed``, ``origin``,
    ``candidate`` (as ``CheckedSpan`` holds them)."""
    checked = CheckedSpan(span, **changes)
    return ErrorSpan(
        judgment=judgment, **{column.field: column.value(checked) for column in SPAN_COLUMNS}
    )


def _array_type(column: SpanColumn) -> str:
    return "text" if column.sql_type == "jsonb" else column.sql_type


# A judgment's spans in one statement of arrays, one per column of ``SPAN_COLUMNS``,
# prepared once per session (the annotator's path): no model instances and no ORM
# compilation, which cost a third of a contrastive screen's CPU as ``bulk_create``. Its
# parameters: the judgment's id, then ``spans_insert_parameters``' arrays.
SPANS_INSERT_SQL = (
    f"INSERT INTO {ErrorSpan._meta.db_table} (judgment_id, "  # noqa: S608 (names only)
    + ", ".join(connection.ops.quote_name(column.column) for column in SPAN_COLUMNS)
    + ") SELECT %s, "
    + ", ".join(
        f"s.c{number}" + ("::jsonb" if column.sql_type == "jsonb" else "")
        for number, column in enumerate(SPAN_COLUMNS)
    )
    + " FROM unnest("
    + ", ".join(f"%s::{_array_type(column)}[]" for column in SPAN_COLUMNS)
    + ") AS s("
    + ", ".join(f"c{number}" for number in range(len(SPAN_COLUMNS)))
    + ")"
)


def spans_insert_parameters(*, judgment_id: int, spans: Sequence[CheckedSpan]) -> list[Any]:
    """``SPANS_INSERT_SQL``'s parameters: the judgment, then one array per column."""
    return [
        judgment_id,
        *([column.parameter(checked) for checked in spans] for column in SPAN_COLUMNS),
    ]


def error_spans_create(*, judgment_id: int, spans: Sequence[CheckedSpan]) -> int:
    """Stores a judgment's spans (one statement); called inside the judgment's transaction.
    Returns how many."""
    if not spans:
        return 0
    with prepared_cursor() as cursor:
        cursor.execute(
            SPANS_INSERT_SQL, spans_insert_parameters(judgment_id=judgment_id, spans=spans)
        )
        return cursor.rowcount


class PrefillError(ApplicationError):
    """Pre-filled spans that cannot be set, naming the file and line."""


@transaction.atomic
def task_prefilled_spans_set(*, task: Task, name: str, data: bytes) -> int:
    """Sets the pre-filled spans (ESA^AI) of a launched task's items from JSON Lines, one line
    per item: ``{"system": name, "segment": 0-based line of the source, "spans": [...]}``
    (``metrics.spans.jsonl``; end exclusive). Checked whole first; returns the items set.

    Only before anyone annotates: judgments point at pre-filled spans by position.
    """
    if not protocol_for(task.task_type).prefilled_spans:
        raise PrefillError(f"{name}: pre-filled spans belong to an ESA^AI task")
    if task.state != Task.State.LAUNCHED:
        raise PrefillError(f"{name}: launch the task first; its items get the spans")
    if Judgment.objects.filter(task=task).exists():
        raise PrefillError(f"{name}: annotators have started; pre-filled spans are set before")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PrefillError(f"{name}: not UTF-8 text") from None
    items = {
        (item.system.name if item.system else "", item.segment.index): item
        for item in Item.objects.filter(
            task=task, system__isnull=False, item_type=ItemType.TGT
        ).select_related("system", "segment")
    }
    for line_number, line in enumerate(text.splitlines(), 1):
        try:
            if line.strip():
                json_limits.loads(line)
        except json.JSONDecodeError as error:  # too deep, or a lone surrogate
            raise PrefillError(f"{name}, line {line_number}: not JSON: {error.msg}") from None
    updates: dict[int, Item] = {}
    try:
        for line_number, entry in enumerate(read_spans_jsonl(text.splitlines(), name=name), 1):
            key = (entry.fields.get("system"), entry.fields.get("segment"))
            item = items.get(key)  # type: ignore[arg-type]
            if item is None:
                raise PrefillError(
                    f"{name}, item {line_number}: no item of system {key[0]!r} on segment "
                    f"{key[1]!r} in this task"
                )
            for span in entry.spans:
                if span.side != "target":
                    raise PrefillError(f"{name}, item {line_number}: spans mark the translation")
                try:
                    span.check_within(item.candidates[0]["text"])
                except SpanError as error:
                    raise PrefillError(f"{name}, item {line_number}: {error}") from None
            item.prefilled_spans = [
                {**span_to_dict(span), "prefilled": True} for span in entry.spans
            ]
            updates[item.id] = item
    except InputError as error:
        raise PrefillError(str(error)) from None
    # Written once every line is checked.
    Item.objects.bulk_update(list(updates.values()), ["prefilled_spans"])
    return len(updates)
