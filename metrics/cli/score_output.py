"""What ``python -m metrics score`` prints: one JSON object, or tables with signatures."""

from __future__ import annotations

import argparse
from typing import Any

from metrics.automatic import decomposes, higher_is_better, metric_label
from metrics.resampling import Comparison, Estimate


def _label(metric: str) -> str:
    return metric_label(metric)


def as_json(
    names: list[str],
    results: dict[str, tuple[list[Estimate], list[Comparison]]],
    signatures: dict[str, str],
    args: argparse.Namespace,
    keys: dict[str, str] | None = None,
) -> dict[str, Any]:
    """``keys`` maps each reported metric name to its metric key (they differ for "ulc")."""
    keys = keys or {metric: metric for metric in results}
    systems = []
    for index, name in enumerate(names):
        scores = {}
        for metric, (estimates, _) in results.items():
            estimate = estimates[index]
            scores[metric] = {
                "score": estimate.score,
                "signature": signatures[metric],
                "ci": [estimate.low, estimate.high],
                "mean": estimate.mean,
                "run_scores": list(estimate.run_scores),
                "run_std": estimate.run_std,
                "higher_is_better": higher_is_better(keys[metric]),
                # What bootstrap and paired tests resample: sufficient statistics, or
                # sentence scores for metrics that are means of them.
                "resamples": "statistics" if decomposes(keys[metric]) else "sentence scores",
            }
        systems.append({"name": name, "runs": estimates[index].n_runs, "scores": scores})
    pairs = [
        {
            "a": pair.a,
            "b": pair.b,
            "metric": metric,
            "delta": pair.delta,
            "p_value": pair.p_value,
            "win_a": pair.win_a,
            "win_b": pair.win_b,
            "tie": pair.tie,
        }
        for metric, (_, comparisons) in results.items()
        for pair in comparisons
    ]
    test = None
    if args.paired:
        test = {"type": args.paired, "samples": args.samples, "seed": args.seed}
        if args.paired == "ar":
            test["trials"] = args.trials
    return {"systems": systems, "pairs": pairs, "test": test}


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(line.rstrip() for line in lines)


def as_text(
    names: list[str],
    results: dict[str, tuple[list[Estimate], list[Comparison]]],
    signatures: dict[str, str],
    args: argparse.Namespace,
) -> str:
    header = ["System", *(f"{_label(m)} [95% CI]" for m in results)]
    rows = [header]
    for index, name in enumerate(names):
        row = [name]
        for estimates, _ in results.values():
            e = estimates[index]
            cell = f"{e.score:.2f} [{e.low:.2f}, {e.high:.2f}]"
            if e.run_std is not None:
                row[0] = f"{name} ({e.n_runs} runs)"
                cell += f" runs {e.run_mean:.2f} ± {e.run_std:.2f} sd"
            row.append(cell)
        rows.append(row)
    parts = [_table(rows), ""]
    parts += [f"{_label(metric)}: {sig}" for metric, sig in signatures.items()]
    if args.paired:
        if args.paired == "bs":
            test = f"paired bootstrap resampling, {args.samples} resamples"
        else:
            test = (
                f"approximate randomisation, {args.trials} trials "
                f"(wins from {args.samples} bootstrap resamples)"
            )
        parts += ["", f"Every pair: {test}, seed {args.seed}; * p < 0.05", ""]
        pair_rows = [["A", "B", "metric", "A - B", "p-value", "A wins", "B wins", "ties"]]
        for metric, (_, comparisons) in results.items():
            for c in comparisons:
                star = "*" if c.p_value < 0.05 else ""
                pair_rows.append(
                    [
                        c.a,
                        c.b,
                        _label(metric),
                        f"{c.delta:+.2f}",
                        f"{c.p_value:.4f}{star}",
                        f"{c.win_a:.3f}",
                        f"{c.win_b:.3f}",
                        f"{c.tie:.3f}",
                    ]
                )
        parts.append(_table(pair_rows))
    return "\n".join(parts)
