"""Your own metric scores: uploaded per-segment, validated whole, then treated as a metric."""

from __future__ import annotations

import random
import statistics

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotation.models import PairSignificance, RunScore, RunStatistics, SystemRun
from annotation.selectors.human.correlation import automatic_scores
from annotation.services.imports import upload_import
from annotation.services.scoring import run_metrics_compute

pytestmark = pytest.mark.django_db

N = 12
SYSTEMS = ("alpha", "beta", "gamma")
rng = random.Random(7)
# beta is alpha + 0.2 on every segment (clearly better); gamma is noise around alpha.
ALPHA = [round(rng.uniform(0.3, 0.9), 4) for _ in range(N)]
SCORES = {
    "alpha": ALPHA,
    "beta": [round(x + 0.2, 4) for x in ALPHA],
    "gamma": [round(x + rng.uniform(-0.01, 0.01), 4) for x in ALPHA],
}


@pytest.fixture
def systems(campaign, manager):
    lines = "".join(f"word{i} other{i}\n" for i in range(N)).encode()
    upload_import(campaign=campaign, kind="source", user=manager, files=[("s.en", lines)])
    upload_import(
        campaign=campaign, kind="reference", name="A", user=manager, files=[("r.de", lines)]
    )
    for name in SYSTEMS:
        output = "".join(f"{name}{i} other{i}\n" for i in range(N)).encode()
        upload_import(
            campaign=campaign, kind="system", name=name, user=manager, files=[("h", output)]
        )
    return campaign


def tsv(scores=SCORES, *, header=True, shuffle=True) -> bytes:
    rows = [f"{s}\t{i + 1}\t{v}" for s, values in scores.items() for i, v in enumerate(values)]
    if shuffle:
        random.Random(1).shuffle(rows)
    return (("system\tsegment\tscore\n" if header else "") + "\n".join(rows) + "\n").encode()


def post(manager, campaign, data: bytes, **fields):
    api = APIClient()
    api.force_authenticate(manager)
    from django.core.files.uploadedfile import SimpleUploadedFile

    body = {"file": SimpleUploadedFile("scores.tsv", data), "name": "COMET-22", **fields}
    return api.post(f"/api/v1/campaigns/{campaign.id}/metric-scores", body, format="multipart")


def test_tsv_upload_through_the_api_gets_intervals_tests_and_correlation_inputs(manager, systems):
    response = post(manager, systems, tsv())
    assert response.status_code == 201, response.json()
    assert response.json()["metric"] == "ext:COMET-22" and response.json()["layout"] == "tsv"
    for name in SYSTEMS:
        row = RunScore.objects.get(run__system__name=name, metric="ext:COMET-22")
        assert row.score == pytest.approx(statistics.fmean(SCORES[name]), rel=1e-12)
        assert row.ci_low < row.score < row.ci_high
        assert row.references == "" and "origin:uploaded" in row.signature
    tests = {
        (t.system_a.name, t.system_b.name): t
        for t in PairSignificance.objects.filter(metric="ext:COMET-22", method="bs")
    }
    assert len(tests) == 3
    alpha_beta = tests.get(("alpha", "beta")) or tests[("beta", "alpha")]
    assert alpha_beta.p_value < 0.01  # beta is better on every segment
    # The automatic results (API) and the correlation inputs carry the metric.
    api = APIClient()
    api.force_authenticate(manager)
    body = api.get(f"/api/v1/campaigns/{systems.id}/results/automatic").json()
    mine = [row for row in body["systems"] if row["metric"] == "ext:COMET-22"]
    assert len(mine) == 3 and {row["better"] for row in mine} == {"higher"}
    assert {row["statistics"] for row in mine} == {"sentence"}
    assert automatic_scores(systems)["ext:COMET-22"]["beta"] == pytest.approx(
        statistics.fmean(SCORES["beta"])
    )


def test_seg_score_layout_through_the_command_lower_is_better(manager, systems, tmp_path):
    path = tmp_path / "MetricX.seg.score"
    path.write_text(
        "".join(f"{s}\t{v}\n" for s in ("alpha", "beta") for v in SCORES[s]), encoding="utf-8"
    )
    call_command(
        "upload_metric_scores", str(systems.id), str(path), "--name", "MetricX", "--lower-is-better"
    )
    key = "ext-lower:MetricX"
    assert RunScore.objects.filter(metric=key).count() == 2
    test = PairSignificance.objects.get(metric=key, method="bs")
    names = (test.system_a.name, test.system_b.name)
    win = dict(zip(names, (test.win_a, test.win_b), strict=True))
    assert win["alpha"] == 1.0  # lower is better: alpha's scores are lower on every segment
    with pytest.raises(CommandError, match="unknown system"):
        path.write_text("delta\t0.5\n" * N, encoding="utf-8")
        call_command("upload_metric_scores", str(systems.id), str(path), "--name", "MetricX")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"alpha\t1\tnan-ish\n", "not a number"),
        (b"alpha\t1\tnan\n", "not a finite number"),
        (tsv({"alpha": ALPHA[:-1]}), "has 11 scores; the campaign has 12 segments"),
        (tsv({"delta": ALPHA}), "unknown system 'delta'"),
        (b"alpha\t13\t0.5\n", "segment '13' is not a number from 1 to 12"),
        (b"alpha\t1\t0.5\nalpha\t1\t0.6\n", "segment 1 of 'alpha' is given twice"),
        (b"alpha\t0.5\nbeta\t1\t0.5\n", "expected every line"),
        (b"\n\n", "no scores"),
        ("alpha\t1\t0,5\n".encode("utf-16"), "not UTF-8"),
    ],
)
def test_bad_files_are_refused_whole_and_keep_the_earlier_upload(manager, systems, data, message):
    assert post(manager, systems, tsv()).status_code == 201
    before = sorted(RunScore.objects.values_list("run_id", "metric", "score"))
    response = post(manager, systems, data)
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert sorted(RunScore.objects.values_list("run_id", "metric", "score")) == before


def test_bad_name_is_refused(manager, systems):
    response = post(manager, systems, tsv(), name="COMET 22 <b>")
    assert response.status_code == 400 and "metric name" in response.json()["error"]
    assert not RunScore.objects.exists()


def test_manager_page_form_and_results_page(client, manager, systems):
    client.force_login(manager)
    detail = client.get(f"/campaigns/{systems.id}/").content.decode()
    assert "Your own metric scores" in detail
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(
        f"/campaigns/{systems.id}/metric-scores/",
        {"name": "BLEURT-20", "better": "higher", "file": SimpleUploadedFile("s.tsv", tsv())},
    )
    assert response.status_code == 302 and response.url.endswith("/results/automatic/")
    page = client.get(response.url).content.decode()
    assert ">BLEURT-20<" in page and "uploaded" in page
    refused = client.post(
        f"/campaigns/{systems.id}/metric-scores/",
        {"name": "X", "better": "higher", "file": SimpleUploadedFile("s.tsv", b"zeta\t1\n")},
        follow=True,
    )
    assert "No scores were stored. line 1: unknown system" in refused.content.decode()


def test_uploaded_scores_survive_the_metrics_job(manager, systems):
    assert post(manager, systems, tsv()).status_code == 201
    for run_id in SystemRun.objects.values_list("id", flat=True):
        run_metrics_compute(target_id=run_id, report_progress=lambda percent: None)
    assert RunStatistics.objects.filter(metric="ext:COMET-22").count() == 3
    assert PairSignificance.objects.filter(metric="ext:COMET-22").count() == 3 * 2
