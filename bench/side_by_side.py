"""evalsite, Appraise and Pearmut side by side on one machine: alternating closed-loop runs,
one table; and evalsite's flatness series.

Bring them up first (each on its own port; the driver and the servers share the machine, so
run nothing else meanwhile):

    make up                                                   # evalsite on :8000
    .venv/bin/python bench/appraise.py setup --reset && .venv/bin/python bench/appraise.py serve
    .venv/bin/python bench/pearmut.py setup --reset && .venv/bin/python bench/pearmut.py serve

(bench/appraise.py and bench/pearmut.py say how to install each in its own directory.) Then:

    # from empty campaigns: 3 runs per tool at 50 and at 10 annotators, alternating
    .venv/bin/python bench/side_by_side.py --prepare [--runs 3] [--seconds 30] [--annotators 50 10]
    # at scale: each tool holds 100,000 judgments of the campaign before the first run
    .venv/bin/python bench/side_by_side.py --prepare --prefill 100000 --tools evalsite pearmut
    # flatness: 10 consecutive evalsite runs on one stack, each run's judgments/s, last/first
    .venv/bin/python bench/side_by_side.py --flatness 10 [--seconds 30] [--annotators 50]

Each evalsite run is `bench/load.py --json` (a new campaign per run, or with ``--prefill``
the one campaign bench/prefill.py filled, through `load.py --task`); each Appraise run
`bench/appraise.py load --json`, each Pearmut run `bench/pearmut.py load --json` (fresh
annotator accounts for each run of those two). ``--prepare`` remakes Appraise's and
Pearmut's campaigns with as many accounts as the runs need and restarts their servers
(``stop``, ``setup --reset``, ``serve``; with ``--prefill N`` Pearmut's setup stores the N
judgments in its own files, see bench/pearmut.py). Appraise has no prefill: ``--prefill``
refuses it.

The table gives per tool the judgments/s range, the ratio of evalsite's mean to each other
tool's and the worst ratio of a run to the other tool's run of the same round, and the median
p99 per judgment (evalsite: the one POST that records a judgment and carries the next item;
Appraise: the POST of its form; Pearmut: get-next-item + log-response). Then one row per run:
judgments/s, p99, errors, and whether the tool's own storage holds exactly the acknowledged
judgments. A run with errors or a count that differs is flagged; the exit code is then 1.

``--flatness N`` runs evalsite alone N times; ``--one-campaign`` makes one campaign first
(bench/prefill.py, with ``--prefill`` judgments in it) and judges in it at every run, instead
of a new campaign per run (load.py's own way). It also reads PostgreSQL's counters
(pg_stat_user_tables, relation sizes) of evalsite's database (DATABASE_URL) after each run:
judgments/s against what the tables hold.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import appraise
import pearmut
from _common import Client, django_setup
from _loadrun import last_json_line, load_py_speaks_json, run_figures

BENCH = Path(__file__).resolve().parent
LOAD_PY = BENCH / "load.py"
TOOLS = ("evalsite", "appraise", "pearmut")
NAMES = {"evalsite": "evalsite", "appraise": "Appraise", "pearmut": "Pearmut"}
SPARE_ACCOUNTS = 2  # per annotator and run: one that finishes its 100 items mid-run


def evalsite_run(args: argparse.Namespace, annotators: int) -> dict:
    command = [
        sys.executable, str(LOAD_PY), "--url", args.evalsite_url, "--annotators", str(annotators),
        "--seconds", str(args.seconds), "--runs", "1", "--json",
    ]  # fmt: skip
    if args.task:
        command += ["--task", str(args.task)]
    for pid in args.evalsite_pid or []:
        command += ["--server-pid", str(pid)]
    return run_figures(command, last_json_line)


def appraise_run(args: argparse.Namespace, annotators: int) -> dict:
    command = [
        sys.executable, str(BENCH / "appraise.py"), "--appraise-dir", str(args.appraise_dir),
        "--database-url", args.appraise_database_url, "load", "--url", args.appraise_url,
        "--annotators", str(annotators), "--seconds", str(args.seconds), "--json",
    ]  # fmt: skip
    return run_figures(command, last_json_line)


def pearmut_run(args: argparse.Namespace, annotators: int) -> dict:
    command = [
        sys.executable, str(BENCH / "pearmut.py"), "--pearmut-dir", str(args.pearmut_dir),
        "load", "--url", args.pearmut_url, "--annotators", str(annotators),
        "--seconds", str(args.seconds), "--json",
    ]  # fmt: skip
    return run_figures(command, last_json_line)


RUNS = {"evalsite": evalsite_run, "appraise": appraise_run, "pearmut": pearmut_run}


def answers(url: str, path: str) -> bool:
    """Any HTTP answer will do: evalsite's /healthz says 503 while no worker runs, which the
    annotator loop does not need."""
    try:
        Client(url).request("ping", "GET", path)
    except OSError:
        return False
    return True


def accounts_needed(args: argparse.Namespace) -> int:
    return SPARE_ACCOUNTS * args.runs * sum(args.annotators)


def prepare(args: argparse.Namespace) -> None:
    """Remakes Appraise's and Pearmut's campaigns and restarts their servers."""
    accounts = str(accounts_needed(args))
    if "appraise" in args.tools:
        base = [
            sys.executable, str(BENCH / "appraise.py"), "--appraise-dir", str(args.appraise_dir),
            "--database-url", args.appraise_database_url,
        ]  # fmt: skip
        for command in (
            ["stop"],
            ["setup", "--reset", "--accounts", accounts],
            ["serve", "--url", args.appraise_url],
        ):
            subprocess.run([*base, *command], check=True)
    if "pearmut" in args.tools:
        base = [sys.executable, str(BENCH / "pearmut.py"), "--pearmut-dir", str(args.pearmut_dir)]
        setup = ["setup", "--reset", "--users", accounts, "--prefill", str(args.prefill)]
        for command in (["stop"], setup, ["serve", "--url", args.pearmut_url]):
            subprocess.run([*base, *command], check=True)


def pearmut_restart_empty(args: argparse.Namespace) -> None:
    """Pearmut from an empty campaign, as evalsite's runs are (each its own new campaign):
    Pearmut reads its whole annotation log on every next item, so a run that follows others
    in the same campaign is slower for that reason alone."""
    base = [sys.executable, str(BENCH / "pearmut.py"), "--pearmut-dir", str(args.pearmut_dir)]
    setup = ["setup", "--reset", "--users", str(accounts_needed(args))]
    for command in (["stop"], setup, ["serve", "--url", args.pearmut_url]):
        subprocess.run([*base, *command], check=True, stdout=subprocess.DEVNULL)


def fresh_accounts(args: argparse.Namespace, tool: str) -> int:
    if tool == "appraise":
        namespace = argparse.Namespace(appraise_dir=args.appraise_dir)
        names = [name for name, _ in appraise.credentials(namespace)]
        done = appraise.results_by_user(args.appraise_database_url, names)
        return sum(1 for name in names if done.get(name, 0) == 0)
    namespace = argparse.Namespace(pearmut_dir=args.pearmut_dir)
    return len(pearmut.fresh_users(namespace))


def pearmut_holds(args: argparse.Namespace) -> int:
    namespace = argparse.Namespace(pearmut_dir=args.pearmut_dir)
    return sum(pearmut.logged_by_user(namespace).values())


def prefill_evalsite(args: argparse.Namespace, runs: int) -> int:
    # Room for every timed run at 600/s (half again the fastest rate seen), within the 50
    # judgments per item a task may plan over the 5,010 items of the WMT21 corpus.
    room = 600 * int(args.seconds) * runs
    command = [
        sys.executable, str(BENCH / "prefill.py"), "--judgments", str(args.prefill),
        "--room", str(room), "--json",
    ]  # fmt: skip
    print(f"== evalsite: a campaign holding {args.prefill} judgments\n   $ {' '.join(command)}")
    figures = run_figures(command, last_json_line)
    print(f"   task {figures['task']}, {figures['judgments']} judgments, {figures['seconds']} s")
    if figures["judgments"] != args.prefill:
        raise SystemExit(f"evalsite's campaign holds {figures['judgments']}, not {args.prefill}")
    return figures["task"]


def spread(values: list[float]) -> str:
    return f"{min(values):.1f}–{max(values):.1f}"


def seconds(values: list[float | None]) -> str:
    known = [value for value in values if value is not None]
    return f"{statistics.median(known) / 1000:.2f} s" if known else "–"


def table(results: dict[int, dict[str, list[dict]]], tools: list[str]) -> list[str]:
    others = [tool for tool in tools if tool != "evalsite"]
    head = ["annotators", *[f"{NAMES[tool]} judgments/s" for tool in tools]]
    if "evalsite" in tools:
        for tool in others:
            head += [f"×{NAMES[tool]} (means)", f"×{NAMES[tool]} (worst run)"]
    head += [f"{NAMES[tool]} p99 per judgment" for tool in tools]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for annotators, sides in results.items():
        rates = {tool: [f["judgments_per_s"] for f in sides[tool]] for tool in tools}
        cells = [str(annotators), *[spread(rates[tool]) for tool in tools]]
        if "evalsite" in tools:
            ours = rates["evalsite"]
            for tool in others:
                theirs = rates[tool]
                mean = statistics.mean(theirs)
                cells.append(f"×{statistics.mean(ours) / mean:.1f}" if mean else "–")
                worst = min((a / b for a, b in zip(ours, theirs, strict=True) if b), default=0)
                cells.append(f"×{worst:.1f}" if worst else "–")
        cells += [seconds([f["p99_ms"] for f in sides[tool]]) for tool in tools]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def run_rows(rows: list[tuple[int, int, str, dict]]) -> list[str]:
    lines = [
        "| annotators | run | tool | held before | judgments | judgments/s | p99 ms | errors "
        "| storage holds exactly the acknowledged |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for annotators, number, tool, f in rows:
        lines.append(
            f"| {annotators} | {number} | {NAMES[tool]} | {f.get('held_before', '–')} "
            f"| {f['judgments']} | {f['judgments_per_s']:.1f} | {f['p99_ms']} | {f['errors']} "
            f"| {'yes' if f['exact'] else 'NO'} |"
        )
    return lines


# Counters of evalsite's tables after each flatness run: what grows, what is scanned.
TABLE_STATS = """
SELECT relname, n_live_tup, n_dead_tup, seq_scan, seq_tup_read, idx_scan, n_tup_upd,
       n_tup_hot_upd, autovacuum_count, autoanalyze_count,
       pg_total_relation_size(relid) AS bytes, pg_indexes_size(relid) AS index_bytes
  FROM pg_stat_user_tables
 WHERE relname IN ('annotation_slot', 'annotation_batch', 'annotation_judgment', 'auth_user')
 ORDER BY relname
