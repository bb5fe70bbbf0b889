"""Soak: 100 simulated annotators for 10 minutes against a running stack (`make up`).

Passes (exit 0) when there were no errors, the database holds every acknowledged judgment
exactly once, and the memory of the web (gunicorn master and workers) and worker (Celery
worker, its pool and embedded beat) process trees stayed flat.

    .venv/bin/python bench/soak.py [--annotators 100] [--duration 600] [--run-dir var/run]

Annotators use the annotator pages, as the browser does: GET /annotate/<task>/ renders an
item, the form POSTs to /annotate/<task>/submit/ and the browser follows the redirect to
the next item. That path carries what the API path does not (sessions, CSRF, messages,
template rendering), so it is the one whose memory matters; `--client api` runs the API loop
of bench/load.py instead. A submit is acknowledged when it answers 302 to the next item
without a message: the view adds one only when the answer was not saved or had been saved
before. The sessions are made in-process (as Django's test client's force_login does), so a
login rate limit never gets in the way; that needs the stack's secret key, read from
``var/secret_key`` beside the run directory.

Memory is sampled from /proc: RSS, and PSS from smaps_rollup (shared pages divided among the
processes that map them, so the forked children are not counted several times). The verdict
uses PSS when readable, else RSS: "flat" means the least-squares line through the samples
after the warm-up grows by less than 5% over that window. Why 5%: a per-request leak of even
1 kB is ~100 MB over a 10-minute run (~100k requests), a fifth of the web tree; allocator
noise (per-thread arenas of the gthread workers, heap fragmentation) moves the total by a few
MB only. Note that gunicorn replaces each worker after max_requests (evalsite/gunicorn.conf.py),
which bounds a leak in production and cuts it off here too; replacements are reported.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import threading
import time
from collections import Counter
from http.client import HTTPException
from pathlib import Path
from urllib.parse import urlencode

from _common import (
    ROOT,
    ApiAnnotator,
    Client,
    annotation_campaign,
    api_tokens,
    corpus_items,
    django_setup,
    spread,
)

SLOT = re.compile(rb'name="slot" value="(\d+)"')
CSRF = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')
MESSAGES = re.compile(rb'<ul class="messages">(.*?)</ul>', re.S)
DONE = b'class="card narrow done"'
LOG_ERROR = re.compile(r"\b(ERROR|CRITICAL)\b|Traceback")
FLAT = 0.05
ERROR_PAUSE = 1.0  # seconds
MB = 1024.0  # /proc reports kB


class Failure(Exception):
    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(kind)
        self.kind, self.detail = kind, detail


class PageAnnotator(threading.Thread):
    """One browser: item page → submit → redirect followed to the next item page."""

    def __init__(
        self, url: str, cookies: dict[str, str], user_id: int, task_id: int, deadline: float
    ) -> None:
        super().__init__(daemon=True)
        self.client = Client(url)
        self.client.cookies.update(cookies)
        self.user_id, self.deadline = user_id, deadline
        self.page_path = f"/annotate/{task_id}/"
        self.acknowledged: list[tuple[float, int, int, int | None]] = []
        self.errors: list[tuple[float, str, str]] = []
        self.ran_out = False

    def error(self, kind: str, detail: str) -> None:
        self.errors.append((time.perf_counter(), kind, detail))
        time.sleep(ERROR_PAUSE)  # a person reloads after a moment; no error storm

    def page(self) -> tuple[str | None, str, str]:
        """The item page: (slot id or None when all done, CSRF token, message shown)."""
        status, headers, body = self.client.request("page", "GET", self.page_path)
        if status != 200:
            raise Failure(f"page: HTTP {status}", headers.get("location", body[:200].decode()))
        shown = MESSAGES.search(body)
        message = re.sub(r"<[^>]+>", " ", shown.group(1).decode()).strip() if shown else ""
        slot, csrf = SLOT.search(body), CSRF.search(body)
        if slot and csrf:
            return slot.group(1).decode(), csrf.group(1).decode(), message
        if DONE in body:
            return None, "", message
        raise Failure("page: no item form", body[:200].decode(errors="replace"))

    def submit(self, slot: str, csrf: str) -> bool:
        """Posts the form; True when acknowledged (redirected to the next item, no message)."""
        form = {"csrfmiddlewaretoken": csrf, "slot": slot, "candidates": "1"}
        form["score"] = str(1 + int(slot) % 5)
        status, headers, body = self.client.request(
            "submit",
            "POST",
            f"{self.page_path}submit/",
            urlencode(form).encode(),
            **{
                "Content-Type": "application/x-www-form-urlencoded",
                "Origin": self.client.origin,
                "Referer": self.client.origin + self.page_path,
            },
        )
        if status != 302 or not headers.get("location", "").endswith(self.page_path):
            raise Failure(f"submit: HTTP {status}", headers.get("location", body[:200].decode()))
        return "messages" not in self.client.cookies

    def run(self) -> None:
        slot: str | None = None
        csrf = ""
        while time.perf_counter() < self.deadline:
            try:
                if slot is None:
                    slot, csrf, message = self.page()
                    if message:
                        self.error("page: message", message)
                    if slot is None:
                        self.ran_out = True
                        return
                saved = self.submit(slot, csrf)
                if saved:
                    self.acknowledged.append((time.perf_counter(), int(slot), self.user_id, None))
                pending, slot = slot, None
                slot, csrf, message = self.page()  # the redirect, followed
                if not saved or message:
                    self.error("submit: not saved", f"slot {pending}: {message or '(no text)'}")
                if slot is None:
                    self.ran_out = True
                    return
            except Failure as failure:
                self.error(failure.kind, failure.detail)
                slot = None
            except (OSError, HTTPException, ValueError) as error:
                self.error(f"exception: {type(error).__name__}", str(error)[:200])
                self.client.reset()
                slot = None


def sessions(user_ids: list[int]) -> list[dict[str, str]]:
    """A logged-in session cookie per user, made the way the test client's force_login does."""
    from django.contrib.auth import get_user_model
    from django.test import Client as DjangoClient

    users = get_user_model().objects.in_bulk(user_ids)
    cookies = []
    for user_id in user_ids:
        client = DjangoClient()
        client.force_login(users[user_id])
        cookies.append({name: morsel.coded_value for name, morsel in client.cookies.items()})
    return cookies


