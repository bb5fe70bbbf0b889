"""Pieces shared by ``python -m metrics mqm`` and ``python -m metrics esa``."""

from __future__ import annotations

import gzip
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from metrics.wmt_csv import InputError


@contextmanager
def open_text(path: str) -> Iterator[IO[str]]:
    """A UTF-8 text handle on ``path`` (gunzipped when it ends in ``.gz``), newlines kept."""
    try:
        handle: IO[str] = (
            gzip.open(path, "rt", encoding="utf-8", newline="")  # noqa: SIM115 (closed below)
            if path.endswith(".gz")
            else open(path, encoding="utf-8", newline="")  # noqa: SIM115
        )
    except OSError as error:
        raise InputError(path, None, error.strerror or str(error)) from None
    with handle:
        try:
            yield handle
        except UnicodeDecodeError:
            raise InputError(path, None, "not UTF-8 text") from None
        except (OSError, EOFError) as error:
            raise InputError(path, None, f"cannot be read: {error}") from None


def number(value: float | None) -> float | None:
    """JSON has no NaN: undefined figures are null."""
    return None if value is None or not math.isfinite(value) else float(value)


def system_rows(systems: list[Any]) -> list[dict[str, Any]]:
    """The JSON of ranked systems (``MqmSystemScore`` or ``EsaSystemScore``)."""
    rows = []
    for s in systems:
        row = {key: getattr(s, key) for key in s.__dataclass_fields__}
        row["score"] = number(s.score)
        row["interval"] = [number(v) for v in s.interval]
        row["rank_range"] = list(s.rank_range)
        if "domain_scores" in row:  # ESA by WMT25: a mean per domain
            row["domain_scores"] = {d: number(v) for d, v in row["domain_scores"].items()}
        rows.append(row)
    return rows


def p_value_table(p_values: dict[str, dict[str, float]]) -> dict[str, dict[str, float | None]]:
    return {a: {b: number(p) for b, p in row.items()} for a, row in p_values.items()}


def print_ranking(rows: list[dict[str, Any]], *, digits: int, count_key: str) -> None:
    print(
        f"{'cluster':>7} {'ranks':>7}  {'system':<32} {'score':>9} {'interval':>21} {'segments':>8}"
    )
    for row in rows:
        low, high = (f"{v:.{digits}f}" if v is not None else "-" for v in row["interval"])
        score = "-" if row["score"] is None else f"{row['score']:.{digits}f}"
        ranks = f"{row['rank_range'][0]}-{row['rank_range'][1]}"
        print(
            f"{row['cluster']:>7} {ranks:>7}  {row['system']:<32} {score:>9} "
            f"{'[' + low + ', ' + high + ']':>21} {row[count_key]:>8}"
        )