"""


def table_stats() -> dict[str, dict]:
    import psycopg
    from django.conf import settings

    django_setup()  # the database make up's server uses: DATABASE_URL, or the settings' default
    url = settings.DATABASE_URL
    with psycopg.connect(url.replace("postgres://", "postgresql://", 1)) as connection:
        cursor = connection.execute(TABLE_STATS)
        names = [column.name for column in cursor.description]
        return {row[0]: dict(zip(names[1:], row[1:], strict=True)) for row in cursor.fetchall()}


def flatness(args: argparse.Namespace) -> int:
    annotators = args.annotators[0]
    rates, flagged = [], []
    before = table_stats()
    print(
        "| run | judgments/s | p99 ms | errors | exact | slot rows | batch rows | judgment rows "
        "| batch seq_tup_read in the run | slot dead rows | slot HOT share of updates "
        "| slot+batch MB | slot indexes MB | slot autovacuums | setup s "
        "| web CPU ms/judgment | PostgreSQL CPU ms/judgment | database blocks/judgment |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for number in range(1, args.flatness + 1):
        started = time.perf_counter()
        figures = evalsite_run(args, annotators)
        # load.py's own time besides the timed window: the new campaign and the warm-up (3 s).
        setup = time.perf_counter() - started - figures["seconds"]
        after = table_stats()
        slot, batch = after["annotation_slot"], after["annotation_batch"]
        updates = slot["n_tup_upd"] - before["annotation_slot"]["n_tup_upd"]
        hot = slot["n_tup_hot_upd"] - before["annotation_slot"]["n_tup_hot_upd"]
        print(
            f"| {number} | {figures['judgments_per_s']:.1f} | {figures['p99_ms']} "
            f"| {figures['errors']} | {'yes' if figures['exact'] else 'NO'} "
            f"| {slot['n_live_tup']} | {batch['n_live_tup']} "
            f"| {after['annotation_judgment']['n_live_tup']} "
            f"| {batch['seq_tup_read'] - before['annotation_batch']['seq_tup_read']} "
            f"| {slot['n_dead_tup']} | {hot / updates if updates else 0:.2f} "
            f"| {(slot['bytes'] + batch['bytes']) / 2**20:.0f} "
            f"| {slot['index_bytes'] / 2**20:.0f} | {slot['autovacuum_count']} | {setup:.0f} "
            f"| {figures.get('web_cpu_ms_per_judgment', '–')} "
            f"| {figures.get('db_cpu_ms_per_judgment', '–')} "
            f"| {figures.get('db_blocks_per_judgment', '–')} |",
            flush=True,
        )
        rates.append(figures["judgments_per_s"])
        before = after
        if figures["errors"] or not figures["exact"] or not figures["judgments"]:
            flagged.append(f"run {number}: {figures}")
    print()
    print(
        f"{args.flatness} consecutive evalsite runs, {annotators} annotators, "
        f"{args.seconds:g} s each: {' → '.join(f'{rate:.0f}' for rate in rates)} judgments/s; "
        f"last/first {rates[-1] / rates[0]:.2f} (target: at least 0.90)"
    )
    for line in flagged:
        print(f"FLAGGED {line}")
    return 1 if flagged else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tools", nargs="+", choices=TOOLS, default=list(TOOLS))
    parser.add_argument("--evalsite-url", default="http://127.0.0.1:8000")
    parser.add_argument(
        "--evalsite-pid",
        type=int,
        action="append",
        help="evalsite's gunicorn master pid (repeatable): CPU ms per judgment of its workers "
        "and of PostgreSQL's backends in each run (load.py --server-pid)",
    )
    parser.add_argument("--appraise-url", default=appraise.DEFAULT_URL)
    parser.add_argument("--appraise-dir", type=Path, default=appraise.DEFAULT_DIR)
    parser.add_argument("--appraise-database-url", default=appraise.DEFAULT_DATABASE_URL)
    parser.add_argument("--pearmut-url", default=pearmut.DEFAULT_URL)
    parser.add_argument("--pearmut-dir", type=Path, default=pearmut.DEFAULT_DIR)
    parser.add_argument("--annotators", type=int, nargs="+", default=[50, 10])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument(
        "--prepare",
        action="store_true",
        help="remake Appraise's and Pearmut's campaigns and restart them first",
    )
    parser.add_argument(
        "--prefill",
        type=int,
        default=0,
        help="at scale: each tool holds this many judgments of the campaign before the runs "
        "(evalsite: bench/prefill.py; Pearmut: needs --prepare)",
    )
    parser.add_argument(
        "--flatness",
        type=int,
        default=0,
        help="instead: this many consecutive evalsite runs at the first --annotators",
    )
    parser.add_argument(
        "--one-campaign",
        action="store_true",
        help="with --flatness: every run judges in one campaign made first (bench/prefill.py; "
        "with --prefill N holding N judgments), not in a new campaign per run",
    )
    args = parser.parse_args()
    args.task = 0
    if not answers(args.evalsite_url, "/healthz") and ("evalsite" in args.tools or args.flatness):
        raise SystemExit(f"evalsite does not answer on {args.evalsite_url}/healthz: `make up`")
    if args.flatness:
        if args.one_campaign or args.prefill:
            args.task = prefill_evalsite(args, args.flatness)
        return flatness(args)
    if args.prefill and "appraise" in args.tools:
        parser.error("Appraise has no prefill: pass --tools evalsite pearmut with --prefill")
    if not load_py_speaks_json():
        raise SystemExit("bench/load.py has no --json")
    if args.prepare:
        prepare(args)
    if "appraise" in args.tools and not answers(args.appraise_url, "/dashboard/sign-in/"):
        raise SystemExit(
            f"Appraise does not answer on {args.appraise_url}: `bench/appraise.py serve`"
        )
    if "pearmut" in args.tools and not answers(args.pearmut_url, "/annotate"):
        raise SystemExit(f"Pearmut does not answer on {args.pearmut_url}: `bench/pearmut.py serve`")
    for tool in ("appraise", "pearmut"):
        if tool in args.tools:
            # Each run takes fresh accounts (100 items each: an account may run out mid-run).
            fresh, needed = fresh_accounts(args, tool), accounts_needed(args)
            if fresh < needed:
                raise SystemExit(
                    f"{fresh} fresh {NAMES[tool]} accounts, {needed} wanted: add --prepare"
                )
    if args.prefill and "pearmut" in args.tools and pearmut_holds(args) < args.prefill:
        raise SystemExit(f"Pearmut holds fewer than {args.prefill} judgments: add --prepare")
    if args.prefill and "evalsite" in args.tools:
        args.task = prefill_evalsite(args, args.runs * len(args.annotators))

    results: dict[int, dict[str, list[dict]]] = {}
    rows, flagged = [], []
    for annotators in args.annotators:
        sides: dict[str, list[dict]] = {tool: [] for tool in args.tools}
        for number in range(1, args.runs + 1):
            for tool in args.tools:
                if tool == "pearmut" and not args.prefill:
                    pearmut_restart_empty(args)
                figures = RUNS[tool](args, annotators)
                sides[tool].append(figures)
                rows.append((annotators, number, tool, figures))
                p99 = figures["p99_ms"]
                print(
                    f"{annotators} annotators, run {number}, {NAMES[tool]}: "
                    f"{figures['judgments_per_s']:.1f} judgments/s, "
                    f"p99 {p99 if p99 is None else round(p99)} ms, errors {figures['errors']}, "
                    f"exact {figures['exact']}",
                    flush=True,
                )
                if figures["errors"] or not figures["exact"] or not figures["judgments"]:
                    flagged.append(f"{tool}, {annotators} annotators, run {number}: {figures}")
        results[annotators] = sides
    print()
    if args.prefill:
        print(f"At scale: each tool held at least {args.prefill} judgments of the campaign.")
    print("\n".join(table(results, args.tools)))
    print()
    print("\n".join(run_rows(rows)))
    for line in flagged:
        print(f"FLAGGED {line}")
    print(json.dumps({"results": {str(k): v for k, v in results.items()}}))
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
