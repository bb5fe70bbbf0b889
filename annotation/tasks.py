"""Celery tasks: thin adapters that take ids and call services."""

from __future__ import annotations

import logging
import os
import socket
import uuid

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_ready
from django.db import InterfaceError, OperationalError

from annotation.services import jobs as job_services
from annotation.services import results_snapshots

logger = logging.getLogger(__name__)

TRANSIENT_ERRORS = (OperationalError, InterfaceError)


@shared_task(
    name=job_services.RUN_JOB_TASK,
    bind=True,
    acks_late=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    retry_backoff_max=60,
    max_retries=8,
)
def run_job(self, job_id: int) -> None:
    worker = f"{self.request.hostname or socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    job = job_services.job_start(job_id=job_id, worker=worker)
    if job is None:
        # A duplicate message (re-sent from a long queue, redelivered): the job is running
        # on another worker or already done.
        logger.info("job %s: not started, it is running elsewhere or finished", job_id)
        return
    try:
        with job_services.job_heartbeat(job_id=job.id, worker=worker):
            job_services.job_handler(kind=job.kind)(
                target_id=job.target_id,
                report_progress=job_services.job_progress_reporter(job_id=job.id),
            )
    except TRANSIENT_ERRORS as error:
        if self.request.retries >= self.max_retries:
            job_services.job_fail(
                job_id=job.id, worker=worker, message=f"gave up after retries: {error}"
            )
        else:
            job_services.job_release(job_id=job.id, worker=worker)
        raise  # retried by Celery
    except SoftTimeLimitExceeded:
        job_services.job_fail(job_id=job.id, worker=worker, message="time limit exceeded")
        return
    except Exception as error:
        logger.exception("job %s failed", job_id)
        job_services.job_fail(
            job_id=job.id, worker=worker, message=f"{type(error).__name__}: {error}"
        )
        return
    job_services.job_finish(job_id=job.id, worker=worker)


@shared_task(ignore_result=True)
def dispatch_pending_jobs() -> int:
    return job_services.job_dispatch_pending()


@shared_task(ignore_result=True)
def refresh_stale_results_snapshots() -> int:
    return results_snapshots.results_snapshots_refresh_stale()


@worker_ready.connect
def _dispatch_on_start(sender, **kwargs) -> None:
    # Jobs written while the broker was down, or left by a worker that died, are queued as
    # soon as a worker is up.
    dispatch_pending_jobs.delay()
