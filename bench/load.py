"""N simulated annotators over HTTP against a running stack (`make up`).

Each annotator loops GET /api/v1/tasks/<id>/next → POST /api/v1/judgments with its own API
token. The script prints judgments per second and the p50/p95/p99 latency of both requests,
then checks that the database holds exactly the judgments the server acknowledged.
Target on a 2-core machine with everything on it: at least 200 judgments/s, p99 < 100 ms.

    .venv/bin/python bench/load.py [--annotators 50] [--seconds 30] [--url http://127.0.0.1:8000]

Setup (a campaign from the demo data with a launched adequacy task, and the annotator
accounts) goes straight through the services, as a manager's script would.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
import uuid
from http.client import HTTPConnection
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup(annotators: int, judgments_per_item: int) -> tuple[int, list[str]]:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    secret = ROOT / "var" / "secret_key"
    if "SECRET_KEY" not in os.environ and secret.exists():
        os.environ["SECRET_KEY"] = secret.read_text().strip()
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from annotation.services.campaigns import campaign_create, membership_set
    from annotation.services.imports import upload_import
    from annotation.services.tasks import task_create, task_launch

    demo = ROOT / "demo" / "wmt21-en-de"
    User = get_user_model()
    tag = uuid.uuid4().hex[:6]
    owner = User.objects.create_user(f"bench-manager-{tag}")
    campaign = campaign_create(
        name=f"bench-load {tag}", source_language="en", target_language="de", owner=owner
    )
    upload_import(
        campaign=campaign,
        kind="source",
        user=owner,
        files=[("source.en", (demo / "source.en").read_bytes())],
    )
    for system in ("Facebook-AI", "Online-B", "UEdin", "VolcTrans-GLAT", "happypoet"):
        upload_import(
            campaign=campaign,
            kind="system",
            name=system,
            user=owner,
            files=[(f"{system}.de", (demo / f"{system}.de").read_bytes())],
        )
    task = task_create(
        campaign=campaign, task_type="adequacy", judgments_per_item=judgments_per_item
    )
    task_launch(task_id=task.id)
    tokens = []
    for i in range(annotators):
        user = User.objects.create_user(f"bench-{tag}-{i}")
        membership_set(campaign=campaign, user=user, role="annotator")
        tokens.append(Token.objects.create(user=user).key)
    return task.id, tokens


def stored_judgments(task_id: int) -> set[int]:
    from annotation.models import Judgment

    return set(Judgment.objects.filter(task_id=task_id).values_list("id", flat=True))


class Annotator(threading.Thread):
    def __init__(self, url: str, token: str, task_id: int, deadline: float) -> None:
        super().__init__(daemon=True)
        parts = urlsplit(url)
        self.connection = HTTPConnection(parts.hostname, parts.port or 80, timeout=30)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        self.task_id, self.deadline = task_id, deadline
        self.latencies: list[float] = []
        self.acknowledged: list[int] = []
        self.errors: list[str] = []

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        started = time.perf_counter()
        payload = json.dumps(body).encode() if body is not None else None
        self.connection.request(method, path, body=payload, headers=self.headers)
        response = self.connection.getresponse()
        data = json.loads(response.read() or b"{}")
        self.latencies.append(time.perf_counter() - started)
        return response.status, data

    def run(self) -> None:
        while time.perf_counter() < self.deadline:
            try:
                status, item = self.call("GET", f"/api/v1/tasks/{self.task_id}/next")
                if status != 200:
                    self.errors.append(f"next: {status} {item}")
                    continue
                if item["done"]:
                    return
                status, result = self.call(
                    "POST",
                    "/api/v1/judgments",
                    {
                        "task": self.task_id,
                        "slot": item["slot"],
                        "score": 1 + item["slot"] % 5,
                    },
                )
                if status == 201:
                    self.acknowledged.append(result["id"])
                else:
                    self.errors.append(f"judgment: {status} {result}")
            except OSError as error:
                self.errors.append(f"connection: {error}")
                self.connection.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--judgments-per-item", type=int, default=50)
    args = parser.parse_args()

    task_id, tokens = setup(args.annotators, args.judgments_per_item)
    deadline = time.perf_counter() + args.seconds
    threads = [Annotator(args.url, token, task_id, deadline) for token in tokens]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started

    acknowledged = [i for thread in threads for i in thread.acknowledged]
    latencies = [value for thread in threads for value in thread.latencies]
    errors = [error for thread in threads for error in thread.errors]
    stored = stored_judgments(task_id)
    print(
        f"{args.annotators} annotators for {elapsed:.1f} s: {len(acknowledged)} judgments, "
        f"{len(acknowledged) / elapsed:.1f} judgments/s (target >= 200)"
    )
    if latencies:
        print(
            "latency per request (next or submit): "
            f"p50 {1000 * statistics.median(latencies):.1f} ms, "
            f"p95 {1000 * percentile(latencies, 0.95):.1f} ms, "
            f"p99 {1000 * percentile(latencies, 0.99):.1f} ms (target p99 < 100 ms)"
        )
    print(f"errors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    exact = stored == set(acknowledged) and len(acknowledged) == len(set(acknowledged))
    print(
        f"database holds exactly the acknowledged judgments: {'yes' if exact else 'NO'} "
        f"({len(stored)} stored, {len(set(acknowledged))} acknowledged)"
    )
    return 0 if exact and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
