"""Redis stopped under a running stack (gunicorn, a Celery worker with beat, private
PostgreSQL and Redis): annotators keep judging, an upload's metrics job waits in the outbox,
/healthz says the broker is down, and the job runs once as soon as Redis is back."""

from __future__ import annotations

import re
import time

import pytest

from annotation.services.scoring import JOB_METRICS
from tests.conftest import start_worker, stop_worker
from tests.faults_seed import ANNOTATOR_PASSWORD, system_file
from tests.faults_support import Http, assert_saved_exactly_once, gunicorn, wait_until

pytestmark = pytest.mark.faults


class PageAnnotator:
    """An annotator on the pages: the annotate page, then its form, as the script sends it
    (``by_script``: JSON answers) or as a browser without JavaScript does (a redirect)."""

    def __init__(self, url: str, name: str, task: int, *, by_script: bool) -> None:
        self.http = Http(url)
        self.http.log_in(name, ANNOTATOR_PASSWORD)
        self.name, self.task, self.by_script = name, task, by_script

    def judge(self, acknowledged: dict[int, tuple[str, int]]) -> None:
        page = self.http.get(f"/annotate/{self.task}/")
        assert page.status == 200
        slot = int(re.search(rb'name="slot" value="(\d+)"', page.body).group(1))
        score = slot % 5 + 1
        response = self.http.post_form(
            f"/annotate/{self.task}/submit/",
            {"slot": str(slot), "candidates": "1", "score": str(score)},
            headers={"X-Requested-With": "fetch"} if self.by_script else {},
        )
        if self.by_script:
            assert response.status == 200 and response.json()["status"] == "recorded"
        else:
            assert response.status == 302
            assert response.headers["Location"] == f"/annotate/{self.task}/"
        acknowledged[slot] = (self.name, score)


def upload(manager: Http, campaign: int, system: str) -> float:
    """Uploads a system's outputs through the API; returns how long the request took."""
    response = manager.post_files(
        f"/api/v1/campaigns/{campaign}/systems/upload", {}, system_file(system)
    )
    assert response.status == 201, response.body
    return response.seconds


def test_redis_down_judging_goes_on_and_jobs_wait_in_the_outbox(fault_database, private_redis):
    db = fault_database
    task, campaign = db.seed["task"], db.seed["campaign"]
    acknowledged: dict[int, tuple[str, int]] = {}

    def jobs() -> dict[int, tuple[str, int]]:
        rows = db.query("SELECT target_id, state, attempts FROM annotation_job")
        return {run: (state, attempts) for run, state, attempts in rows}

    with gunicorn(db.url, private_redis.url) as url:
        worker = start_worker(
            "faults",
            database_url=db.url,
            redis_url=private_redis.url,
            beat=True,
            DISPATCH_INTERVAL_SECONDS="1",
        )
        try:
            # The seed wrote its metrics jobs with no broker: the worker queued them on start.
            wait_until(lambda: {s for s, _ in jobs().values()} == {"done"}, 60, "seeded jobs")
            health = Http(url).get("/healthz")
            assert health.status == 200, health.body
            annotators = [PageAnnotator(url, f"ann{i}", task, by_script=i != 2) for i in range(3)]
            for annotator in annotators:
                annotator.judge(acknowledged)

            private_redis.stop()
            health = Http(url).get("/healthz")
            assert health.status == 503
            assert health.json()["broker"].startswith("down")
            assert health.json()["database"] == "ok"
            # Judging needs no broker: those logged in go on, and others can log in.
            annotators.append(PageAnnotator(url, "ann3", task, by_script=True))
            started = time.monotonic()
            for _ in range(2):
                for annotator in annotators:
                    annotator.judge(acknowledged)
            judging = (time.monotonic() - started) / 8
            # Two uploads: the broker refuses the first publish at once, later ones within
            # the 2 s broker connection timeout. The request is not held longer than that.
            manager = Http(url, token=db.seed["manager_token"])
            seconds = [
                upload(manager, campaign, name) for name in ("VolcTrans-GLAT", "Facebook-AI")
            ]
            assert max(seconds) < 10
            runs = dict(
                db.query(
                    "SELECT s.name, r.id FROM annotation_systemrun r "
                    "JOIN annotation_system s ON s.id = r.system_id"
                )
            )
            new_runs = [runs["VolcTrans-GLAT"], runs["Facebook-AI"]]
            assert [jobs()[run] for run in new_runs] == [("pending", 0)] * 2

            private_redis.start()
            back = time.monotonic()
            # Beat's dispatcher queues the pending jobs once the worker is connected again.
            wait_until(
                lambda: all(jobs()[run][0] == "done" for run in new_runs), 90, "jobs after Redis"
            )
            recovered = time.monotonic() - back
            wait_until(lambda: Http(url).get("/healthz").status == 200, 30, "healthy again")
        finally:
            stop_worker(worker)

    print(
        f"\njudgment round trip with Redis down: {judging * 1000:.0f} ms; uploads with Redis "
        f"down: {', '.join(f'{s:.2f}' for s in seconds)} s; pending jobs done "
        f"{recovered:.1f} s after Redis came back"
    )
    # Every job ran exactly once, and each new run has its scores once per metric.
    assert set(jobs().values()) == {("done", 1)}
    for run in new_runs:
        scores = db.query(
            "SELECT metric, count(*) FROM annotation_runscore WHERE run_id = %s GROUP BY metric",
            (run,),
        )
        assert sorted(scores) == sorted((metric, 1) for metric in JOB_METRICS)
    assert len(acknowledged) == 3 + 8
    assert_saved_exactly_once(db, acknowledged)
