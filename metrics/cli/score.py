"""`python -m metrics score`: corpus scores, bootstrap intervals and paired tests, like sacrebleu.

Metrics: bleu, chrf, chrf++, ter (sacrebleu), meteor, nist, wer, per, ribes, lepor, hlepor,
rougel, gtm, and ulc (the uniform combination of the other metrics chosen, NIST excepted; or
ulc:METRIC+METRIC...). Scores are on 0-100 except NIST; lower is better for TER, WER and PER.
RIBES, LEPOR, hLEPOR and ROUGE-L are means of sentence scores: their tests resample sentence
scores (signature "stats:sentence"); the others resample sufficient statistics.

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
randomisation's).

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

from metrics import ulc
from metrics.automatic import METRICS, TOKENIZERS, check_metric, tokenize_applies
from metrics.cli.score_output import as_json, as_text
from metrics.extraction import default_jobs, extract_table
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
from metrics.signatures import signature


class InputError(Exception):
    """Bad command-line input, reported on stderr with exit code 2."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="automatic metric scores, confidence intervals and paired significance tests",
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
        "--tokenize",
        choices=TOKENIZERS,
        help="tokeniser of BLEU and the word-level metrics (default: sacrebleu's 13a)",
    )
    parser.add_argument(
        "--lowercase",
        action="store_true",
        help="case-insensitive scores (TER, NIST, METEOR and ROUGE-L are by default)",
    )
    parser.add_argument(
        "--language",
        default="english",
        help="language of the translations, for METEOR's stemmer (default: %(default)s)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=0,
        help="processes extracting statistics, one share of the systems each "
        "(default 0: one per CPU, at most one per system run)",
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


def _parse_metrics(text: str) -> dict[str, str]:
    """``{name reported: metric key}``; a bare "ulc" combines the other metrics chosen."""
    try:
        keys = [check_metric(item.strip()) for item in text.split(",") if item.strip()]
    except ValueError as error:
        raise InputError(str(error)) from None
    if not keys:
        raise InputError("no metric given")
    named = {key: key for key in keys}
    if ulc.ULC in named:
        others = [key for key in named if not ulc.is_ulc(key)]
        try:
            named[ulc.ULC] = ulc.key_for(others)
        except ValueError as error:
            raise InputError(str(error)) from None
    return named


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
    metrics: list[str],
    references: list[list[str]],
    systems: dict[str, list[list[str]]],
    args: argparse.Namespace,
) -> dict[str, dict[str, np.ndarray]]:
    """``{metric: {system: statistics}}``, several runs of a system stacked."""
    runs = [run for system in systems.values() for run in system]
    table = extract_table(
        metrics,
        runs,
        references,
        tokenize=args.tokenize,
        lowercase=True if args.lowercase else None,
        language=args.language,
        jobs=args.jobs or default_jobs(len(runs)),
    )
    out: dict[str, dict[str, np.ndarray]] = {}
    for metric, stats in table.items():
        out[metric] = {}
        start = 0
        for name, system in systems.items():
            chunk = stats[start : start + len(system)]
            out[metric][name] = chunk[0] if len(chunk) == 1 else np.stack(chunk)
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
        if args.jobs < 0:
            raise InputError("--jobs must be 0 (automatic) or positive")
        results = {}
        signatures = {}
        table = _statistics(list(metrics.values()), references, systems, args)
        for name, metric in metrics.items():
            results[name] = _evaluate(metric, table[metric], args)
            signatures[name] = signature(
                metric,
                n_refs=len(references),
                tokenize=args.tokenize if tokenize_applies(metric) or "ulc" in metric else None,
                lowercase=True if args.lowercase else None,
                language=args.language,
                bs=args.samples,
                ar=args.trials if args.paired == "ar" else None,
                seed=args.seed,
            )
    except (InputError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    names = list(systems)
    if args.json:
        print(
            json.dumps(
                as_json(names, results, signatures, args, metrics), indent=1, ensure_ascii=False
            )
        )
    else:
        print(as_text(names, results, signatures, args))
    return 0
