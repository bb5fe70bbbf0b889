"""Jobs run by a real Celery worker against the real database and Redis (no eager mode).

A test that acts while a metrics job runs holds the job before TER (``MetricHold``) and lets it
go when done, so nothing here depends on how long a metric takes. To show it, run this module
with ``METRICS_JOB_TEST_PACE=10`` (the workers inherit it: each metric takes ten times as long)
and with ``METRICS_JOB_TEST_PACE=0.1`` (the tests upload a tenth of the segments: ten times
less work).
"""

import os
import threading

import pytest
from django.db import connection, transaction

from annotation.models import Job
from annotation.services.jobs import job_dispatch_pending, job_finish, job_request, job_start
from annotation.services.scoring import JOB_METRICS
from tests.conftest import DATA, METRICS_JOB_HOLDS, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]

PACE = float(os.environ.get("METRICS_JOB_TEST_PACE", "1"))
# How long a metrics job may take before a test fails: a bound, never a wait.
JOB_TIMEOUT = 180 * max(1.0, PACE)


def scaled(segments: int) -> int:
    """Fewer segments (less work) when the pace asks for a faster job."""
    return max(10, round(segments * min(1.0, PACE)))


class MetricHold:
    """Holds the metrics jobs of a campaign before ``metric`` until ``release``."""

    def __init__(self, campaign_id: int, metric: str) -> None:
        METRICS_JOB_HOLDS.mkdir(parents=True, exist_ok=True)
        self.path = METRICS_JOB_HOLDS / f"{campaign_id}.{metric}.hold"
        self.reached = self.path.with_suffix(".reached")
        self.reached.unlink(missing_ok=True)
        self.path.touch()

    def wait_reached(self) -> None:
        """Until a job is held there: every metric before it stored, this one not begun."""
        wait_for(self.reached.exists, timeout=JOB_TIMEOUT)

    def release(self) -> None:
        self.path.unlink(missing_ok=True)
        self.reached.unlink(missing_ok=True)


@pytest.fixture
def ter_hold(campaign):
    hold = MetricHold(campaign.id, "ter")
    yield hold
    hold.release()


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


def test_a_job_killed_half_way_runs_again_and_completes(campaign, manager, ter_hold):
    """SIGKILL during a metrics job, its message lost too (as when Redis restarts): the job's
    heartbeat stops, the dispatcher of another worker queues it again, and that worker runs it
    from the start; its results are complete and not duplicated."""
    import os
    import signal
    import uuid

    from annotation.models import Output, RunScore, RunStatistics, SystemRun
    from annotation.tasks import run_job
    from tests.conftest import start_worker, stop_worker

    lines = scaled(1002)  # the whole test set unless the pace asks for less work
    upload_head(campaign, manager, "source", WMT21 / "newstest2021.en-de.src.en", n=lines)
    upload_head(campaign, manager, "reference", WMT21 / "newstest2021.en-de.ref.A.de", "A", lines)
    path = WMT21 / "system-outputs" / "newstest2021.en-de.hyp.Online-B.de"
    with transaction.atomic():
        upload_head(campaign, manager, "system", path, "Online-B", n=lines)
        # The upload's own message (sent on commit) then finds no job and does nothing ...
        Job.objects.filter(kind=Job.Kind.RUN_METRICS).delete()
    run = SystemRun.objects.get()
    # ... and the job goes to a queue of this test's own, so only its workers take it.
    job = Job.objects.create(kind=Job.Kind.RUN_METRICS, target_id=run.id, state=Job.State.QUEUED)
    queue = f"kill-{uuid.uuid4().hex[:6]}"
    heartbeat = {"JOB_HEARTBEAT_SECONDS": "0.5", "JOB_HEARTBEAT_TIMEOUT_SECONDS": "3"}
    first = start_worker(queue, **heartbeat)
    run_job.apply_async(args=[job.id], queue=queue)
    # Kill it once BLEU, chrF and chrF++ are stored and it is held before TER ...
    ter_hold.wait_reached()
    running = Job.objects.get(id=job.id)
    assert running.attempts == 1
    # ... and its heartbeat has moved on since the last progress report: it beats while it runs.
    wait_for(lambda: Job.objects.get(id=job.id).heartbeat > running.heartbeat, timeout=JOB_TIMEOUT)
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    first.log.close()
    ter_hold.release()  # the next worker runs the job through
    # The message is not delivered again: the unacknowledged copy expires only after the
    # visibility timeout (15 minutes), so only the heartbeat can bring the job back.
    assert Job.objects.get(id=job.id).state == Job.State.RUNNING
    assert RunScore.objects.filter(run=run, metric="ter").count() == 0
    before = dict(RunScore.objects.filter(run=run).values_list("metric", "score"))

    # Not waiting for its ping: its beat may re-queue the job, and the worker take it, first.
    second = start_worker(queue, beat=True, wait=False, **heartbeat)
    try:
        done = wait_for(
            lambda: Job.objects.filter(id=job.id, state=Job.State.DONE).first(),
            timeout=JOB_TIMEOUT,
        )
    finally:
        stop_worker(second)
    assert done.attempts == 2
    assert done.worker == ""
    assert sorted(RunScore.objects.filter(run=run).values_list("metric", flat=True)) == sorted(
        JOB_METRICS
    )
    assert RunStatistics.objects.filter(run=run).count() == len(JOB_METRICS)
    # Complete: every metric over every segment; what the killed attempt stored is the same.
    segments = Output.objects.filter(run=run).count()
    assert segments == lines
    assert list(RunStatistics.objects.filter(run=run).values_list("rows", flat=True)) == [
        segments
    ] * len(JOB_METRICS)
    after = dict(RunScore.objects.filter(run=run).values_list("metric", "score"))
    assert {"bleu", "chrf", "chrf++"} <= set(before) and "ter" not in before
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


