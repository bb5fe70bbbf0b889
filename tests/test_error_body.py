"""One JSON error body for every error, from the API and from pages' scripts alike
(``annotation/http_errors.py``); refusals logged in one line; the CSRF failure page styled."""

from __future__ import annotations

import json
import logging

import pytest
from django.db import OperationalError
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from annotation.http_errors import CODE_BY_STATUS
from annotation.middleware import DatabaseUnavailableMiddleware
from annotation.services.assignment import slot_claim_next
from annotation.views.errors import server_error

pytestmark = pytest.mark.django_db

BODY_KEYS = {"error", "code", "fields", "next"}


def assert_the_one_body(response, status: int) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = json.loads(response.content)
    assert set(body) <= BODY_KEYS and {"error", "code"} <= set(body), body
    assert isinstance(body["error"], str) and body["error"], body
    assert body["code"] == CODE_BY_STATUS[status], body
    return body


def test_every_api_error_has_the_one_body(loaded_campaign, manager, make_annotator):
    annotator = make_annotator(loaded_campaign, "ann")
    anonymous, as_manager, as_annotator = APIClient(), APIClient(), APIClient()
    as_manager.force_authenticate(manager)
    as_annotator.force_authenticate(annotator)
    campaign = f"/api/v1/campaigns/{loaded_campaign.id}"
    # A service's ApplicationError.
    assert_the_one_body(as_manager.get(f"{campaign}/results/human/judgments.wmt"), 400)
    # DRF's validation errors: the messages in "error", field by field in "fields".
    missing = assert_the_one_body(
        anonymous.post("/api/v1/auth/token", {"username": "x"}, format="json"), 400
    )
    assert missing["fields"] == {"password": ["This field is required."]}
    assert missing["error"] == "password: This field is required."
    # A body that does not parse, in a media type not read, without credentials, for a
    # role that may not, no such route, the wrong method.
    assert_the_one_body(
        anonymous.generic("POST", "/api/v1/auth/token", "{", content_type="application/json"),
        400,
    )
    assert_the_one_body(
        anonymous.generic("POST", "/api/v1/auth/token", "x", content_type="text/plain"), 415
    )
    assert_the_one_body(anonymous.get("/api/v1/campaigns"), 401)
    assert_the_one_body(as_annotator.get(f"{campaign}/members"), 403)
    assert_the_one_body(as_manager.get("/api/v1/no-such-thing"), 404)
    assert_the_one_body(as_manager.get(f"{campaign}/tasks/999999"), 404)
    assert_the_one_body(as_manager.get("/api/v1/judgments"), 405)


def test_pages_answer_their_scripts_with_the_one_body(
    client, launched, loaded_campaign, make_annotator
):
    task = launched("adequacy")
    user = make_annotator(loaded_campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=user.id)
    client.force_login(user)
    fetch = {"HTTP_X_REQUESTED_WITH": "fetch", "HTTP_ACCEPT": "application/json"}
    url = f"/annotate/{task.id}/submit/"
    refused = assert_the_one_body(client.post(url, {"slot": slot.id, "score": "999"}, **fetch), 400)
    assert refused["next"] == f"/annotate/{task.id}/"
    assert_the_one_body(client.post(url, {"score": "3"}, **fetch), 400)  # incomplete form
    # A page the script may not reach answers it in JSON too, not with an HTML page.
    assert_the_one_body(client.get(f"/campaigns/{loaded_campaign.id}/members/", **fetch), 403)
    invitation = client.post("/invite/details/", {"token": "nonsense"}, **fetch)
    assert_the_one_body(invitation, 404)


def test_server_and_database_errors_have_the_one_body():
    factory = RequestFactory()
    assert_the_one_body(server_error(factory.get("/api/v1/campaigns")), 500)
    refused = OperationalError("connection refused")
    middleware = DatabaseUnavailableMiddleware(lambda request: None)
    unavailable = middleware.process_exception(factory.post("/api/v1/judgments"), refused)
    assert_the_one_body(unavailable, 503)
    assert unavailable["Retry-After"] == "2"


def test_the_schema_names_one_error_body(manager):
    api = APIClient()
    api.force_authenticate(manager)
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    components = schema["components"]["schemas"]
    assert components["Error"]["required"] == ["error", "code"]
    assert not {"Detail", "NotFound", "BadRequest", "Unavailable"} & set(components)
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    body = response["content"]["application/json"]["schema"]
                    assert body == {"$ref": "#/components/schemas/Error"}, (path, method, status)


def test_a_refusal_is_logged_in_one_line_without_a_traceback(
    client, loaded_campaign, make_annotator, caplog
):
    client.force_login(make_annotator(loaded_campaign, "ann"))
    with caplog.at_level(logging.INFO, logger="django.request"):
        response = client.get(f"/campaigns/{loaded_campaign.id}/members/")
    assert response.status_code == 403 and "Not allowed" in response.content.decode()
    records = [record for record in caplog.records if record.name == "django.request"]
    assert len(records) == 1 and records[0].exc_info is None
    assert records[0].getMessage() == f"Forbidden: /campaigns/{loaded_campaign.id}/members/"


def test_the_csrf_failure_page_is_the_sites_with_a_way_back(manager):
    client = Client(enforce_csrf_checks=True)
    client.force_login(manager)
    form = "http://testserver/campaigns/new/"
    response = client.post("/campaigns/new/", {"name": "x"}, HTTP_REFERER=form)
    html = response.content.decode()
    assert response.status_code == 403
    assert 'class="topbar"' in html and "Form expired" in html
    assert "reload the page and submit again" in html
    assert f'href="{form}">Back to the page</a>' in html
    elsewhere = client.post("/campaigns/new/", {}, HTTP_REFERER="https://evil.example/")
    assert "evil.example" not in elsewhere.content.decode()
    script = client.post("/campaigns/new/", {}, HTTP_X_REQUESTED_WITH="fetch")
    assert_the_one_body(script, 403)
