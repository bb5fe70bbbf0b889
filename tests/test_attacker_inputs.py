"""Single inputs that answered 500 (issue 21 §4): ids past PostgreSQL's bigint, digits int()
cannot read, lone surrogates, OPTIONS on the API docs page. Each is refused with a 4xx."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from annotation.errors import ApplicationError
from annotation.models import Item
from annotation.services.assignment import slot_claim_next
from annotation.services.imports import upload_import
from annotation.services.metric_uploads import MetricUploadError, parse_metric_scores

pytestmark = pytest.mark.django_db

HUGE = 2**63  # one past PostgreSQL's bigint
SURROGATE = '{"text": "a \\ud800 b"}'  # JSON's escape of a lone surrogate


def _quiet(user=None) -> Client:
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def annotating(launched, loaded_campaign, make_annotator):
    task = launched("adequacy")
    user = make_annotator(loaded_campaign, "ann")
    slot_claim_next(task=task, annotator_id=user.id)
    return task, user


@pytest.mark.parametrize("slot", [HUGE, 10**30, -HUGE - 1])
def test_api_judgment_with_a_slot_id_past_bigint_is_a_400(annotating, slot):
    task, user = annotating
    api = APIClient(raise_request_exception=False)
    api.force_authenticate(user)
    body = {"task": task.id, "slot": slot, "score": 3}
    response = api.post("/api/v1/judgments", body, format="json")
    assert response.status_code == 400, response.content
    assert "slot" in response.json() or "slot" in json.dumps(response.json())


@pytest.mark.parametrize("slot", [str(HUGE), "9" * 40, "²"])
def test_page_submit_and_skip_with_a_slot_id_past_bigint_are_refused(annotating, slot):
    task, user = annotating
    client = _quiet(user)
    submitted = client.post(
        f"/annotate/{task.id}/submit/", {"slot": slot, "score": "3"}, HTTP_X_REQUESTED_WITH="fetch"
    )
    assert submitted.status_code == 400
    skipped = client.post(f"/annotate/{task.id}/skip/", {"skipped_slot": slot, "reason": "other"})
    assert skipped.status_code == 302


@pytest.mark.parametrize("query", ["a=²&b=1", f"a={HUGE}&b=1", "a=1&b=٣"])
def test_automatic_results_page_with_unreadable_system_ids(loaded_campaign, manager, query):
    response = _quiet(manager).get(f"/campaigns/{loaded_campaign.id}/results/automatic/?{query}")
    assert response.status_code == 200


def test_metric_tsv_segment_that_is_a_superscript_digit_is_refused():
    with pytest.raises(MetricUploadError, match="line 1: segment '²'"):
        parse_metric_scores(text="alpha\t²\t0.5\n", systems={"alpha"}, n_segments=3)


def test_jsonl_upload_with_a_lone_surrogate_is_refused_with_its_line(campaign, manager):
    data = ('{"text": "fine"}\n' + SURROGATE + "\n").encode()
    with pytest.raises(ApplicationError, match=r"line 2.*surrogate"):
        upload_import(campaign=campaign, kind="source", user=manager, files=[("s.jsonl", data)])


def test_prefilled_span_with_a_lone_surrogate_is_refused(launched, manager):
    task = launched("esa_prefilled")
    item = Item.objects.filter(task=task, item_type="TGT").select_related("system", "segment")[0]
    line = (
        f'{{"system": "{item.system.name}", "segment": {item.segment.index}, '
        '"spans": [{"start": 0, "end": 2, "severity": "major", "category": "\\udc00"}]}'
    )
    api = APIClient(raise_request_exception=False)
    api.force_authenticate(manager)
    response = api.post(
        f"/api/v1/tasks/{task.id}/prefilled-spans",
        {"file": SimpleUploadedFile("pre.jsonl", line.encode())},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    assert "surrogate" in response.content.decode()
    assert not Item.objects.filter(task=task).exclude(prefilled_spans=[]).exists()


def test_api_body_with_a_lone_surrogate_is_a_400(manager):
    api = APIClient(raise_request_exception=False)
    api.force_authenticate(manager)
    body = '{"name": "x \\ud800", "source_language": "en", "target_language": "de"}'
    response = api.post("/api/v1/campaigns", body, content_type="application/json")
    assert response.status_code == 400, response.content
    assert "surrogate" in response.content.decode()


def test_options_on_the_api_docs_page_is_a_405():
    response = _quiet().options("/api/docs/")
    assert response.status_code == 405
    assert _quiet().get("/api/docs/").status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/annotate/{huge}/",
        "/campaigns/{huge}/",
        "/campaigns/{huge}/results/automatic/",
        "/api/v1/tasks/{huge}/next",
        "/api/v1/campaigns/{huge}/results/automatic",
    ],
)
def test_ids_past_bigint_in_paths_are_not_found(annotating, manager, path):
    _, user = annotating
    for who in (user, manager):
        response = _quiet(who).get(path.format(huge=HUGE * 10))
        assert response.status_code == 404, (path, response.status_code)