WMT21 = DATA / "wmt21-en-de"
SEGMENTS = scaled(400)


def upload_head(campaign, manager, kind, path, name=None, n=SEGMENTS):
    from annotation.services.imports import upload_import

    data = ("\n".join(path.read_text(encoding="utf-8").split("\n")[:n]) + "\n").encode()
    upload_import(campaign=campaign, kind=kind, name=name, user=manager, files=[(path.name, data)])


def upload_lines(path, n=SEGMENTS):
    return path.read_text(encoding="utf-8").split("\n")[:n]


def load_one_system(campaign, manager) -> Job:
    """Source, reference A and one system; the system's metrics job starts on commit."""
    upload_head(campaign, manager, "source", WMT21 / "newstest2021.en-de.src.en")
    upload_head(campaign, manager, "reference", WMT21 / "newstest2021.en-de.ref.A.de", "A")
    path = WMT21 / "system-outputs" / "newstest2021.en-de.hyp.Online-B.de"
    upload_head(campaign, manager, "system", path, "Online-B")
    return Job.objects.get(kind=Job.Kind.RUN_METRICS)


def test_reference_uploaded_while_the_job_runs_is_scored_too(
    campaign, manager, celery_worker_process, ter_hold
):
    from sacrebleu.metrics import BLEU, CHRF

    from annotation.models import RunScore

    job = load_one_system(campaign, manager)
    ter_hold.wait_reached()
    upload_head(campaign, manager, "reference", WMT21 / "newstest2021.en-de.ref.C.de", "C")
    # The job read reference A alone when it started: it is marked to run once more.
    assert Job.objects.get(id=job.id).state == Job.State.RUNNING
    assert Job.objects.get(id=job.id).rerun_requested
    ter_hold.release()

    def scored_against_a_and_c():
        done = Job.objects.filter(id=job.id, state=Job.State.DONE).exists()
        keys = set(RunScore.objects.values_list("references", flat=True))
        return done and RunScore.objects.count() == len(JOB_METRICS) and keys == {"A+C"}

    wait_for(scored_against_a_and_c, timeout=JOB_TIMEOUT)
    hypotheses = upload_lines(WMT21 / "system-outputs" / "newstest2021.en-de.hyp.Online-B.de")
    references = [upload_lines(WMT21 / f"newstest2021.en-de.ref.{name}.de") for name in "AC"]
    scores = dict(RunScore.objects.values_list("metric", "score"))
    assert scores["bleu"] == pytest.approx(BLEU().corpus_score(hypotheses, references).score)
    assert scores["chrf"] == pytest.approx(CHRF().corpus_score(hypotheses, references).score)
    assert not Job.objects.get(id=job.id).rerun_requested


