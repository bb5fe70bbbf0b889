"""evalsite and Appraise side by side on one machine: alternating closed-loop runs, one table.

Bring both up first (each on its own port; the driver and both servers share the machine,
so run nothing else meanwhile):

    # evalsite: the whole stack on :8000 (its database is the one DATABASE_URL names)
    make up
    # Appraise 612e4b09 on :8100, once (see bench/appraise.py for the checkout and venv)
    .venv/bin/python bench/appraise.py setup --reset
    .venv/bin/python bench/appraise.py serve

Then one command (about (runs × 2 × len(annotators)) × seconds, 6 minutes by default):

    .venv/bin/python bench/side_by_side.py [--evalsite-url http://127.0.0.1:8000]
        [--appraise-url http://127.0.0.1:8100] [--annotators 50 10] [--runs 3] [--seconds 30]
        [--prepare-appraise]

For each number of annotators it alternates evalsite (`bench/load.py --json`) and Appraise
(`bench/appraise.py load --json`) runs, then prints the table of issue 16: judgments/s range
of each, the ratio of their means, and the median p99 per judgment of each (evalsite: next +
submit, or the one round trip that carries the next item; Appraise: the POST of its form,
which answers with the next item). Each Appraise run takes fresh annotator accounts; when
too few are left, `--prepare-appraise` remakes its database and restarts it
(`appraise.py stop`, `setup --reset`, `serve`). A run with errors or a database count that
differs from the acknowledged judgments is flagged under the table.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

import appraise
from _common import Client
from _loadrun import last_json_line, load_py, load_py_speaks_json, run_figures

BENCH = Path(__file__).resolve().parent


def evalsite_run(args: argparse.Namespace, annotators: int, speaks_json: bool) -> dict:
    return load_py([args.evalsite_url], annotators, args.seconds, speaks_json)


def appraise_run(args: argparse.Namespace, annotators: int) -> dict:
    command = [
        sys.executable, str(BENCH / "appraise.py"), "--appraise-dir", str(args.appraise_dir),
        "--database-url", args.appraise_database_url, "load", "--url", args.appraise_url,
        "--annotators", str(annotators), "--seconds", str(args.seconds), "--json",
    ]  # fmt: skip
    return run_figures(command, last_json_line)


def fresh_appraise_accounts(args: argparse.Namespace) -> int:
    namespace = argparse.Namespace(appraise_dir=args.appraise_dir)
    names = [name for name, _ in appraise.credentials(namespace)]
    done = appraise.results_by_user(args.appraise_database_url, names)
    return sum(1 for name in names if done.get(name, 0) == 0)


def answers(url: str, path: str) -> bool:
    """Any HTTP answer will do: evalsite's /healthz says 503 while no worker runs, which the
    annotator loop does not need."""
    try:
        Client(url).request("ping", "GET", path)
    except OSError:
        return False
    return True


def prepare_appraise(args: argparse.Namespace) -> None:
    base = [
        sys.executable, str(BENCH / "appraise.py"), "--appraise-dir", str(args.appraise_dir),
        "--database-url", args.appraise_database_url,
    ]  # fmt: skip
    for command in (["stop"], ["setup", "--reset"], ["serve", "--url", args.appraise_url]):
        subprocess.run([*base, *command], check=True)


def spread(values: list[float]) -> str:
    return f"{min(values):.1f}–{max(values):.1f}"


def seconds(values: list[float | None]) -> str:
    known = [value for value in values if value is not None]
    return f"{statistics.median(known) / 1000:.2f} s" if known else "–"


def table(results: dict[int, dict[str, list[dict]]]) -> list[str]:
    lines = [
        "| annotators | evalsite judgments/s | Appraise judgments/s | ratio "
        "| evalsite p99 per judgment | Appraise p99 per judgment |",
        "|---|---|---|---|---|---|",
    ]
    for annotators, sides in results.items():
        ours = [figures["judgments_per_s"] for figures in sides["evalsite"]]
        theirs = [figures["judgments_per_s"] for figures in sides["appraise"]]
        ratio = statistics.mean(ours) / statistics.mean(theirs) if statistics.mean(theirs) else 0
        lines.append(
            f"| {annotators} | {spread(ours)} | {spread(theirs)} | ×{ratio:.1f} "
            f"| {seconds([f['p99_ms'] for f in sides['evalsite']])} "
            f"| {seconds([f['p99_ms'] for f in sides['appraise']])} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--evalsite-url", default="http://127.0.0.1:8000")
    parser.add_argument("--appraise-url", default=appraise.DEFAULT_URL)
    parser.add_argument("--appraise-dir", type=Path, default=appraise.DEFAULT_DIR)
    parser.add_argument("--appraise-database-url", default=appraise.DEFAULT_DATABASE_URL)
    parser.add_argument("--annotators", type=int, nargs="+", default=[50, 10])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument(
        "--prepare-appraise",
        action="store_true",
        help="remake Appraise's database and restart it first (appraise.py stop/setup/serve)",
    )
    args = parser.parse_args()

    if args.prepare_appraise:
        prepare_appraise(args)
    if not answers(args.evalsite_url, "/healthz"):
        raise SystemExit(f"evalsite does not answer on {args.evalsite_url}/healthz: `make up`")
    if not answers(args.appraise_url, "/dashboard/sign-in/"):
        raise SystemExit(
            f"Appraise does not answer on {args.appraise_url}: `bench/appraise.py serve`"
        )
    # Each run takes fresh accounts (100 items each: more than a 30 s run judges per account).
    needed = args.runs * sum(args.annotators)
    fresh = fresh_appraise_accounts(args)
    if fresh < needed:
        raise SystemExit(
            f"{fresh} fresh Appraise accounts, {needed} wanted: add --prepare-appraise"
        )
    speaks_json = load_py_speaks_json()
    if not speaks_json:
        print("bench/load.py has no --json yet: its text is read, p99 is per request")

    results: dict[int, dict[str, list[dict]]] = {}
    flagged = []
    for annotators in args.annotators:
        sides: dict[str, list[dict]] = {"evalsite": [], "appraise": []}
        for number in range(1, args.runs + 1):
            for side in ("evalsite", "appraise"):
                if side == "evalsite":
                    figures = evalsite_run(args, annotators, speaks_json)
                else:
                    figures = appraise_run(args, annotators)
                sides[side].append(figures)
                p99 = figures["p99_ms"]
                print(
                    f"{annotators} annotators, run {number}, {side}: "
                    f"{figures['judgments_per_s']:.1f} judgments/s, "
                    f"p99 {p99 if p99 is None else round(p99)} ms, errors {figures['errors']}, "
                    f"exact {figures['exact']}",
                    flush=True,
                )
                if figures["errors"] or not figures["exact"]:
                    flagged.append(f"{side}, {annotators} annotators, run {number}: {figures}")
        results[annotators] = sides
    print()
    print("\n".join(table(results)))
    for line in flagged:
        print(f"FLAGGED {line}")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
