"""``--table typst|latex|pdf [--output FILE]``: the paper-ready ranking tables of the ranking
sub-commands (``human``, ``mqm``, ``esa``), written by ``metrics.report``."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from metrics.report.tables import (
    PROTOCOLS,
    RankingTable,
    Row,
    latex_document,
    typst_document,
)

TABLE_FORMATS = ("typst", "latex", "pdf")


def add_table_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--table",
        choices=TABLE_FORMATS,
        help="write the ranking table(s), paper-ready, instead of the report: Typst source,"
        " LaTeX source (booktabs) or PDF (compiled from the Typst source)",
    )
    parser.add_argument(
        "--output", metavar="FILE", help="where --table writes (default: standard output)"
    )
    parser.add_argument(
        "--human-reference",
        action="append",
        default=[],
        metavar="NAME",
        help="mark this system as a human translation in the table (repeatable)",
    )


def table_arguments_error(args: argparse.Namespace) -> int | None:
    """Exit code 2 (with the message printed) when ``--output`` comes without ``--table``."""
    if args.output and not args.table:
        print("error: --output goes with --table", file=sys.stderr)
        return 2
    return None


def _value(value: float | None) -> float:
    return math.nan if value is None else float(value)


def ranking_table(
    title: str,
    protocol: str,
    systems: list[dict[str, Any]],
    human: set[str],
    *,
    score_key: str = "score",
    interval_key: str = "interval",
    secondary_key: str | None = None,
) -> RankingTable:
    """A table from a sub-command's JSON rows of ranked systems (best first)."""
    rows = [
        Row(
            system=s["system"],
            rank_range=(s["rank_range"][0], s["rank_range"][1]),
            cluster=s["cluster"],
            score=_value(s[score_key]),
            interval=(_value(s[interval_key][0]), _value(s[interval_key][1])),
            secondary=None if secondary_key is None else s[secondary_key],
            human=s["system"] in human,
        )
        for s in systems
    ]
    return RankingTable(title=title, protocol=PROTOCOLS[protocol], rows=rows)


def write_tables(tables: list[RankingTable], args: argparse.Namespace) -> int:
    if not tables:
        print("error: nothing ranked, so no table", file=sys.stderr)
        return 2
    if args.table == "pdf":
        from metrics.report.pdf import tables_pdf  # the compiler loads only when asked for

        data = tables_pdf(tables)
        if args.output:
            with open(args.output, "wb") as handle:
                handle.write(data)
        else:
            sys.stdout.buffer.write(data)
        return 0
    text = latex_document(tables) if args.table == "latex" else typst_document(tables)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0
