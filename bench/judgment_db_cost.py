"""What one judgment costs the database alone: the annotator loop's function called directly.

``--annotators`` connections (one thread each) judge back to back in a launched adequacy task
(``--warmup`` seconds first, not counted, then ``--seconds``), each calling
``evalsite_judge_and_claim`` once per judgment (its answer carries the next slot), as the web
workers do, with no web server in between. Prints per judgment: the CPU of the database
backends (their /proc counters, same machine), the blocks they touched (pg_stat_database of
this database: run it alone in it), and, from one judgment under ``EXPLAIN (ANALYZE,
BUFFERS, WAL)`` in a warm session, that judgment's blocks and WAL.
``--runs K`` repeats with a fresh campaign. The web side's cost is bench/load.py's
(``--server-pid``) and bench/profile_judgment.py's.

    DATABASE_URL=... .venv/bin/python bench/judgment_db_cost.py [--annotators 50] [--runs 3]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import threading
import time

from _common import annotation_campaign, corpus_items, django_setup
from load import STATS_FLUSH_SECONDS, _cpu_seconds

# The answer's nine columns after the score (judging.JUDGMENT_COLUMNS): none for adequacy.
JUDGE = (
    "SELECT next_slot FROM evalsite_judge_and_claim(%s, %s, %s, now(), false, 'yes',"
    " %s::smallint, NULL::smallint, NULL::varchar, NULL::smallint[], NULL::smallint[],"
    " NULL::text, NULL::double precision, NULL::double precision, NULL::double precision)"
)


def connect():
    import psycopg
    from django.db import connection

    return psycopg.connect(**connection.get_connection_params(), autocommit=True)


def blocks(cursor) -> int:
    time.sleep(STATS_FLUSH_SECONDS)  # backends report their counters at most once a second
    cursor.execute("SELECT pg_stat_clear_snapshot()")
    cursor.execute(
        "SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = current_database()"
    )
    return cursor.fetchone()[0]


class Annotator(threading.Thread):
    def __init__(self, task_id: int, user_id: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.task_id, self.user_id, self.stop = task_id, user_id, stop
        self.connection = connect()
        self.pid = self.connection.execute("SELECT pg_backend_pid()").fetchone()[0]
        self.judged = 0

    def run(self) -> None:
        cursor = self.connection.cursor()
        slot = cursor.execute(
            "SELECT evalsite_claim_slot(%s, %s, now())", (self.task_id, self.user_id)
        ).fetchone()[0]
        while slot is not None and not self.stop.is_set():
            slot = cursor.execute(JUDGE, (self.task_id, slot, self.user_id, 1 + slot % 5))
            slot = slot.fetchone()[0]
            self.judged += 1


def explained(cursor, task_id: int, user_id: int, judgments: int = 50) -> str:
    """Mean blocks and WAL of ``judgments`` judgments, each under EXPLAIN, in a session that
    has judged before (its catalogue caches and the functions' plans warm)."""
    claim = "SELECT evalsite_claim_slot(%s, %s, now())"
    slot = cursor.execute(claim, (task_id, user_id)).fetchone()[0]
    for _ in range(20):
        slot = cursor.execute(JUDGE, (task_id, slot, user_id, 3)).fetchone()[0]
    totals: dict[str, float] = {}
    for _ in range(judgments):
        rows = cursor.execute(
            "EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF, TIMING OFF, SUMMARY OFF) " + JUDGE,
            (task_id, slot, user_id, 3),
        ).fetchall()
        text = " ".join(row[0] for row in rows).split("Planning")[0]
        for name, value in re.findall(r"(hit|read|dirtied|written|records|fpi|bytes)=(\d+)", text):
            totals[name] = totals.get(name, 0) + int(value)
        slot = cursor.execute(claim, (task_id, user_id)).fetchone()[0]  # the one it claimed
    mean = {name: totals.get(name, 0) / judgments for name in ("hit", "read", "dirtied")}
    wal = {name: totals.get(name, 0) / judgments for name in ("records", "bytes")}
    return (
        f"blocks {mean['hit'] + mean['read']:.1f} (dirtied {mean['dirtied']:.1f}),"
        f" WAL {wal['records']:.1f} records {wal['bytes']:.0f} bytes"
    )


def one_run(args: argparse.Namespace, number: int) -> dict:
    needed = int(args.annotators * (args.seconds + args.warmup) * 40)  # 40/s each at most
    per_item = max(2, -(-needed // corpus_items("wmt21")))
    task_id, users = annotation_campaign(
        prefix="bench-dbcost",
        annotators=args.annotators + 1,
        judgments_per_item=per_item,
        corpus="wmt21",
    )
    probe_user, users = users[0], users[1:]
    with connect() as control:
        cursor = control.cursor()
        one = explained(cursor, task_id, probe_user)
        stop = threading.Event()
        annotators = [Annotator(task_id, user, stop) for user in users]
        for annotator in annotators:
            annotator.start()
        time.sleep(args.warmup)  # sessions warm: catalogue caches, the functions' plans
        before_blocks = blocks(cursor)
        before_cpu = {a.pid: _cpu_seconds(a.pid) for a in annotators}
        before_judged = sum(a.judged for a in annotators)
        started = time.perf_counter()
        time.sleep(args.seconds)
        cpu = sum(_cpu_seconds(a.pid) - before_cpu[a.pid] for a in annotators)
        judged = sum(a.judged for a in annotators) - before_judged
        elapsed = time.perf_counter() - started
        stop.set()
        for annotator in annotators:
            annotator.join()
            annotator.connection.close()
        # The blocks of the judgments after the window are counted too: the window's
        # judgments are scaled up to them (a judgment is a judgment).
        touched = blocks(cursor) - before_blocks
        after_window = sum(a.judged for a in annotators) - before_judged
    result = {
        "judgments": judged,
        "per_second": judged / elapsed,
        "cpu_ms": 1000 * cpu / max(judged, 1),
        "blocks": touched / max(after_window, 1),
    }
    print(
        f"run {number}: {judged} judgments in {elapsed:.1f} s ({result['per_second']:.0f}/s),"
        f" database CPU {result['cpu_ms']:.3f} ms and {result['blocks']:.1f} blocks per judgment;"
        f" one session alone: {one}",
        flush=True,
    )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--warmup", type=float, default=3, help="seconds before the window")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    django_setup()
    results = [one_run(args, number) for number in range(1, args.runs + 1)]
    if args.runs > 1:
        for key in ("per_second", "cpu_ms", "blocks"):
            values = [r[key] for r in results]
            print(
                f"  {key}: mean {statistics.mean(values):.3f},"
                f" min {min(values):.3f}, max {max(values):.3f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