# Memory --------------------------------------------------------------------------------


def tree(root: int) -> list[int]:
    """The process and all its descendants, from the parent pids in /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def usage(pid: int) -> tuple[int, int | None] | None:
    """(RSS kB, PSS kB or None), or None for a process that is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) if "VmRSS" in status else 0
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        pss: int | None = int(re.search(r"Pss:\s+(\d+)", rollup).group(1))
    except (OSError, AttributeError):
        pss = None
    return rss, pss


class Group:
    """A process tree (web or worker) sampled over time."""

    def __init__(self, name: str, pid_file: Path) -> None:
        self.name = name
        self.root = int(pid_file.read_text().strip())
        self.samples: list[tuple[float, int, int | None, dict[int, int]]] = []

    def sample(self, t: float) -> str:
        per_pid = {}
        rss, pss, pss_known = 0, 0, True
        for pid in tree(self.root):
            got = usage(pid)
            if got is None:
                continue
            per_pid[pid] = got[0]
            rss += got[0]
            if got[1] is None:
                pss_known = False
            else:
                pss += got[1]
        self.samples.append((t, rss, pss if pss_known else None, per_pid))
        shown = f" PSS {pss / MB:7.1f} MB" if pss_known else ""
        return f"{self.name} {len(per_pid)} procs RSS {rss / MB:7.1f} MB{shown}"

    def verdict(self, warmup: float) -> bool:
        use_pss = all(s[2] is not None for s in self.samples)
        measure = "PSS" if use_pss else "RSS"
        series = [(t, (pss if use_pss else rss) / MB) for t, rss, pss, _ in self.samples]
        start, end = series[0][1], series[-1][1]
        print(
            f"  {self.name}: {measure} start {start:.1f} MB, end {end:.1f} MB, "
            f"growth {end - start:+.1f} MB ({100 * (end - start) / start:+.1f}%)"
        )
        at_start, at_end = self.samples[0][3], self.samples[-1][3]
        kept = " ".join(
            f"{p} {at_start[p] / MB:.0f}→{at_end[p] / MB:.0f}" for p in at_start if p in at_end
        )
        print(f"    RSS per process, MB: {kept}")
        pids = [set(s[3]) for s in self.samples]
        gone = set().union(*pids) - pids[-1]
        if gone:
            print(f"    {len(gone)} process(es) replaced during the run (pids {sorted(gone)})")
        steady = [(t, v) for t, v in series if t >= warmup]
        if len(steady) < 3:
            print(
                f"    fewer than 3 samples after the {warmup:.0f} s warm-up: no slope, no verdict"
            )
            return False
        slope, intercept = least_squares(steady)
        first, last = steady[0][0], steady[-1][0]
        base = intercept + slope * first
        growth = slope * (last - first) / base
        flat = growth < FLAT
        print(
            f"    after the {warmup:.0f} s warm-up: slope {60 * slope:+.2f} MB/min, fitted growth "
            f"{100 * growth:+.1f}% over {last - first:.0f} s: "
            f"{'flat' if flat else 'NOT FLAT'} (threshold {100 * FLAT:.0f}%)"
        )
        return flat


