"""`python -m metrics simulate`: replay a finished campaign under allocation policies."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

from metrics.adaptive.policies import POLICIES, SCREEN_POLICIES
from metrics.adaptive.screens import replay_screens
from metrics.adaptive.simulate import (
    DEFAULT_REPLAYS,
    Campaign,
    Replays,
    Settings,
    build_campaign,
    full_ranking,
    replay,
    summary,
)
from metrics.adaptive.status import DEFAULT_ALPHA
from metrics.wmt_csv import InputError, Judgments, read_appraise_scores, read_judgments

DEFAULT_POLICIES = "uniform,adaptive,pearmut"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="replay a finished campaign: judgments each allocation policy needs to settle"
        " the ranking",
        description="Replays the TGT judgments of each language pair (the file `human` reads)"
        " under each policy, drawing each judgment from the real judgments of the chosen"
        " (system, segment), and stops when every adjacent pair of systems is resolved or"
        " equivalent within --delta (an always-valid confidence sequence, see"
        " metrics/adaptive/confidence.py) or the file's judgment count is spent.",
    )
    parser.add_argument("--judgments", required=True, metavar="FILE.csv")
    parser.add_argument("--format", choices=("evalsite", "appraise"), default="evalsite")
    parser.add_argument("--lower-is-better", action="store_true", help="e.g. MQM scores")
    parser.add_argument(
        "--policies",
        default=DEFAULT_POLICIES,
        help=f"comma-separated, of {', '.join(POLICIES)} (default {DEFAULT_POLICIES})",
    )
    parser.add_argument(
        "--delta",
        type=float,
        default=0.0,
        metavar="D",
        help="equivalence margin in score units (default 0: pairs are never equivalent)",
    )
    parser.add_argument("--alpha", type=float, default=DEFAULT_ALPHA)
    parser.add_argument("--cold-start", type=int, default=10, metavar="N")
    parser.add_argument(
        "--pairing",
        choices=("paired", "unpaired"),
        default="unpaired",
        help="paired: every system visits the segments in one order and each pair's interval"
        " is on its per-segment differences (for every policy alike); unpaired: each system"
        " its own order, the difference of two means (default)",
    )
    parser.add_argument(
        "--tuned-for",
        type=float,
        default=None,
        metavar="N",
        help="judgments per system the confidence sequence is tuned for, fixed before the"
        " replay (default: half the file's judgments per system)",
    )
    parser.add_argument(
        "--screen-size",
        type=int,
        default=1,
        metavar="N",
        help="contrastive screens: each draw shows N systems' outputs of one segment, all"
        " scored (uniform: balanced sets; pearmut: its dynamic rule draws the N; adaptive:"
        " the live rule's choice of sets or pairs); judgments are still counted in outputs"
        " (default 1: one output a draw)",
    )
    parser.add_argument("--replays", type=int, default=DEFAULT_REPLAYS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run)


def _refusal(args: argparse.Namespace, policies: list[str]) -> str | None:
    known = SCREEN_POLICIES if args.screen_size > 1 else POLICIES
    unknown = [p for p in policies if p not in known]
    if unknown or not policies:
        screens = f" for --screen-size {args.screen_size}" if args.screen_size > 1 else ""
        return (
            f"unknown policy {', '.join(unknown) or '(none)'}{screens};"
            f" choose from {', '.join(known)}"
        )
    if args.replays < 1:
        return "--replays must be at least 1"
    if args.delta < 0:
        return "--delta must not be negative"
    if not 0 < args.alpha < 1:
        return "--alpha must lie strictly between 0 and 1"
    if args.cold_start < 1:
        return "--cold-start must be at least 1"
    if args.tuned_for is not None and not args.tuned_for >= 1:
        return "--tuned-for must be at least 1"
    if args.screen_size < 1:
        return "--screen-size must be at least 1"
    if args.screen_size > 1 and args.pairing == "paired":
        return "--pairing paired is not built for --screen-size above 1"
    return None


def run(args: argparse.Namespace) -> int:
    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    refused = _refusal(args, policies)
    if refused:
        print(f"error: {refused}", file=sys.stderr)
        return 2
    try:
        if args.format == "appraise":
            judgments = read_appraise_scores(args.judgments)
        else:
            judgments = read_judgments(args.judgments)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    settings = Settings(
        alpha=args.alpha,
        delta=args.delta,
        cold_start=args.cold_start,
        paired=args.pairing == "paired",
        tuned_for=args.tuned_for,
    )
    report: dict[str, Any] = {}
    for pair in sorted(set(judgments.language_pair)):
        try:
            report[pair] = _language_pair(judgments, pair, policies, settings, args)
        except ValueError as error:
            print(f"error: {pair}: {error}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps({"language_pairs": report}, indent=2))
    else:
        _print_tables(report)
    return 0


def _language_pair(
    judgments: Judgments,
    pair: str,
    policies: list[str],
    settings: Settings,
    args: argparse.Namespace,
) -> dict[str, Any]:
    rows = np.flatnonzero(
        (np.asarray(judgments.language_pair) == pair) & (np.asarray(judgments.item_type) == "TGT")
    )
    if rows.size == 0:
        raise ValueError("no TGT judgments")
    scores = np.asarray(judgments.score, dtype=np.float64)[rows]
    campaign = build_campaign(
        np.asarray(judgments.system)[rows],
        np.asarray(judgments.segment)[rows],
        -scores if args.lower_is_better else scores,
    )
    order, clusters = full_ranking(campaign, settings)
    return {
        "full": {"order": order, "clusters": clusters, "judgments": campaign.budget},
        "policies": {
            policy: summary(_replay(campaign, policy, settings, args)) for policy in policies
        },
    }


def _replay(
    campaign: Campaign, policy: str, settings: Settings, args: argparse.Namespace
) -> Replays:
    if args.screen_size > 1:
        return replay_screens(
            campaign,
            policy,
            size=args.screen_size,
            replays=args.replays,
            settings=settings,
            seed=args.seed,
        )
    return replay(campaign, policy, replays=args.replays, settings=settings, seed=args.seed)


def _print_tables(report: dict[str, Any]) -> None:
    for pair, section in report.items():
        full = section["full"]
        print(f"== {pair}: {full['judgments']} judgments ==")
        print("clusters: " + " > ".join("{" + ", ".join(c) + "}" for c in full["clusters"]))
        print(
            f"{'policy':<10} {'median':>8} {'p10':>8} {'p90':>8} {'resolved':>9} {'budget':>7}"
            f" {'wrong':>6}"
        )
        for policy, result in section["policies"].items():
            spent = result["judgments_at_stop"]
            print(
                f"{policy:<10} {spent['median']:>8.0f} {spent['p10']:>8.0f} {spent['p90']:>8.0f}"
                f" {result['stopped']['resolved']:>9} {result['stopped']['budget']:>7}"
                f" {result['wrong_order_rate']:>6.3f}"
            )
        print()
