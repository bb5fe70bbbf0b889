"""Shared by the HTTP benchmarks (load.py, soak.py): Django set up in-process against the
stack's database, a campaign with a launched adequacy task and its annotators, a timed HTTP
connection, the API annotator loop, and percentiles."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from http.client import HTTPConnection, HTTPException, RemoteDisconnected
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SYSTEMS = ("Facebook-AI", "Online-B", "UEdin", "VolcTrans-GLAT", "happypoet")
# The demo's 100 segments, or the whole WMT21 en-de test set (1002) when more items are needed.
CORPORA = {
    "demo": (ROOT / "demo" / "wmt21-en-de" / "source.en", ROOT / "demo" / "wmt21-en-de" / "{}.de"),
    "wmt21": (
        ROOT / "tests" / "data" / "wmt21-en-de" / "newstest2021.en-de.src.en",
        ROOT / "tests" / "data" / "wmt21-en-de" / "system-outputs" / "newstest2021.en-de.hyp.{}.de",
    ),
}

# A request that fails on a kept-alive connection the server has just closed (a gunicorn
# worker replaced after max_requests, an idle timeout) is sent once more on a new connection,
# as browsers do; the server's idempotent submit makes that safe for the POST as well.
STALE = (RemoteDisconnected, ConnectionResetError, BrokenPipeError, ConnectionAbortedError)


def django_setup(secret_key_file: Path | None = None) -> None:
    """Django with the stack's settings. Sessions made here must be valid in the stack, so its
    secret key (``var/secret_key`` of the checkout, written by ``make up``) wins over ours."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    secret = secret_key_file or ROOT / "var" / "secret_key"
    if secret.exists():
        os.environ["SECRET_KEY"] = secret.read_text().strip()
    import django

    django.setup()


def corpus_items(corpus: str) -> int:
    """Items of an adequacy task over the corpus: segments × systems."""
    source = CORPORA[corpus][0]
    return len(source.read_text(encoding="utf-8").splitlines()) * len(SYSTEMS)


def annotation_campaign(
    *,
    prefix: str,
    annotators: int,
    judgments_per_item: int,
    corpus: str = "demo",
    task_type: str = "adequacy",
    **settings: object,
) -> tuple[int, list[int]]:
    """A campaign from a corpus (five of its systems) with a launched task (adequacy unless
    ``task_type`` says otherwise, with ``settings``) and its annotators; returns the task id
    and the annotators' user ids. Straight through the services, as a manager's script
    would."""
    from django.contrib.auth import get_user_model

    from annotation.services.campaigns import campaign_create, membership_set
    from annotation.services.imports import upload_import
    from annotation.services.tasks import task_create, task_launch

    source, system_path = CORPORA[corpus]
    User = get_user_model()
    tag = uuid.uuid4().hex[:6]
    owner = User.objects.create_user(f"{prefix}-manager-{tag}")
    campaign = campaign_create(
        name=f"{prefix} {tag}", source_language="en", target_language="de", owner=owner
    )
    upload_import(
        campaign=campaign,
        kind="source",
        user=owner,
        files=[("source.en", source.read_bytes())],
    )
    for system in SYSTEMS:
        upload_import(
            campaign=campaign,
            kind="system",
            name=system,
            user=owner,
            files=[(f"{system}.de", Path(str(system_path).format(system)).read_bytes())],
        )
    task = task_create(
        campaign=campaign,
        task_type=task_type,
        judgments_per_item=judgments_per_item,
        **settings,
    )
    task_launch(task_id=task.id)
    user_ids = []
    for i in range(annotators):
        user = User.objects.create_user(f"{prefix}-{tag}-{i}")
        membership_set(campaign=campaign, user=user, role="annotator")
        user_ids.append(user.id)
    return task.id, user_ids


def api_tokens(user_ids: list[int]) -> list[str]:
    from rest_framework.authtoken.models import Token

    return [Token.objects.create(user_id=user_id).key for user_id in user_ids]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def spread(latencies: list[float]) -> str:
    """p50/p95/p99 in milliseconds."""
    if not latencies:
        return "no requests"
    ordered = sorted(latencies)
    at = [ordered[min(len(ordered) - 1, math.floor(q * len(ordered)))] for q in (0.5, 0.95, 0.99)]
    return f"p50 {1000 * at[0]:.1f} ms, p95 {1000 * at[1]:.1f} ms, p99 {1000 * at[2]:.1f} ms"


