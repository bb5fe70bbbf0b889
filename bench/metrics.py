"""Paired significance tests: sacrebleu against metrics.resampling. Run
``.venv/bin/python bench/metrics.py [--no-ar] [--jobs N]`` from the project root.

Data: the 16 WMT17 en-de systems of ``../shared/data/wmt17-en-de`` (or the copy under
``tests/data``), BLEU and chrF, sacrebleu's defaults (seed 12345, 1000 bootstrap resamples,
10000 randomisation trials). Timed:

* sacrebleu's CLI, ``sacrebleu REF -i SYS1 ... SYS16 -m bleu chrf --paired-bs`` (and
  ``--paired-ar``): the first system against the other 15, statistics extracted inside;
* ours cold: reading the files, extracting the statistics (``--jobs`` processes) and the same
  15 comparisons; our CLI end to end (every pair, with intervals) as a subprocess;
* ours warm: the same 15 comparisons from statistics already extracted, then all 120 pairs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metrics.automatic import extract_statistics_many  # noqa: E402
from metrics.resampling import (  # noqa: E402
    paired_approximate_randomization,
    paired_bootstrap,
)

METRICS = ("bleu", "chrf")
Paired = Callable[..., object]


def data_dir() -> Path:
    for candidate in (ROOT.parent / "shared/data/wmt17-en-de", ROOT / "tests/data/wmt17-en-de"):
        if (candidate / "reference.txt").exists():
            return candidate
    raise SystemExit("WMT17 en-de data not found")


def read_lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    return [line.rstrip() for line in (lines[:-1] if lines[-1] == "" else lines)]


def timed(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def run(command: list[str]) -> float:
    env = {k: v for k, v in os.environ.items() if k != "SACREBLEU_SEED"}
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env, cwd=ROOT)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-ar", action="store_true", help="skip approximate randomisation")
    parser.add_argument("--jobs", type=int, default=2, help="extraction processes (default 2)")
    args = parser.parse_args()

    folder = data_dir()
    reference = folder / "reference.txt"
    files = sorted(folder.glob("newstest2017.*.en-de.txt"))
    names = [path.name.split(".")[1] for path in files]
    baseline_pairs = [(names[0], name) for name in names[1:]]
    sacrebleu = Path(sys.executable).with_name("sacrebleu")
    print(f"data: {folder} ({len(files)} systems, {len(read_lines(reference))} segments)")
    print(f"cpus: {os.cpu_count()}, extraction processes: {args.jobs}\n")

    tests = {"bs": paired_bootstrap, "ar": paired_approximate_randomization}
    if args.no_ar:
        del tests["ar"]
    stats: dict[str, dict[str, NDArray[np.float64]]] = {}

    def compare(paired: Paired, pairs: list[tuple[str, str]] | None) -> None:
        for metric in METRICS:
            paired(metric, stats[metric], pairs=pairs)

    def cold(paired: Paired) -> None:
        ref = read_lines(reference)
        systems = [read_lines(path) for path in files]
        for metric in METRICS:
            arrays = extract_statistics_many(metric, systems, [ref], jobs=args.jobs)
            stats[metric] = dict(zip(names, arrays, strict=True))
        compare(paired, baseline_pairs)

    rows = []
    for kind, paired in tests.items():
        theirs = run(
            [
                str(sacrebleu),
                str(reference),
                "-i",
                *map(str, files),
                "-m",
                *METRICS,
                f"--paired-{kind}",
                "-f",
                "text",
            ]
        )
        cold_time = timed(partial(cold, paired))
        ours_cli = run(
            [
                sys.executable,
                "-m",
                "metrics",
                "score",
                "-r",
                str(reference),
                *(f"-s{n}={p}" for n, p in zip(names, files, strict=True)),
                "--metrics",
                ",".join(METRICS),
                "--paired",
                kind,
                "--json",
                "--jobs",
                str(args.jobs),
            ]
        )
        warm = min(timed(partial(compare, paired, baseline_pairs)) for _ in range(3))
        warm_all = min(timed(partial(compare, paired, None)) for _ in range(3))
        rows.append((kind, theirs, cold_time, ours_cli, warm, warm_all))

    print(f"{'test':<5}{'timing (BLEU + chrF)':<58}{'seconds':>9}{'sacrebleu / ours':>18}")
    for kind, theirs, cold_time, ours_cli, warm, warm_all in rows:
        print(f"{kind:<5}{'sacrebleu CLI, baseline vs 15':<58}{theirs:>9.3f}")
        for label, seconds in (
            ("ours cold (read + extract + baseline vs 15), in process", cold_time),
            ("ours CLI subprocess, all 120 pairs + intervals", ours_cli),
            ("ours warm, baseline vs 15", warm),
            ("ours warm, all 120 pairs", warm_all),
        ):
            print(f"{kind:<5}{label:<58}{seconds:>9.3f}{theirs / seconds:>17.1f}x")


if __name__ == "__main__":
    main()
