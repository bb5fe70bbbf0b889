"""Absurd metric scores (issue 21 §4): refused at upload; a stored one breaks no results page.

A score of ±1e308 is finite, but its mean, variance and bootstrap overflow to infinity, which
the results pages, the results APIs and ``automatic.json`` (strict JSON has no ``Infinity``)
could not carry."""

from __future__ import annotations

import json
import math

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
