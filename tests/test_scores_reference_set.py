"""Automatic scores count only against the current reference set (issue 12, item 4).

After a second reference is uploaded the rows computed against the first are superseded:
the results page, the API, the systems table and the correlation inputs show the new set
alone, and its scores equal sacrebleu given both references.
"""

import pytest
from rest_framework.test import APIClient
from sacrebleu.metrics import BLEU, CHRF, TER

from annotation.models import Job, PairSignificance, RunScore, RunStatistics, SystemRun
from annotation.selectors.human.correlation import automatic_scores
from annotation.selectors.results import automatic_results
from annotation.selectors.systems import system_runs_with_jobs
from annotation.services.imports import upload_import
from annotation.services.scoring import JOB_METRICS, progress_after, run_metrics_compute
from tests.conftest import DATA, wait_for

WMT21 = DATA / "wmt21-en-de"
SYSTEMS = ("Online-B", "UEdin")
N = 150


def lines(path, n=N):
    return path.read_text(encoding="utf-8").split("\n")[:n]


def upload(campaign, manager, kind, path, name=None):
    data = ("\n".join(lines(path)) + "\n").encode()
    upload_import(campaign=campaign, kind=kind, name=name, user=manager, files=[(path.name, data)])


def hypothesis_path(system):
    return WMT21 / "system-outputs" / f"newstest2021.en-de.hyp.{system}.de"


def reference_path(name):
    return WMT21 / f"newstest2021.en-de.ref.{name}.de"


def sacrebleu_scores(system, reference_names):
    hypotheses = lines(hypothesis_path(system))
    references = [lines(reference_path(name)) for name in reference_names]
    return {
        metric: scorer.corpus_score(hypotheses, references).score
        for metric, scorer in (("bleu", BLEU()), ("chrf", CHRF()), ("ter", TER()))
    }


def jobs_done(expected_starts_after=None):
    jobs = Job.objects.filter(kind=Job.Kind.RUN_METRICS)
    if expected_starts_after is not None:
        jobs = jobs.filter(started_at__gt=expected_starts_after)
    return jobs.filter(state=Job.State.DONE).count() == SystemRun.objects.count()


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_second_reference_replaces_the_scores_everywhere(
    client, campaign, manager, celery_worker_process
):
    upload(campaign, manager, "source", WMT21 / "newstest2021.en-de.src.en")
    upload(campaign, manager, "reference", reference_path("A"), name="A")
    for system in SYSTEMS:
        upload(campaign, manager, "system", hypothesis_path(system), name=system)
    wait_for(jobs_done, timeout=120)
    assert set(RunScore.objects.values_list("references", flat=True)) == {"A"}
    first_done = max(Job.objects.values_list("finished_at", flat=True))

    upload(campaign, manager, "reference", reference_path("C"), name="C")
    wait_for(lambda: jobs_done(expected_starts_after=first_done), timeout=120)

    # Superseded rows are gone, not merely hidden.
    assert set(RunScore.objects.values_list("references", flat=True)) == {"A+C"}
    assert set(RunStatistics.objects.values_list("references", flat=True)) == {"A+C"}
    expected = {system: sacrebleu_scores(system, ["A", "C"]) for system in SYSTEMS}
    single = sacrebleu_scores("Online-B", ["A"])
    assert expected["Online-B"]["bleu"] != pytest.approx(single["bleu"], abs=0.01)

    results = automatic_results(campaign)
    assert results.reference_set == "A+C"
    for system in results.systems:
        assert set(system.scores) == set(JOB_METRICS)
        for metric, score in system.scores.items():
            if metric not in expected[system.name]:
                continue  # the classic metrics: checked in tests/test_metrics_every_metric.py
            assert score.runs == 1
            assert score.run_std is None
            assert score.score == pytest.approx(expected[system.name][metric], abs=1e-9)
            assert score.signature.startswith("nrefs:2|")

    # The systems table (page and API) shows the same single row per run.
    for row in system_runs_with_jobs(campaign):
        assert sacrebleu_part(row.scores) == pytest.approx(expected[row.run.system.name], abs=1e-9)
    api = APIClient()
    api.force_authenticate(manager)
    listed = api.get(f"/api/v1/campaigns/{campaign.id}/systems").json()
    assert len(listed) == len(SYSTEMS)
    for row in listed:
        assert sacrebleu_part(row["scores"]) == pytest.approx(expected[row["system"]], abs=1e-9)
        assert row["references"] == "A+C"
    body = api.get(f"/api/v1/campaigns/{campaign.id}/results/automatic").json()
    assert len(body["systems"]) == len(SYSTEMS) * len(JOB_METRICS)
    for row in body["systems"]:
        assert row["runs"] == 1 and row["references"] == "A+C"
        if row["metric"] in expected[row["system"]]:
            assert row["score"] == pytest.approx(expected[row["system"]][row["metric"]], abs=1e-6)
    # One pair, tested once per metric and method, from the new statistics.
    assert PairSignificance.objects.filter(campaign=campaign).count() == len(JOB_METRICS) * 2

    # Correlation inputs: the new set only.
    inputs = automatic_scores(campaign)
    assert set(inputs) == set(JOB_METRICS)
    for metric, scores in sacrebleu_part(inputs).items():
        assert scores == pytest.approx({s: expected[s][metric] for s in SYSTEMS}, abs=1e-9)

    client.force_login(manager)
    table = client.get(f"/campaigns/{campaign.id}/systems/").content.decode()
    assert "reference set A+C" in table
    assert table.count(f"{expected['UEdin']['chrf']:.2f}") == 1
    assert f"{single['bleu']:.2f}" not in table
    page = client.get(f"/campaigns/{campaign.id}/results/automatic/").content.decode()
    assert "reference set A+C" in page
    assert f"{expected['Online-B']['bleu']:.2f}" in page
    assert f"{single['bleu']:.2f}" not in page


