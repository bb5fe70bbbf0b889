"""The job outbox: jobs are rows first and Celery messages second.

A job runs exactly once at a time: a worker takes it with one conditional update, so of two
messages for the same job (a re-sent one, a redelivered one) only the first starts it. A
running job's worker beats in the row; a job whose heartbeat stopped lost its worker and the
dispatcher queues it again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import F, Q
from django.db.models.functions import Now
from django.utils import timezone

from annotation.models import Assignment, Campaign, Job, SystemRun, Task
from annotation.services.adaptive import task_priorities_refresh
from annotation.services.scoring import run_metrics_compute
from annotation.services.snapshot_compute import results_snapshots_refresh

logger = logging.getLogger(__name__)

# A job queued this long ago and still not started lost its message (broker restarted
# without persistence, say): the dispatcher queues it again.
REQUEUE_AFTER = timedelta(minutes=5)
# A job whose worker was lost this many times (it kills its process, say) fails instead.
MAX_ATTEMPTS = 5
STARTABLE_STATES = (Job.State.PENDING, Job.State.QUEUED)
# The Celery task that runs a job (annotation/tasks.py, the adapter): sent by name, so that
# this module does not import its adapter, which imports it.
RUN_JOB_TASK = "annotation.tasks.run_job"


def _ping(*, target_id: int, report_progress: Callable[[int], None]) -> None:
    """A job that does nothing: the health check's probe of the worker."""


# Job kind -> the service that does the work, called with the job's target id.
JOB_HANDLERS: dict[str, Callable[..., None]] = {
    Job.Kind.RUN_METRICS: run_metrics_compute,
    Job.Kind.RESULTS_SNAPSHOT: results_snapshots_refresh,
    Job.Kind.PING: _ping,
    Job.Kind.REFRESH_PRIORITIES: task_priorities_refresh,
}


def job_handler(*, kind: str) -> Callable[..., None]:
    """The service that runs a job of ``kind``; ValueError for a kind with none."""
    try:
        return JOB_HANDLERS[kind]
    except KeyError:
        raise ValueError(f"unknown job kind {kind!r}") from None


def _worker_is_gone() -> Q:
    """Running jobs whose worker stopped beating (killed, its host gone).

    Heartbeats are written and compared in the database's clock, so workers and dispatchers
    on hosts whose clocks differ agree on which worker is late."""
    stale = Now() - timedelta(seconds=settings.JOB_HEARTBEAT_TIMEOUT_SECONDS)
    return Q(state=Job.State.RUNNING) & (Q(heartbeat__lt=stale) | Q(heartbeat__isnull=True))


def _reset(job: Job) -> None:
    """Back to pending, as a new request; the caller queues it on commit."""
    job.state = Job.State.PENDING
    job.progress = 0
    job.message = ""
    job.attempts = 0
    job.worker = ""
    job.rerun_requested = False
    job.queued_at = job.started_at = job.finished_at = job.heartbeat = None
    job.save()


def _dispatch_on_commit(job: Job) -> None:
    transaction.on_commit(lambda: job_dispatch(job_id=job.id))


@transaction.atomic
def job_request(*, kind: str, target_id: int) -> Job:
    """Asks for ``kind`` on ``target_id`` because its data changed; queued on commit.

    Idempotent: a job already pending or queued is left alone (it reads the data when it
    starts), a running one is marked to run once more when it ends (it may have read the
    data before the change), and a finished one is run again.
    """
    job, _ = Job.objects.select_for_update().get_or_create(kind=kind, target_id=target_id)
    if job.state == Job.State.RUNNING:
        if not job.rerun_requested:
            job.rerun_requested = True
            job.save(update_fields=["rerun_requested"])
    elif job.is_finished:
        _reset(job)
    if job.state == Job.State.PENDING:
        _dispatch_on_commit(job)
    return job


def task_priorities_request(*, task: Task) -> None:
    """Asks for an adaptive task's priorities and stopping rule to be refreshed (queued on
    commit, ``adaptive.task_priorities_refresh``); nothing for a planned task."""
    if task.assignment == Assignment.ADAPTIVE:
        job_request(kind=Job.Kind.REFRESH_PRIORITIES, target_id=task.id)


@transaction.atomic
def job_rerun(*, kind: str, target_id: int) -> Job:
    """Runs the job again from whatever state it is in, so "Rerun" never finds it stuck.

    A job running on a live worker is left to it (it runs once more if its data changed
    since it started). Any other job, including one running on a worker that stopped
    beating, is reset and queued anew; a message of its still in the queue is then dropped
    by ``job_start`` once the new one has started it.
    """
    job, _ = Job.objects.select_for_update().get_or_create(kind=kind, target_id=target_id)
    if Job.objects.filter(id=job.id).filter(_worker_is_gone()).exists():
        logger.warning("job %s: its worker %s stopped beating; queued again", job.id, job.worker)
    elif job.state == Job.State.RUNNING:
        return job
    _reset(job)
    _dispatch_on_commit(job)
    return job


def job_dispatch(*, job_id: int) -> bool:
    """Hands a pending job to the broker; False (and the job stays pending) if it is down."""
    from celery import current_app

    try:
        current_app.send_task(RUN_JOB_TASK, args=[job_id], retry=False)
    except Exception as error:  # any broker failure: the row stays pending for the dispatcher
        logger.warning("job %s stays pending, broker unavailable: %s", job_id, error)
        return False
    Job.objects.filter(id=job_id, state=Job.State.PENDING).update(
        state=Job.State.QUEUED, queued_at=timezone.now()
    )
    return True


