"""N simulated annotators over HTTP against a running server, closed or open loop.

Each annotator has its own API token. Its first judgment is GET /api/v1/tasks/<id>/next then
POST /api/v1/judgments; after that one POST per judgment, as the answer carries the next item.
Latency is per judgment (that one POST, or GET + POST for the first).

Closed loop (default): ``--annotators`` annotators judge back to back for ``--seconds``
(zero think time; mean latency is then annotators / throughput, by Little's law).

Open loop (``--rate R``): ``--annotators`` annotators each judge one item, then think a
uniformly random time (``--think-min``..``--think-max`` seconds, scaled so that the arrivals
total ``R`` judgments/s; 1000 annotators thinking 5–15 s make 100/s unscaled). Arrivals are
scheduled on a clock, not on answers, and served by a pool of ``--clients`` threads; latency
counts from the scheduled arrival, so a late start (a busy server or generator) is counted.

Before the clock starts, ``--warmup`` seconds (default 3) of ``GET next`` by one extra
annotator from 32 threads open the server's database sessions, as a server that has been up
a while has them; they are not counted (``--warmup 0`` measures a cold server).

``--url`` may be given several times: annotators are spread round-robin over the servers, a
stand-in for a load balancer. ``--runs K`` repeats with a fresh campaign each time and prints
the mean and the spread (``--task ID`` instead judges in that launched task, e.g. one
bench/prefill.py filled, with fresh annotators each run); ``--json`` adds one JSON line per
run. Every run checks that the database holds exactly the acknowledged judgments; the exit
code is 1 when one did not or there were errors. Target on 2 cores with everything on them:
closed loop >= 200 judgments/s at 50 annotators; open loop at 100/s, p99 <= 100 ms.

    .venv/bin/python bench/load.py [--annotators 50] [--seconds 30] [--url http://127.0.0.1:8000]
    .venv/bin/python bench/load.py --rate 100 --annotators 1000 --seconds 60 --runs 3

Setup (a campaign over WMT21 en-de with a launched adequacy task, and the annotators' accounts
and tokens) goes straight through the services in this process, against DATABASE_URL.

Planned against adaptive assignment (issue 23: within 20%), measured 2026-11-26 on a quiet
machine, 50 annotators, closed loop, 30 s, the two modes alternating against one ``make up``
stack (its worker refreshing the priorities): planned 240.1, 230.4, 284.0 judgments/s (a
first, cold run at 148.6 left out), adaptive 259.1, 244.9, 252.9, 294.4. Adaptive's mean is
4% above planned's, inside the run-to-run spread of either (±10%). Every run exact.
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import json
import os
import random
import statistics
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.client import HTTPException
from pathlib import Path

from _common import (
    ApiAnnotator,
    Client,
    annotation_campaign,
    answer_for,
    api_tokens,
    corpus_items,
    django_setup,
    percentile,
)

CORPUS = "wmt21"
BATCH_ITEMS = 100  # an annotator's batch, quality control included (roughly)


def stored_judgments(task_id: int) -> set[int]:
    from annotation.models import Judgment

    return set(Judgment.objects.filter(task_id=task_id).values_list("id", flat=True))


def judgments_per_item(args: argparse.Namespace) -> int:
    """Replicas enough that no annotator runs out: every annotator can take a batch of its
    own at once, and the judgments the run can make (at 400/s, or the rate) fit twice."""
    if args.judgments_per_item:
        return args.judgments_per_item
    items = corpus_items(CORPUS)
    groups = max(1, items // BATCH_ITEMS)
    expected = (args.rate or 400) * args.seconds * 2
    return max(2, -(-args.annotators // groups) + 1, -(-int(expected) // items) + 1)


@dataclass
class Run:
    judgments: list[tuple[float, float]]  # (finished, seconds) per acknowledged judgment
    acknowledged: list[int]  # judgment ids
    errors: list[str]
    elapsed: float
    generator_cpu: float = 0.0  # seconds of this process's CPU during the run
    late: list[float] = field(default_factory=list)  # open loop: start minus schedule
    first: list[float] = field(default_factory=list)  # open loop: GET next + POST latencies
    submits: list[float] = field(default_factory=list)  # open loop: each POST alone


def run_all(threads: list[threading.Thread]) -> None:
    """Starts every thread, then waits for all of them."""
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def closed_loop(args, urls, task_id, tokens) -> Run:
    deadline = time.perf_counter() + args.seconds
    threads = [
        ApiAnnotator(urls[i % len(urls)], token, task_id, deadline)
        for i, token in enumerate(tokens)
    ]
    cpu, started = time.process_time(), time.perf_counter()
    run_all(threads)
    return Run(
        judgments=[j for t in threads for j in t.judgments],
        acknowledged=[judgment for t in threads for *_, judgment in t.acknowledged],
        errors=[f"{kind} {detail}" for t in threads for _, kind, detail in t.errors],
        elapsed=time.perf_counter() - started,
        generator_cpu=time.process_time() - cpu,
    )


class OpenLoop:
    """Arrivals on a clock: a heap of (due, annotator); client threads take the earliest due
    arrival, wait for its time, judge one item, and put the annotator back after its think
    time (counted from when it was due, never before the answer came)."""

    def __init__(self, args, urls, task_id, tokens) -> None:
        self.args, self.urls, self.task_id, self.tokens = args, urls, task_id, tokens
        mean_think = (args.think_min + args.think_max) / 2
        # Scale the think times so that the annotators together arrive at the target rate.
        self.scale = len(tokens) / (args.rate * mean_think)
        self.rng = random.Random(args.seed)
        self.lock = threading.Condition()
        self.items: dict[int, dict | None] = {}  # annotator → next item (None: ask GET next)
        self.judgments: list[tuple[float, float]] = []
        self.first: list[float] = []  # latencies of judgments that began with GET next
        self.submits: list[float] = []  # the POST alone (a first one from the GET's answer)
        self.acknowledged: list[int] = []
        self.errors: list[str] = []
        self.late: list[float] = []
        self.start = time.perf_counter() + 0.5
        period = len(tokens) / args.rate  # first arrivals spread evenly: the rate from t=0
        self.heap = [(self.start + self.rng.uniform(0, period), i) for i in range(len(tokens))]
        heapq.heapify(self.heap)
        self.deadline = self.start + args.seconds

    def answer(self, item: dict) -> dict:
        """The answer to ``item`` (bench/contrastive.py answers its screens)."""
        return answer_for(self.task_id, item)

    def think(self) -> float:
        return self.rng.uniform(self.args.think_min, self.args.think_max) * self.scale

    def take(self) -> tuple[float, int] | None:
        with self.lock:
            while True:
                if not self.heap or self.heap[0][0] >= self.deadline:
                    return None
                due, annotator = heapq.heappop(self.heap)
                return due, annotator

    def client_loop(self) -> None:
        clients: dict[str, Client] = {}
        while (arrival := self.take()) is not None:
            due, annotator = arrival
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            begun = time.perf_counter()
            url = self.urls[annotator % len(self.urls)]
            client = clients.get(url) or clients.setdefault(url, Client(url))
            headers = {
                "Authorization": f"Token {self.tokens[annotator]}",
                "Content-Type": "application/json",
            }
            self.judge(client, headers, annotator, due)
            with self.lock:
                self.late.append(begun - due)
                heapq.heappush(self.heap, (max(due + self.think(), time.perf_counter()), annotator))

    def judge(self, client: Client, headers: dict[str, str], annotator: int, due: float) -> None:
        def call(kind, method, path, body=None):
            payload = json.dumps(body).encode() if body is not None else None
            status, _, data = client.request(kind, method, path, payload, **headers)
            return status, json.loads(data or b"{}")

        try:
            item = self.items.get(annotator)
            first = item is None
            posted_from = due  # the submit's own start: the arrival, or the GET's answer
            if first:
                status, item = call("next", "GET", f"/api/v1/tasks/{self.task_id}/next")
                if status != 200:
                    raise ValueError(f"next: HTTP {status} {str(item)[:200]}")
                posted_from = time.perf_counter()
            if item["done"]:
                raise ValueError("the task ran out of items: raise --judgments-per-item")
            status, result = call("submit", "POST", "/api/v1/judgments", self.answer(item))
            if status != 201:
                raise ValueError(f"submit: HTTP {status} {str(result)[:200]}")
            finished = time.perf_counter()
            with self.lock:
                self.judgments.append((finished, finished - due))
                self.submits.append(finished - posted_from)
                if first:
                    self.first.append(finished - due)
                self.acknowledged.append(result["id"])
            self.items[annotator] = result.get("next")
        except (OSError, HTTPException, ValueError) as error:
            with self.lock:
                self.errors.append(f"{type(error).__name__}: {str(error)[:200]}")
            self.items[annotator] = None
            client.reset()

    def run(self) -> Run:
        threads = [
            threading.Thread(target=self.client_loop, daemon=True) for _ in range(self.args.clients)
        ]
        cpu, started = time.process_time(), time.perf_counter()
        run_all(threads)
        return Run(
            judgments=self.judgments,
            acknowledged=self.acknowledged,
            errors=self.errors,
            elapsed=time.perf_counter() - max(started, self.start),
            generator_cpu=time.process_time() - cpu,
            late=self.late,
            first=self.first,
            submits=self.submits,
        )


TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    """utime + stime of a process (0 when it is gone or unreadable)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def server_processes(masters: list[int]) -> list[int]:
    """gunicorn masters and their workers."""
    pids = list(masters)
    for master in masters:
        with contextlib.suppress(OSError):
            pids += [
                int(p) for p in Path(f"/proc/{master}/task/{master}/children").read_text().split()
            ]
    return pids


