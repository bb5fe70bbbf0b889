"""Segment scores as ``system<TAB>segment<TAB>score`` lines, aligned into matrices.

Format (one file per human scoring or metric): UTF-8, one score per line, three tab-separated
fields: the system's name, the segment's id (any string naming the source item; the same id in
every system and every file means the same source) and a number. Blank lines and lines starting
with ``#`` are skipped; a first line ``system<TAB>segment<TAB>score`` is a header. A
(system, segment) pair may appear once per file. A segment a file lacks is missing (NaN).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from metrics.meta.kendall import FloatArray

HEADER = ("system", "segment", "score")


class ScoresFileError(ValueError):
    """A scores file that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class SegmentScores:
    """One file's scores: ``{(system, segment): score}``."""

    name: str
    scores: dict[tuple[str, str], float]

    @property
    def systems(self) -> set[str]:
        return {system for system, _ in self.scores}


def parse_scores(name: str, lines: Iterable[str]) -> SegmentScores:
    """Parse the lines of one scores file (see the module docstring)."""
    scores: dict[tuple[str, str], float] = {}
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if number == 1 and tuple(field.strip().lower() for field in fields) == HEADER:
            continue
        if len(fields) != 3:
            raise ScoresFileError(
                f"{name}, line {number}: expected 3 tab-separated fields "
                f"(system, segment, score), got {len(fields)}"
            )
        system, segment, text = (field.strip() for field in fields)
        if not system or not segment:
            raise ScoresFileError(f"{name}, line {number}: empty system or segment")
        try:
            score = float(text)
        except ValueError:
            raise ScoresFileError(
                f"{name}, line {number}: score {text!r} is not a number"
            ) from None
        if not math.isfinite(score):
            raise ScoresFileError(f"{name}, line {number}: score {text!r} is not finite")
        if (system, segment) in scores:
            raise ScoresFileError(
                f"{name}, line {number}: system {system!r}, segment {segment!r} appears twice"
            )
        scores[(system, segment)] = score
    if not scores:
        raise ScoresFileError(f"{name}: no scores")
    return SegmentScores(name, scores)


def read_scores(path: str | Path) -> SegmentScores:
    """Read a scores file; ``ScoresFileError`` for anything malformed."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as handle:
            return parse_scores(path.name, handle)
    except OSError as error:
        raise ScoresFileError(f"{path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise ScoresFileError(f"{path}: not UTF-8 text") from None


def align(
    human: SegmentScores, metrics: Sequence[SegmentScores]
) -> tuple[list[str], list[str], FloatArray, list[FloatArray]]:
    """Matrices over the human file's systems and segments (sorted): ``(systems, segments,
    human_matrix, [metric_matrix, ...])``, NaN where a file has no score."""
    systems = sorted(human.systems)
    segments = sorted({segment for _, segment in human.scores})
    row = {system: index for index, system in enumerate(systems)}
    column = {segment: index for index, segment in enumerate(segments)}

    def matrix(scores: SegmentScores) -> FloatArray:
        result = np.full((len(systems), len(segments)), np.nan)
        for (system, segment), score in scores.scores.items():
            if system in row and segment in column:
                result[row[system], column[segment]] = score
        return result

    return systems, segments, matrix(human), [matrix(scores) for scores in metrics]
