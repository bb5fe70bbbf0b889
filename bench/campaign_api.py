"""Runs a whole campaign through the REST API of a running stack (`make up`): upload →
task → launch → judgments → export, as an organiser's script would.

The manager creates the campaign, uploads the demo's source, reference and three systems,
creates a 1-5 adequacy task (validated: a bad setting comes back as 400 with the reason),
edits it, launches it; the annotator (an existing account, added to the campaign as an
annotator: through the members API when the stack has it, else in-process with the
services, as bench/_common.py does) judges every item it is given through
`/api/v1/tasks/<id>/next` and `/api/v1/judgments`; the manager pauses, resumes and closes
the task and downloads the judgments as CSV.

    .venv/bin/python bench/campaign_api.py [--url http://127.0.0.1:8000] \\
        [--user manager --password manager-demo] [--annotator ann --annotator-password ...]
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from upload import Api

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo" / "wmt21-en-de"
SYSTEMS = ("Online-B", "UEdin", "happypoet")
SEGMENTS = 20


def head(path: Path) -> bytes:
    return "\n".join(path.read_text(encoding="utf-8").split("\n")[:SEGMENTS]).encode() + b"\n"


def login(url: str, user: str, password: str) -> Api:
    api = Api(url)
    status, token = api.post_json("/api/v1/auth/token", {"username": user, "password": password})
    if status != 200:
        raise SystemExit(f"login of {user} failed ({status}): {token}")
    api.headers["Authorization"] = f"Token {token['token']}"  # type: ignore[index]
    return api


def add_annotator(api: Api, campaign_id: int, username: str) -> None:
    try:
        status, _ = api.post_json(
            f"/api/v1/campaigns/{campaign_id}/members", {"username": username, "role": "annotator"}
        )
    except ValueError:  # an HTML 404 page: no such endpoint in this stack
        status = 404
    if status in (200, 201):
        return
    # No members API in this stack: the services, in-process (same database).
    from _common import django_setup

    django_setup()
    from django.contrib.auth import get_user_model

    from annotation.models import Campaign
    from annotation.services.campaigns import membership_set

    membership_set(
        campaign=Campaign.objects.get(id=campaign_id),
        user=get_user_model().objects.get(username=username),
        role="annotator",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--user", default="manager")
    parser.add_argument("--password", default="manager-demo")
    parser.add_argument("--annotator", default="annotator1")
    parser.add_argument("--annotator-password", default="annotator-demo")
    args = parser.parse_args()
    started = time.perf_counter()
    manager = login(args.url, args.user, args.password)
    status, campaign = manager.post_json(
        "/api/v1/campaigns",
        {
            "name": f"bench-campaign {time.strftime('%H:%M:%S')} {uuid.uuid4().hex[:6]}",
            "source_language": "en",
            "target_language": "de",
        },
    )
    assert status == 201, campaign
    campaign_id = campaign["id"]  # type: ignore[index]
    base = f"/api/v1/campaigns/{campaign_id}"
    status, body = manager.upload(f"{base}/source", "source.en", head(DEMO / "source.en"))
    assert status == 201, body
    status, body = manager.upload(
        f"{base}/references", "reference.A.de", head(DEMO / "reference.A.de"), name="A"
    )
    assert status == 201, body
    for system in SYSTEMS:
        status, body = manager.upload(
            f"{base}/systems/upload", f"{system}.de", head(DEMO / f"{system}.de")
        )
        assert status == 201, body

    status, refused = manager.post_json(
        f"{base}/tasks", {"task_type": "adequacy", "repeat_rate": 0.7, "bad_reference_rate": 0.6}
    )
    print(f"invalid task refused ({status}): {refused['error']}")  # type: ignore[index]
    status, task = manager.post_json(f"{base}/tasks", {"task_type": "adequacy"})
    assert status == 201, task
    tasks = f"{base}/tasks/{task['id']}"  # type: ignore[index]
    status, task = manager.request(
        "PATCH", tasks, b'{"batch_size": 20, "instructions": "Score the meaning."}'
    )
    assert status == 200, task
    status, task = manager.post_json(f"{tasks}/launch", {})
    assert status == 200 and task["state"] == "launched", task  # type: ignore[index]

    add_annotator(manager, campaign_id, args.annotator)
    annotator = login(args.url, args.annotator, args.annotator_password)
    judged = 0
    while True:
        status, item = annotator.request("GET", f"/api/v1/tasks/{task['id']}/next")  # type: ignore[index]
        assert status == 200, item
        if item["done"]:  # type: ignore[index]
            break
        status, body = annotator.post_json(
            "/api/v1/judgments",
            {"task": task["id"], "slot": item["slot"], "score": 1 + judged % 5},  # type: ignore[index]
        )
        assert status == 201, body
        judged += 1
    for change in ("pause", "resume", "close"):
        status, body = manager.post_json(f"{tasks}/{change}", {})
        assert status == 200, body
    manager.connection.request(
        "GET", f"{base}/results/human/judgments.csv", headers=manager.headers
    )
    response = manager.connection.getresponse()
    rows = list(csv.DictReader(io.StringIO(response.read().decode())))
    assert response.status == 200 and len(rows) == judged, (response.status, len(rows), judged)
    print(
        f"campaign {campaign_id}: {len(SYSTEMS)} systems × {SEGMENTS} segments, {judged} "
        f"judgments, exported {len(rows)} rows in {time.perf_counter() - started:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
