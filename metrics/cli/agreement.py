"""`python -m metrics agreement`: WMT inter- and intra-annotator kappa of ranking CSVs."""

from __future__ import annotations

import argparse
import json
import sys

from metrics.agreement import LISTED, ORDER_FREE, Kappa, ranking_labels, wmt_kappa
from metrics.wmt_csv import InputError, read_wmt_rankings


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "agreement",
        help="WMT inter-/intra-annotator kappa of relative rankings",
        description="WMT kappa per language pair of a WMT ranking CSV, either 5-way or pairwise"
        " (rank 1 = best, -1 = not ranked). Segments are keyed by srcIndex. As the WMT"
        " organisers' script computed it (the published WMT13-16 figures), an item is a segment"
        " and two systems in the order the ranking listed them.",
    )
    parser.add_argument("--rankings", required=True, metavar="FILE.csv")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="resamples")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--order-free",
        action="store_const",
        dest="item_order",
        const=ORDER_FREE,
        default=LISTED,
        help="compare every two labels on the same two systems, whichever order the rankings"
        " listed them in (the textbook kappa; not the published WMT figures)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        rankings = read_wmt_rankings(args.rankings)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    results: dict[str, dict[str, Kappa]] = {}
    for pair, pair_rankings in sorted(rankings.items()):
        labels = ranking_labels(pair_rankings)
        results[pair] = {
            kind: wmt_kappa(
                labels,
                intra=kind == "intra",
                item_order=args.item_order,
                n_boot=args.bootstrap,
                seed=args.seed,
            )
            for kind in ("inter", "intra")
        }
    if args.json:
        document = {
            "item_order": args.item_order,
            "language_pairs": {
                pair: {kind: kappa.as_dict() for kind, kappa in kinds.items()}
                for pair, kinds in results.items()
            },
        }
        print(json.dumps(document, indent=2))
        return 0
    print(f"items: a segment and two systems, {_ORDER_NOTE[args.item_order]}")
    print(
        f"{'language pair':<24} {'':<6} {'kappa':>7} {'P(A)':>6} {'P(E)':>6} {'items':>7}"
        "  interval          reading"
    )
    for pair, kinds in results.items():
        for kind, kappa in kinds.items():
            print(
                f"{pair:<24} {kind:<6} {_fmt(kappa.kappa, 7)} {_fmt(kappa.p_a, 6)} "
                f"{_fmt(kappa.p_e, 6)} {kappa.items:>7}  "
                f"[{_fmt(kappa.interval[0], 6)}, {_fmt(kappa.interval[1], 6)}]  {kappa.label}"
            )
    return 0


_ORDER_NOTE = {
    LISTED: "in the order the ranking listed them (as the WMT organisers computed it)",
    ORDER_FREE: "in either order (order-free)",
}


def _fmt(value: float | None, width: int) -> str:
    if value is None or value != value:
        return f"{'-':>{width}}"
    return f"{value:>{width}.3f}"
