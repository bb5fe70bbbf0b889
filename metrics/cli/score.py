"""`python -m metrics score`: corpus scores, bootstrap intervals and paired tests, like sacrebleu.

Each system is scored against the references with every requested metric, with a 95% bootstrap
confidence interval (sacrebleu's resampling and seed). With --paired, every pair of systems is
compared by paired bootstrap resampling (bs) or approximate randomisation (ar); the p-values
equal sacrebleu's --paired-bs / --paired-ar for the same seed and sample count.

A system with several runs (e.g. training seeds) is given as -s NAME=RUN1,RUN2,... or by
repeating -s NAME=RUN. Its score and tests pool the runs (segment statistics averaged over
runs, MultEval style); the runs' own scores, mean and standard deviation are reported too.

--json prints one object: {"systems": [{"name", "runs", "scores": {METRIC: {"score",
"signature", "ci": [low, high], "mean", "run_scores", "run_std"}}}], "pairs": [{"a", "b",
"metric", "delta", "p_value", "win_a", "win_b", "tie"}], "test"}. win_a is the share of
bootstrap resamples in which a is better (also with --paired ar, whose p-values are the
randomisation's). Scores are on the 0-100 scale.

Files are UTF-8, one segment a line, trailing whitespace ignored (as sacrebleu reads them).
Unreadable files, line count mismatches and invalid UTF-8 exit with code 2.

example:
  python -m metrics score -r ref.de -s base=base.de -s new=new.seed1.de,new.seed2.de \\
      --metrics bleu,chrf --paired bs --json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from metrics.automatic import METRICS, TOKENIZERS, check_metric, extract_statistics_many, signature
from metrics.resampling import (
    AR_TRIALS,
    BOOTSTRAP_SAMPLES,
    SACREBLEU_SEED,
    Comparison,
    Estimate,
    bootstrap_ci,
    paired_approximate_randomization,
    paired_bootstrap,
)

_NAMES = {"bleu": "BLEU", "chrf": "chrF2", "chrf++": "chrF2++", "ter": "TER"}


class InputError(Exception):
    """Bad command-line input, reported on stderr with exit code 2."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="BLEU/chrF/TER scores, confidence intervals and paired significance tests",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-r",
        "--reference",
        action="append",
        required=True,
        metavar="FILE",
        help="reference file; repeat for several references",
    )
    parser.add_argument(
        "-s",
        "--system",
        action="append",
        required=True,
        metavar="NAME=FILE[,FILE...]",
        help="system output; several comma-separated files (or a repeated NAME) are runs",
    )
    parser.add_argument(
        "--metrics",
        default="bleu,chrf",
        help=f"comma-separated, from {', '.join(METRICS)} (default: %(default)s)",
    )
    parser.add_argument(
        "--paired",
        choices=("bs", "ar"),
        help="every pair of systems: paired bootstrap (bs) or approximate randomisation (ar)",
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=BOOTSTRAP_SAMPLES,
        help="bootstrap resamples for intervals, win shares and --paired bs (default: %(default)s)",
    )
    parser.add_argument(
        "--trials",
        type=int,
        default=AR_TRIALS,
        help="trials of --paired ar (default: %(default)s)",
    )
    parser.add_argument(
        "--seed", type=int, default=SACREBLEU_SEED, help="random seed (default: %(default)s)"
    )
    parser.add_argument(
        "--half",
        action="store_true",
        help="resample half of the segments without replacement instead of all with replacement",
    )
    parser.add_argument(
        "--tokenize", choices=TOKENIZERS, help="BLEU tokeniser (default: sacrebleu's 13a)"
    )
    parser.add_argument(
        "--lowercase",
        action="store_true",
        help="case-insensitive BLEU and chrF (TER is case-insensitive by default, as in sacrebleu)",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="processes for extracting statistics (default: 1)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def read_segments(path: str) -> list[str]:
    """Lines of a UTF-8 file, split on "\\n" only, trailing whitespace removed."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror or error}") from None
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    segments = []
    for number, raw in enumerate(lines, start=1):
        try:
            segments.append(raw.decode("utf-8").rstrip())
        except UnicodeDecodeError as error:
            raise InputError(
                f"{path}: line {number} is not valid UTF-8 (byte {error.start + 1} of the line)"
            ) from None
    return segments


def _parse_systems(specs: list[str]) -> dict[str, list[str]]:
    systems: dict[str, list[str]] = {}
    for spec in specs:
        name, sep, files = spec.partition("=")
        if not sep:
            name, files = spec, spec  # a bare file is named after its path
        paths = [path for path in files.split(",") if path]
        if not name or not paths:
            raise InputError(f"bad system {spec!r}; expected NAME=FILE[,FILE...]")
        systems.setdefault(name, []).extend(paths)
    return systems


def _parse_metrics(text: str) -> list[str]:
    try:
        keys = [check_metric(item.strip()) for item in text.split(",") if item.strip()]
    except ValueError as error:
        raise InputError(str(error)) from None
    if not keys:
        raise InputError("no metric given")
    return list(dict.fromkeys(keys))


def _load(args: argparse.Namespace) -> tuple[list[list[str]], dict[str, list[list[str]]]]:
    references = [read_segments(path) for path in args.reference]
    n = len(references[0])
    if n == 0:
        raise InputError(f"reference {args.reference[0]} is empty")
    for path, stream in zip(args.reference, references, strict=True):
        if len(stream) != n:
            raise InputError(
                f"reference {path} has {len(stream)} lines but {args.reference[0]} has {n}"
            )
    systems: dict[str, list[list[str]]] = {}
    for name, paths in _parse_systems(args.system).items():
        systems[name] = []
        for path in paths:
            run = read_segments(path)
            if len(run) != n:
                raise InputError(
                    f"system {name!r} file {path} has {len(run)} lines "
                    f"but reference {args.reference[0]} has {n}"
                )
            systems[name].append(run)
    return references, systems


def _check_options(args: argparse.Namespace, n_systems: int) -> None:
    if args.samples < 1 or args.trials < 1:
        raise InputError("--samples and --trials must be positive")
    if args.paired and n_systems < 2:
        raise InputError("--paired needs at least two systems")


def _statistics(
    metric: str,
    references: list[list[str]],
    systems: dict[str, list[list[str]]],
    args: argparse.Namespace,
) -> dict[str, np.ndarray]:
    runs = [run for system in systems.values() for run in system]
    stats = extract_statistics_many(
        metric,
        runs,
        references,
        tokenize=args.tokenize if metric == "bleu" else None,
        lowercase=True if args.lowercase else None,
        jobs=args.jobs,
    )
    out: dict[str, np.ndarray] = {}
    start = 0
    for name, system in systems.items():
        chunk = stats[start : start + len(system)]
        out[name] = chunk[0] if len(chunk) == 1 else np.stack(chunk)
        start += len(system)
    return out


def _evaluate(
    metric: str, stats: dict[str, np.ndarray], args: argparse.Namespace
) -> tuple[list[Estimate], list[Comparison]]:
    options: dict[str, Any] = {"n_samples": args.samples, "seed": args.seed, "half": args.half}
    if args.paired == "bs":
        result = paired_bootstrap(metric, stats, **options)
    elif args.paired == "ar":
        result = paired_approximate_randomization(metric, stats, n_trials=args.trials, **options)
    else:
        estimates = [bootstrap_ci(metric, s, name=name, **options) for name, s in stats.items()]
        return estimates, []
    return list(result.systems), list(result.pairs)


def run(args: argparse.Namespace) -> int:
    try:
        metrics = _parse_metrics(args.metrics)
        references, systems = _load(args)
        _check_options(args, len(systems))
        results = {}
        signatures = {}
        for metric in metrics:
            stats = _statistics(metric, references, systems, args)
            results[metric] = _evaluate(metric, stats, args)
            signatures[metric] = signature(
                metric,
                n_refs=len(references),
                tokenize=args.tokenize if metric == "bleu" else None,
                lowercase=True if args.lowercase else None,
                bs=args.samples,
                ar=args.trials if args.paired == "ar" else None,
                seed=args.seed,
            )
    except (InputError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    names = list(systems)
    if args.json:
        print(json.dumps(_as_json(names, results, signatures, args), indent=1, ensure_ascii=False))
    else:
        print(_as_text(names, results, signatures, args))
    return 0


def _as_json(
    names: list[str],
    results: dict[str, tuple[list[Estimate], list[Comparison]]],
    signatures: dict[str, str],
    args: argparse.Namespace,
) -> dict[str, Any]:
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


def _as_text(
    names: list[str],
    results: dict[str, tuple[list[Estimate], list[Comparison]]],
    signatures: dict[str, str],
    args: argparse.Namespace,
) -> str:
    header = ["System", *(f"{_NAMES[m]} [95% CI]" for m in results)]
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
    parts += [f"{_NAMES[metric]}: {sig}" for metric, sig in signatures.items()]
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
                        _NAMES[metric],
                        f"{c.delta:+.2f}",
                        f"{c.p_value:.4f}{star}",
                        f"{c.win_a:.3f}",
                        f"{c.win_b:.3f}",
                        f"{c.tie:.3f}",
                    ]
                )
        parts.append(_table(pair_rows))
    return "\n".join(parts)
