"""REST API for campaigns and uploads, with token authentication."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Output, Segment, SystemRun
from annotation.services.campaigns import membership_set

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(manager):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=manager).key}")
    return client


def upload(api, campaign_id, what, filename, content, **fields):
    file = SimpleUploadedFile(filename, content)
    return api.post(
        f"/api/v1/campaigns/{campaign_id}/{what}", {"files": [file], **fields}, format="multipart"
    )


def test_token_is_obtained_with_username_and_password(manager):
    response = APIClient().post(
        "/api/v1/auth/token", {"username": "manager", "password": "manager-password-1"}
    )
    assert response.status_code == 200
    assert response.json()["token"] == Token.objects.get(user=manager).key


def test_anonymous_is_refused():
    assert APIClient().get("/api/v1/campaigns").status_code == 401


def test_create_upload_and_list(api):
    response = api.post(
        "/api/v1/campaigns",
        {"name": "WMT", "source_language": "en", "target_language": "de"},
        format="json",
    )
    assert response.status_code == 201, response.content
    campaign_id = response.json()["id"]
    assert response.json()["role"] == "manager"

    assert upload(api, campaign_id, "source", "src.en", b"one\ntwo\n").status_code == 201
    response = upload(api, campaign_id, "references", "ref.de", b"eins\nzwei\n", name="A")
    assert response.status_code == 201
    response = upload(api, campaign_id, "systems/upload", "newstest.hyp.X.de", b"ein\nzwo\n")
    assert response.status_code == 201
    assert response.json() == [
        {
            "kind": "system",
            "name": "X",
            "status": "created",
            "segments": 2,
            "run_number": 1,
            "warnings": [],
            "documents": 0,
        }
    ]
    again = upload(api, campaign_id, "systems/upload", "newstest.hyp.X.de", b"ein\nzwo\n")
    assert again.status_code == 200
    assert again.json()[0]["status"] == "unchanged"

    systems = api.get(f"/api/v1/campaigns/{campaign_id}/systems").json()
    assert [(row["system"], row["run"]) for row in systems] == [("X", 1)]
    assert systems[0]["job_state"] in {"pending", "queued", "running", "done"}
    assert Output.objects.count() == 2


def test_bad_upload_is_400_with_the_message_and_writes_nothing(api, campaign):
    upload(api, campaign.id, "source", "src.en", b"one\ntwo\n")
    response = upload(api, campaign.id, "systems/upload", "sys.de", b"just one\n", name="S")
    assert response.status_code == 400
    assert response.json() == {
        "error": "sys.de: 1 lines, but the source has 2; every line must translate the source "
        "line with the same number",
        "code": "invalid",
    }
    assert SystemRun.objects.count() == 0


def test_annotator_cannot_upload_or_list_systems(campaign, django_user_model):
    annotator = django_user_model.objects.create_user("ann", password="x-password-1")
    membership_set(campaign=campaign, user=annotator, role="annotator")
    client = APIClient()
    client.force_authenticate(annotator)
    assert upload(client, campaign.id, "source", "src.en", b"a\n").status_code == 403
    assert client.get(f"/api/v1/campaigns/{campaign.id}/systems").status_code == 403
    assert Segment.objects.count() == 0


def test_non_member_gets_404(campaign, django_user_model):
    stranger = django_user_model.objects.create_user("stranger", password="x-password-1")
    client = APIClient()
    client.force_authenticate(stranger)
    assert client.get(f"/api/v1/campaigns/{campaign.id}").status_code == 404
    assert upload(client, campaign.id, "source", "src.en", b"a\n").status_code == 404


def test_openapi_schema_lists_the_endpoints(api):
    response = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    assert "/api/v1/campaigns/{campaign_id}/systems/upload" in paths


def test_oversized_upload_is_refused_before_reading(api, campaign, settings):
    settings.UPLOAD_MAX_BYTES = 10
    response = upload(api, campaign.id, "source", "big.en", b"0123456789\n")
    assert response.status_code == 400
    assert response.json() == {
        "error": "big.en: 11 bytes is over the upload limit of 10 bytes",
        "code": "invalid",
    }
    assert Segment.objects.count() == 0
