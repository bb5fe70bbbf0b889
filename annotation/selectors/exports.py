"""Judgments for the downloads, streamed from a server-side cursor in constant memory."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connections, router, transaction

from annotation.lib.spreadsheet import sql_spreadsheet_safe
from annotation.models import Campaign, Item, Judgment, Segment, System
from annotation.models.campaigns import Document
from annotation.protocols import JUDGMENT_EXPORT_COLUMNS, task_types_where
from annotation.selectors.human.loading import HUMAN, exclusions

CHUNK = 2000
COPY_CHUNK_BYTES = 1 << 16


def protocol_params() -> dict[str, list[str]]:
    """What the export query reads from the protocols' declarations (annotation/protocols):
    the task types whose screens hold several outputs (``multi``: a row per output's system;
    a JSON line names no one system), and per column of ``JUDGMENT_EXPORT_COLUMNS`` the task
    types that declare it (``exports_<column>``)."""
    return {
        "multi": task_types_where(lambda protocol: protocol.several_outputs),
        **{
            f"exports_{column}": task_types_where(lambda p, c=column: c in p.export_columns)
            for column in JUDGMENT_EXPORT_COLUMNS
        },
    }


def _declared(column: str, expression: str = "") -> str:
    """``expression`` (default: the judgment's ``column``) where the judgment's protocol
    declares ``column`` among its export columns, else NULL: a protocol's exports fill exactly
    the columns it declares."""
    shown = expression or f"j.{column}"
    return f"CASE WHEN j.task_type = ANY(%(exports_{column})s::text[]) THEN {shown} END"


def judgment_annotators(campaign: Campaign) -> dict[int, str]:
    """Id → username of everyone who judged in the campaign (members since removed too)."""
    judged = Judgment.objects.filter(task__campaign=campaign).values("annotator_id")
    users = get_user_model().objects.filter(id__in=judged)
    return dict(users.values_list("id", "username"))


_safe = sql_spreadsheet_safe  # the one formula guard, as SQL


def appraise_item_id(imported: object, segment_index: int) -> object:
    """The itemID of every Appraise file the site writes: Appraise's own when the item came
    from Appraise (a re-export matches the file imported), else the segment's number from 1,
    as WMT numbers segments. ``APPRAISE_ITEM_ID`` is the same rule in SQL."""
    return imported if imported is not None else segment_index + 1


APPRAISE_ITEM_ID = "coalesce(i.source_meta->>'itemID', (s.index + 1)::text)"


_UTC = '\'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"\''
# Expressions both tables share, over the rows of the expansion below (``x``: one row per
# system judged).
_ITEM_TYPE = "CASE WHEN j.is_repeat THEN 'REPEAT' ELSE coalesce(x.candidate_type, i.item_type) END"
# A side-by-side 0-100 score is that candidate's score, so the rows read as assessments.
_SCORE = (
    f"CASE WHEN x.candidate IS NULL THEN {_declared('score')}"
    f" ELSE {_declared('candidate_scores', 'j.candidate_scores[x.candidate]')} END"
)

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
    ("segment_id", "s.index + 1"),
    ("document_id", _safe("d.external_id")),
    ("system", _safe("x.system")),
    ("candidate", "x.candidate"),
    ("score", _SCORE),
    ("fluency", _declared("fluency")),
    ("preference", _declared("preference")),
    ("rank", _declared("ranks", "j.ranks[x.candidate]")),
    ("ranks", _declared("ranks", "array_to_string(j.ranks, ' ')")),
    ("candidate_score", _declared("candidate_scores", "j.candidate_scores[x.candidate]")),
    ("candidate_scores", _declared("candidate_scores", "array_to_string(j.candidate_scores, ' ')")),
    ("post_edit", _safe(_declared("post_edit"))),
    ("hter", _declared("hter")),
    ("edits", _declared("edits")),
    ("post_edit_length", _declared("post_edit_length")),
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
# rows with an absolute score only, itemID by ``appraise_item_id``, times as Unix seconds.
APPRAISE_TABLE: list[tuple[str, str]] = [
    ("username", _safe("names.name")),
    ("systemID", _safe("x.system")),
    ("itemID", _safe(APPRAISE_ITEM_ID)),
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
    that rule lives. Screens of several outputs (pairwise, ranking, contrastive: their
    protocols declare ``several_outputs``) expand to every system of every candidate
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
        **protocol_params(),
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


# The JSON Lines and WMT rows: raw values (no formula guard: JSON is not a spreadsheet), one
# row per judgment and system from the same expansion; ``judgment_export_rows`` keeps the
# first of each judgment.
ROW_TABLE: list[tuple[str, str]] = [
    ("id", "j.id"),
    ("annotator_id", "j.annotator_id"),
    ("annotator", "names.name"),
    ("task_id", "j.task_id"),
    ("task_type", "j.task_type"),
    ("is_repeat", "j.is_repeat"),
    ("item_number", "i.external_id"),
    ("item_kind", "i.item_type"),
    ("segment_index", "s.index"),
    ("document", "d.external_id"),
    # A single-output item's system: its own, else its candidates' first (the human reference
    # is named as it was judged), as in the CSV; none for a screen of several outputs (pairwise,
    # ranking, contrastive: ``candidate_systems`` names each output's).
    ("single_system", "CASE WHEN NOT j.task_type = ANY(%(multi)s::text[]) THEN x.system END"),
    ("candidate_systems", "jsonb_path_query_array(i.candidates, '$[*].systems')"),
    *((column, _declared(column)) for column in JUDGMENT_EXPORT_COLUMNS),
    ("served_at", "j.served_at"),
    ("submitted_at", "j.submitted_at"),
    ("duration_ms", "j.duration_ms"),
    ("excluded", f"j.excluded OR {_LEFT_OUT}"),
]
TABLES["rows"] = Table(ROW_TABLE, header=False)


def judgment_export_rows(
    *,
    campaign: Campaign,
    names: dict[int, str] | None = None,
    task_id: int | None = None,
    included_only: bool = False,
) -> Iterator[dict[str, Any]]:
    """Every judgment of the campaign (or task) in the order they were recorded, one dict
    per judgment, from the query the CSVs are written from (``ROW_TABLE``).

    ``names`` maps annotator ids to the names to print (default: usernames). ``excluded`` is
    true for judgments excluded one by one and for those of annotators an organiser left
    out; ``included_only`` drops both, leaving what the rankings count.
    """
    if names is None:
        names = judgment_annotators(campaign)
    sql, params = _table_query(
        TABLES["rows"], campaign=campaign, names=names, task_id=task_id, included_only=included_only
    )
    columns = [name for name, _ in ROW_TABLE]
    # Inside a transaction the server-side cursor needs no WITH HOLD, which would make
    # PostgreSQL compute and store every row before sending the first.
    alias = router.db_for_read(Judgment)  # the replica inside a results view, if healthy
    with transaction.atomic(using=alias):
        connections[alias].ensure_connection()
        with connections[alias].connection.cursor(name="judgment_export_rows") as cursor:
            cursor.itersize = CHUNK
            cursor.execute(sql, params)
            last = None
            for values in cursor:
                if values[0] == last:
                    continue  # another system of the same judgment
                last = values[0]
                yield dict(zip(columns, values, strict=True))
