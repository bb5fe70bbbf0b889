"""Jobs run by a real Celery worker against the real database and Redis (no eager mode)."""

import threading
import time

import pytest
from django.db import connection, transaction

from annotation.models import Job
from annotation.services.jobs import job_dispatch_pending, job_finish, job_request, job_start
from tests.conftest import wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


def test_worker_runs_a_job_written_in_a_transaction(celery_worker_process):
    with transaction.atomic():
        job = job_request(kind=Job.Kind.PING, target_id=1)
        # Not queued before the transaction commits: the worker could not see the row yet.
        assert Job.objects.get(id=job.id).state == Job.State.PENDING

    done = wait_for(lambda: Job.objects.filter(id=job.id, state=Job.State.DONE).first())
    assert done.progress == 100
    assert done.attempts == 1
    assert done.started_at is not None and done.finished_at >= done.started_at


def test_job_rolled_back_with_its_data_is_never_run(celery_worker_process):
    with pytest.raises(RuntimeError), transaction.atomic():
        job_request(kind=Job.Kind.PING, target_id=2)
        raise RuntimeError("the upload failed")
    assert not Job.objects.filter(target_id=2).exists()


def test_pending_job_is_dispatched_later(celery_worker_process):
    # A job whose message never reached the broker (it was down) stays pending ...
    job = Job.objects.create(kind=Job.Kind.PING, target_id=3)
    # ... until the dispatcher, which the worker's beat runs periodically, queues it.
    assert job_dispatch_pending() == 1
    wait_for(lambda: Job.objects.filter(id=job.id, state=Job.State.DONE).exists())


def test_requesting_a_job_twice_runs_it_once_at_a_time(celery_worker_process):
    with transaction.atomic():
        first = job_request(kind=Job.Kind.PING, target_id=4)
        second = job_request(kind=Job.Kind.PING, target_id=4)
    assert first.id == second.id
    wait_for(lambda: Job.objects.filter(id=first.id, state=Job.State.DONE).exists())
    assert Job.objects.filter(kind=Job.Kind.PING, target_id=4).count() == 1


def test_a_job_killed_half_way_runs_again_and_completes(campaign, manager):
    """SIGKILL during a metrics job, its message lost too (as when Redis restarts): the job's
    heartbeat stops, the dispatcher of another worker queues it again, and that worker runs it
    from the start; its results are complete and not duplicated."""
    import os
    import signal
    import uuid

    from annotation.models import Output, RunScore, RunStatistics, SystemRun
    from annotation.services.imports import upload_import
    from annotation.tasks import run_job
    from tests.conftest import DATA, start_worker, stop_worker

    wmt21 = DATA / "wmt21-en-de"
    upload_import(
        campaign=campaign,
        kind="source",
        user=manager,
        files=[("src", (wmt21 / "newstest2021.en-de.src.en").read_bytes())],
    )
    upload_import(
        campaign=campaign,
        kind="reference",
        name="A",
        user=manager,
        files=[("ref", (wmt21 / "newstest2021.en-de.ref.A.de").read_bytes())],
    )
    path = wmt21 / "system-outputs" / "newstest2021.en-de.hyp.Online-B.de"
    with transaction.atomic():
        upload_import(
            campaign=campaign,
            kind="system",
            name="Online-B",
            user=manager,
            files=[(path.name, path.read_bytes())],
        )
        # The upload's own message (sent on commit) then finds no job and does nothing ...
        Job.objects.filter(kind=Job.Kind.RUN_METRICS).delete()
    run = SystemRun.objects.get()
    # ... and the job goes to a queue of this test's own, so only its workers take it.
    job = Job.objects.create(kind=Job.Kind.RUN_METRICS, target_id=run.id, state=Job.State.QUEUED)
    queue = f"kill-{uuid.uuid4().hex[:6]}"
    heartbeat = {"JOB_HEARTBEAT_SECONDS": "0.5", "JOB_HEARTBEAT_TIMEOUT_SECONDS": "3"}
    first = start_worker(queue, **heartbeat)
    run_job.apply_async(args=[job.id], queue=queue)
    # Kill it once BLEU and chrF are stored and TER (seconds of work) is under way.
    wait_for(lambda: Job.objects.filter(id=job.id, progress__gte=25).exists(), timeout=60)
    time.sleep(1.5)  # long enough for a beat after the last progress report
    running = Job.objects.get(id=job.id)
    assert running.attempts == 1
    assert running.heartbeat > running.started_at  # it beats while it runs
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    first.log.close()
    # The message is not delivered again: the unacknowledged copy expires only after the
    # visibility timeout (15 minutes), so only the heartbeat can bring the job back.
    assert Job.objects.get(id=job.id).state == Job.State.RUNNING
    assert RunScore.objects.filter(run=run, metric="ter").count() == 0
    before = dict(RunScore.objects.filter(run=run).values_list("metric", "score"))

    second = start_worker(queue, beat=True, **heartbeat)
    try:
        done = wait_for(
            lambda: Job.objects.filter(id=job.id, state=Job.State.DONE).first(), timeout=180
        )
    finally:
        stop_worker(second)
    assert done.attempts == 2
    assert done.worker == ""
    assert sorted(RunScore.objects.filter(run=run).values_list("metric", flat=True)) == [
        "bleu",
        "chrf",
        "ter",
    ]
    assert RunStatistics.objects.filter(run=run).count() == 3
    # Complete: every metric over every segment; what the killed attempt stored is the same.
    segments = Output.objects.filter(run=run).count()
    assert segments > 1000
    assert (
        list(RunStatistics.objects.filter(run=run).values_list("rows", flat=True)) == [segments] * 3
    )
    after = dict(RunScore.objects.filter(run=run).values_list("metric", "score"))
    assert set(before) == {"bleu", "chrf"}
    assert {metric: after[metric] for metric in before} == before


def test_of_workers_starting_one_job_together_exactly_one_runs_it():
    job = Job.objects.create(kind=Job.Kind.PING, target_id=5, state=Job.State.QUEUED)
    workers = 6
    barrier = threading.Barrier(workers)
    started: list[Job | None] = []

    def take(name: str) -> None:
        try:
            barrier.wait()
            started.append(job_start(job_id=job.id, worker=name))
        finally:
            connection.close()

    threads = [threading.Thread(target=take, args=(f"worker-{n}",)) for n in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [taken for taken in started if taken is not None]
    assert len(started) == workers and len(winners) == 1
    job.refresh_from_db()
    assert job.state == Job.State.RUNNING
    assert job.worker == winners[0].worker and job.attempts == 1
    # A later duplicate message is dropped too, while the job runs and once it is done.
    assert job_start(job_id=job.id, worker="late") is None
    job_finish(job_id=job.id, worker=job.worker)
    assert job_start(job_id=job.id, worker="late") is None
    assert Job.objects.get(id=job.id).state == Job.State.DONE
