"""Pearmut (PyPI ``pearmut`` 1.1.6, the tool WMT26 used) beside evalsite: its campaign, its
server and a load driver.

Pearmut is never copied into this project: it is installed from PyPI into its own
virtualenv (it needs Python >= 3.12) in its own directory (default /work/pearmut), driven
only through its own command (``pearmut add``), its storage files and its HTTP API.

Bring it up (once; each step is printed as it runs):

    python3.12 -m venv /work/pearmut/.venv
    /work/pearmut/.venv/bin/pip install pearmut==1.1.6
    .venv/bin/python bench/pearmut.py setup --reset [--users 400] [--prefill 100000]
    .venv/bin/python bench/pearmut.py serve          # uvicorn pearmut.app:app, 127.0.0.1:8200

Measure (closed loop, zero think time; each run takes fresh annotators, as in Appraise):

    .venv/bin/python bench/pearmut.py load --annotators 50 --seconds 30 --runs 3 [--json]
    .venv/bin/python bench/pearmut.py stop

``setup`` writes a task-based direct-assessment campaign (protocol ``DA``, one WMT21 en-de
segment with one of five systems per document, 100 documents per annotator, as Appraise's
batches) and adds it with ``pearmut add``, Pearmut's own command, with ``PEARMUT_ROOT`` set to
the directory. ``--prefill N`` then stores N judgments of that campaign before the server
starts, in Pearmut's own storage: N lines in its annotation log
(``data/annotations/<campaign>.jsonl``, each the body its frontend posts to ``/log-response``
plus ``user_id`` and ``item_i``, as Pearmut appends them) and the matching items marked
``completed`` in its progress file (``data/progress/<campaign>.json``), for ceil(N / 100)
annotators of their own, who then have nothing left to do. Pearmut reads both when it starts.

``serve`` starts one process, as ``pearmut run`` does (``uvicorn.run(app)``: one event loop,
access log on), but bound to 127.0.0.1 and with its output in a log file.

``load``: each annotator does what Pearmut's annotation page does per document:
``POST /get-next-item`` {campaign_id, user_id}, then ``POST /log-response`` {campaign_id,
user_id, item_i, payload: {annotation, actions, item}} with a score on the slider. A
judgment's latency is those two requests. An annotator whose documents are done (the answer
says ``goodbye``) takes a fresh one. After the run, the judgments of the run's annotators in
the annotation log are counted against the acknowledged ones.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

from _common import (
    ROOT,
    Client,
    closed_run_summary,
    print_closed_runs,
    stop_pid_file,
    wait_answering,
)

DEFAULT_DIR = Path("/work/pearmut")
DEFAULT_URL = "http://127.0.0.1:8200"
CAMPAIGN_ID = "evalsitebench"
ITEMS_PER_USER = 100  # as Appraise's direct-assessment batches
SYSTEMS = ("Facebook-AI", "Online-B", "HuaweiTSC", "Online-W", "NVIDIA-NeMo")
WMT21 = ROOT / "tests" / "data" / "wmt21-en-de"
FRESH_PREFIX, PREFILL_PREFIX = "bench", "prefill"


def pearmut_env(args: argparse.Namespace) -> dict[str, str]:
    return {**os.environ, "PEARMUT_ROOT": str(args.pearmut_dir)}


def data_dir(args: argparse.Namespace) -> Path:
    return args.pearmut_dir / "data"


def log_path(args: argparse.Namespace) -> Path:
    return data_dir(args) / "annotations" / f"{CAMPAIGN_ID}.jsonl"


def progress_path(args: argparse.Namespace) -> Path:
    return data_dir(args) / "progress" / f"{CAMPAIGN_ID}.json"


def step(title: str, command: list[str], **kwargs) -> subprocess.CompletedProcess:
    print(f"== {title}\n   $ {' '.join(command)}", flush=True)
    return subprocess.run(command, check=True, **kwargs)


def user_names(prefix: str, count: int) -> list[str]:
    return [f"{prefix}-{number:05d}" for number in range(count)]


def documents(users: int) -> list[list[list[dict]]]:
    """Per annotator, 100 documents of one segment each: consecutive WMT21 en-de segments,
    each with one of the five systems (as appraise.py's batches)."""
    source = (WMT21 / "newstest2021.en-de.src.en").read_text(encoding="utf-8").splitlines()
    outputs = {
        system: (WMT21 / "system-outputs" / f"newstest2021.en-de.hyp.{system}.de")
        .read_text(encoding="utf-8")
        .splitlines()
        for system in SYSTEMS
    }
    tasks = []
    for user in range(users):
        task = []
        for position in range(ITEMS_PER_USER):
            line = (user * ITEMS_PER_USER + position) % len(source)
            system = SYSTEMS[(user + position) % len(SYSTEMS)]
            task.append([{"src": source[line], "tgt": {system: outputs[system][line]}}])
        tasks.append(task)
    return tasks


def log_payload(document: list[dict], item_i: int, started: float) -> dict:
    """The body of /log-response's ``payload`` as Pearmut's annotation page builds it for a DA
    document: per segment and model a score (no sliders, spans or text field), the action log
    from the page's load to the submit, and the document shown."""
    model = next(iter(document[0]["tgt"]))
    score = 1 + item_i * 37 % 100
    return {
        "annotation": [
            {model: {"score": score, "error_spans": [], "textfield": None}} for _ in document
        ],
        "actions": [
            {"time": started, "action": "load"},
            {"time": started, "action": "score", "index": 0, "model": model, "value": score},
            {"time": time.time(), "action": "submit"},
        ],
        "item": document,
    }


def prefill(args: argparse.Namespace, users: list[str]) -> None:
    """``args.prefill`` judgments in Pearmut's own files: appended to its annotation log and
    marked in its progress file, as its /log-response does for each (without the lock, the
    server being down)."""
    campaign = json.loads((data_dir(args) / "campaigns" / f"{CAMPAIGN_ID}.json").read_text())
    progress = json.loads(progress_path(args).read_text())
    left = args.prefill
    now = time.time() - 86400
    with log_path(args).open("a", encoding="utf-8") as log:
        for user in users:
            for item_i, document in enumerate(campaign["data"][user]):
                if not left:
                    break
                payload = log_payload(document, item_i, now)
                log.write(
                    json.dumps(payload | {"user_id": user, "item_i": item_i}, ensure_ascii=False)
                    + "\n"
                )
                entry = progress[user]
                entry["progress"][item_i] = "completed"
                if entry["time_start"] is None:
                    entry["time_start"] = now
                entry["time_end"] = now + 1
                entry["time"] += 1
                left -= 1
                now += 1
    progress_path(args).write_text(json.dumps(progress, ensure_ascii=False))


def setup(args: argparse.Namespace) -> int:
    pearmut = args.pearmut_dir / ".venv" / "bin" / "pearmut"
    if not pearmut.exists():
        raise SystemExit(f"{pearmut} is missing: see the top of bench/pearmut.py")
    if data_dir(args).exists():
        if not args.reset:
            raise SystemExit(f"{data_dir(args)} exists: pass --reset to make it anew")
        print(f"== remove {data_dir(args)}")
        shutil.rmtree(data_dir(args))
    for sub in ("campaigns", "progress", "annotations"):
        (data_dir(args) / sub).mkdir(parents=True)
    prefilled = user_names(PREFILL_PREFIX, -(-args.prefill // ITEMS_PER_USER))
    fresh = user_names(FRESH_PREFIX, args.users)
    users = prefilled + fresh
    campaign = {
        "campaign_id": CAMPAIGN_ID,
        "info": {
            "assignment": "task-based",
            "protocol": "DA",
            "users": users,
            "seed": 16,
        },
        "data": documents(len(users)),
    }
    work = args.pearmut_dir / "evalsite-bench"
    work.mkdir(parents=True, exist_ok=True)
    campaign_file = work / "campaign.json"
    campaign_file.write_text(json.dumps(campaign, ensure_ascii=False))
    print(f"== wrote {campaign_file} ({len(users)} annotators × {ITEMS_PER_USER} documents)")
    step(
        "pearmut add (its own command)",
        [str(pearmut), "add", str(campaign_file), "--url", args.url],
        cwd=args.pearmut_dir,
        env=pearmut_env(args),
        stdout=subprocess.DEVNULL,  # it prints every annotator's link
    )
    if args.prefill:
        started = time.perf_counter()
        prefill(args, prefilled)
        print(
            f"== prefilled {args.prefill} judgments of {len(prefilled)} annotators into "
            f"{log_path(args)} and {progress_path(args)} in {time.perf_counter() - started:.1f} s"
        )
    return 0


def pid_file(args: argparse.Namespace) -> Path:
    return args.pearmut_dir / "evalsite-bench" / "uvicorn.pid"


def serve(args: argparse.Namespace) -> int:
    """One uvicorn process with Pearmut's app, as `pearmut run` starts it."""
    parts = urlsplit(args.url)
    log = args.pearmut_dir / "evalsite-bench" / "uvicorn.log"
    command = [
        str(args.pearmut_dir / ".venv/bin/python"), "-m", "uvicorn", "pearmut.app:app",
        "--host", parts.hostname or "127.0.0.1", "--port", str(parts.port or 80),
    ]  # fmt: skip
    print(f"== Pearmut under uvicorn, one process, on {parts.netloc}\n   $ {' '.join(command)}")
    with log.open("ab") as output:
        process = subprocess.Popen(
            command,
            cwd=args.pearmut_dir,
            env=pearmut_env(args),
            stdout=output,
            stderr=output,
            start_new_session=True,
        )
    pid_file(args).write_text(str(process.pid))
    # A campaign of 100,000 judgments takes a while to read: up to 120 s.
    return wait_answering(args.url, "/annotate", "Pearmut", log, tries=600, process=process)


def stop(args: argparse.Namespace) -> int:
    return stop_pid_file(pid_file(args), "Pearmut uvicorn")


class Users:
    """Hands out annotators nobody has judged with yet, one at a time, across threads."""

    def __init__(self, names: list[str]) -> None:
        self.free, self.lock, self.used = list(names), threading.Lock(), []

    def take(self) -> str | None:
        with self.lock:
            if not self.free:
                return None
            name = self.free.pop(0)
            self.used.append(name)
            return name


class Clock:
    """The timed window, started when every annotator has its first document (the barrier's
    action), as appraise.py starts it after the sign-ins."""

    def __init__(self, annotators: int, seconds: float) -> None:
        self.seconds, self.deadline, self.started = seconds, float("inf"), 0.0
        self.barrier = threading.Barrier(annotators, action=self.start)

    def start(self) -> None:
        self.started = time.perf_counter()
        self.deadline = self.started + self.seconds


class PageAnnotator(threading.Thread):
    """What Pearmut's annotation page does per document: get-next-item, then log-response."""

    def __init__(self, url: str, users: Users, clock: Clock) -> None:
        super().__init__(daemon=True)
        self.url, self.users, self.clock = url, users, clock
        self.client = Client(url, {"Content-Type": "application/json"})
        self.acknowledged = 0
        self.latencies: list[float] = []  # per judgment: get-next-item + log-response
        self.errors: list[str] = []

    def post(self, kind: str, path: str, body: dict) -> tuple[int, object]:
        status, _, data = self.client.request(kind, "POST", path, json.dumps(body).encode())
        return status, json.loads(data or b"null")

    def next_item(self, user: str) -> dict | None:
        status, answer = self.post(
            "next", "/get-next-item", {"campaign_id": CAMPAIGN_ID, "user_id": user}
        )
        if status != 200 or not isinstance(answer, dict):
            raise ValueError(f"get-next-item: HTTP {status} {str(answer)[:200]}")
        return answer if answer.get("status") == "ok" else None  # "goodbye": all done

    def run(self) -> None:
        user, item = None, None
        try:
            while item is None and (user := self.users.take()) is not None:
                item = self.next_item(user)
        except (OSError, ValueError) as error:
            self.errors.append(f"first item: {error}")
        finally:
            self.clock.barrier.wait()
        started = time.perf_counter()  # the first document came before the clock started
        if user is None:
            self.errors.append("no fresh Pearmut annotator left: run setup --reset")
        while user is not None and item is not None:
            try:
                shown = time.time()
                body = {
                    "campaign_id": CAMPAIGN_ID,
                    "user_id": user,
                    "item_i": item["info"]["item_i"],
                    "payload": log_payload(item["payload"], item["info"]["item_i"], shown),
                }
                status, answer = self.post("submit", "/log-response", body)
                if status != 200:
                    raise ValueError(f"log-response: HTTP {status} {str(answer)[:200]}")
                self.acknowledged += 1
                self.latencies.append(time.perf_counter() - started)
                if time.perf_counter() >= self.clock.deadline:
                    return
                started = time.perf_counter()
                item = self.next_item(user)
                while item is None and (user := self.users.take()) is not None:
                    item = self.next_item(user)
            except (OSError, ValueError) as error:
                self.errors.append(f"{type(error).__name__}: {str(error)[:200]}")
                self.client.reset()
                if time.perf_counter() >= self.clock.deadline:
                    return
                started = time.perf_counter()
                with contextlib.suppress(OSError, ValueError):
                    item = self.next_item(user)


def logged_by_user(args: argparse.Namespace) -> Counter:
    """Pearmut's own record: judgments per annotator in its annotation log."""
    counts: Counter = Counter()
    if log_path(args).exists():
        with log_path(args).open(encoding="utf-8") as log:
            for line in log:
                counts[json.loads(line)["user_id"]] += 1
    return counts


def fresh_users(args: argparse.Namespace) -> list[str]:
    progress = json.loads(progress_path(args).read_text())
    done = logged_by_user(args)
    return [name for name in progress if name.startswith(FRESH_PREFIX) and not done[name]]


def load_run(args: argparse.Namespace) -> dict:
    fresh = fresh_users(args)
    if len(fresh) < args.annotators:
        raise SystemExit(
            f"only {len(fresh)} fresh Pearmut annotators left for {args.annotators}: run "
            "`bench/pearmut.py stop`, `setup --reset` and `serve` again"
        )
    before = sum(logged_by_user(args).values())
    users, clock = Users(fresh), Clock(args.annotators, args.seconds)
    threads = [PageAnnotator(args.url, users, clock) for _ in range(args.annotators)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - clock.started
    acknowledged = sum(thread.acknowledged for thread in threads)
    latencies = [value for thread in threads for value in thread.latencies]
    errors = [error for thread in threads for error in thread.errors]
    counts = logged_by_user(args)
    stored = sum(counts[name] for name in users.used)
    return closed_run_summary(
        annotators=args.annotators,
        elapsed=elapsed,
        acknowledged=acknowledged,
        latencies=latencies,
        errors=errors,
        exact=stored == acknowledged and sum(counts.values()) == before + acknowledged,
        stored=stored,
        held_before=before,
    )


def load(args: argparse.Namespace) -> int:
    return print_closed_runs(
        args.runs,
        lambda: load_run(args),
        as_json=args.json,
        headline=lambda run: (
            f"Pearmut, {run['annotators']} annotators for {run['seconds']:.1f} s "
            f"(holding {run['held_before']} judgments before): {run['judgments']} judgments, "
            f"{run['judgments_per_s']:.1f} judgments/s; per judgment p50 {run['p50_ms']} ms, "
            f"p95 {run['p95_ms']} ms, p99 {run['p99_ms']} ms"
        ),
        store="Pearmut's annotation log",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pearmut-dir", type=Path, default=DEFAULT_DIR)
    commands = parser.add_subparsers(dest="command", required=True)
    setup_parser = commands.add_parser("setup", help="the campaign, with `pearmut add`")
    setup_parser.add_argument("--users", type=int, default=400, help="fresh annotators")
    setup_parser.add_argument(
        "--prefill", type=int, default=0, help="judgments stored before the server starts"
    )
    setup_parser.add_argument("--reset", action="store_true", help="remove its data first")
    setup_parser.add_argument("--url", default=DEFAULT_URL)
    serve_parser = commands.add_parser("serve", help="uvicorn, one process")
    serve_parser.add_argument("--url", default=DEFAULT_URL)
    commands.add_parser("stop", help="stop the uvicorn `serve` started")
    load_parser = commands.add_parser("load", help="closed-loop annotators on its API")
    load_parser.add_argument("--url", default=DEFAULT_URL)
    load_parser.add_argument("--annotators", type=int, default=50)
    load_parser.add_argument("--seconds", type=float, default=30)
    load_parser.add_argument("--runs", type=int, default=1)
    load_parser.add_argument("--json", action="store_true", help="one JSON line per run")
    for sub in (setup_parser, serve_parser, load_parser):
        sub.add_argument("--pearmut-dir", type=Path, default=argparse.SUPPRESS)
    args = parser.parse_args()
    args.pearmut_dir = args.pearmut_dir.resolve()
    if args.command == "setup" and (args.users < 0 or args.prefill < 0):
        parser.error("--users and --prefill must be 0 or more")
    return {"setup": setup, "serve": serve, "stop": stop, "load": load}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
