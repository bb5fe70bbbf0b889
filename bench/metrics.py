"""Automatic metrics: speed against sacrebleu, and the time of every metric. Run
``.venv/bin/python bench/metrics.py [--jobs N] [--repeat R]`` from the project root.

Data: WMT21 news en-de (``../shared/data/wmt21-en-de``, or the copy under ``tests/data``):
1002 segments, references A, C, D, every system output.

1. Paired bootstrap and approximate randomisation, BLEU and chrF against reference A,
   sacrebleu's defaults (seed 12345, 1000 resamples, 10000 AR trials):
   * ``sacrebleu A -i SYS1 ... -m bleu chrf --paired-bs`` (``--paired-ar``): the first system
     against the others;
   * ``python -m metrics score -r A -s ... --metrics bleu,chrf --paired bs --json``
     (``--paired ar``): every pair (n(n-1)/2 comparisons, not n-1) with intervals, statistics
     extracted by ``--jobs`` processes.
   Cold: each a fresh process (interpreter start and imports included). Warm: the same two
   command lines run in this process, after one untimed run of each, so only the work is
   timed (sacrebleu's ``main`` and ``metrics.cli.main``, output discarded). Best of
   ``--repeat`` runs each (a shared machine is noisy); ``--systems`` takes the first N systems
   and ``--tests`` one of the two tests, for a quick run.
2. Every metric for one system against the three references: extraction, corpus score and a
   1000-resample bootstrap interval, in process, timed per metric (the metrics job's work;
   ULC from its components' statistics, as the job assembles it).
3. ``--campaign-tests``: the all-pairs paired bootstrap and randomisation of 19 systems on
   every metric, which each metrics job recomputes for its campaign after storing.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
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


def in_process(main: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (this process and the children it waited for) of a call,
    its output discarded."""
    before = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main()
    wall = time.perf_counter() - start
    after = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    cpu = sum(
        a.ru_utime - b.ru_utime + a.ru_stime - b.ru_stime
        for a, b in zip(after, before, strict=True)
    )
    return wall, cpu


class _DevNull:
    """A stream with nothing but a descriptor on /dev/null: sacrebleu's ``main`` reopens
    ``sys.stdin`` and ``sys.stdout`` by descriptor, and the file it opens closes it."""

    def __init__(self, flags: int) -> None:
        self.descriptor = os.open(os.devnull, flags)

    def fileno(self) -> int:
        return self.descriptor


def sacrebleu_main(arguments: list[str]) -> None:
    """sacrebleu's command line, in this process (it reads ``sys.argv``)."""
    from sacrebleu.sacrebleu import main

    saved = sys.argv, sys.stdin, sys.stdout
    sys.argv = ["sacrebleu", *arguments]
    sys.stdin, sys.stdout = _DevNull(os.O_RDONLY), _DevNull(os.O_WRONLY)  # type: ignore[assignment]
    try:
        main()
    finally:
        sys.stdout.flush()
        sys.argv, sys.stdin, sys.stdout = saved


def best(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return min(wall for wall, _ in runs), min(cpu for _, cpu in runs)


def paired(folder: Path, jobs: int, repeat: int, tests: list[str], n_systems: int) -> None:
    from metrics.cli import main as metrics_main

    os.environ.pop("SACREBLEU_SEED", None)  # sacrebleu's default seed, as ours
    reference = folder / "newstest2021.en-de.ref.A.de"
    files = sorted((folder / "system-outputs").glob("newstest2021.en-de.hyp.*.de"))[:n_systems]
    names = [path.name.split(".")[3] for path in files]
    sacrebleu = Path(sys.executable).with_name("sacrebleu")
    n = len(files)
    print(
        f"1. paired tests, BLEU + chrF, {n} systems (sacrebleu: baseline vs {n - 1}; ours: "
        f"all {n * (n - 1) // 2} pairs), best of {repeat}; extraction processes: {jobs}"
    )
    print(f"   {'':<40}{'cold wall':>10}{'cold CPU':>10}{'warm wall':>10}{'warm CPU':>10}")
    for test in tests:
        theirs_args = [str(reference), "-i", *map(str, files), "-m", "bleu", "chrf"]
        theirs_args += [f"--paired-{test}", "-f", "text", "--no-color"]
        ours_args = ["score", "-r", str(reference)]
        ours_args += [f"-s{n}={p}" for n, p in zip(names, files, strict=True)]
        ours_args += ["--metrics", "bleu,chrf", "--paired", test, "--json", "--jobs", str(jobs)]
        theirs_cold = best([run([str(sacrebleu), *theirs_args]) for _ in range(repeat)])
        ours_cold = best(
            [run([sys.executable, "-m", "metrics", *ours_args]) for _ in range(repeat)]
        )
        in_process(lambda args=theirs_args: sacrebleu_main(args))  # warm-up, untimed
        theirs_warm = best(
            [in_process(lambda args=theirs_args: sacrebleu_main(args)) for _ in range(repeat)]
        )
        in_process(lambda args=ours_args: metrics_main(args))
        ours_warm = best(
            [in_process(lambda args=ours_args: metrics_main(args)) for _ in range(repeat)]
        )
        for label, cold, warm in (
            (f"sacrebleu --paired-{test}", theirs_cold, theirs_warm),
            (f"python -m metrics score --paired {test}", ours_cold, ours_warm),
        ):
            print(f"   {label:<40}{cold[0]:10.2f}{cold[1]:10.2f}{warm[0]:10.2f}{warm[1]:10.2f}")
        ratios = [
            theirs / ours
            for theirs, ours in zip(theirs_cold + theirs_warm, ours_cold + ours_warm, strict=True)
        ]
        print(
            f"   {'sacrebleu / ours':<40}"
            + "".join(f"{'x' + format(r, '.2f'):>10}" for r in ratios)
        )
    print()


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
    parser.add_argument("--tests", default="bs,ar", help="paired tests to compare (default: bs,ar)")
    parser.add_argument(
        "--systems", type=int, default=0, help="only the first N systems in part 1 (default: all)"
    )
    parser.add_argument(
        "--campaign-tests",
        action="store_true",
        help="also the all-pairs tests every job recomputes (19 systems, every metric)",
    )
    args = parser.parse_args()
    folder = data_dir()
    print(f"data: {folder}; cpus: {os.cpu_count()}; load: {os.getloadavg()[0]:.1f}\n")
    if not args.skip_paired:
        tests = [test for test in args.tests.split(",") if test]
        if not set(tests) <= {"bs", "ar"}:
            parser.error("--tests takes bs, ar or bs,ar")
        paired(folder, args.jobs, args.repeat, tests, args.systems or None)
    per_metric(folder)
    if args.campaign_tests:
        campaign_tests(folder)


if __name__ == "__main__":
    main()
