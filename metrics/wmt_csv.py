"""Readers for the WMT ranking CSVs, the evalsite judgment CSV and Appraise score exports.

Problems in the input raise ``InputError`` naming the file, line and problem, for the command
line to print.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from metrics.agreement.wmt import Ranking

ITEM_TYPES = ("TGT", "BAD", "REF", "CHK", "REPEAT")


class InputError(ValueError):
    def __init__(self, path: str | Path, line: int | None, problem: str) -> None:
        where = f"{path}, line {line}" if line is not None else str(path)
        super().__init__(f"{where}: {problem}")


def _rows(path: str | Path) -> Iterator[tuple[int, list[str]]]:
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            for number, row in enumerate(csv.reader(handle), start=1):
                if row and any(cell.strip() for cell in row):
                    yield number, [cell.strip() for cell in row]
    except OSError as error:
        raise InputError(path, None, f"cannot read file ({error.strerror})") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise InputError(path, None, f"not a readable CSV file ({error})") from None


def _rank(path: str | Path, line: int, value: str, column: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise InputError(path, line, f"{column} is {value!r}, not an integer rank") from None


def read_wmt_rankings(path: str | Path) -> dict[str, list[Ranking]]:
    """Rankings per language pair ("<srclang>-<trglang>") from a WMT ranking CSV.

    Reads the 5-way format (``srclang,trglang,srcIndex,documentId,segmentId,judgeId,
    system1Number,system1Id,...,system5rank``) and the pairwise WMT15/16 format
    (``srclang,trglang,srcIndex,segmentId,judgeID,system1Id,system1rank,system2Id,system2rank,
    rankingID``), each line of which is a two-system ranking. Segments are keyed by srcIndex.
    Rank -1 marks an unranked system; it is kept here and skipped by the expansion.
    """
    rows = _rows(path)
    first = next(rows, None)
    if first is None:
        raise InputError(path, None, "the file is empty")
    header_line, header = first
    columns = {name.lower(): i for i, name in enumerate(header)}
    needed = ["srclang", "trglang", "srcindex"]
    judge = "judgeid"
    if "system5rank" in columns:
        systems = [(f"system{k}id", f"system{k}rank") for k in range(1, 6)]
    elif "system2rank" in columns:
        systems = [(f"system{k}id", f"system{k}rank") for k in range(1, 3)]
    else:
        raise InputError(path, header_line, "header is neither the 5-way nor the pairwise format")
    missing = [
        c for c in [*needed, judge, *(c for pair in systems for c in pair)] if c not in columns
    ]
    if missing:
        raise InputError(path, header_line, f"header lacks column(s) {', '.join(missing)}")
    result: dict[str, list[Ranking]] = {}
    for line, row in rows:
        if len(row) < len(header):
            raise InputError(path, line, f"expected {len(header)} fields, found {len(row)}")
        pair = f"{row[columns['srclang']]}-{row[columns['trglang']]}"
        result.setdefault(pair, []).append(
            Ranking(
                segment=row[columns["srcindex"]],
                judge=row[columns[judge]],
                outputs=[(row[columns[sid]],) for sid, _ in systems],
                ranks=[_rank(path, line, row[columns[rank]], rank) for _, rank in systems],
            )
        )
    return result


@dataclass
class Judgments:
    """Columns of a judgment file; ``seconds`` is the time spent on the item, NaN if unknown."""

    annotator: list[str] = field(default_factory=list)
    language_pair: list[str] = field(default_factory=list)
    system: list[str] = field(default_factory=list)
    segment: list[str] = field(default_factory=list)
    item_type: list[str] = field(default_factory=list)
    score: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def add(
        self,
        annotator: str,
        language_pair: str,
        system: str,
        segment: str,
        item_type: str,
        score: float,
        seconds: float,
    ) -> None:
        self.annotator.append(annotator)
        self.language_pair.append(language_pair)
        self.system.append(system)
        self.segment.append(segment)
        self.item_type.append(item_type)
        self.score.append(score)
        self.seconds.append(seconds)

    def __len__(self) -> int:
        return len(self.score)


def _number(path: str | Path, line: int, value: str, column: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise InputError(path, line, f"{column} is {value!r}, not a number") from None
    if not math.isfinite(number):
        raise InputError(path, line, f"{column} is {value!r}, not a finite number")
    return number


def _item_type(path: str | Path, line: int, value: str) -> str:
    kind = value.upper()
    if kind not in ITEM_TYPES:
        raise InputError(path, line, f"item type {value!r} is not one of {', '.join(ITEM_TYPES)}")
    return kind


def read_judgments(path: str | Path) -> Judgments:
    """The evalsite judgment CSV: a header with at least ``annotator, language_pair, system,
    segment_id, item_type, score``; optional ``seconds`` (time on the item) or ``start_time``
    and ``end_time``; other columns are ignored."""
    rows = _rows(path)
    first = next(rows, None)
    if first is None:
        raise InputError(path, None, "the file is empty")
    header_line, header = first
    columns = {name.lower(): i for i, name in enumerate(header)}
    needed = ["annotator", "language_pair", "system", "segment_id", "item_type", "score"]
    missing = [c for c in needed if c not in columns]
    if missing:
        raise InputError(path, header_line, f"header lacks column(s) {', '.join(missing)}")
    timed = "start_time" in columns and "end_time" in columns
    judgments = Judgments()
    for line, row in rows:
        if len(row) != len(header):
            raise InputError(path, line, f"expected {len(header)} fields, found {len(row)}")
        seconds = math.nan
        if "seconds" in columns and row[columns["seconds"]]:
            seconds = _number(path, line, row[columns["seconds"]], "seconds")
        elif timed and row[columns["start_time"]] and row[columns["end_time"]]:
            seconds = _number(path, line, row[columns["end_time"]], "end_time") - _number(
                path, line, row[columns["start_time"]], "start_time"
            )
        judgments.add(
            row[columns["annotator"]],
            row[columns["language_pair"]],
            row[columns["system"]],
            row[columns["segment_id"]],
            _item_type(path, line, row[columns["item_type"]]),
            _number(path, line, row[columns["score"]], "score"),
            seconds,
        )
    return judgments


def read_appraise_scores(path: str | Path) -> Judgments:
    """Appraise's headerless score export, recognised by its column count.

    11 columns (DirectAssessmentDocument): username, systemID, itemID, itemType,
    sourceLanguage, targetLanguage, score, documentID, isCompleteDocument, start, end;
    9 columns (DirectAssessment): username, systemID, itemID, itemType, src, tgt, score, start,
    end. Other counts of 7 or more take the first seven columns and no times. The language
    pair is ``src-tgt`` and the segment is the itemID.
    """
    judgments = Judgments()
    for line, row in _rows(path):
        if len(row) < 7:
            raise InputError(path, line, f"expected 9 or 11 fields, found {len(row)}")
        user, system, item, kind, src, tgt, score = row[:7]
        seconds = math.nan
        times = {9: (7, 8), 11: (9, 10)}.get(len(row))
        if times is not None and row[times[0]] and row[times[1]]:
            start = _number(path, line, row[times[0]], "start time")
            end = _number(path, line, row[times[1]], "end time")
            seconds = end - start
        judgments.add(
            user,
            f"{src}-{tgt}",
            system,
            item,
            _item_type(path, line, kind),
            _number(path, line, score, "score"),
            seconds,
        )
    if not judgments.score:
        raise InputError(path, None, "the file has no judgments")
    return judgments