def least_squares(points: list[tuple[float, float]]) -> tuple[float, float]:
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    var = sum((t - mean_t) ** 2 for t, _ in points)
    slope = sum((t - mean_t) * (v - mean_v) for t, v in points) / var if var else 0.0
    return slope, mean_v - slope * mean_t


# Reports -------------------------------------------------------------------------------


def throughput_report(annotators: list, started: float, elapsed: float, bucket: float) -> None:
    samples = [s for a in annotators for s in a.client.samples]
    acks = [ack[0] for a in annotators for ack in acks_of(a)]
    errors = [e[0] for a in annotators for e in a.errors]
    print(f"\nper {bucket:.0f} s (judgments/s; latency of every request):")
    for i in range(math.ceil(elapsed / bucket)):
        low, high = started + i * bucket, started + min((i + 1) * bucket, elapsed)
        judged = sum(low <= t < high for t in acks)
        failed = sum(low <= t < high for t in errors)
        latencies = [s[2] for s in samples if low <= s[0] < high]
        print(
            f"  {i * bucket:5.0f}-{min((i + 1) * bucket, elapsed):4.0f} s: {judged:6d} judgments "
            f"{judged / (high - low):6.1f}/s, {failed} errors, {spread(latencies)}"
        )
    print(f"overall: {len(acks)} judgments in {elapsed:.0f} s, {len(acks) / elapsed:.1f}/s")
    for kind in sorted({s[1] for s in samples}):
        latencies = [s[2] for s in samples if s[1] == kind]
        print(f"  {kind:7s} {len(latencies):7d} requests: {spread(latencies)}")
    reconnects = sum(a.client.reconnects for a in annotators)
    if reconnects:
        print(f"  {reconnects} request(s) resent on a new connection (server closed a kept one)")
    ran_out = sum(a.ran_out for a in annotators)
    if ran_out:
        print(f"  {ran_out} annotator(s) ran out of items before the end (raise --slots)")


def acks_of(annotator) -> list[tuple[float, int, int, int | None]]:
    """(when, slot id, annotator id, judgment id if the server said it)."""
    if isinstance(annotator, PageAnnotator):
        return annotator.acknowledged
    return [(t, slot, annotator.user_id, judgment) for t, slot, judgment in annotator.acknowledged]


def error_report(annotators: list, logs: dict[Path, int]) -> int:
    kinds = Counter(kind for a in annotators for _, kind, _ in a.errors)
    first = {}
    for a in annotators:
        for _, kind, detail in a.errors:
            first.setdefault(kind, detail)
    print(f"\nclient errors: {sum(kinds.values())}")
    for kind, count in kinds.most_common():
        print(f"  {count:6d} {kind}  (first: {first[kind][:160]!r})")
    logged = 0
    for path, offset in logs.items():
        with path.open(errors="replace") as log:
            log.seek(offset)
            lines = [line.rstrip() for line in log if LOG_ERROR.search(line)]
        logged += len(lines)
        print(f"server log {path.name}: {len(lines)} error line(s) during the run")
        for line in lines[:5]:
            print(f"    {line[:200]}")
    return sum(kinds.values()) + logged


