"""Jobs run by a real Celery worker against the real database and Redis (no eager mode)."""

import pytest
from django.db import transaction

from annotation.models import Job
from annotation.services.jobs import job_dispatch_pending, job_request
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
