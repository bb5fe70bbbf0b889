"""Absurd metric scores (issue 21 §4): refused at upload; a stored one breaks no results page.

A score of ±1e308 is finite, but its mean, variance and bootstrap overflow to infinity, which
the results pages, the results APIs and ``automatic.json`` (strict JSON has no ``Infinity``)
could not carry."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotation.models import PairSignificance, RunScore, SystemRun
from tests.test_metric_uploads import SCORES, systems, tsv  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


def _upload(manager, campaign, data: bytes):
    api = APIClient()
    api.force_authenticate(manager)
    body = {"file": SimpleUploadedFile("scores.tsv", data), "name": "COMET-22"}
    return api.post(f"/api/v1/campaigns/{campaign.id}/metric-scores", body, format="multipart")


def _result_urls(campaign) -> list[str]:
    return [
        f"/campaigns/{campaign.id}/results/automatic/",
        f"/campaigns/{campaign.id}/results/automatic/?metric=ext:COMET-22",
        f"/campaigns/{campaign.id}/results/human/",
        f"/api/v1/campaigns/{campaign.id}/results/automatic",
        f"/api/v1/campaigns/{campaign.id}/results/human",
        f"/campaigns/{campaign.id}/results/automatic.json",
        f"/campaigns/{campaign.id}/results/automatic.csv",
    ]


def _strict_json(text: str):
    def refuse(constant: str):
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("value", ["1e308", "-1e308", "1.7e308", "inf", "-inf", "nan", "1e999"])
def test_upload_refuses_absurd_scores_and_stores_nothing(manager, systems, value):  # noqa: F811
    scores = {name: list(values) for name, values in SCORES.items()}
    scores["beta"][3] = value
    response = _upload(manager, systems, tsv(scores))
    assert response.status_code == 400, response.content
    message = json.dumps(response.json())
    assert "line" in message and "score" in message
    assert not RunScore.objects.filter(metric="ext:COMET-22").exists()


def test_every_results_page_survives_any_stored_value(client, manager, systems):  # noqa: F811
    assert _upload(manager, systems, tsv()).status_code == 201
    values = [math.inf, -math.inf, math.nan, 1e308]
    for run, value in zip(SystemRun.objects.filter(campaign=systems), values, strict=False):
        RunScore.objects.filter(run=run, metric="ext:COMET-22").update(
            score=value, ci_low=-value, ci_high=value
        )
    PairSignificance.objects.filter(campaign=systems).update(p_value=math.nan, win_a=math.inf)
    client.force_login(manager)
    for url in _result_urls(systems):
        response = client.get(url)
        assert response.status_code == 200, url
        if url.endswith(".json") or "/api/" in url:
            _strict_json(response.content.decode())


def test_human_results_with_absurd_stored_sentence_scores(client, django_user_model):
    """The meta-evaluation and the correlations read stored sentence scores: an absurd one
    (written before uploads refused it) leaves that system out, not the page."""
    from annotation.models import RunStatistics, Segment
    from annotation.services.metric_uploads import metric_scores_upload
    from metrics.automatic import stats_to_bytes
    from tests.test_meta_evaluation_page import judged as judged_fixture

    campaign = judged_fixture.__wrapped__()
    names = sorted(
        SystemRun.objects.filter(campaign=campaign)
        .values_list("system__name", flat=True)
        .distinct()
    )
    n = Segment.objects.filter(campaign=campaign).count()
    text = "".join(f"{s}\t{i + 1}\t{0.5 + 0.01 * (i % 7)}\n" for s in names for i in range(n))
    metric_scores_upload(campaign=campaign, name="COMET-22", higher_is_better=True, text=text)
    for stored, value in zip(
        RunStatistics.objects.filter(run__campaign=campaign, metric="ext:COMET-22"),
        [1e308, math.inf, math.nan],
        strict=False,
    ):
        stats = np.array([[value, 1.0]] * stored.rows)
        RunStatistics.objects.filter(id=stored.id).update(data=stats_to_bytes(stats))
    RunScore.objects.filter(run__campaign=campaign, metric="ext:COMET-22").update(score=1e308)
    admin = django_user_model.objects.create_superuser("meta-admin", password="x-long-pass-1!")
    client.force_login(admin)
    assert client.get(f"/campaigns/{campaign.id}/results/human/").status_code == 200
    response = client.get(f"/api/v1/campaigns/{campaign.id}/results/human")
    assert response.status_code == 200
    _strict_json(response.content.decode())
