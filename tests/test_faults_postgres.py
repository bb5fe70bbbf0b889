"""PostgreSQL restarted while annotators submit judgments to gunicorn over HTTP: requests
that cannot reach it answer 503 with Retry-After, clients send them again, stale connections
are replaced after the restart, and every acknowledged judgment is saved exactly once."""

from __future__ import annotations

import threading
import time

import pytest

from tests.faults_seed import ANNOTATOR_PASSWORD
from tests.faults_support import (
    Http,
    Response,
    assert_saved_exactly_once,
    gunicorn,
    wait_until,
)

pytestmark = pytest.mark.faults

CLIENTS = 4
GIVE_UP_AFTER = 60.0  # seconds of 503s before a client fails the test


class ApiAnnotator(threading.Thread):
    """Judges items through the annotator API, as a crowdsourcing front end would: a 503 is
    sent again unchanged; a 200 "already recorded" acknowledges it like a 201."""

    def __init__(self, url: str, name: str, token: str, task: int, stop: threading.Event):
        super().__init__(name=name, daemon=True)
        self.http = Http(url, token=token)
        self.task, self.stop = task, stop
        self.responses: list[Response] = []
        self.acknowledged: dict[int, tuple[str, int]] = {}
        self.last: dict[str, int] | None = None
        self.error: BaseException | None = None

    def call(self, method: str, path: str, payload: dict | None = None) -> Response:
        deadline = time.monotonic() + GIVE_UP_AFTER
        while True:
            if payload is None:
                response = self.http.request(method, path)
            else:
                response = self.http.post_json(path, payload)
            self.responses.append(response)
            if response.status != 503 or time.monotonic() > deadline:
                return response
            time.sleep(0.2)

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                item = self.call("GET", f"/api/v1/tasks/{self.task}/next")
                assert item.status == 200, item.body
                if item.json()["done"]:
                    return
                slot = item.json()["slot"]
                payload = {"task": self.task, "slot": slot, "score": slot % 5 + 1}
                answer = self.call("POST", "/api/v1/judgments", payload)
                assert answer.status in (200, 201), answer.body
                self.acknowledged[slot] = (self.name, payload["score"])
                self.last = payload
                time.sleep(0.03)
        except BaseException as error:
            self.error = error


def test_postgres_restart_while_annotators_submit(fault_database, private_redis):
    db = fault_database
    task = db.seed["task"]
    stop = threading.Event()
    with gunicorn(db.url, private_redis.url) as url:
        page = Http(url)
        page.log_in("ann5", ANNOTATOR_PASSWORD)
        clients = [
            ApiAnnotator(url, f"ann{i}", db.seed["annotator_tokens"][f"ann{i}"], task, stop)
            for i in range(CLIENTS)
        ]
        for client in clients:
            client.start()
        try:
            wait_until(lambda: all(len(c.acknowledged) >= 3 for c in clients), 60, "warm-up")
            db.server.stop()  # fast shutdown: sessions in flight are terminated
            # Pages answer with a small HTML page that reloads itself.
            html = page.get(f"/annotate/{task}/")
            assert html.status == 503
            assert html.headers["Content-Type"].startswith("text/html")
            assert html.headers["Retry-After"] == "2"
            assert b"briefly unavailable" in html.body and b'http-equiv="refresh"' in html.body
            time.sleep(1)
            db.server.start()
            up = time.monotonic()
            before = {c.name: len(c.acknowledged) for c in clients}
            wait_until(
                lambda: all(len(c.acknowledged) >= before[c.name] + 3 for c in clients),
                60,
                "judging after the restart",
            )
        finally:
            stop.set()
            for client in clients:
                client.join(timeout=GIVE_UP_AFTER + 10)
        assert [c.error for c in clients] == [None] * CLIENTS
        # Sending an acknowledged judgment again is acknowledged again, and changes nothing.
        for client in clients:
            again = client.http.post_json("/api/v1/judgments", client.last)
            assert again.status == 200 and again.json()["status"] == "already_recorded"

    responses = [response for client in clients for response in client.responses]
    statuses = sorted({response.status for response in responses})
    unavailable = [response for response in responses if response.status == 503]
    print(
        f"\n{len(responses)} requests, statuses {statuses}, {len(unavailable)} answered 503, "
        f"{sum(len(c.acknowledged) for c in clients)} judgments acknowledged"
    )
    assert statuses == [200, 201, 503]  # no 500, and the outage was seen
    for response in unavailable:
        assert response.headers["Retry-After"] == "2"
        assert response.json() == {
            "error": "The database is briefly unavailable; retry.",
            "code": "unavailable",
        }
    # Connections the restart left stale are checked and replaced (CONN_HEALTH_CHECKS): once
    # the server accepts connections again, no request fails.
    assert [r for r in unavailable if r.sent_at > up] == []
    acknowledged = {slot: ack for client in clients for slot, ack in client.acknowledged.items()}
    assert_saved_exactly_once(db, acknowledged)