def sacrebleu_part(scores):
    return {metric: value for metric, value in scores.items() if metric in ("bleu", "chrf", "ter")}


@pytest.mark.django_db
def test_rows_of_a_superseded_set_never_show(campaign, manager):
    """A run not yet rescored after a reference upload (its job still queued) has rows of the
    old set only: every reader leaves it out rather than mixing the two sets."""
    upload(campaign, manager, "source", WMT21 / "newstest2021.en-de.src.en")
    upload(campaign, manager, "reference", reference_path("A"), name="A")
    for system in SYSTEMS:
        upload(campaign, manager, "system", hypothesis_path(system), name=system)
    runs = dict(SystemRun.objects.values_list("system__name", "id"))
    for run_id in runs.values():
        run_metrics_compute(target_id=run_id, report_progress=lambda percent: None)
    upload(campaign, manager, "reference", reference_path("C"), name="C")
    # Only Online-B's job has run since.
    run_metrics_compute(target_id=runs["Online-B"], report_progress=lambda percent: None)

    stale = set(RunScore.objects.filter(run_id=runs["UEdin"]).values_list("references", flat=True))
    assert stale == {"A"}
    assert set(
        RunScore.objects.filter(run_id=runs["Online-B"]).values_list("references", flat=True)
    ) == {"A+C"}

    expected = sacrebleu_scores("Online-B", ["A", "C"])
    results = automatic_results(campaign)
    assert [system.name for system in results.systems] == ["Online-B"]
    found = {m: s.score for m, s in results.systems[0].scores.items()}
    assert sacrebleu_part(found) == pytest.approx(expected)
    table = {
        row.run.system.name: sacrebleu_part(row.scores) for row in system_runs_with_jobs(campaign)
    }
    assert table == {"Online-B": pytest.approx(expected), "UEdin": {}}
    assert sacrebleu_part(automatic_scores(campaign)) == {
        metric: {"Online-B": pytest.approx(score)} for metric, score in expected.items()
    }
    # A test needs both systems scored against the same set: none until UEdin's job runs.
    assert not PairSignificance.objects.filter(campaign=campaign).exists()


@pytest.mark.django_db
def test_references_changed_during_the_job_are_noticed_before_storing(campaign, manager):
    """Reference C arrives after the job stored BLEU against A alone: storing chrF finds the
    set changed, stores nothing stale, and the job starts again against A and C."""
    upload(campaign, manager, "source", WMT21 / "newstest2021.en-de.src.en")
    upload(campaign, manager, "reference", reference_path("A"), name="A")
    upload(campaign, manager, "system", hypothesis_path("Online-B"), name="Online-B")
    run = SystemRun.objects.get()
    seen = []

    def report(percent):
        seen.append(percent)
        if len(seen) == 1:
            assert set(RunScore.objects.values_list("metric", "references")) == {("bleu", "A")}
            upload(campaign, manager, "reference", reference_path("C"), name="C")

    run_metrics_compute(target_id=run.id, report_progress=report)
    # BLEU against A, then (the store of chrF refused) every metric against A and C.
    steps = len(JOB_METRICS)
    assert seen == [
        progress_after(done=1, steps=steps),
        *(progress_after(done=done, steps=steps) for done in range(1, steps + 1)),
        100,
    ]
    stored = {
        (m, k): score
        for m, k, score in RunScore.objects.values_list("metric", "references", "score")
    }
    expected = sacrebleu_scores("Online-B", ["A", "C"])
    assert {key for key in stored if key[1] != "A+C"} == set()
    assert {(m, k): v for (m, k), v in stored.items() if m in expected} == pytest.approx(
        {(metric, "A+C"): score for metric, score in expected.items()}
    )
    assert set(RunStatistics.objects.values_list("references", flat=True)) == {"A+C"}
