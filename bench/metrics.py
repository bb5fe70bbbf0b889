"""Automatic metrics: speed against sacrebleu, and the time of every metric. Run
``.venv/bin/python bench/metrics.py [--jobs N] [--repeat R]`` from the project root.

Data: WMT21 news en-de (``../shared/data/wmt21-en-de``, or the copy under ``tests/data``):
1002 segments, references A, C, D, every system output.

1. Cold all-pairs paired bootstrap, BLEU and chrF against reference A, sacrebleu's defaults
   (seed 12345, 1000 resamples), each a fresh process:
   * ``sacrebleu A -i SYS1 ... -m bleu chrf --paired-bs``: the first system against the others;
   * ``python -m metrics score -r A -s ... --metrics bleu,chrf --paired bs --json``: every
     pair (n(n-1)/2 comparisons, not n-1) with intervals, statistics extracted by ``--jobs``
     processes.
   Best of ``--repeat`` runs each (a shared machine is noisy).
2. Every metric for one system against the three references: extraction, corpus score and a
   1000-resample bootstrap interval, in process, timed per metric (the metrics job's work;
   ULC from its components' statistics, as the job assembles it).
3. ``--campaign-tests``: the all-pairs paired bootstrap and randomisation of 19 systems on
   every metric, which each metrics job recomputes for its campaign after storing.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from metrics import ulc  # noqa: E402
from metrics.automatic import corpus_score, extract_statistics  # noqa: E402
from metrics.resampling import bootstrap_ci  # noqa: E402

EVERY_METRIC = (
    "bleu",
    "chrf",
    "chrf++",
    "ter",
    "meteor",
    "nist",
    "wer",
    "per",
    "ribes",
    "lepor",
    "hlepor",
    "rougel",
    "gtm",
)
ONE_SYSTEM = "Online-W"


def data_dir() -> Path:
    for candidate in (ROOT.parent / "shared/data/wmt21-en-de", ROOT / "tests/data/wmt21-en-de"):
        if (candidate / "newstest2021.en-de.ref.A.de").exists():
            return candidate
    raise SystemExit("WMT21 en-de data not found")


def read_lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    return [line.rstrip() for line in (lines[:-1] if lines[-1] == "" else lines)]


def run(command: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system, the command and its children) of a run: on a
    loaded machine the CPU seconds are what the run would take alone on one core."""
    env = {k: v for k, v in os.environ.items() if k != "SACREBLEU_SEED"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def paired(folder: Path, jobs: int, repeat: int) -> None:
    reference = folder / "newstest2021.en-de.ref.A.de"
    files = sorted((folder / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))
    names = [path.name.split(".")[3] for path in files]
    sacrebleu = Path(sys.executable).with_name("sacrebleu")
    theirs_cmd = [str(sacrebleu), str(reference), "-i", *map(str, files)]
    theirs_cmd += ["-m", "bleu", "chrf", "--paired-bs", "-f", "text"]
    ours_cmd = [sys.executable, "-m", "metrics", "score", "-r", str(reference)]
    ours_cmd += [f"-s{n}={p}" for n, p in zip(names, files, strict=True)]
    ours_cmd += ["--metrics", "bleu,chrf", "--paired", "bs", "--json", "--jobs", str(jobs)]
    theirs = [run(theirs_cmd) for _ in range(repeat)]
    ours = [run(ours_cmd) for _ in range(repeat)]
    (theirs_wall, theirs_cpu), (ours_wall, ours_cpu) = (
        (min(w for w, _ in runs), min(c for _, c in runs)) for runs in (theirs, ours)
    )
    n = len(files)
    print(f"1. cold paired bootstrap, BLEU + chrF, {n} systems, best of {repeat}")
    print(f"   {'':<50}{'wall s':>8}{'CPU s':>8}")
    line = f"sacrebleu --paired-bs, baseline vs {n - 1}:"
    print(f"   {line:<50}{theirs_wall:8.2f}{theirs_cpu:8.2f}")
    line = f"python -m metrics score --paired bs, all {n * (n - 1) // 2} pairs:"
    print(f"   {line:<50}{ours_wall:8.2f}{ours_cpu:8.2f}")
    print(
        f"   sacrebleu / ours: x{theirs_wall / ours_wall:.2f} wall, x{theirs_cpu / ours_cpu:.2f} "
        f"CPU  (extraction processes: {jobs})\n"
    )


def per_metric(folder: Path) -> None:
    refs = [read_lines(folder / f"newstest2021.en-de.ref.{r}.de") for r in "ACD"]
    hyps = read_lines(folder / "system-outputs" / f"newstest2021.en-de.hyp.{ONE_SYSTEM}.de")
    print(f"2. every metric, {ONE_SYSTEM}, {len(hyps)} segments, references A, C, D")
    # CPU seconds of this process besides wall-clock ones: on a loaded machine the CPU time
    # is what the job would take alone.
    print(f"   {'metric':<8}{'score':>9}{'extract s':>11}{'bootstrap s':>13}{'CPU s':>8}")
    total = cpu_total = 0.0
    computed = {}
    for metric in EVERY_METRIC:
        cpu, start = time.process_time(), time.perf_counter()
        options = {"language": "german"} if metric == "meteor" else {}
        stats = computed[metric] = extract_statistics(metric, hyps, refs, **options)
        middle = time.perf_counter()
        bootstrap_ci(metric, stats)
        end = time.perf_counter()
        cpu = time.process_time() - cpu
        total += end - start
        cpu_total += cpu
        score = corpus_score(metric, stats)
        print(f"   {metric:<8}{score:>9.2f}{middle - start:>11.2f}{end - middle:>13.2f}{cpu:>8.2f}")
    # ULC as the metrics job makes it: its components' statistics side by side, no extraction.
    cpu, start = time.process_time(), time.perf_counter()
    stats = np.hstack([computed[m] for m in ulc.components("ulc")])
    bootstrap_ci("ulc", stats)
    end = time.perf_counter()
    cpu = time.process_time() - cpu
    total += end - start
    cpu_total += cpu
    score = corpus_score("ulc", stats)
    print(f"   {'ulc':<8}{score:>9.2f}{0.0:>11.2f}{end - start:>13.2f}{cpu:>8.2f}")
    print(f"   every metric together: {total:.1f} s wall, {cpu_total:.1f} s CPU (target < 30 s)")


def campaign_tests(folder: Path, n_systems: int = 19) -> None:
    """What each metrics job adds after storing its scores: every pair's paired bootstrap and
    approximate randomisation, for every metric, from stored statistics."""
    from metrics.resampling import paired_approximate_randomization, paired_bootstrap

    refs = [read_lines(folder / "newstest2021.en-de.ref.A.de")]
    files = sorted((folder / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))[:2]
    hyps = [read_lines(path) for path in files]
    rng = np.random.default_rng(0)
    print(f"3. the campaign's paired tests after a job, {n_systems} systems, every metric")
    # The tests' cost depends on the statistics' shapes, not their values: two real systems'
    # statistics, rows shuffled, stand for the others (TER's extraction would dominate).
    cpu_total = 0.0
    computed: dict[str, list] = {}
    for metric in (*EVERY_METRIC, "ulc"):
        if metric == "ulc":
            stats = [np.hstack([computed[m][i] for m in ulc.components("ulc")]) for i in (0, 1)]
        else:
            stats = computed[metric] = [extract_statistics(metric, h, refs) for h in hyps]
        n = len(stats[0])
        systems = {str(i): stats[i % 2][rng.permutation(n)] for i in range(n_systems)}
        cpu = time.process_time()
        paired_bootstrap(metric, systems)
        paired_approximate_randomization(metric, systems)
        cpu = time.process_time() - cpu
        cpu_total += cpu
        print(f"   {metric:<8}{cpu:>8.2f} s CPU")
    print(f"   every metric: {cpu_total:.1f} s CPU\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="extraction processes (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="cold runs of each (default 3)")
    parser.add_argument("--skip-paired", action="store_true", help="only the per-metric times")
    parser.add_argument(
        "--campaign-tests",
        action="store_true",
        help="also the all-pairs tests every job recomputes (19 systems, every metric)",
    )
    args = parser.parse_args()
    folder = data_dir()
    print(f"data: {folder}; cpus: {os.cpu_count()}; load: {os.getloadavg()[0]:.1f}\n")
    if not args.skip_paired:
        paired(folder, args.jobs, args.repeat)
    per_metric(folder)
    if args.campaign_tests:
        campaign_tests(folder)


if __name__ == "__main__":
    main()
