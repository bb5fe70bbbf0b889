"""Judgments for the downloads, streamed from a server-side cursor in constant memory."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

from django.contrib.auth import get_user_model
from django.db import connections, router, transaction
from django.db.models import F, Func, TextField, Value
from django.db.models.functions import Coalesce

from annotation.models import Campaign, Item, Judgment, Segment, System, TaskType
from annotation.models.campaigns import Document
from annotation.selectors.human.loading import HUMAN, exclusions

CHUNK = 2000
COPY_CHUNK_BYTES = 1 << 16
MULTI_OUTPUT = [TaskType.PAIRWISE.value, TaskType.RANKING.value]


def _candidate_field(path: str) -> Func:
    """One field of every candidate (systems, type) as JSON text, without the candidates'
    texts; left unparsed, since most rows (single-output items) never need it."""
    return Func(
        F("item__candidates"),
        function="jsonb_path_query_array",
        template=f"%(function)s(%(expressions)s, '$[*].{path}')::text",
        output_field=TextField(),
    )


def judgment_export_rows(
    *, campaign: Campaign, task_id: int | None = None, included_only: bool = False
) -> Iterator[dict[str, Any]]:
    """Every judgment of the campaign (or task) in the order they were recorded.

    ``excluded`` is true for judgments excluded one by one and for those of annotators an
    organiser left out; ``included_only`` drops both, leaving what the rankings count.
    ``candidate_systems`` is JSON text.
    """
    left_out = exclusions(campaign.id)
    judgments = Judgment.objects.filter(task__campaign=campaign)
    if task_id is not None:
        judgments = judgments.filter(task_id=task_id)
    if included_only:
        judgments = left_out.counted(judgments)
    rows = (
        judgments.annotate(
            candidate_systems=_candidate_field("systems"),
        )
        .order_by("id")
        .values(
            "id",
            "annotator_id",
            "task_id",
            "task_type",
            "is_repeat",
            "score",
            "fluency",
            "preference",
            "ranks",
            "candidate_scores",
            "post_edit",
            "hter",
            "edits",
            "post_edit_length",
            "served_at",
            "submitted_at",
            "duration_ms",
            "excluded",
            "candidate_systems",
            username=F("annotator__username"),
            item_number=F("item__external_id"),
            item_kind=F("item__item_type"),
            # A single-output item's system: its own, else its first candidate's (the human
            # reference is named as it was judged); the CSV lists every system (below).
            single_system=Coalesce(
                F("item__system__name"),
                Func(
                    F("item__candidates"),
                    template="%(expressions)s #>> '{0,systems,0}'",
                    output_field=TextField(),
                ),
                Value(HUMAN),
                output_field=TextField(),
            ),
            segment_index=F("item__segment__index"),
            document=F("item__segment__document__external_id"),
        )
    )
    # Inside a transaction the server-side cursor needs no WITH HOLD, which would make
    # PostgreSQL compute and store every row before sending the first.
    rows = rows.using(rows.db)  # the router's choice, kept for the cursor and its transaction
    with transaction.atomic(using=rows.db):
        for values in rows.iterator(chunk_size=CHUNK):
            row = cast(dict[str, Any], values)
            row["excluded"] = row["excluded"] or left_out.excludes(
                row["annotator_id"], row["task_id"]
            )
            yield row


def judgment_annotators(campaign: Campaign) -> dict[int, str]:
    """Id → username of everyone who judged in the campaign (members since removed too)."""
    judged = Judgment.objects.filter(task__campaign=campaign).values("annotator_id")
    users = get_user_model().objects.filter(id__in=judged)
    return dict(users.values_list("id", "username"))


def _safe(expression: str) -> str:
    """SQL text of ``expression`` neutralised against spreadsheet formulas, as csv_stream
    does in Python: a leading = + - @ tab or CR gets a quote in front."""
    return (
        f"CASE WHEN left({expression}, 1) IN ('=', '+', '-', '@', chr(9), chr(13)) "
        f"THEN '''' || {expression} ELSE {expression} END"
    )


_UTC = '\'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"\''
# Expressions both tables share, over the rows of the expansion below (``x``: one row per
# system judged).
_ITEM_TYPE = "CASE WHEN j.is_repeat THEN 'REPEAT' ELSE coalesce(x.candidate_type, i.item_type) END"
# A side-by-side 0-100 score is that candidate's score, so the rows read as assessments.
_SCORE = "CASE WHEN x.candidate IS NULL THEN j.score ELSE j.candidate_scores[x.candidate] END"

# An annotator left out of every task (task 0 in the arrays) or of the judgment's task.
_LEFT_OUT = (
    "EXISTS (SELECT 1 FROM unnest(%(excluded_annotators)s::int[], %(excluded_tasks)s::int[])"
    " AS e(annotator, task) WHERE e.annotator = j.annotator_id"
    " AND (e.task = 0 OR e.task = j.task_id))"
)
# Each table is one list of (column, SQL expression): the SELECT and the CSV header are both
# made from it, so they cannot disagree.
JUDGMENT_TABLE: list[tuple[str, str]] = [
    ("annotator", _safe("names.name")),
    ("language_pair", _safe("%(language_pair)s::text")),
    ("task_id", "j.task_id"),
    ("task_type", "j.task_type"),
    ("judgment_id", "j.id"),
    ("item_id", "i.external_id"),
    ("item_type", _ITEM_TYPE),
    ("segment_id", "s.index"),
    ("document_id", _safe("d.external_id")),
    ("system", _safe("x.system")),
    ("candidate", "x.candidate"),
    ("score", _SCORE),
    ("fluency", "j.fluency"),
    ("preference", "j.preference"),
    ("rank", "j.ranks[x.candidate]"),
    ("ranks", "array_to_string(j.ranks, ' ')"),
    ("candidate_score", "j.candidate_scores[x.candidate]"),
    ("candidate_scores", "array_to_string(j.candidate_scores, ' ')"),
    ("post_edit", _safe("j.post_edit")),
    ("hter", "j.hter"),
    ("edits", "j.edits"),
    ("post_edit_length", "j.post_edit_length"),
    ("served_at", f"to_char(j.served_at AT TIME ZONE 'UTC', {_UTC})"),
    ("submitted_at", f"to_char(j.submitted_at AT TIME ZONE 'UTC', {_UTC})"),
    ("duration_ms", "j.duration_ms"),
    ("seconds", "j.duration_ms / 1000.0::float8"),
    (
        "excluded",
        f"CASE WHEN j.excluded OR {_LEFT_OUT} THEN 'true' ELSE 'false' END",
    ),
]
# Appraise's headerless score CSV, as ``python -m metrics human --format appraise`` reads it:
# rows with an absolute score only, itemID the segment index, times as Unix seconds.
APPRAISE_TABLE: list[tuple[str, str]] = [
    ("username", _safe("names.name")),
    ("systemID", _safe("x.system")),
    ("itemID", "s.index"),
    ("itemType", _ITEM_TYPE),
    ("sourceLanguage", _safe("%(source_language)s::text")),
    ("targetLanguage", _safe("%(target_language)s::text")),
    ("score", _SCORE),
    ("documentID", _safe("d.external_id")),
    ("isCompleteDocument", "'False'"),
    ("start_time", "extract(epoch FROM j.served_at)::float8"),
    ("end_time", "extract(epoch FROM j.submitted_at)::float8"),
]


@dataclass(frozen=True)
class Table:
    columns: list[tuple[str, str]]
    header: bool  # a header row of the column names
    required: str = ""  # rows where this expression is NULL are left out


TABLES = {
    "judgments": Table(JUDGMENT_TABLE, header=True),
    "appraise": Table(APPRAISE_TABLE, header=False, required=_SCORE),
}
JUDGMENT_COLUMNS = [name for name, _ in JUDGMENT_TABLE]


def _expanded_judgments_sql(columns: list[tuple[str, str]], extra_filter: str) -> str:
    """The SELECT of ``columns`` over one row per judgment and system judged: the one place
    that rule lives. Pairwise and ranking items expand to every system of every candidate
    (in display order); single-output items name their system, else their candidates'
    systems (the human reference is named as it was judged)."""
    judgment, item, segment = Judgment._meta.db_table, Item._meta.db_table, Segment._meta.db_table
    document, system = Document._meta.db_table, System._meta.db_table
    select = ",\n      ".join(f'{expression} AS "{name}"' for name, expression in columns)
    # Only table names and fixed fragments are formatted in; every value is a parameter.
    return f"""
    SELECT {select}
    FROM {judgment} j
    JOIN unnest(%(annotator_ids)s::int[], %(annotator_names)s::text[]) AS names(id, name)
      ON names.id = j.annotator_id
    JOIN {item} i ON i.id = j.item_id
    JOIN {segment} s ON s.id = i.segment_id
    LEFT JOIN {document} d ON d.id = s.document_id
    LEFT JOIN {system} sy ON sy.id = i.system_id
    CROSS JOIN LATERAL (
      SELECT c.position::int AS candidate, n.name AS system,
        c.value->>'type' AS candidate_type, c.position AS first, n.position AS second
      FROM jsonb_array_elements(i.candidates) WITH ORDINALITY AS c(value, position)
      CROSS JOIN LATERAL jsonb_array_elements_text(c.value->'systems')
        WITH ORDINALITY AS n(name, position)
      WHERE j.task_type = ANY(%(multi)s::text[])
      UNION ALL
      SELECT NULL, sy.name, NULL, 0, 0
      WHERE NOT j.task_type = ANY(%(multi)s::text[]) AND sy.name IS NOT NULL
      UNION ALL
      SELECT NULL, n.name, NULL, 0, n.position
      FROM unnest(coalesce(
        nullif(ARRAY(SELECT jsonb_path_query(i.candidates, '$[*].systems[*]') #>> '{{}}'),
          '{{}}'),
        ARRAY[%(human)s::text])) WITH ORDINALITY AS n(name, position)
      WHERE NOT j.task_type = ANY(%(multi)s::text[]) AND sy.name IS NULL
    ) AS x
    WHERE i.campaign_id = %(campaign)s {extra_filter}
    ORDER BY j.id, x.first, x.second
    """  # noqa: S608


def _table_query(
    table: Table,
    *,
    campaign: Campaign,
    names: dict[int, str],
    task_id: int | None = None,
    included_only: bool = False,
) -> tuple[str, dict[str, Any]]:
    extra_filter = ""
    if task_id is not None:
        extra_filter += " AND j.task_id = %(task)s"
    if included_only:
        extra_filter += f" AND NOT j.excluded AND NOT {_LEFT_OUT}"
    if table.required:
        extra_filter += f" AND ({table.required}) IS NOT NULL"
    excluded_annotators, excluded_tasks = exclusions(campaign.id).arrays()
    params = {
        "language_pair": campaign.language_pair,
        "source_language": campaign.source_language,
        "target_language": campaign.target_language,
        "excluded_annotators": excluded_annotators,
        "excluded_tasks": excluded_tasks,
        "annotator_ids": list(names),
        "annotator_names": list(names.values()),
        "multi": MULTI_OUTPUT,
        "human": HUMAN,
        "campaign": campaign.id,
        "task": task_id,
    }
    return _expanded_judgments_sql(table.columns, extra_filter), params


def judgment_table_described_columns(table: str, campaign: Campaign) -> list[str]:
    """The column names PostgreSQL reports for a table's query (run for no rows): what the
    header row must equal."""
    sql, params = _table_query(TABLES[table], campaign=campaign, names={})
    with connections[router.db_for_read(Judgment)].cursor() as cursor:
        cursor.execute(f"SELECT * FROM ({sql}) AS t LIMIT 0", params)  # noqa: S608
        return [column.name for column in cursor.description]


def judgment_csv_chunks(
    *,
    campaign: Campaign,
    names: dict[int, str],
    table: str = "judgments",
    task_id: int | None = None,
    included_only: bool = False,
) -> Iterator[bytes]:
    """A table of ``TABLES`` (the judgment CSV with its header row, or Appraise's headerless
    scores), one row per judgment and system judged, written by PostgreSQL's COPY and
    streamed in chunks: a million judgments take seconds, where a Python loop over rows took
    half a minute.

    ``names`` maps annotator ids to the names to print (usernames or pseudonyms).
    """
    chosen = TABLES[table]
    sql, params = _table_query(
        chosen, campaign=campaign, names=names, task_id=task_id, included_only=included_only
    )
    buffer = bytearray()
    if chosen.header:
        buffer += (",".join(name for name, _ in chosen.columns) + "\n").encode()
    with connections[router.db_for_read(Judgment)].cursor() as cursor:
        # COPY takes no server-side parameters: the values are bound on the client.
        query = cursor.mogrify(sql, params)
        with cursor.cursor.copy(f"COPY ({query}) TO STDOUT WITH (FORMAT csv)") as copy:
            for data in copy:
                buffer += data
                if len(buffer) >= COPY_CHUNK_BYTES:
                    yield bytes(buffer)
                    buffer.clear()
    if buffer:
        yield bytes(buffer)
