"""`python -m metrics meta`: meta-evaluation of metrics against human scores, from TSV files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from metrics.meta import DA_THRESHOLD, RESAMPLING_UNITS

if TYPE_CHECKING:
    import numpy as np

    from metrics.meta.report import MetaEvaluation
    from metrics.meta.segment import Estimate

FORMAT_HELP = """\
Scores files: UTF-8 text, one score per line as three tab-separated fields
  system<TAB>segment<TAB>score
The segment field names the source item: the same id in every system and file means the same
source sentence. An optional first line "system<TAB>segment<TAB>score" is a header; blank lines
and lines starting with # are skipped; a (system, segment) pair may appear once per file.
Systems and segments are those of the human file; a score a metric file lacks is missing.

Every figure is oriented so that higher is better: name the lower-is-better sides with
--human-lower-better (MQM error points) and --lower-better NAME (e.g. TER).
Intervals: percentile bootstrap, segment level over items, system level over --resample."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "meta",
        help="meta-evaluation: system and segment-level agreement of metrics with human scores",
        description="System level: Pearson, Spearman, Kendall and pairwise accuracy of system"
        " means, soft pairwise accuracy (SPA, Thompson et al. 2024). Segment level, within"
        " each source item: WMT's Kendall-like tau, acc23, tie-optimised acc23 (Deutsch et al."
        " 2023) and Pairwise Difference Pearson (PDP), as mt-metrics-eval.",
        epilog=FORMAT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--human", required=True, metavar="FILE.tsv", help="human scores")
    parser.add_argument(
        "--metric",
        required=True,
        action="append",
        metavar="[NAME=]FILE.tsv",
        help="a metric's scores (repeatable); NAME defaults to the file's name without suffix",
    )
    parser.add_argument(
        "--human-lower-better", action="store_true", help="the human scores are errors (MQM)"
    )
    parser.add_argument(
        "--lower-better",
        action="append",
        default=[],
        metavar="NAME",
        help="this metric is an error rate, e.g. TER (repeatable)",
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=DA_THRESHOLD,
        help="minimum human difference of a Kendall-like pair (default 25, WMT's DA rule)",
    )
    parser.add_argument(
        "--resample",
        choices=RESAMPLING_UNITS,
        default="items",
        help="what the system-level bootstrap draws (default items: the test set's segments)",
    )
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="resamples")
    parser.add_argument(
        "--permutations",
        type=int,
        default=0,
        metavar="N",
        help="with two metrics or more: PERM-BOTH tests of every pair of metrics on each"
        " segment-level statistic, N permutations (default 0: none)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run)


def _named(argument: str) -> tuple[str, str]:
    name, separator, path = argument.partition("=")
    if separator and name and path:
        return name, path
    return Path(argument).stem, argument


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from metrics.meta.report import meta_evaluate
    from metrics.meta.tsv import ScoresFileError, align, read_scores

    named = [_named(argument) for argument in args.metric]
    names = [name for name, _ in named]
    if len(set(names)) != len(names):
        print("error: two metrics have one name; name them with NAME=FILE", file=sys.stderr)
        return 2
    unknown = sorted(set(args.lower_better) - set(names))
    if unknown:
        print(f"error: --lower-better names no metric: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.bootstrap < 0 or args.permutations < 0:
        print("error: --bootstrap and --permutations must be at least 0", file=sys.stderr)
        return 2
    try:
        human = read_scores(args.human)
        metric_scores = [read_scores(path) for _, path in named]
    except ScoresFileError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    systems, segments, human_matrix, matrices = align(human, metric_scores)
    if args.human_lower_better:
        human_matrix = -human_matrix
    oriented = {
        name: -matrix if name in args.lower_better else matrix
        for name, matrix in zip(names, matrices, strict=True)
    }
    results: dict[str, MetaEvaluation] = {}
    for name, matrix in oriented.items():
        if np.isnan(matrix).all():
            print(f"error: {name} scores none of the human file's segments", file=sys.stderr)
            return 2
        try:
            results[name] = meta_evaluate(
                human_matrix,
                matrix,
                threshold=args.threshold,
                resample=args.resample,
                n_resamples=args.bootstrap,
                seed=args.seed,
            )
        except ValueError as error:
            print(f"error: {name}: {error}", file=sys.stderr)
            return 2
    try:
        tests = _pairwise_tests(human_matrix, oriented, args) if args.permutations else []
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        document = {
            "human": human.name,
            "systems": len(systems),
            "segments": len(segments),
            "metrics": {name: result.as_dict() for name, result in results.items()},
            "pairwise_tests": tests,
        }
        print(json.dumps(document, indent=2))
        return 0
    _print_table(results, len(systems), len(segments))
    if tests:
        print("\nPERM-BOTH tests (p for 'b agrees better than a')")
        for test in tests:
            print(
                f"{test['a']:<16} {test['b']:<16} {test['statistic']:<20} "
                f"b-a {test['b_minus_a']:+.4f}  p {test['p_value']:.4f}"
            )
    return 0


def _pairwise_tests(
    human: np.ndarray, metrics: dict[str, np.ndarray], args: argparse.Namespace
) -> list[dict[str, object]]:
    from metrics.meta.significance import SEGMENT_STATISTICS, permutation_test

    tests = []
    names = list(metrics)
    for index, name_a in enumerate(names):
        for name_b in names[index + 1 :]:
            for statistic in SEGMENT_STATISTICS:
                result = permutation_test(
                    human,
                    metrics[name_a],
                    metrics[name_b],
                    statistic=statistic,
                    threshold=args.threshold,
                    n_permutations=args.permutations,
                    seed=args.seed,
                )
                tests.append({"a": name_a, "b": name_b, **result.as_dict()})
    return tests


def _fmt(value: float | None) -> str:
    return "     -" if value is None or value != value else f"{value:6.3f}"


def _interval(estimate: Estimate) -> str:
    return f"{_fmt(estimate.value)} [{_fmt(estimate.low)}, {_fmt(estimate.high)}]"


def _print_table(results: dict[str, MetaEvaluation], systems: int, segments: int) -> None:
    print(f"{systems} systems, {segments} segments; 95% bootstrap intervals in brackets")
    print(
        f"{'metric':<16} {'pearson':>7} {'spearm':>7} {'kendall':>7}  "
        f"{'pairwise accuracy':<24} {'kendall-like (seg)':<24} {'acc23 (seg)':<24} "
        f"{'acc23 tie-opt (seg)':<24} {'epsilon':>7} {'SPA':>6} {'PDP':>6}"
    )
    for name, result in results.items():
        spa = None if result.soft_accuracy is None else result.soft_accuracy.value
        segment = result.segment
        seg_columns = (
            f"{_interval(segment.kendall_like):<24} {_interval(segment.acc23):<24} "
            f"{_interval(segment.acc23_tie_optimised):<24} {segment.tie_epsilon:>7.4g}"
            if segment is not None
            else "no item has two systems scored by both"
        )
        print(
            f"{name:<16} {_fmt(result.pearson):>7} {_fmt(result.spearman):>7} "
            f"{_fmt(result.kendall):>7}  {_interval(result.system_accuracy.accuracy):<24} "
            f"{seg_columns} {_fmt(spa)} {_fmt(result.pairwise_difference_pearson)}"
        )
