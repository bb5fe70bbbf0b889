"""JSON nested 100,000 deep (issue 21 §4): a 400 on every endpoint that reads JSON, not a
RecursionError's 500 and traceback; the nesting limit is annotation/lib/json_limits.py."""

from __future__ import annotations

import logging

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from annotation.errors import ApplicationError
from annotation.lib import json_limits
from annotation.services.assignment import slot_claim_next
from annotation.services.imports import upload_import

pytestmark = pytest.mark.django_db

DEEP = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000


def _quiet_client(**headers) -> Client:
    client = Client(raise_request_exception=False, **headers)
    return client


def _json_operations(client: Client) -> list[tuple[str, str]]:
    """(method, path template) of every API operation whose body is JSON, from the schema."""
    schema = client.get("/api/schema/?format=json").json()
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {})
            if "application/json" in body:
                found.append((method, path))
    return found


@pytest.mark.parametrize("body", [DEEP, DEEP_OBJECT], ids=["arrays", "objects"])
def test_anonymous_token_request_nested_deep_is_a_400_and_logs_no_error(body, caplog):
    with caplog.at_level(logging.ERROR):
        response = _quiet_client().post("/api/v1/auth/token", body, content_type="application/json")
    assert response.status_code == 400, response.content[:200]
    assert "nested" in response.content.decode()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_every_json_api_operation_refuses_deep_nesting(loaded_campaign, manager, launched):
    task = launched("adequacy")
    token = Token.objects.create(user=manager)
    client = _quiet_client(HTTP_AUTHORIZATION=f"Token {token.key}")
    operations = _json_operations(client)
    assert len(operations) >= 8  # the schema names them; the test must not pass on none
    for method, template in operations:
        path = (
            template.replace("{campaign_id}", str(loaded_campaign.id))
            .replace("{task_id}", str(task.id))
            .replace("{invitation_id}", "1")
        )
        response = getattr(client, method)(path, DEEP, content_type="application/json")
        assert response.status_code < 500, (method, path, response.status_code)


def test_span_form_field_nested_deep_is_refused(client, launched, loaded_campaign, make_annotator):
    task = launched("esa")
    user = make_annotator(loaded_campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=user.id)
    quiet = _quiet_client()
    quiet.force_login(user)
    response = quiet.post(
        f"/annotate/{task.id}/submit/",
        {"slot": slot.id, "score": "50", "spans": DEEP},
        HTTP_X_REQUESTED_WITH="fetch",
    )
    assert response.status_code == 400


def test_jsonl_upload_nested_deep_is_refused_with_its_line(campaign, manager):
    data = ('{"text": "fine"}\n{"text": "x", "extra": ' + DEEP + "}\n").encode()
    with pytest.raises(ApplicationError, match="line 2"):
        upload_import(campaign=campaign, kind="source", user=manager, files=[("s.jsonl", data)])


def test_depth_limit_counts_brackets_outside_strings_only():
    json_limits.loads('["' + "[" * 1000 + '"]')  # brackets inside a string do not nest
    json_limits.loads("[" * json_limits.MAX_DEPTH + "]" * json_limits.MAX_DEPTH)
    with pytest.raises(ValueError, match="nested"):
        json_limits.loads("[" * (json_limits.MAX_DEPTH + 1) + "]" * (json_limits.MAX_DEPTH + 1))