def database_backends() -> list[int]:
    """PostgreSQL backends connected to our database (the servers' and ours), when this user
    may read their /proc entries (same machine, root or the postgres user)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return [pid for (pid,) in cursor.fetchall()]


STATS_FLUSH_SECONDS = 1.1  # backends report their counters at most once a second


def database_blocks() -> int:
    """Blocks read by this database's backends so far (hits and reads), once the backends
    have reported what they did."""
    from django.db import connection

    time.sleep(STATS_FLUSH_SECONDS)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = current_database()"
        )
        return cursor.fetchone()[0]


def cpu_snapshot(args) -> dict[int, float]:
    if not args.server_pid:
        return {}
    return {
        pid: _cpu_seconds(pid) for pid in server_processes(args.server_pid) + database_backends()
    }


def cpu_used(
    before: dict[int, float], after: dict[int, float], masters: list[int]
) -> tuple[float, float]:
    """CPU seconds of the web processes and of the database backends between two snapshots
    (a process that appeared in between counts from zero)."""
    web_pids = set(server_processes(masters))
    web = database = 0.0
    for pid, seconds in after.items():
        used = seconds - before.get(pid, 0.0)
        if pid in web_pids:
            web += used
        else:
            database += used
    return web, database


WARMUP_THREADS = 32  # more than a server's threads (make up: 2 workers x 8), so each gets some


def warm_up(urls: list[str], task_id: int, token: str, seconds: float) -> int:
    """GET next by one annotator, from many threads on every server, for ``seconds``: each
    server thread opens its database session and the session compiles the claim. Returns
    the number of requests made."""
    give_up = time.perf_counter() + seconds
    counts = [0] * WARMUP_THREADS

    def loop(number: int) -> None:
        client = Client(urls[number % len(urls)])
        while time.perf_counter() < give_up:
            with contextlib.suppress(OSError, HTTPException):
                client.request(
                    "warmup", "GET", f"/api/v1/tasks/{task_id}/next", Authorization=f"Token {token}"
                )
                counts[number] += 1

    threads = [threading.Thread(target=loop, args=(n,), daemon=True) for n in range(WARMUP_THREADS)]
    run_all(threads)
    return sum(counts)


def task_annotators(task_id: int, count: int) -> list[int]:
    """``count`` new annotators of the task's campaign (``--task``: a campaign made before,
    e.g. by prefill.py, judged by fresh annotators at each run)."""
    from django.contrib.auth import get_user_model

    from annotation.models import Task
    from annotation.services.campaigns import membership_set

    campaign = Task.objects.select_related("campaign").get(id=task_id).campaign
    tag = uuid.uuid4().hex[:6]
    users = [get_user_model().objects.create_user(f"bench-load-{tag}-{i}") for i in range(count)]
    for user in users:
        membership_set(campaign=campaign, user=user, role="annotator")
    return [user.id for user in users]


def one_run(args, urls, number: int) -> tuple[dict, bool]:
    if args.task:
        task_id = args.task
        user_ids = task_annotators(task_id, args.annotators + 1)
    else:
        task_id, user_ids = annotation_campaign(
            prefix="bench-load",
            annotators=args.annotators + 1,  # the last one only warms the server up
            judgments_per_item=judgments_per_item(args),
            corpus=CORPUS,
            # --assignment adaptive: batches of one system each, claimed by the priorities a
            # job refreshes after every batch (annotation/services/adaptive.py); the answers
            # do not depend on the system, so with no margin the ranking never settles and
            # the task never stops during the run.
            assignment=args.assignment,
            **({"batch_size": args.batch_size} if args.batch_size else {}),
        )
    held = len(stored_judgments(task_id))
    *tokens, warmup_token = api_tokens(user_ids)
    if args.warmup:
        requests = warm_up(urls, task_id, warmup_token, args.warmup)
        print(f"run {number}: warm-up, {requests} requests in {args.warmup:g} s (not counted)")
    before, blocks_before = cpu_snapshot(args), database_blocks()
    if args.rate:
        run = OpenLoop(args, urls, task_id, tokens).run()
    else:
        run = closed_loop(args, urls, task_id, tokens)
    after, blocks_after = cpu_snapshot(args), database_blocks()
    stored = stored_judgments(task_id)
    run_stored = len(stored) - held  # --task: the judgments it held before are not this run's
    exact = (
        len(run.acknowledged) == len(set(run.acknowledged))
        and set(run.acknowledged) <= stored
        and run_stored == len(run.acknowledged)
    )
    latencies = [seconds for _, seconds in run.judgments]
    result = {
        "mode": "open" if args.rate else "closed",
        "annotators": args.annotators,
        "rate": args.rate,
        "seconds": round(run.elapsed, 2),
        "judgments": len(run.acknowledged),
        "judgments_per_s": round(len(run.acknowledged) / run.elapsed, 1),
        "p50_ms": round(1000 * percentile(latencies, 0.50), 1) if latencies else None,
        "p95_ms": round(1000 * percentile(latencies, 0.95), 1) if latencies else None,
        "p99_ms": round(1000 * percentile(latencies, 0.99), 1) if latencies else None,
        "errors": len(run.errors),
        "exact": exact,
        "held_before": held,
    }
    mode = f"open loop at {args.rate:g}/s target" if args.rate else "closed loop"
    print(
        f"run {number}: {mode}, {args.annotators} annotators for {run.elapsed:.1f} s on "
        f"{len(urls)} server(s): {result['judgments']} judgments, "
        f"{result['judgments_per_s']} judgments/s"
    )
    print(
        f"  latency per judgment: p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms, "
        f"p99 {result['p99_ms']} ms"
    )
    if run.first:
        # An annotator's first judgment claims a batch (GET next, then the POST): 1000
        # annotators arriving within one think time make these a start-up burst.
        first = run.first
        result["first_judgments"] = len(first)
        result["p99_first_ms"] = round(1000 * percentile(first, 0.99), 1)
        print(
            f"  of which {len(first)} first judgments (GET next claims a batch, then POST): "
            f"p50 {1000 * percentile(first, 0.5):.1f} ms, p99 {result['p99_first_ms']} ms"
        )
    generator = f"  load generator CPU: {100 * run.generator_cpu / run.elapsed:.0f}% of a core"
    if run.late:
        generator += f"; arrivals started late by p99 {1000 * percentile(run.late, 0.99):.1f} ms"
    print(generator)
    print(f"  errors: {len(run.errors)}" + (f" (first: {run.errors[0]})" if run.errors else ""))
    print(
        f"  database holds exactly the acknowledged judgments: {'yes' if exact else 'NO'} "
        f"({run_stored} stored, {len(set(run.acknowledged))} acknowledged"
        + (f"; the task held {held} before" if held else "")
        + ")"
    )
    if args.server_pid and run.acknowledged:
        web, database = cpu_used(before, after, args.server_pid)
        result["web_cpu_ms_per_judgment"] = round(1000 * web / len(run.acknowledged), 2)
        result["db_cpu_ms_per_judgment"] = round(1000 * database / len(run.acknowledged), 2)
        print(
            f"  CPU per judgment: web {result['web_cpu_ms_per_judgment']} ms, "
            f"PostgreSQL {result['db_cpu_ms_per_judgment']} ms"
        )
    if run.acknowledged:
        # Work that does not depend on how busy the machine is: the database's block
        # reads (shared buffers or not) per judgment, for the flatness series.
        result["db_blocks_per_judgment"] = round(
            (blocks_after - blocks_before) / len(run.acknowledged), 1
        )
        print(f"  database blocks per judgment: {result['db_blocks_per_judgment']}")
    if args.json:
        print(json.dumps(result))
    return result, exact and not run.errors


def summary(results: list[dict]) -> None:
    for key in ("judgments_per_s", "p50_ms", "p95_ms", "p99_ms"):
        values = [r[key] for r in results if r[key] is not None]
        if not values:
            continue
        mean = statistics.fmean(values)
        low, high = min(values), max(values)
        spread = (
            f"+{100 * (high - mean) / mean:.0f}% / -{100 * (mean - low) / mean:.0f}%"
            if mean
            else ""
        )
        print(f"  {key}: mean {mean:.1f}, min {low:.1f}, max {high:.1f} ({spread})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", action="append", help="repeatable (default http://127.0.0.1:8000)")
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--rate", type=float, default=0, help="open loop: judgments/s in total")
    parser.add_argument("--think-min", type=float, default=5)
    parser.add_argument("--think-max", type=float, default=15)
    parser.add_argument("--clients", type=int, default=64, help="open loop: client threads")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument(
        "--warmup", type=float, default=3, help="seconds of uncounted GET next first (0: none)"
    )
    parser.add_argument("--judgments-per-item", type=int, default=0, help="0: enough for the run")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument(
        "--task",
        type=int,
        default=0,
        help="judge in this launched task (e.g. prefill.py's) with fresh annotators, "
        "instead of a new campaign per run",
    )
    parser.add_argument(
        "--assignment",
        choices=("planned", "adaptive"),
        default="planned",
        help="the new task's assignment (adaptive needs a Celery worker for its refreshes)",
    )
    parser.add_argument(
        "--batch-size", type=int, default=0, help="the new task's batch size (0: its default)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON line per run as well")
    parser.add_argument(
        "--server-pid",
        type=int,
        action="append",
        help="gunicorn master pid (repeatable): also report CPU ms per judgment of its workers "
        "and of the database's backends (same machine)",
    )
    args = parser.parse_args()
    if args.warmup < 0:
        parser.error("--warmup must be 0 or more seconds")
    if args.think_min < 0 or args.think_max < args.think_min:
        parser.error("--think-max must be at least --think-min, both >= 0")
    urls = args.url or ["http://127.0.0.1:8000"]
    django_setup()
    results, ok = [], True
    for number in range(1, args.runs + 1):
        result, passed = one_run(args, urls, number)
        results.append(result)
        ok = ok and passed
    if args.runs > 1:
        print(f"{args.runs} runs:")
        summary(results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
