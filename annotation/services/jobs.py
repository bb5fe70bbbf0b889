"""The job outbox: jobs are rows first and Celery messages second."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from annotation.models import Job

logger = logging.getLogger(__name__)

# A job queued this long ago and still not started lost its message (broker restarted
# without persistence, say): the dispatcher queues it again.
REQUEUE_AFTER = timedelta(minutes=5)


@transaction.atomic
def job_request(*, kind: str, target_id: int) -> Job:
    """Asks for ``kind`` on ``target_id``; queued when the caller's transaction commits.

    Idempotent: a job already pending, queued or running is left alone, and a finished one
    is run again (new data arrived for it).
    """
    job, created = Job.objects.select_for_update().get_or_create(kind=kind, target_id=target_id)
    if not created and job.is_finished:
        job.state = Job.State.PENDING
        job.progress = 0
        job.message = ""
        job.attempts = 0
        job.queued_at = job.started_at = job.finished_at = None
        job.save()
    if job.state == Job.State.PENDING:
        transaction.on_commit(lambda: job_dispatch(job_id=job.id))
    return job


def job_dispatch(*, job_id: int) -> bool:
    """Hands a pending job to the broker; False (and the job stays pending) if it is down."""
    from annotation.tasks import run_job

    try:
        run_job.apply_async(args=[job_id], retry=False)
    except Exception as error:  # any broker failure: the row stays pending for the dispatcher
        logger.warning("job %s stays pending, broker unavailable: %s", job_id, error)
        return False
    Job.objects.filter(id=job_id, state=Job.State.PENDING).update(
        state=Job.State.QUEUED, queued_at=timezone.now()
    )
    return True


def job_dispatch_pending(*, limit: int = 500) -> int:
    """Queues jobs that never reached the broker or whose message was lost; returns how many."""
    stale = timezone.now() - REQUEUE_AFTER
    Job.objects.filter(state=Job.State.QUEUED, queued_at__lt=stale).update(state=Job.State.PENDING)
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
def job_start(*, job_id: int) -> Job | None:
    """Marks the job running; None when there is nothing to do (unknown or already done)."""
    job = Job.objects.select_for_update().filter(id=job_id).first()
    if job is None or job.state == Job.State.DONE:
        return None
    job.state = Job.State.RUNNING
    job.attempts += 1
    job.started_at = timezone.now()
    job.message = ""
    job.save(update_fields=["state", "attempts", "started_at", "message"])
    return job


def job_progress_reporter(*, job_id: int) -> Callable[[int], None]:
    """A callback that records progress (0-100) outside any transaction, so pages see it."""

    def report(percent: int) -> None:
        Job.objects.filter(id=job_id).update(progress=max(0, min(100, int(percent))))

    return report


@transaction.atomic
def job_finish(*, job_id: int) -> None:
    Job.objects.filter(id=job_id).update(
        state=Job.State.DONE, progress=100, finished_at=timezone.now(), message=""
    )


@transaction.atomic
def job_fail(*, job_id: int, message: str) -> None:
    Job.objects.filter(id=job_id).update(
        state=Job.State.FAILED, finished_at=timezone.now(), message=message[:500]
    )