def database_check(task_id: int, acks: list[tuple[float, int, int, int | None]]) -> bool:
    from annotation.models import Judgment

    rows = list(
        Judgment.objects.filter(task_id=task_id).values_list("slot_id", "annotator_id", "id")
    )
    stored = {slot: (annotator, judgment) for slot, annotator, judgment in rows}
    duplicate_slots = len(rows) - len(stored)
    acked = Counter(slot for _, slot, _, _ in acks)
    acked_twice = sum(1 for count in acked.values() if count > 1)
    missing = sum(1 for _, slot, _, _ in acks if slot not in stored)
    wrong = sum(
        1
        for _, slot, annotator, judgment in acks
        if slot in stored
        and (stored[slot][0] != annotator or judgment not in (None, stored[slot][1]))
    )
    unacknowledged = len(set(stored) - set(acked))
    exact = len(rows) == len(acks) and not (
        duplicate_slots or acked_twice or missing or wrong or unacknowledged
    )
    print(
        f"\ndatabase: {len(rows)} judgments stored for the task, {len(acks)} acknowledged; "
        f"missing {missing}, duplicate slots {duplicate_slots}, acknowledged twice {acked_twice}, "
        f"wrong annotator/id {wrong}, stored but not acknowledged {unacknowledged}: "
        f"{'every acknowledged judgment exactly once' if exact else 'MISMATCH'}"
    )
    return exact


# Main ----------------------------------------------------------------------------------


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--annotators", type=int, default=100)
    parser.add_argument("--duration", type=float, default=600, help="seconds of load")
    parser.add_argument("--run-dir", type=Path, default=ROOT / "var" / "run")
    parser.add_argument("--log-dir", type=Path, help="default: log/ beside the run directory")
    parser.add_argument("--sample-every", type=float, default=30, help="memory, seconds")
    parser.add_argument("--warmup", type=float, default=60, help="seconds left out of the slope")
    parser.add_argument("--client", choices=("pages", "api"), default="pages")
    parser.add_argument(
        "--slots", type=int, help="judgments on offer; default 1 per annotator per second"
    )
    return parser.parse_args()


def main() -> int:
    args = arguments()
    run_dir = args.run_dir.resolve()
    log_dir = (args.log_dir or run_dir.parent / "log").resolve()
    groups = [Group("web", run_dir / "web.pid"), Group("worker", run_dir / "worker.pid")]
    django_setup(run_dir.parent / "secret_key")

    slots = args.slots or int(args.annotators * args.duration)
    items = corpus_items("wmt21")
    per_item = max(1, min(args.annotators, math.ceil(slots / items)))
    print(f"setting up: {args.annotators} annotators, {items} items × {per_item} judgments each")
    task_id, user_ids = annotation_campaign(
        prefix="bench-soak",
        annotators=args.annotators,
        judgments_per_item=per_item,
        corpus="wmt21",
    )
    logs = {
        path: path.stat().st_size
        for path in (log_dir / "web.log", log_dir / "worker.log")
        if path.exists()
    }

    annotators: list = []
    if args.client == "pages":
        for cookies, user_id in zip(sessions(user_ids), user_ids, strict=True):
            annotators.append(PageAnnotator(args.url, cookies, user_id, task_id, math.inf))
    else:
        for token, user_id in zip(api_tokens(user_ids), user_ids, strict=True):
            annotators.append(ApiAnnotator(args.url, token, task_id, math.inf))
            annotators[-1].user_id = user_id

    def sample(t: float) -> None:
        judged = sum(len(a.acknowledged) for a in annotators)
        failed = sum(len(a.errors) for a in annotators)
        memory = " | ".join(group.sample(t) for group in groups)
        print(f"t={t:5.0f} s  {memory} | {judged} judgments, {failed} errors", flush=True)

    print(f"task {task_id}, {args.client} client, {args.duration:.0f} s; memory (kB/1024):")
    sample(0.0)
    started = time.perf_counter()
    deadline = started + args.duration
    for annotator in annotators:
        annotator.deadline = deadline
        annotator.start()
    next_sample = started + args.sample_every
    while next_sample < deadline - 1:  # the end sample follows
        time.sleep(max(0.0, next_sample - time.perf_counter()))
        sample(time.perf_counter() - started)
        next_sample += args.sample_every
    for annotator in annotators:
        annotator.join()
    elapsed = time.perf_counter() - started
    sample(elapsed)

    throughput_report(annotators, started, elapsed, 60.0)
    errors = error_report(annotators, logs)
    exact = database_check(task_id, [ack for a in annotators for ack in acks_of(a)])
    print("\nmemory:")
    flat = [group.verdict(args.warmup) for group in groups]
    passed = not errors and exact and all(flat)
    print(f"\nsoak {'PASSED' if passed else 'FAILED'}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
