"""`python -m metrics mqm`: MQM system scores from Google's MQM TSV.

Reads both of Google's layouts (metrics/spans/mqm_tsv.py). ``Source error``/``Source issue``
rows weigh by their severity like any other error (Major 5, Minor 1), as Google's README table
does and as its published per-segment TED scores are computed. ``HOTW-test`` rows are
attention checks, never errors: they are left out of the scores and reported per rater
(found, missed, rate found).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from metrics.cli.spans_common import open_text, p_value_table, print_ranking, system_rows
from metrics.cli.table_output import (
    add_table_arguments,
    ranking_table,
    table_arguments_error,
    write_tables,
)
from metrics.spans import MqmWeights, error_breakdown, rank_mqm, rating_scores, read_mqm_tsv
from metrics.spans.mqm_tsv import MqmRow, hotw_by_rater
from metrics.wmt_csv import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mqm",
        help="MQM system scores, intervals and clusters from Google's MQM TSV",
        description="Scores each system by the mean over rated segments of the sum of error"
        " weights (Major 5, Minor 1, Minor Fluency/Punctuation 0.1, Non-translation 25; lower is"
        " better), with bootstrap intervals and one-sided Wilcoxon signed-rank clusters.",
    )
    parser.add_argument("--tsv", required=True, metavar="FILE", help="MQM TSV (or .tsv.gz)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--average",
        choices=("rating", "segment"),
        default="rating",
        help="average over rater-segment ratings (Google) or over segments",
    )
    parser.add_argument("--weights", metavar="FILE.json", help="weights as MqmWeights.as_dict()")
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="resamples")
    parser.add_argument("--seed", type=int, default=0)
    add_table_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    refused = table_arguments_error(args)
    if refused is not None:
        return refused
    try:
        weights = _weights(args.weights)
        with open_text(args.tsv) as handle:
            rows = list(read_mqm_tsv(handle, name=args.tsv))
        if not rows:
            raise InputError(args.tsv, None, "the file has no ratings")
        ratings = rating_scores((_error(row) for row in rows if row.hotw is None), weights)
        if ratings.score.size == 0:
            raise InputError(args.tsv, None, "the file has no ratings, only attention checks")
    except (InputError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    ranking = rank_mqm(
        ratings, weights=weights, average=args.average, n_boot=args.bootstrap, seed=args.seed
    )
    systems = system_rows(ranking.systems)
    breakdown = error_breakdown(
        ((row.system, row.span.severity, row.span.category) for row in rows if row.span),
        systems=[s["system"] for s in systems],
    )
    report: dict[str, Any] = {
        "systems": systems,
        "average": ranking.average,
        "weights": ranking.weights,
        "p_values": p_value_table(ranking.p_values),
        "errors": breakdown.as_dict(),
        "hotw": hotw_report(rows),
    }
    if args.table:
        title = Path(args.tsv).name.removesuffix(".gz").removesuffix(".tsv")
        table = ranking_table(title, "mqm", systems, set(args.human_reference))
        return write_tables([table], args)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    print(f"MQM ({ranking.average} average; lower is better)")
    print_ranking(systems, digits=3, count_key="segments")
    print(f"weights: {json.dumps(ranking.weights)}")
    if report["hotw"]:
        print("HOTW attention checks (not errors), per rater: found / checks (rate)")
        for line in report["hotw"]:
            print(f"  {line['rater']}\t{line['found']} / {line['checks']} ({line['rate']:.2f})")
    return 0


def hotw_report(rows: list[MqmRow]) -> list[dict[str, Any]]:
    """Per rater: HOTW checks found, missed, and the share found."""
    return [
        {
            "rater": rater,
            "found": found,
            "missed": missed,
            "checks": found + missed,
            "rate": found / (found + missed),
        }
        for rater, (found, missed) in hotw_by_rater(rows).items()
    ]


def _error(row: MqmRow) -> tuple[str, str, str, str, str | None]:
    # A segment is (doc, seg_id): seg_id alone need not be unique across documents.
    segment = f"{row.doc}\t{row.seg_id}"
    return (row.system, segment, row.rater, row.severity, row.category)


def _weights(path: str | None) -> MqmWeights:
    if path is None:
        return MqmWeights()
    with open_text(path) as handle:
        try:
            return MqmWeights.from_dict(json.load(handle))
        except (json.JSONDecodeError, AttributeError, KeyError, TypeError) as error:
            raise InputError(path, None, f"not MQM weights: {error}") from None