def test_a_duplicate_message_for_a_running_job_is_dropped(
    campaign, manager, celery_worker_process, ter_hold
):
    """The dispatcher re-sends a job queued for over 5 minutes; if the first message is
    taken meanwhile, a second worker receives the copy while the job runs and drops it."""
    import uuid

    from annotation.models import RunScore
    from annotation.tasks import run_job
    from tests.conftest import start_worker, stop_worker

    queue = f"dup-{uuid.uuid4().hex[:6]}"
    second = start_worker(queue)
    try:
        job = load_one_system(campaign, manager)  # run by the session's worker
        ter_hold.wait_reached()
        taken = Job.objects.get(id=job.id)
        run_job.apply_async(args=[job.id], queue=queue)
        # A ping behind it on the same solo worker: once done, the copy has been handled.
        ping = Job.objects.create(kind=Job.Kind.PING, target_id=6, state=Job.State.QUEUED)
        run_job.apply_async(args=[ping.id], queue=queue)
        wait_for(lambda: Job.objects.filter(id=ping.id, state=Job.State.DONE).exists())
        during = Job.objects.get(id=job.id)
        assert during.state == Job.State.RUNNING
        assert (during.worker, during.attempts) == (taken.worker, 1)
        ter_hold.release()
        done = wait_for(
            lambda: Job.objects.filter(id=job.id, state=Job.State.DONE).first(),
            timeout=JOB_TIMEOUT,
        )
    finally:
        stop_worker(second)
    assert done.attempts == 1
    assert RunScore.objects.count() == len(JOB_METRICS)


@pytest.mark.parametrize("state", ["pending", "queued", "running", "failed"])
def test_rerun_revives_a_job_whatever_its_state(
    client, campaign, manager, celery_worker_process, state
):
    """Each state as a lost message or a dead worker leaves it: "Rerun metrics" runs it."""
    from datetime import timedelta

    from django.utils import timezone

    from annotation.models import RunScore

    upload_head(campaign, manager, "source", WMT21 / "newstest2021.en-de.src.en", n=12)
    upload_head(campaign, manager, "reference", WMT21 / "newstest2021.en-de.ref.A.de", "A", n=12)
    path = WMT21 / "system-outputs" / "newstest2021.en-de.hyp.Online-B.de"
    upload_head(campaign, manager, "system", path, "Online-B", n=12)
    job = Job.objects.get(kind=Job.Kind.RUN_METRICS)
    wait_for(
        lambda: Job.objects.filter(id=job.id, state=Job.State.DONE).exists(), timeout=JOB_TIMEOUT
    )
    long_ago = timezone.now() - timedelta(hours=1)
    stuck = {
        "pending": {},
        "queued": {"queued_at": timezone.now()},  # its message lost; too recent to re-send
        "running": {"worker": "gone:1:dead", "heartbeat": long_ago, "attempts": 1},
        "failed": {"message": "OperationalError: server closed the connection"},
    }[state]
    Job.objects.filter(id=job.id).update(state=state, progress=40, **stuck)
    RunScore.objects.all().delete()
    before = timezone.now()

    client.force_login(manager)
    response = client.post(f"/campaigns/{campaign.id}/metrics/rerun/")
    assert response.status_code == 302
    done = wait_for(
        lambda: Job.objects.filter(id=job.id, state=Job.State.DONE).first(), timeout=JOB_TIMEOUT
    )
    assert done.started_at > before and done.attempts == 1
    assert RunScore.objects.count() == len(JOB_METRICS)


def test_rerun_leaves_a_job_on_a_live_worker_alone(campaign, manager):
    from annotation.services.jobs import job_rerun

    job = Job.objects.create(kind=Job.Kind.PING, target_id=7, state=Job.State.QUEUED)
    assert job_start(job_id=job.id, worker="alive") is not None
    assert job_rerun(kind=Job.Kind.PING, target_id=7).state == Job.State.RUNNING
    job.refresh_from_db()
    assert (job.state, job.worker, job.attempts) == (Job.State.RUNNING, "alive", 1)