def job_dispatch_pending(*, limit: int = 500) -> int:
    """Queues jobs that never reached the broker, whose message was lost or whose worker is
    gone; returns how many were queued."""
    job_recover_lost()
    job_ids = list(
        Job.objects.filter(state=Job.State.PENDING)
        .order_by("created_at")
        .values_list("id", flat=True)[:limit]
    )
    dispatched = 0
    for job_id in job_ids:
        if not job_dispatch(job_id=job_id):
            break
        dispatched += 1
    return dispatched


@transaction.atomic
def job_recover_lost() -> int:
    """Returns to pending the jobs queued too long ago and those whose worker stopped beating
    (a job that lost its worker ``MAX_ATTEMPTS`` times fails); returns how many."""
    now = timezone.now()
    requeued = Job.objects.filter(state=Job.State.QUEUED, queued_at__lt=now - REQUEUE_AFTER).update(
        state=Job.State.PENDING
    )
    lost = Job.objects.filter(_worker_is_gone())
    failed = lost.filter(attempts__gte=MAX_ATTEMPTS).update(
        state=Job.State.FAILED,
        finished_at=now,
        worker="",
        message=f"its worker was lost {MAX_ATTEMPTS} times; rerun it once the cause is fixed",
    )
    recovered = lost.filter(attempts__lt=MAX_ATTEMPTS).update(
        state=Job.State.PENDING, worker="", heartbeat=None, progress=0
    )
    if recovered or failed:
        logger.warning("jobs whose worker is gone: %s queued again, %s failed", recovered, failed)
    return requeued + recovered + failed


@transaction.atomic
def job_start(*, job_id: int, worker: str) -> Job | None:
    """Takes the job for ``worker``; None when another worker runs it or it is finished.

    One conditional update: of two workers holding a message for the same job, exactly one
    moves it to running (PostgreSQL re-checks the condition on the row the other committed).
    A running job is taken over only when its worker stopped beating.
    """
    startable = Q(state__in=STARTABLE_STATES) | (_worker_is_gone() & Q(attempts__lt=MAX_ATTEMPTS))
    taken = (
        Job.objects.filter(id=job_id)
        .filter(startable)
        .update(
            state=Job.State.RUNNING,
            worker=worker[:200],
            heartbeat=Now(),
            started_at=Now(),
            finished_at=None,
            attempts=F("attempts") + 1,
            progress=0,
            message="",
            # What it reads from now on includes every change requested so far.
            rerun_requested=False,
        )
    )
    return Job.objects.get(id=job_id) if taken else None


@contextmanager
def job_heartbeat(*, job_id: int, worker: str) -> Iterator[None]:
    """Beats for the job from a thread of its own while the block runs, so a long step (TER
    on a large test set) does not look like a dead worker."""
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(settings.JOB_HEARTBEAT_SECONDS):
                try:
                    Job.objects.filter(id=job_id, state=Job.State.RUNNING, worker=worker).update(
                        heartbeat=Now()
                    )
                except DatabaseError as error:  # the next beat tries again
                    logger.warning("job %s: heartbeat not recorded: %s", job_id, error)
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=beat, name=f"job-{job_id}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def job_progress_reporter(*, job_id: int) -> Callable[[int], None]:
    """A callback that records progress (0-100) outside any transaction, so pages see it."""

    def report(percent: int) -> None:
        Job.objects.filter(id=job_id).update(
            progress=max(0, min(100, int(percent))), heartbeat=Now()
        )

    return report


def _held(job_id: int, worker: str) -> Job | None:
    """The job, locked, if ``worker`` still runs it (not taken over after a lost heartbeat)."""
    return (
        Job.objects.select_for_update()
        .filter(id=job_id, state=Job.State.RUNNING, worker=worker)
        .first()
    )


@transaction.atomic
def job_finish(*, job_id: int, worker: str) -> None:
    """Done, or queued once more if its data changed while it ran."""
    job = _held(job_id, worker)
    if job is None:
        return  # another worker took it over; its run is the one that counts
    if job.rerun_requested:
        _reset(job)
        _dispatch_on_commit(job)
        return
    job.state = Job.State.DONE
    job.progress = 100
    job.finished_at = timezone.now()
    job.message = ""
    job.worker = ""
    job.save(update_fields=["state", "progress", "finished_at", "message", "worker"])


@transaction.atomic
def job_fail(*, job_id: int, worker: str, message: str) -> None:
    """Failed, or queued once more if its data changed while it ran (it may now succeed)."""
    job = _held(job_id, worker)
    if job is None:
        return
    if job.rerun_requested:
        _reset(job)
        _dispatch_on_commit(job)
        return
    job.state = Job.State.FAILED
    job.finished_at = timezone.now()
    job.message = message[:500]
    job.worker = ""
    job.save(update_fields=["state", "finished_at", "message", "worker"])


@transaction.atomic
def job_release(*, job_id: int, worker: str) -> None:
    """Gives a job back to the queue before Celery retries it (a transient error), so the
    retry's message can take it again."""
    Job.objects.filter(id=job_id, state=Job.State.RUNNING, worker=worker).update(
        state=Job.State.QUEUED, worker="", heartbeat=None, queued_at=timezone.now()
    )


@transaction.atomic
def campaign_metrics_recompute(*, campaign: Campaign, only_unfinished: bool = False) -> int:
    """Runs the metrics job of every run again (e.g. after a failure, or a job left running
    by a worker that died); returns how many were asked for."""
    run_ids = list(SystemRun.objects.filter(campaign=campaign).values_list("id", flat=True))
    if only_unfinished:
        done = set(
            Job.objects.filter(
                kind=Job.Kind.RUN_METRICS, target_id__in=run_ids, state=Job.State.DONE
            ).values_list("target_id", flat=True)
        )
        run_ids = [run_id for run_id in run_ids if run_id not in done]
    for run_id in run_ids:
        job_rerun(kind=Job.Kind.RUN_METRICS, target_id=run_id)
    return len(run_ids)
