"""The metrics job: statistics, scores and the significance matrix, stored per campaign."""

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from annotation.models import Job, PairSignificance, RunScore, RunStatistics, SystemRun
from annotation.services.imports import upload_import
from annotation.services.jobs import job_progress_reporter
from annotation.services.scoring import JOB_METRICS, run_metrics_compute
from tests.conftest import DATA, wait_for

WMT21 = DATA / "wmt21-en-de"
SYSTEMS = ("Online-B", "UEdin", "happypoet")
N = 150  # segments: enough for real scores, small enough for TER to be quick


def head(path, n=N):
    return "\n".join(path.read_text(encoding="utf-8").split("\n")[:n]) + "\n"


def load(campaign, manager):
    upload_import(
        campaign=campaign,
        kind="source",
        user=manager,
        files=[("src.en", head(WMT21 / "newstest2021.en-de.src.en").encode())],
    )
    upload_import(
        campaign=campaign,
        kind="reference",
        name="A",
        user=manager,
        files=[("ref.A", head(WMT21 / "newstest2021.en-de.ref.A.de").encode())],
    )
    for name in SYSTEMS:
        path = WMT21 / "system-outputs" / f"newstest2021.en-de.hyp.{name}.de"
        upload_import(
            campaign=campaign,
            kind="system",
            name=name,
            user=manager,
            files=[(path.name, head(path).encode())],
        )


def run_all_jobs():
    for run_id in SystemRun.objects.values_list("id", flat=True):
        run_metrics_compute(target_id=run_id, report_progress=lambda percent: None)


@pytest.mark.django_db
def test_scores_equal_sacrebleu_and_every_pair_is_tested(campaign, manager):
    load(campaign, manager)
    run_all_jobs()
    refs = [head(WMT21 / "newstest2021.en-de.ref.A.de").split("\n")[:N]]
    for name in SYSTEMS:
        hyps = head(WMT21 / "system-outputs" / f"newstest2021.en-de.hyp.{name}.de").split("\n")[:N]
        scores = {s.metric: s for s in RunScore.objects.filter(run__system__name=name)}
        for metric, reference in (("bleu", BLEU()), ("chrf", CHRF()), ("ter", TER())):
            expected = reference.corpus_score(hyps, refs).score
            assert scores[metric].score == pytest.approx(expected, abs=1e-9)
            assert scores[metric].ci_low <= expected <= scores[metric].ci_high
        assert scores["bleu"].signature.startswith("nrefs:1|bs:1000|seed:12345|case:mixed")
    # 3 systems: 3 pairs, for every metric of the registry and 2 tests.
    assert len(JOB_METRICS) == 14
    assert PairSignificance.objects.count() == 3 * len(JOB_METRICS) * 2
    for test in PairSignificance.objects.all():
        assert 0 < test.p_value <= 1
        assert test.win_a + test.win_b + test.tie == pytest.approx(1)


@pytest.mark.django_db
def test_running_a_job_twice_changes_nothing(campaign, manager):
    load(campaign, manager)
    run_all_jobs()

    def snapshot():
        return (
            sorted(RunScore.objects.values_list("run_id", "metric", "score", "ci_low", "ci_high")),
            sorted(
                PairSignificance.objects.values_list(
                    "system_a", "system_b", "metric", "method", "p_value", "win_a"
                )
            ),
            RunStatistics.objects.count(),
        )

    before = snapshot()
    run_all_jobs()
    assert snapshot() == before


@pytest.mark.django_db
def test_several_runs_of_a_system_are_pooled(campaign, manager):
    load(campaign, manager)
    path = WMT21 / "system-outputs" / "newstest2021.en-de.hyp.Facebook-AI.de"
    upload_import(
        campaign=campaign,
        kind="system",
        name="UEdin",
        add_run=True,
        user=manager,
        files=[(path.name, head(path).encode())],
    )
    run_all_jobs()
    assert SystemRun.objects.filter(system__name="UEdin").count() == 2
    assert RunScore.objects.filter(run__system__name="UEdin", metric="bleu").count() == 2
    # Still one test per pair of systems, not per pair of runs.
    assert PairSignificance.objects.filter(metric="bleu", method="bs").count() == 3


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_upload_queues_a_job_that_a_real_worker_completes(campaign, manager, celery_worker_process):
    load(campaign, manager)
    runs = list(SystemRun.objects.values_list("id", flat=True))
    wait_for(
        lambda: Job.objects.filter(target_id__in=runs, state=Job.State.DONE).count() == len(runs),
        timeout=120,
    )
    assert RunScore.objects.filter(run_id__in=runs).count() == len(runs) * len(JOB_METRICS)
    assert Job.objects.filter(target_id__in=runs).exclude(progress=100).count() == 0


@pytest.mark.django_db
def test_progress_is_recorded(campaign, manager):
    load(campaign, manager)
    run = SystemRun.objects.first()
    job = Job.objects.get(kind=Job.Kind.RUN_METRICS, target_id=run.id)
    seen = []
    report = job_progress_reporter(job_id=job.id)

    def record(percent):
        report(percent)
        seen.append(Job.objects.get(id=job.id).progress)

    run_metrics_compute(target_id=run.id, report_progress=record)
    assert seen == sorted(seen) and seen[-1] == 100 and len(seen) >= 3
