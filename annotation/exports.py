"""Downloads of human judgments and results, streamed row by row in constant memory.

* judgments CSV (header row) and JSON Lines: every judgment. The CSV has one row per system
  judged, so that each row names one system (a ranking of five outputs is five rows); its
  ``annotator, language_pair, system, segment_id, item_type, score`` columns are what
  ``python -m metrics human --judgments`` reads (``score`` is empty where the task gives no
  absolute score, so give that command a Likert or direct-assessment task's file).
* Appraise's headerless score CSV (``username, systemID, itemID, itemType, sourceLanguage,
  targetLanguage, score, documentID, isCompleteDocument, start_time, end_time``), as
  ``python -m metrics human --format appraise`` reads it; itemID as every Appraise file the
  site writes (``annotation.selectors.exports.appraise_item_id``). PostgreSQL writes both
  CSVs (``judgment_csv_chunks``: a million rows in seconds) from the one query that expands a
  judgment to a row per system judged (``annotation.selectors.exports``); a judgment fills
  the answer columns its protocol declares (``export_columns``), no others.
* the WMT 5-way ranking CSV of pairwise and ranking tasks, as ``python -m metrics agreement
  --rankings`` reads it; rankings that do not fit one row (more than five outputs, or one
  output standing for several systems) are spread over several rows that expand to the
  same pairwise labels (see ``wmt_entries``).
* system rankings (one row per system of each ranking: Likert, pairwise, HTER, and the ESA and
  MQM tasks' rows as the results page shows them, ``SpanTaskResults.ranking_rows``) as CSV or
  JSON.

Segments are numbered from 1 in the order of the source file (``segment_id`` of the CSV and
JSON Lines, the WMT CSV's ``srcIndex`` and ``segmentId``), as metric score uploads, WMT and
Google's MQM files number them.
"""

from __future__ import annotations

import csv
import hmac
import json
import math
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from itertools import combinations
from typing import Any

from django.conf import settings
from django.http import StreamingHttpResponse

from annotation.lib.spreadsheet import spreadsheet_safe_row
from annotation.models import Campaign, Task
from annotation.protocols import JUDGMENT_EXPORT_COLUMNS
from annotation.selectors.exports import (
    judgment_annotators,
    judgment_csv_chunks,
    judgment_export_rows,
)
from annotation.selectors.human import HumanResults
from annotation.selectors.human.comparisons import ranks_of
from annotation.selectors.human.documents import document_score_rows
from annotation.selectors.human.spans import SpanTaskResults

WMT_WIDTH = 5  # systems per row of the 5-way WMT format
BATCH = 500  # CSV lines per chunk sent


# The content type of each file extension the downloads use.
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "tsv": "text/tab-separated-values; charset=utf-8",
    "jsonl": "application/x-ndjson; charset=utf-8",
    "json": "application/json; charset=utf-8",
}


def pseudonym(user_id: int) -> str:
    """A stable id for an annotator that reveals nothing without the site's secret key."""
    digest = hmac.new(settings.SECRET_KEY.encode(), f"annotator:{user_id}".encode(), "sha256")
    return "a-" + digest.hexdigest()[:16]


def _item_type(row: dict[str, Any]) -> str:
    return "REPEAT" if row["is_repeat"] else row["item_kind"]


def _candidates(row: dict[str, Any], key: str) -> list[Any]:
    """A candidate field (``candidate_systems``), parsed once."""
    value = row[key]
    if isinstance(value, str):
        value = row[key] = json.loads(value)
    return value or []


def _json_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def judgment_json_lines(rows: Iterable[dict[str, Any]], *, language_pair: str) -> Iterator[str]:
    """One JSON object per judgment, its candidates' systems listed in display order, and
    the answer columns its protocol declares (the others null)."""
    for row in rows:
        document = {
            "annotator": row["annotator"],
            "language_pair": language_pair,
            "task_id": row["task_id"],
            "task_type": row["task_type"],
            "judgment_id": row["id"],
            "item_id": row["item_number"],
            "item_type": _item_type(row),
            "segment_id": row["segment_index"] + 1,
            "document_id": row["document"],
            "system": row["single_system"],
            "systems": _candidates(row, "candidate_systems"),
            **{column: row[column] for column in JUDGMENT_EXPORT_COLUMNS},
            "served_at": row["served_at"],
            "submitted_at": row["submitted_at"],
            "duration_ms": row["duration_ms"],
            "excluded": row["excluded"],
        }
        yield json.dumps({k: _json_value(v) for k, v in document.items()}) + "\n"


