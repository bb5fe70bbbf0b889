"""An adaptive task run end to end through the API until it stops by itself (issue 23).

    .venv/bin/python bench/adaptive_e2e.py [--annotators 20] [--systems ref-B,DIDI-NLP,...|all]
        [--segments 529] [--batch-size 10] [--cold-start 10] [--delta 0] [--budget 0]

Builds a campaign from the MQM TED zh-en campaign (tests/adaptive_support.py: one output per
(system, segment) whose text names both, answered with the real judgment, DA = 100 - 4 MQM),
launches an adequacy task on the DA scale with ``assignment=adaptive``, starts its own
gunicorn and Celery worker (on a private port and queue, against DATABASE_URL), and lets
``--annotators`` scripted annotators judge over HTTP at once (GET next, then one POST per
judgment) until the task hands them nothing more. Prints the judgments when the stopping
rule settled the task (recorded in its notice), the judgments stored in all (those in flight
when it stopped included), the task's size (items, quality control included), the reason,
the order, and whether the database holds exactly the acknowledged judgments. ``--json``
prints the same as one JSON line. ``--screenshot FILE.png`` logs the campaign's owner in
with headless Chromium once the task stopped and saves its human results page (the live
ranking status and rolling intervals). Exit code 1 if the task did not stop by itself, a
judgment was lost or duplicated, or an annotator got an item twice.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from http.client import HTTPException

from _common import ROOT, Client, api_tokens, django_setup, wait_answering

from tests.adaptive_support import (
    adaptive_campaign,
    common_segments,
    da_answer,
    mqm_segment_scores,
)

VAR = ROOT / "var" / "adaptive-e2e"
# Four outputs of the campaign whose neighbours differ by 1.2-2.6 MQM points (the human
# reference ref-B best, ref-A last, as the campaign found): resolvable within its 529
# segments; the 13 others include pairs 0.05 points apart, which no budget here resolves.
DEFAULT_SYSTEMS = ("ref-B", "DIDI-NLP", "Online-W", "ref-A")
OWNER_PASSWORD = "adaptive-e2e-owner-pw"


class Annotator(threading.Thread):
    def __init__(self, url: str, token: str, task_id: int, scores) -> None:
        super().__init__(daemon=True)
        self.client = Client(
            url, {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        )
        self.task_id, self.scores = task_id, scores
        self.acknowledged: list[int] = []
        self.errors: list[str] = []

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        payload = json.dumps(body).encode() if body is not None else None
        status, _, data = self.client.request(method.lower(), method, path, payload)
        return status, json.loads(data or b"{}")

    def run(self) -> None:
        try:
            status, item = self.call("GET", f"/api/v1/tasks/{self.task_id}/next")
            while status == 200 and not item["done"]:
                answer = {
                    "task": self.task_id,
                    "slot": item["slot"],
                    "score": da_answer(self.scores, item["candidates"][0]["text"]),
                }
                status, result = self.call("POST", "/api/v1/judgments", answer)
                if status != 201:
                    self.errors.append(f"HTTP {status}: {str(result)[:200]}")
                    return
                self.acknowledged.append(result["id"])
                item = result["next"] or {"done": True}
                status = 200  # the answer carried the next item
            if status != 200:
                self.errors.append(f"next: HTTP {status}")
        except (OSError, HTTPException, ValueError) as error:
            self.errors.append(f"{type(error).__name__}: {error}")


def start_servers(port: int, queue: str, web_workers: int) -> list[subprocess.Popen]:
    """gunicorn and a Celery worker of this checkout on ``port`` and ``queue``; their logs in
    var/adaptive-e2e/."""
    VAR.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CELERY_QUEUE": queue, "WEB_WORKERS": str(web_workers)}
    bin_dir = os.path.dirname(sys.executable)
    web_log = open(VAR / "web.log", "w")  # noqa: SIM115 (closed with the process)
    web = subprocess.Popen(
        [
            os.path.join(bin_dir, "gunicorn"),
            "evalsite.wsgi",
            "-c",
            "evalsite/gunicorn.conf.py",
            "--bind",
            f"127.0.0.1:{port}",
        ],
        cwd=ROOT,
        env=env,
        stdout=web_log,
        stderr=subprocess.STDOUT,
    )
    worker_log = open(VAR / "worker.log", "w")  # noqa: SIM115
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "evalsite",
            "worker",
            "--pool=solo",
            "--without-mingle",
            "--without-gossip",
            "-Q",
            queue,
            "-n",
            f"{queue}@localhost",
        ],
        cwd=ROOT,
        env=env,
        stdout=worker_log,
        stderr=subprocess.STDOUT,
    )
    return [web, worker]


def stop_servers(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def run(args: argparse.Namespace, url: str) -> dict:
    from django.contrib.auth import get_user_model

    from annotation.models import Job, Judgment, Task, TaskNotice

    scores = mqm_segment_scores()
    systems = sorted(scores) if args.systems == "all" else args.systems.split(",")
    segments = common_segments(scores, systems)[: args.segments]
    owner = get_user_model().objects.create_user(
        f"adaptive-e2e-{uuid.uuid4().hex[:6]}", password=OWNER_PASSWORD
    )
    settings = {
        "batch_size": args.batch_size,
        "cold_start": args.cold_start,
        "equivalence_margin": args.delta,
        "judgment_budget": args.budget,
        "seed": args.seed,
    }
    task, users = adaptive_campaign(
        owner=owner,
        systems=systems,
        segments=segments,
        annotators=args.annotators,
        assignment="adaptive",
        **settings,
    )
    tokens = api_tokens([user.id for user in users])
    annotators = [Annotator(url, token, task.id, scores) for token in tokens]
    started = time.perf_counter()
    for annotator in annotators:
        annotator.start()
    for annotator in annotators:
        annotator.join()
    elapsed = time.perf_counter() - started
    # The refreshes still queued or running finish before the figures are read.
    deadline = time.monotonic() + 60
    while (
        time.monotonic() < deadline
        and Job.objects.filter(
            kind=Job.Kind.REFRESH_PRIORITIES,
            target_id=task.id,
            state__in=("pending", "queued", "running"),
        ).exists()
    ):
        time.sleep(0.2)
    task = Task.objects.get(id=task.id)
    notice = TaskNotice.objects.filter(task=task).first()
    acknowledged = [j for annotator in annotators for j in annotator.acknowledged]
    stored = list(Judgment.objects.filter(task=task).values_list("id", flat=True))
    twice = Counter(Judgment.objects.filter(task=task).values_list("annotator_id", "item_id"))
    errors = [e for annotator in annotators for e in annotator.errors]
    items = task.items.count()
    per_system = Counter(
        Judgment.objects.filter(task=task).values_list("item__system__name", flat=True)
    )
    return {
        "campaign": task.campaign_id,
        "task": task.id,
        "owner": owner.username,
        "annotators": args.annotators,
        "systems": len(systems),
        "segments": len(segments),
        "items": items,
        "outputs": len(systems) * len(segments),
        "settled": task.settled_reason or None,
        "judgments_at_stop": notice.figures["judgments"] if notice else None,
        "judgments_stored": len(stored),
        "share_of_items": round(len(stored) / items, 3),
        "order": notice.figures["order"] if notice else [],
        "pairs": notice.figures["pairs"] if notice else {},
        "per_system": dict(per_system.most_common()),
        "seconds": round(elapsed, 1),
        "judgments_per_s": round(len(stored) / elapsed, 1),
        "exact": sorted(stored) == sorted(acknowledged),
        "item_twice": max(twice.values(), default=0) > 1,
        "errors": len(errors),
        "first_error": errors[0] if errors else None,
        "settings": settings,
    }


def results_screenshot(url: str, result: dict, path: str) -> None:
    """The campaign's human results page as its owner sees it, whole."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"]
        )
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(f"{url}/login/")
        page.fill("input[name=username]", result["owner"])
        page.fill("input[name=password]", OWNER_PASSWORD)
        page.press("input[name=password]", "Enter")
        page.wait_for_url(lambda address: "/login/" not in address)
        page.goto(f"{url}/campaigns/{result['campaign']}/results/human/")
        page.wait_for_load_state("networkidle")
        page.screenshot(path=path, full_page=True)
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument(
        "--systems",
        default=",".join(DEFAULT_SYSTEMS),
        help="comma-separated; 'all': the campaign's 15 (several pairs then differ by less "
        "than a few hundred judgments can resolve: give a --budget)",
    )
    parser.add_argument("--segments", type=int, default=529, help="at most 529")
    parser.add_argument("--batch-size", type=int, default=10)
    parser.add_argument("--cold-start", type=int, default=10)
    parser.add_argument("--delta", type=float, default=0.0, help="equivalence margin, z units")
    parser.add_argument("--budget", type=int, default=0, help="judgments budget (0: none)")
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--port", type=int, default=8231)
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--screenshot", help="PNG file: the results page once the task stopped")
    args = parser.parse_args()
    django_setup()
    queue = f"adaptive-e2e-{uuid.uuid4().hex[:6]}"
    # Jobs requested from this process (none today) would go to the private queue as well.
    from evalsite.celery import app

    app.conf.task_default_queue = queue
    processes = start_servers(args.port, queue, args.web_workers)
    url = f"http://127.0.0.1:{args.port}"
    try:
        if wait_answering(url, "/healthz", "gunicorn", VAR / "web.log", tries=150) != 0:
            return 1
        result = run(args, url)
        if args.screenshot:
            results_screenshot(url, result, args.screenshot)
    finally:
        stop_servers(processes)
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['annotators']} annotators, {result['systems']} systems x "
            f"{result['segments']} segments: task of {result['items']} items"
        )
        print(
            f"stopped by itself: {result['settled'] or 'NO'}; judgments when the rule settled: "
            f"{result['judgments_at_stop']}; stored in all (in-flight included): "
            f"{result['judgments_stored']} = {100 * result['share_of_items']:.1f}% of the items"
        )
        print(f"pairs: {result['pairs']}; order: {', '.join(result['order'])}")
        print(f"judgments per system: {result['per_system']}")
        print(
            f"{result['seconds']} s, {result['judgments_per_s']} judgments/s; exactly the "
            f"acknowledged judgments stored: {'yes' if result['exact'] else 'NO'}; an item "
            f"twice to one annotator: {'YES' if result['item_twice'] else 'no'}; errors: "
            f"{result['errors']}" + (f" ({result['first_error']})" if result["errors"] else "")
        )
    ok = result["settled"] and result["exact"] and not result["item_twice"] and not result["errors"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
