"""The job row's state machine, step by step (the real-worker runs are in test_jobs_worker)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Job
from annotation.services.jobs import (
    MAX_ATTEMPTS,
    job_finish,
    job_recover_lost,
    job_release,
    job_request,
    job_start,
)

pytestmark = pytest.mark.django_db

LONG_AGO = timedelta(hours=1)


def running(target_id: int, *, worker: str = "w1", attempts: int = 1, beat_ago=None) -> Job:
    job = Job.objects.create(kind=Job.Kind.PING, target_id=target_id, state=Job.State.QUEUED)
    assert job_start(job_id=job.id, worker=worker) is not None
    fields = {"attempts": attempts}
    if beat_ago is not None:
        fields["heartbeat"] = timezone.now() - beat_ago
    Job.objects.filter(id=job.id).update(**fields)
    return Job.objects.get(id=job.id)


def test_a_request_while_running_runs_the_job_once_more_after():
    job = running(1)
    assert job_request(kind=Job.Kind.PING, target_id=1).rerun_requested
    job_finish(job_id=job.id, worker="w1")
    job.refresh_from_db()
    assert (job.state, job.rerun_requested, job.worker) == (Job.State.PENDING, False, "")
    assert job_start(job_id=job.id, worker="w2") is not None


def test_a_worker_that_lost_its_job_cannot_finish_it():
    job = running(2, beat_ago=LONG_AGO)
    assert job_start(job_id=job.id, worker="w2") is not None  # taken over
    job_finish(job_id=job.id, worker="w1")
    job.refresh_from_db()
    assert (job.state, job.worker, job.attempts) == (Job.State.RUNNING, "w2", 2)


def test_a_job_released_for_a_retry_can_be_taken_again():
    job = running(3)
    assert job_start(job_id=job.id, worker="w2") is None
    job_release(job_id=job.id, worker="w1")
    assert Job.objects.get(id=job.id).state == Job.State.QUEUED
    assert job_start(job_id=job.id, worker="w1-retry") is not None


def test_lost_workers_requeue_their_jobs_until_the_limit_then_fail():
    alive = running(4)
    lost = running(5, beat_ago=LONG_AGO)
    hopeless = running(6, attempts=MAX_ATTEMPTS, beat_ago=LONG_AGO)
    assert job_start(job_id=hopeless.id, worker="w2") is None
    assert job_recover_lost() == 2
    states = dict(Job.objects.values_list("id", "state"))
    assert states == {
        alive.id: Job.State.RUNNING,
        lost.id: Job.State.PENDING,
        hopeless.id: Job.State.FAILED,
    }
    assert "lost 5 times" in Job.objects.get(id=hopeless.id).message