def wmt_entries(
    candidates: Sequence[Sequence[str]], ranks: Sequence[int]
) -> Iterator[list[tuple[str, int]]]:
    """The (system, rank) entries of the WMT rows that stand for one ranking.

    The 5-way format holds five systems of one output each. A ranking that fits is one row.
    Otherwise the first row holds the first system of each of the first five candidates,
    and every other pair of systems from different candidates gets a two-system row of its
    own, so the rows expand to exactly the pairwise labels of the ranking (systems of one
    candidate, which share an output, are never paired).
    """
    primary = [(names[0], rank) for names, rank in zip(candidates, ranks, strict=True) if names]
    primary = primary[:WMT_WIDTH]
    yield primary
    covered = {frozenset((x, y)) for (x, _), (y, _) in combinations(primary, 2)}
    for (first, rank_x), (second, rank_y) in combinations(zip(candidates, ranks, strict=True), 2):
        for x in first:
            for y in second:
                if x != y and frozenset((x, y)) not in covered:
                    covered.add(frozenset((x, y)))
                    yield [(x, rank_x), (y, rank_y)]


def wmt_ranking_rows(
    rows: Iterable[dict[str, Any]],
    *,
    campaign: Campaign,
    task_type: str,
) -> Iterator[list[Any]]:
    """The WMT 5-way ranking CSV: a header, then the rows of each judgment (see
    ``wmt_entries``); absent systems have an empty id and rank -1."""
    numbered = range(1, WMT_WIDTH + 1)
    yield [
        "srclang",
        "trglang",
        "srcIndex",
        "documentId",
        "segmentId",
        "judgeId",
        *(f"system{k}{part}" for k in numbered for part in ("Number", "Id")),
        *(f"system{k}rank" for k in numbered),
    ]
    for row in rows:
        candidates = _candidates(row, "candidate_systems")
        ranks = ranks_of(task_type, row, len(candidates))
        if ranks is None:
            continue
        for entries in wmt_entries(candidates, ranks):
            padded = entries + [("", -1)] * (WMT_WIDTH - len(entries))
            yield [
                campaign.source_language,
                campaign.target_language,
                row["segment_index"] + 1,
                row["document"],
                row["segment_index"] + 1,
                row["annotator"],
                *(cell for system, _ in padded for cell in (-1, system)),
                *(rank for _, rank in padded),
            ]


def ranking_rows(
    results: HumanResults, spans: Iterable[SpanTaskResults] = ()
) -> list[dict[str, Any]]:
    """One row per system of every ranking on the dashboard, the error-span tasks' (ESA,
    MQM: ``spans``) included. A column means the same in every row (``systems_beaten``:
    systems a Likert, ESA or MQM system beats at p < 0.05; ``wins``: pairwise comparisons
    won; ``score``: an ESA or MQM score, or a document page score (measure
    ``document_score``, ``judgments`` its pages); ``higher_is_better``: which way the row's measure
    points, in every row); a row leaves empty what its measure does not have or what too
    little data left undefined."""
    rows: list[dict[str, Any]] = []
    for task in results.tasks:
        base = {
            "task_id": task.task.id,
            "task_type": task.task.task_type,
            "task_name": task.task.get_task_type_display(),
        }
        for ranking in task.likert:
            for position, system in enumerate(ranking.systems, start=1):
                s = system.score
                rows.append(
                    {
                        **base,
                        "measure": ranking.measure,
                        "higher_is_better": True,
                        "position": position,
                        "system": system.name,
                        "z": s.z,
                        "z_low": s.z_interval[0],
                        "z_high": s.z_interval[1],
                        "raw": s.raw,
                        "raw_low": s.raw_interval[0],
                        "raw_high": s.raw_interval[1],
                        "cluster": s.cluster,
                        "rank_low": s.rank_range[0],
                        "rank_high": s.rank_range[1],
                        "segments": s.segments,
                        "judgments": s.judgments,
                        "systems_beaten": s.wins,
                    }
                )
        for position, pair in enumerate(task.pairwise, start=1):
            p = pair.score
            rows.append(
                {
                    **base,
                    "measure": "preference",
                    "higher_is_better": True,
                    "position": position,
                    "system": pair.name,
                    "bradley_terry": p.bradley_terry,
                    "expected_wins": p.expected_wins,
                    "win_rate": p.win_rate,
                    "wins": p.wins,
                    "losses": p.losses,
                    "ties": p.ties,
                    # No rank range without resamples (too few comparisons): empty, not 0.
                    "rank_low": p.rank_range[0] if task.rank_resamples else None,
                    "rank_high": p.rank_range[1] if task.rank_resamples else None,
                }
            )
        for position, edit in enumerate(task.hter, start=1):
            h = edit.score
            rows.append(
                {
                    **base,
                    "measure": "hter",
                    "higher_is_better": False,
                    "position": position,
                    "system": edit.name,
                    "corpus_hter": h.corpus_hter,
                    "corpus_hter_low": h.corpus_interval[0],
                    "corpus_hter_high": h.corpus_interval[1],
                    "mean_hter": h.mean_hter,
                    "mean_hter_low": h.mean_interval[0],
                    "mean_hter_high": h.mean_interval[1],
                    "segments": h.segments,
                }
            )
        rows.extend(document_score_rows(task.task, task.document_scores))
    for span_task in spans:
        rows.extend(span_task.ranking_rows())
        rows.extend(document_score_rows(span_task.task, span_task.document_scores))
    return [{k: _json_value(v) for k, v in row.items()} for row in rows]


