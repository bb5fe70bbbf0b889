"""Judgments as NumPy columns: one query per task, streamed through PostgreSQL's binary COPY.

A million judgments fetched as Python tuples would cost seconds and hundreds of megabytes; the
binary COPY of fixed-width columns is parsed by a single ``np.frombuffer`` instead.
"""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.contrib.auth import get_user_model
from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import (
    BigIntegerField,
    Case,
    Expression,
    F,
    FloatField,
    IntegerField,
    QuerySet,
    SmallIntegerField,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce
from numpy.typing import NDArray

from annotation.models import HUMAN, AnnotatorExclusion, Judgment, Membership, System, Task

ITEM_TYPES = np.array(["TGT", "BAD", "REF", "CHK", "REPEAT"])
TGT, BAD, REF, CHK, REPEAT = range(5)

# PostgreSQL type of each kind of column and the big-endian NumPy type COPY sends it as.
_TYPES = {"int2": ">i2", "int4": ">i4", "int8": ">i8", "float8": ">f8"}
# Signature, flags and header-extension length of a binary COPY stream.
_HEADER = 19


@dataclass(frozen=True)
class Column:
    name: str
    expression: Expression | F
    kind: str  # a key of _TYPES


def int_column(name: str, expression: Expression | F | str, *, big: bool = False) -> Column:
    """An integer column (``big``: 64 bits, for bigint ids); NULL becomes -1 (binary COPY
    rows must have a fixed width)."""
    field = BigIntegerField() if big else IntegerField()
    source = F(expression) if isinstance(expression, str) else expression
    return Column(name, Cast(Coalesce(source, Value(-1)), field), "int8" if big else "int4")


def float_column(name: str, expression: Expression | F | str) -> Column:
    """A float column; NULL becomes NaN."""
    source = F(expression) if isinstance(expression, str) else expression
    cast = Cast(source, FloatField())
    return Column(name, Coalesce(cast, Value(float("nan")), output_field=FloatField()), "float8")


def item_type_column() -> Column:
    """TGT, BAD, REF, CHK as 0-3 and every repeat judgment as REPEAT (4)."""
    code = Case(
        When(is_repeat=True, then=Value(REPEAT)),
        *(When(item__item_type=name, then=Value(i)) for i, name in enumerate(ITEM_TYPES[:REPEAT])),
        default=Value(TGT),
        output_field=SmallIntegerField(),
    )
    # Literal parameters make CASE an int4: the cast fixes the width COPY sends.
    return Column("kind", Cast(code, SmallIntegerField()), "int2")


def copy_columns(queryset: QuerySet, columns: Sequence[Column]) -> dict[str, NDArray]:
    """Runs ``queryset.values_list(*expressions)`` through ``COPY ... TO STDOUT (FORMAT
    binary)``; returns one array per column in native byte order (int16, int32, int64 or
    float64, as the column's type), rows in the queryset's order."""
    query = queryset.values_list(*(column.expression for column in columns))
    buffer = bytearray()
    try:
        sql, params = query.query.sql_with_params()
    except EmptyResultSet:  # a filter that matches nothing (e.g. ``__in=[]``): no rows
        sql, params = "", ()
    if sql:
        # The queryset's database: the replica, where the router lets its reads lag.
        with connections[queryset.db].cursor() as cursor:
            raw = cursor.cursor  # psycopg's own cursor: Django's wrapper has no COPY
            with raw.copy(f"COPY ({sql}) TO STDOUT (FORMAT binary)", params) as copy:
                for block in copy:
                    buffer += block
    fields: list[tuple[str, str]] = [("count", ">i2")]
    for i, column in enumerate(columns):
        fields += [(f"length{i}", ">i4"), (f"value{i}", _TYPES[column.kind])]
    row = np.dtype(fields)
    extension = int.from_bytes(buffer[15:19], "big") if buffer else 0
    start = _HEADER + extension
    n = max(0, (len(buffer) - start - 2) // row.itemsize)  # 2: the end-of-data marker
    records = np.frombuffer(buffer, dtype=row, count=n, offset=start) if n else None
    result = {}
    for i, column in enumerate(columns):
        native = np.dtype(_TYPES[column.kind]).newbyteorder("=")
        values = records[f"value{i}"] if records is not None else np.zeros(0, native)
        result[column.name] = values.astype(native)
    return result


class Usernames(dict[int, str]):
    """User id → username, filled from the campaign's members; anyone else (a member since
    removed) is looked up on first use."""

    def __missing__(self, user_id: int) -> str:
        name = (
            get_user_model().objects.filter(id=user_id).values_list("username", flat=True).first()
        )
        self[user_id] = name or str(user_id)
        return self[user_id]


def campaign_usernames(campaign_id: int) -> Usernames:
    return Usernames(
        Membership.objects.filter(campaign_id=campaign_id).values_list("user_id", "user__username")
    )


@dataclass(frozen=True)
class Exclusions:
    """Annotators left out of every task of a campaign, and of single tasks."""

    campaign_wide: frozenset[int]
    by_task: frozenset[tuple[int, int]]  # (annotator id, task id)

    def for_task(self, task_id: int) -> set[int]:
        return set(self.campaign_wide) | {a for a, t in self.by_task if t == task_id}

    def excludes(self, annotator_id: int, task_id: int) -> bool:
        return annotator_id in self.campaign_wide or (annotator_id, task_id) in self.by_task

    def counted(self, judgments: QuerySet[Judgment]) -> QuerySet[Judgment]:
        """The judgments the rankings count: neither excluded one by one nor by an annotator
        left out (of every task, or of the judgment's task)."""
        judgments = judgments.filter(excluded=False).exclude(annotator_id__in=self.campaign_wide)
        for annotator_id, task_id in self.by_task:
            judgments = judgments.exclude(annotator_id=annotator_id, task_id=task_id)
        return judgments

    def arrays(self) -> tuple[list[int], list[int]]:
        """Parallel annotator and task id arrays for SQL; task 0 stands for every task."""
        pairs = sorted([(a, 0) for a in self.campaign_wide] + list(self.by_task))
        return [a for a, _ in pairs], [t for _, t in pairs]


def exclusions(campaign_id: int) -> Exclusions:
    rows = AnnotatorExclusion.objects.filter(campaign_id=campaign_id).values_list(
        "annotator_id", "task_id"
    )
    return Exclusions(
        campaign_wide=frozenset(a for a, t in rows if t is None),
        by_task=frozenset((a, t) for a, t in rows if t is not None),
    )


def excluded_annotators(campaign_id: int) -> set[int]:
    """Annotators left out of every task of the campaign."""
    return set(exclusions(campaign_id).campaign_wide)


def task_judgments(task: Task) -> QuerySet[Judgment]:
    """The task's judgments that count (not those excluded one by one), in recorded order."""
    # The items' task too (always the judgment's): the planner then reads the task's items by
    # their index instead of scanning every item of the database for the join (0.85 -> 0.55 s
    # for 64,000 judgments among 940,000 items).
    return Judgment.objects.filter(task=task, excluded=False, item__task=task).order_by("id")


def system_names(campaign_id: int) -> dict[int, str]:
    return dict(System.objects.filter(campaign_id=campaign_id).values_list("id", "name"))


def codes_by_name(ids: NDArray[np.integer], names: dict[int, str]) -> tuple[NDArray, list[str]]:
    """Codes 0..k-1 for system ids in the sorted order of their names (-1: the reference).

    Code order is name order, as in ``python -m metrics human``, so that the seeded bootstrap
    resamples the same systems with the same streams and gives the same intervals.
    """
    present = np.unique(ids)
    labels = [names.get(int(i), HUMAN) if i >= 0 else HUMAN for i in present]
    distinct = sorted(set(labels))
    lookup = np.array([distinct.index(label) for label in labels], dtype=np.int32)
    return lookup[np.searchsorted(present, ids)], distinct


def segment_codes(values: NDArray[np.integer]) -> NDArray[np.int32]:
    """Codes 0..k-1 for segment indices, in their numeric order.

    The order of segments inside a system decides which rows its bootstrap draws; the command
    line codes the numeric segment ids of a downloaded file in the same order
    (``metrics.cli.human``), so both give the same intervals.
    """
    return np.unique(values, return_inverse=True)[1].reshape(-1).astype(np.int32)


def release_memory() -> None:
    """Hands freed memory back to the system between the stages of a big analysis.

    The bootstrap's worker threads free their blocks into per-thread malloc arenas, which
    glibc keeps; without this every stage would start from the previous stage's peak.
    """
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to do
        ctypes.CDLL("libc.so.6").malloc_trim(0)
