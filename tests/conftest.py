"""Shared fixtures: users, campaigns, and a real Celery worker process."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from celery import Celery
from django.conf import settings

from evalsite.celery import app as celery_app
from tests.faults_support import fault_database, private_postgres, private_redis  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"

# Every message this test session publishes goes to a queue of its own, set before the first
# publish (Celery caches its queues then), so a worker of a running stack never takes them.
TEST_QUEUE = f"evalsite-test-{uuid.uuid4().hex[:8]}"
# Where a test holds its workers' metrics jobs before a metric (METRICS_JOB_TEST_HOLDS).
METRICS_JOB_HOLDS = ROOT / "var" / "metrics-job-holds" / TEST_QUEUE
celery_app.conf.task_default_queue = TEST_QUEUE


def start_worker(
    queue: str,
    *,
    database_url: str | None = None,
    redis_url: str | None = None,
    beat: bool = False,
    wait: bool = True,
    **extra_env: str,
) -> subprocess.Popen:
    """Starts ``celery worker`` listening on ``queue`` and waits until it answers a ping.

    It uses the test database and the test Redis unless ``database_url`` and ``redis_url``
    name others (the fault tests' private servers); ``beat`` embeds the periodic tasks.
    ``wait=False`` returns at once: a solo worker answers no ping while it runs a task, and
    one whose beat queues a long job again takes it as it starts."""
    db = settings.DATABASES["default"]
    database_url = database_url or (
        f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )
    redis_url = redis_url or settings.CELERY_BROKER_URL
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CELERY_QUEUE": queue,
        "DISPATCH_INTERVAL_SECONDS": "2",
        "METRICS_JOB_TEST_HOLDS": str(METRICS_JOB_HOLDS),
        **extra_env,
    }
    node = f"{queue}-{uuid.uuid4().hex[:4]}@localhost"
    (ROOT / "var").mkdir(exist_ok=True)
    log = open(ROOT / "var" / f"{node}.log", "w")  # noqa: SIM115 (closed with the process)
    schedule = ROOT / "var" / f"{node}.schedule"
    beat_args = ["-B", "--schedule", str(schedule)] if beat else []
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "evalsite",
            "worker",
            "--pool=solo",
            "--without-mingle",
            "--without-gossip",
            "-Q",
            queue,
            "-n",
            node,
            "--loglevel=INFO",
            *beat_args,
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: stop_worker also ends a beat child
    )
    process.log = log  # type: ignore[attr-defined]
    process.schedule = schedule  # type: ignore[attr-defined]
    if not wait:
        return process
    # Control messages go through the app's own producer pool, so another broker needs an
    # app of its own to ping through.
    pinger = celery_app if redis_url == settings.CELERY_BROKER_URL else Celery(broker=redis_url)
    deadline = time.monotonic() + 30
    try:
        while not pinger.control.ping(destination=[node], timeout=0.5):
            if process.poll() is not None or time.monotonic() > deadline:
                stop_worker(process)
                raise RuntimeError(f"the test worker did not start; see {log.name}")
    finally:
        if pinger is not celery_app:
            pinger.close()
    return process


def stop_worker(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # whatever the worker left in its group
    process.log.close()  # type: ignore[attr-defined]
    process.schedule.unlink(missing_ok=True)  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker):
    """A real worker for the session, on the session's own queue, so a stack started by
    ``make up`` (or a worker left over from another run) never takes the tests' messages."""
    # The messages earlier tests published with no worker running name jobs whose rows were
    # flushed with their test; a worker starting behind them would run late for a while.
    with celery_app.connection_for_write() as connection:
        connection.default_channel.queue_purge(TEST_QUEUE)
    process = start_worker(TEST_QUEUE)
    yield process
    stop_worker(process)


def pytest_sessionfinish(session, exitstatus):
    """The session's queue goes with it (messages no worker took would stay in Redis)."""
    with contextlib.suppress(Exception), celery_app.connection_for_write() as connection:
        connection.default_channel.client.delete(TEST_QUEUE)


def worker_queue_drained(timeout: float = 60.0) -> None:
    """Waits until the session worker has taken every message published so far (a test
    racing the worker starts from an empty queue, not behind earlier tests' messages)."""

    def drained() -> bool:
        with celery_app.connection_for_write() as connection:
            return connection.default_channel.client.llen(TEST_QUEUE) == 0

    wait_for(drained, timeout=timeout)


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.1):
    """Polls ``predicate`` until it returns something truthy; fails the test on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


@pytest.fixture
def manager(django_user_model):
    from django.contrib.auth.models import Permission

    user = django_user_model.objects.create_user("manager", password="manager-password-1")
    user.user_permissions.add(
        Permission.objects.get(codename="add_campaign", content_type__app_label="annotation")
    )
    return user


@pytest.fixture
def campaign(manager):
    from annotation.services.campaigns import campaign_create

    return campaign_create(
        name="Test campaign", source_language="en", target_language="de", owner=manager
    )


DEMO = ROOT / "demo" / "wmt21-en-de"


def demo_documents(n: int) -> tuple[str, bytes]:
    """A document file for the first ``n`` (at most 13) lines of the en-de demo source: the
    text release has no ids, but lines 1-13 are one RT news story (line 14 is the next
    story's headline), so they are one document."""
    assert n <= 13
    return ("source.docids", b"rt-dog-park\n" * n)


@pytest.fixture
def loaded_campaign(campaign, manager):
    """The demo data, cut to 12 segments and 3 systems: enough for every task type."""
    from annotation.services.imports import upload_import

    def head(name, n=12):
        return [(name, "\n".join((DEMO / name).read_text().split("\n")[:n]).encode() + b"\n")]

    upload_import(
        campaign=campaign,
        kind="source",
        files=head("source.en"),
        documents=demo_documents(12),
        user=manager,
    )
    upload_import(
        campaign=campaign, kind="reference", name="A", files=head("reference.A.de"), user=manager
    )
    for system in ("Online-B", "UEdin", "happypoet"):
        upload_import(
            campaign=campaign, kind="system", name=system, files=head(f"{system}.de"), user=manager
        )
    return campaign


@pytest.fixture
def make_annotator(django_user_model):
    from annotation.services.campaigns import membership_set

    def make(campaign, username):
        user = django_user_model.objects.create_user(username, password=f"{username}-pw-123")
        membership_set(campaign=campaign, user=user, role="annotator")
        return user

    return make


@pytest.fixture
def launched(loaded_campaign):
    """Launches a task of the given type with the given settings; returns the task."""
    from annotation.services.tasks import task_create, task_launch

    def launch(task_type, **settings):
        # One seed unless a test chooses its own: tasks draw a random one since the protocol
        # declarations, and the tests' figures were computed on one plan.
        settings.setdefault("seed", 12345)
        task = task_create(campaign=loaded_campaign, task_type=task_type, **settings)
        task_launch(task_id=task.id)
        task.refresh_from_db()
        return task

    return launch


def answer_for(task_type, candidates=2, *, value=3):
    """A valid answer of each task type (for tests that need any answer)."""
    return {
        "adequacy": {"score": value},
        "fluency": {"score": value},
        "adequacy_fluency": {"score": value, "fluency": value},
        "pairwise": {"preference": "A"},
        "ranking": {"ranks": list(range(1, candidates + 1))},
        "postedit": {"post_edit": "Ein korrigierter Satz."},
    }[task_type]