RANKING_COLUMNS = [
    "task_id",
    "task_type",
    "task_name",
    "protocol",
    "measure",
    "position",
    "system",
    "score",
    "score_low",
    "score_high",
    "higher_is_better",
    "z",
    "z_low",
    "z_high",
    "raw",
    "raw_low",
    "raw_high",
    "cluster",
    "bradley_terry",
    "expected_wins",
    "win_rate",
    "wins",
    "losses",
    "ties",
    "systems_beaten",
    "corpus_hter",
    "corpus_hter_low",
    "corpus_hter_high",
    "mean_hter",
    "mean_hter_low",
    "mean_hter_high",
    "rank_low",
    "rank_high",
    "segments",
    "judgments",
    "domains",
    "procedure",
    "local_cluster",
    "domain_scores",
]


def ranking_csv_rows(rows: list[dict[str, Any]]) -> Iterator[list[Any]]:
    """The rows as CSV cells; a list (the ESA domains) or a mapping (WMT25's domain scores)
    as JSON, unambiguous whatever the domains' names hold, and an empty one (no domains: a
    plain mean) as an empty cell."""
    yield RANKING_COLUMNS
    for row in rows:
        yield [
            (json.dumps(value, ensure_ascii=False) if value else None)
            if isinstance(value, list | dict)
            else value
            for value in (row.get(column) for column in RANKING_COLUMNS)
        ]


class _Echo:
    """A file-like object whose write returns what it was given, for csv.writer."""

    def write(self, value: str) -> str:
        return value


def csv_stream(rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """CSV text in chunks of lines, every cell through the formula guard."""
    writer = csv.writer(_Echo())
    return batched(writer.writerow(spreadsheet_safe_row(row)) for row in rows)


def batched(lines: Iterable[str]) -> Iterator[str]:
    """Lines joined in chunks of ``BATCH``: fewer, larger writes to the client."""
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= BATCH:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def streaming_response(chunks: Iterable[str], *, filename: str) -> StreamingHttpResponse:
    content_type = CONTENT_TYPES[filename.rsplit(".", 1)[-1]]
    response = StreamingHttpResponse(chunks, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def judgments_download(
    *,
    campaign: Campaign,
    fmt: str,
    task: Task | None = None,
    included_only: bool = False,
    pseudonymise: bool = False,
) -> StreamingHttpResponse:
    """The judgments in one of the formats ``csv``, ``jsonl``, ``appraise`` or ``wmt``
    (the latter for pairwise and ranking tasks only: the caller checks), each from the one
    expansion of judgments into rows (``annotation.selectors.exports``)."""
    # The names say what the file holds: a pseudonymised file can be shared, an identified one
    # names people, so the two must not be mistaken for each other (or overwrite each other).
    name = (
        f"evalsite-{campaign.id}"
        + (f"-task{task.id}" if task else "")
        + ("-included" if included_only else "")
        + ("-pseudonymised" if pseudonymise else "-identified")
    )
    names = judgment_annotators(campaign)
    if pseudonymise:
        names = {i: pseudonym(i) for i in names}
    if fmt in ("jsonl", "wmt"):
        rows = judgment_export_rows(
            campaign=campaign,
            names=names,
            task_id=task.id if task else None,
            included_only=included_only,
        )
        if fmt == "jsonl":
            lines = judgment_json_lines(rows, language_pair=campaign.language_pair)
            return streaming_response(batched(lines), filename=f"{name}-judgments.jsonl")
        task_type = task.task_type if task else ""  # the caller checks it is a ranked task
        table = wmt_ranking_rows(rows, campaign=campaign, task_type=task_type)
        return streaming_response(csv_stream(table), filename=f"{name}-wmt-rankings.csv")
    chunks = judgment_csv_chunks(
        campaign=campaign,
        names=names,
        table="appraise" if fmt == "appraise" else "judgments",
        task_id=task.id if task else None,
        included_only=included_only,
    )
    return streaming_response(
        chunks, filename=f"{name}-appraise.csv" if fmt == "appraise" else f"{name}-judgments.csv"
    )