class Client:
    """One user's kept-alive connection with its cookies. Every request is timed and kept as
    (finished, kind, seconds), ``finished`` on the ``time.perf_counter`` clock."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.headers = headers or {}
        self.cookies: dict[str, str] = {}
        self.connection = self._connect()
        self.used = False  # has the current connection answered a request yet?
        self.samples: list[tuple[float, str, float]] = []
        self.reconnects = 0

    def _connect(self) -> HTTPConnection:
        return HTTPConnection(self.host, self.port, timeout=30)

    def reset(self) -> None:
        self.connection.close()
        self.connection = self._connect()
        self.used = False

    def request(
        self, kind: str, method: str, path: str, body: bytes | None = None, **headers: str
    ) -> tuple[int, dict[str, str], bytes]:
        headers = {**self.headers, **headers}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        started = time.perf_counter()
        try:
            response = self._send(method, path, body, headers)
        except STALE:
            if not self.used:
                raise
            self.reconnects += 1
            self.reset()
            response = self._send(method, path, body, headers)
        data = response.read()
        finished = time.perf_counter()
        self.used = True
        self.samples.append((finished, kind, finished - started))
        for header in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                if morsel.value and morsel["max-age"] != "0":
                    self.cookies[name] = morsel.coded_value
                else:
                    self.cookies.pop(name, None)
        if response.will_close:
            self.reset()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data

    def _send(self, method: str, path: str, body: bytes | None, headers: dict[str, str]):
        self.connection.request(method, path, body=body, headers=headers)
        return self.connection.getresponse()


def answer_for(task_id: int, item: dict) -> dict:
    """An adequacy answer to the item (the score varies with the slot)."""
    return {"task": task_id, "slot": item["slot"], "score": 1 + item["slot"] % 5}


class ApiAnnotator(threading.Thread):
    """Judges until the deadline or until the task has nothing left for them: GET
    /api/v1/tasks/<id>/next once, then POST /api/v1/judgments alone, as its answer carries the
    next item. ``judgments``: (finished, seconds) per judgment, the first one's GET included."""

    def __init__(self, url: str, token: str, task_id: int, deadline: float) -> None:
        super().__init__(daemon=True)
        self.client = Client(
            url, {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        )
        self.task_id, self.deadline = task_id, deadline
        self.acknowledged: list[tuple[float, int, int]] = []  # (when, slot id, judgment id)
        self.errors: list[tuple[float, str, str]] = []  # (when, kind, detail)
        self.judgments: list[tuple[float, float]] = []
        self.ran_out = False

    def call(self, kind: str, method: str, path: str, body: dict | None = None):
        payload = json.dumps(body).encode() if body is not None else None
        status, _, data = self.client.request(kind, method, path, payload)
        return status, json.loads(data or b"{}")

    def error(self, kind: str, detail: str) -> None:
        self.errors.append((time.perf_counter(), kind, detail))

    def run(self) -> None:
        item: dict | None = None
        while time.perf_counter() < self.deadline:
            started = time.perf_counter()
            try:
                if item is None:
                    status, item = self.call("next", "GET", f"/api/v1/tasks/{self.task_id}/next")
                    if status != 200:
                        self.error(f"next: HTTP {status}", str(item)[:200])
                        item = None
                        continue
                if item["done"]:
                    self.ran_out = True
                    return
                status, result = self.call(
                    "submit", "POST", "/api/v1/judgments", answer_for(self.task_id, item)
                )
                if status == 201:
                    finished = time.perf_counter()
                    self.acknowledged.append((finished, item["slot"], result["id"]))
                    self.judgments.append((finished, finished - started))
                else:
                    self.error(f"submit: HTTP {status}", str(result)[:200])
                item = result.get("next")
            except (OSError, HTTPException, ValueError) as error:
                self.error(f"exception: {type(error).__name__}", str(error)[:200])
                self.client.reset()
                item = None


def wait_answering(
    url: str,
    path: str,
    name: str,
    log: Path,
    *,
    tries: int,
    process: subprocess.Popen | None = None,
) -> int:
    """Polls ``GET path`` every 0.2 s until it answers 200 (exit code 0) or ``tries`` run out,
    or ``process`` ends (1, naming the log)."""
    for _ in range(tries):
        if process is not None and process.poll() is not None:
            break
        try:
            status, _, _ = Client(url).request("ping", "GET", path)
            if status == 200:
                print(f"{name} answers on {url}" + (f" (pid {process.pid})" if process else ""))
                return 0
        except OSError:
            pass
        time.sleep(0.2)
    print(f"{name} does not answer on {url}; see {log}", file=sys.stderr)
    return 1


def stop_pid_file(path: Path, name: str) -> int:
    """Stops the server whose pid ``path`` holds (SIGTERM, then waits up to 10 s)."""
    if not path.exists():
        print(f"no {name} started by this script")
        return 0
    pid = int(path.read_text().strip())
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    path.unlink(missing_ok=True)
    print(f"stopped {name} {pid}")
    return 0


def closed_run_summary(
    *,
    annotators: int,
    elapsed: float,
    acknowledged: int,
    latencies: list[float],
    errors: list[str],
    exact: bool,
    stored: int,
    **extra: object,
) -> dict:
    """One closed-loop run of a peer tool, in the fields bench/side_by_side.py reads."""
    at = {q: 1000 * percentile(latencies, q / 100) if latencies else None for q in (50, 95, 99)}
    return {
        "mode": "closed",
        "annotators": annotators,
        "rate": None,
        "seconds": round(elapsed, 2),
        "judgments": acknowledged,
        "judgments_per_s": round(acknowledged / elapsed, 2),
        "p50_ms": at[50] and round(at[50], 1),
        "p95_ms": at[95] and round(at[95], 1),
        "p99_ms": at[99] and round(at[99], 1),
        "errors": len(errors),
        "exact": exact,
        "stored": stored,
        **extra,
        "first_error": errors[0] if errors else None,
    }


def print_closed_runs(runs: int, load_run, *, as_json: bool, headline, store: str) -> int:
    """Runs ``load_run`` ``runs`` times and prints each summary (``headline(run)`` first, then
    the errors and whether ``store`` holds exactly the acknowledged judgments); 1 if any run
    erred or lost a judgment."""
    failed = False
    for _ in range(runs):
        run = load_run()
        failed = failed or not run["exact"] or bool(run["errors"])
        if as_json:
            print(json.dumps(run), flush=True)
            continue
        print(headline(run))
        print(
            f"errors: {run['errors']}"
            + (f" (first: {run['first_error']})" if run["errors"] else "")
        )
        print(
            f"{store} holds exactly the acknowledged judgments: "
            f"{'yes' if run['exact'] else 'NO'} "
            f"({run['stored']} stored, {run['judgments']} acknowledged)",
            flush=True,
        )
    return 1 if failed else 0
