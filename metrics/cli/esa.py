"""`python -m metrics esa`: ESA rankings, clusters and span statistics from an Appraise export."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from metrics.cli.spans_common import number, open_text, p_value_table, print_ranking, system_rows
from metrics.cli.table_output import (
    add_table_arguments,
    ranking_table,
    table_arguments_error,
    write_tables,
)
from metrics.spans import (
    annotator_pairs,
    appraise_segments,
    corpus_span_f1,
    error_breakdown,
    rank_esa,
    read_appraise_esa,
    score_agreement,
)
from metrics.spans.appraise import AppraiseScore
from metrics.spans.breakdown import span_statistics
from metrics.spans.esa_wmt import DEFAULT_PROCEDURE, PROCEDURES, rank_esa_wmt25, rank_esa_wmt26
from metrics.wmt_csv import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "esa",
        help="ESA system scores, clusters and span statistics from an Appraise ESA export",
        description="Ranks systems as WMT24 (default): mean raw score of segments (per domain,"
        " then averaged), one-sided Wilcoxon signed-rank tests on shared segments (Stouffer over"
        " domains), DA clusters; or as WMT25 or WMT26 (--procedure); counts the error spans"
        " per system.",
    )
    parser.add_argument(
        "--procedure",
        choices=list(PROCEDURES),
        default=DEFAULT_PROCEDURE,
        help="; ".join(PROCEDURES.values())
        + ". WMT25's waves: an output's judgments in the file's order",
    )
    parser.add_argument("--appraise", required=True, metavar="FILE.csv", help="ESA score export")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument(
        "--item-type",
        action="append",
        metavar="TYPE",
        help="item types ranked (repeatable; default TGT; BAD items are quality checks)",
    )
    parser.add_argument(
        "--exclude-system", action="append", default=[], metavar="NAME", help="e.g. tutorials"
    )
    parser.add_argument(
        "--domains",
        metavar="FILE.tsv",
        help="document id <TAB> domain per line: rank within domains, then average",
    )
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="resamples")
    parser.add_argument("--seed", type=int, default=0)
    add_table_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    refused = table_arguments_error(args)
    if refused is not None:
        return refused
    kinds = set(args.item_type or ["TGT"])
    excluded = set(args.exclude_system)
    try:
        with open_text(args.appraise) as handle:
            every_row = list(read_appraise_esa(handle, name=args.appraise))
        domain_of = _domains(args.domains) if args.domains else None
        segments = appraise_segments(every_row)
        chosen = [
            i
            for i, row in enumerate(every_row)
            if row.item_type in kinds and row.system not in excluded
        ]
        if not chosen:
            raise InputError(args.appraise, None, "no judgments of the chosen item types")
        rows = [every_row[i] for i in chosen]
        domains = None
        if domain_of is not None:
            unknown = sorted({r.document_id for r in rows} - domain_of.keys())
            if unknown:
                raise InputError(args.domains, None, f"no domain for document {unknown[0]!r}")
            domains = [domain_of[r.document_id] for r in rows]
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    scores, systems = [r.score for r in rows], [r.system for r in rows]
    chosen_segments = [segments[i] for i in chosen]
    if args.procedure == "wmt25":
        ranking = rank_esa_wmt25(scores, systems, chosen_segments, domains=domains)
    elif args.procedure == "wmt26":
        ranking = rank_esa_wmt26(scores, systems, chosen_segments, seed=args.seed)
    else:
        ranking = rank_esa(
            scores,
            systems,
            chosen_segments,
            domains=domains,
            n_boot=args.bootstrap,
            seed=args.seed,
        )
    report = _report(rows, [segments[i] for i in chosen], ranking)
    if args.table:
        title = ", ".join(sorted({f"{r.source_language}-{r.target_language}" for r in rows}))
        table = ranking_table(title, "esa", report["systems"], set(args.human_reference))
        return write_tables([table], args)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    print(f"ESA (higher is better), {PROCEDURES[args.procedure]}")
    print_ranking(report["systems"], digits=1, count_key="segments")
    print()
    print(
        f"{'system':<32} {'judgments':>9} {'spans':>6} {'minor':>6} {'major':>6} "
        f"{'missing':>7} {'no span':>7} {'chars':>6}"
    )
    for s in report["spans"]:
        length = "-" if s["mean_length"] is None else f"{s['mean_length']:.1f}"
        print(
            f"{s['system']:<32} {s['judgments']:>9} {s['spans']:>6} "
            f"{s['by_severity'].get('minor', 0):>6} {s['by_severity'].get('major', 0):>6} "
            f"{s['missing']:>7} {s['error_free_share']:>7.0%} {length:>6}"
        )
    agreement = report["agreement"]
    print()
    print(
        f"agreement over {agreement['annotator_pairs']} doubly annotated outputs: span F1 "
        f"{_fmt(agreement['span_f1'])} (with severity {_fmt(agreement['span_f1_with_severity'])}),"
        f" Krippendorff's alpha {_fmt(agreement['krippendorff_alpha'])},"
        f" Kendall's tau {_fmt(agreement['kendall_tau'])}"
    )
    return 0


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _report(rows: list[AppraiseScore], segments: list[str], ranking: Any) -> dict[str, Any]:
    systems = system_rows(ranking.systems)
    order = [s["system"] for s in systems]
    statistics = {s.system: s.as_dict() for s in span_statistics((r.system, r.spans) for r in rows)}
    for stats in statistics.values():
        stats["mean_length"] = number(stats["mean_length"])
    breakdown = error_breakdown(
        ((r.system, span.severity, span.category) for r in rows for span in r.spans),
        systems=order,
    )
    return {
        "systems": systems,
        "procedure": ranking.procedure,
        "domains": ranking.domains,
        "p_values": p_value_table(ranking.p_values),
        "spans": [statistics[name] for name in order],
        "errors": breakdown.as_dict(),
        "agreement": _agreement(rows, segments),
    }


def _agreement(rows: list[AppraiseScore], segments: list[str]) -> dict[str, Any]:
    """Between annotators of the same system's segment: span F1 (micro) and score agreement."""
    items = [f"{row.system}\t{segment}" for row, segment in zip(rows, segments, strict=True)]
    logins = [row.login for row in rows]
    pairs = annotator_pairs(zip(items, logins, (row.spans for row in rows), strict=True))
    scores = score_agreement(items, logins, [row.score for row in rows], n_boot=0)
    return {
        "annotator_pairs": len(pairs),
        "span_f1": number(corpus_span_f1(pairs).f1),
        "span_f1_with_severity": number(corpus_span_f1(pairs, severity=True).f1),
        "krippendorff_alpha": number(scores.alpha.kappa),
        "kendall_tau": number(scores.tau),
        "tau_annotator_pairs": scores.tau_pairs,
    }


def _domains(path: str) -> dict[str, str]:
    mapping: dict[str, str] = {}
    with open_text(path) as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            fields = line.rstrip("\r\n").split("\t")
            if len(fields) != 2 or not all(fields):
                raise InputError(path, line_number, "expected: document id <TAB> domain")
            mapping[fields[0]] = fields[1]
    return mapping
