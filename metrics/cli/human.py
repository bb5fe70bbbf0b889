"""`python -m metrics human`: system rankings, clusters and annotator quality control."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

import numpy as np

from metrics.cli.table_output import (
    add_table_arguments,
    ranking_table,
    table_arguments_error,
    write_tables,
)
from metrics.quality import AnnotatorQuality, annotator_quality
from metrics.rankings import SystemScore, rank_systems
from metrics.wmt_csv import InputError, Judgments, read_appraise_scores, read_judgments


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "human",
        help="rankings, clusters and quality control of absolute (Likert / DA) judgments",
        description="Ranks systems per language pair by mean z-score of TGT items, clusters them"
        " with one-sided Wilcoxon rank-sum tests and checks annotators (bad references,"
        " repeats, agreement, time).",
    )
    parser.add_argument("--judgments", required=True, metavar="FILE.csv")
    parser.add_argument("--format", choices=("evalsite", "appraise"), default="evalsite")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument(
        "--reference-as",
        metavar="NAME",
        help="rank the human reference (REF items) as a system of this name",
    )
    add_table_arguments(parser)  # the --reference-as system is marked human without it
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="resamples")
    parser.add_argument("--seed", type=int, default=0)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    refused = table_arguments_error(args)
    if refused is not None:
        return refused
    try:
        if args.format == "appraise":
            judgments = read_appraise_scores(args.judgments)
        else:
            judgments = read_judgments(args.judgments)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    report = {
        pair: _language_pair(judgments, pair, args) for pair in sorted(set(judgments.language_pair))
    }
    if args.table:
        return _write_table(report, args)
    if args.json:
        print(json.dumps({"language_pairs": report}, indent=2))
    else:
        _print_tables(report)
    return 0


def _segment_codes(ids: np.ndarray) -> np.ndarray:
    """Codes 0..k-1 in the segments' order: numeric ids as numbers (segment 10 after 9, as
    the site orders them, so the bootstrap resamples alike), any other id as text."""
    try:
        keys = np.asarray([int(value) for value in ids], dtype=np.int64)
    except ValueError:
        keys = ids
    return np.unique(keys, return_inverse=True)[1].reshape(-1)


def _language_pair(judgments: Judgments, pair: str, args: argparse.Namespace) -> dict[str, Any]:
    rows = np.flatnonzero(np.asarray(judgments.language_pair) == pair)
    kinds = np.asarray(judgments.item_type)[rows]
    system_names = np.asarray(judgments.system, dtype=object)[rows]
    if args.reference_as:
        system_names = np.where(kinds == "REF", args.reference_as, system_names)
    annotator_ids, annotators = np.unique(
        np.asarray(judgments.annotator)[rows], return_inverse=True
    )
    system_ids, systems = np.unique(system_names.astype(str), return_inverse=True)
    segments = _segment_codes(np.asarray(judgments.segment)[rows])
    scores = np.asarray(judgments.score, dtype=np.float64)[rows]
    seconds = np.asarray(judgments.seconds, dtype=np.float64)[rows]

    ranked = (kinds == "TGT") | ((kinds == "REF") if args.reference_as else False)
    ranking: list[SystemScore] = []
    names = system_ids
    if ranked.any():
        # Re-code the ranked systems so that codes run 0..k-1 without gaps.
        ranked_ids, ranked_systems = np.unique(systems[ranked], return_inverse=True)
        ranking = rank_systems(
            scores[ranked],
            annotators[ranked],
            ranked_systems,
            segments[ranked],
            n_boot=args.bootstrap,
            seed=args.seed,
        )
        names = system_ids[ranked_ids]
    quality = annotator_quality(scores, annotators, systems, segments, kinds, seconds=seconds)
    return {
        "systems": [_system(s, str(names[s.system])) for s in ranking],
        "annotators": [_annotator(q, str(annotator_ids[q.annotator])) for q in quality],
    }


def _number(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _system(score: SystemScore, name: str) -> dict[str, Any]:
    return {
        "system": name,
        "raw": _number(score.raw),
        "raw_interval": [_number(v) for v in score.raw_interval],
        "z": _number(score.z),
        "z_interval": [_number(v) for v in score.z_interval],
        "segments": score.segments,
        "judgments": score.judgments,
        "systems_beaten": score.wins,
        "cluster": score.cluster,
        "rank_range": list(score.rank_range),
    }


def _annotator(quality: AnnotatorQuality, name: str) -> dict[str, Any]:
    return {
        "annotator": name,
        "judgments": quality.judgments,
        "median_seconds": _number(quality.median_seconds),
        "bad_reference_pairs": quality.bad_reference_pairs,
        "bad_reference_p": _number(quality.bad_reference_p),
        "passed": quality.passed,
        "verdict": quality.verdict,
        "repeat_pairs": quality.repeat_pairs,
        "repeat_mean_abs_difference": _number(quality.repeat_mean_abs_difference),
        "repeat_exact_share": _number(quality.repeat_exact_share),
        "agreement_pairs": quality.agreement_pairs,
        "agreement_with_others": _number(quality.agreement_with_others),
        "correlation_with_others": _number(quality.correlation_with_others),
    }


def _write_table(report: dict[str, dict[str, Any]], args: argparse.Namespace) -> int:
    human = set(args.human_reference) | ({args.reference_as} if args.reference_as else set())
    tables = [
        ranking_table(
            pair,
            "da",
            section["systems"],
            human,
            score_key="z",
            interval_key="z_interval",
            secondary_key="raw",
        )
        for pair, section in report.items()
        if section["systems"]
    ]
    return write_tables(tables, args)


def _cell(value: Any, width: int, digits: int = 3) -> str:
    if value is None:
        return f"{'-':>{width}}"
    if isinstance(value, float):
        return f"{value:>{width}.{digits}f}"
    return f"{value!s:>{width}}"


def _print_tables(report: dict[str, dict[str, Any]]) -> None:
    for pair, section in report.items():
        print(f"== {pair} ==")
        print(
            f"{'cluster':>7} {'ranks':>7}  {'system':<40} {'z':>7} {'z interval':>17} "
            f"{'raw':>7} {'segments':>8}"
        )
        for s in section["systems"]:
            low, high = s["z_interval"]
            interval = f"[{_cell(low, 6)}, {_cell(high, 6)}]"
            ranks = f"{s['rank_range'][0]}-{s['rank_range'][1]}"
            print(
                f"{s['cluster']:>7} {ranks:>7}  {s['system']:<40} {_cell(s['z'], 7)} "
                f"{interval:>17} {_cell(s['raw'], 7, 1)} {s['segments']:>8}"
            )
        print()
        print(
            f"{'annotator':<24} {'judgments':>9} {'median s':>8} {'bad-ref p':>10} "
            f"{'verdict':<16} {'repeats':>7} {'|diff|':>6} {'agree':>6}"
        )
        for a in section["annotators"]:
            print(
                f"{a['annotator']:<24} {a['judgments']:>9} {_cell(a['median_seconds'], 8, 1)} "
                f"{_cell(a['bad_reference_p'], 10, 4)} {a['verdict']:<16} "
                f"{a['repeat_pairs']:>7} {_cell(a['repeat_mean_abs_difference'], 6, 2)} "
                f"{_cell(a['agreement_with_others'], 6, 2)}"
            )
        print()
