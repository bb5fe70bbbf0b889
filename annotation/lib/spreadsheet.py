"""The one guard against spreadsheet formulas for every CSV and TSV the site writes.

A spreadsheet runs a cell that starts with ``= + - @``, a tab or a carriage return as a
formula (CSV injection), so such a text cell gets a quote in front. Numbers are left alone
(-0.5 is a number, not a formula). PostgreSQL writes the biggest exports itself (COPY), so the
same rule is also given as SQL (``sql_spreadsheet_safe``), made from the same characters.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

FORMULA_STARTS = frozenset({"=", "+", "-", "@", "\t", "\r"})


def spreadsheet_safe(value: Any) -> Any:
    """``value`` with a quote in front if it is text a spreadsheet would run."""
    if type(value) is str and value[:1] in FORMULA_STARTS:
        return "'" + value
    return value


def spreadsheet_safe_row(row: Iterable[Any]) -> list[Any]:
    # spreadsheet_safe inlined: a function call per cell doubles the cost of a big export.
    return ["'" + c if type(c) is str and c[:1] in FORMULA_STARTS else c for c in row]


def spreadsheet_safe_tsv_line(line: str) -> str:
    """A TSV line (fields hold no tab or line break) with every field guarded."""
    body = line.rstrip("\n")
    return "\t".join(spreadsheet_safe_row(body.split("\t"))) + line[len(body) :]


def sql_spreadsheet_safe(expression: str) -> str:
    """SQL text of ``expression`` (text) guarded by the same rule."""
    starts = ", ".join(f"chr({ord(c)})" for c in sorted(FORMULA_STARTS))
    return (
        f"CASE WHEN left({expression}, 1) IN ({starts}) "
        f"THEN '''' || {expression} ELSE {expression} END"
    )
