"""Pearmut campaigns through the page and the API (the command: test_pearmut_import.py)."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Campaign, Judgment, Task
from tests.conftest import DATA

pytestmark = pytest.mark.django_db
EXAMPLES = DATA / "pearmut-examples"
CACHE = EXAMPLES / "annotated_cache" / "data"


def upload(path, name=None):
    return SimpleUploadedFile(name or path.name, path.read_bytes())


@pytest.fixture
def api(manager):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=manager).key}")
    return client


def test_api_imports_a_campaign_with_its_annotations(api):
    response = api.post(
        "/api/v1/campaigns/pearmut",
        {
            "campaign": upload(CACHE / "tasks" / "example_contrastive.json"),
            "annotations": upload(CACHE / "outputs" / "example_contrastive.jsonl"),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    task = Task.objects.get(id=body["task"])
    assert body["campaign"] == task.campaign_id and body["task_type"] == "esa"
    assert body["items"] == 15 and body["judgments"] == Judgment.objects.count() > 0
    assert any("hidden" in note for note in body["notes"])


def test_api_refuses_with_the_reason_and_writes_nothing(api):
    response = api.post(
        "/api/v1/campaigns/pearmut",
        {"campaign": upload(EXAMPLES / "multimodal.json")},
        format="multipart",
    )
    assert response.status_code == 400
    assert "embeds a page (<iframe> https://www.youtube.com/embed/" in response.content.decode()
    assert not Campaign.objects.exists()


def test_api_needs_the_right_to_create_campaigns(django_user_model):
    user = django_user_model.objects.create_user("annotator1", password="pw-annotator-123")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    response = client.post(
        "/api/v1/campaigns/pearmut",
        {"campaign": upload(EXAMPLES / "esaai.json")},
        format="multipart",
    )
    assert response.status_code == 403 and not Campaign.objects.exists()


def test_page_imports_and_refuses(client, manager):
    client.force_login(manager)
    url = reverse("campaign-import-pearmut")
    assert client.get(url).status_code == 200
    assert url in client.get(reverse("campaign-create")).content.decode()
    refused = client.post(url, {"campaign": upload(EXAMPLES / "multimodal.json")})
    assert refused.status_code == 400
    assert "media source" in refused.content.decode() and not Campaign.objects.exists()
    missing = client.post(url, {"campaign": upload(EXAMPLES / "esaai.json")})
    assert missing.status_code == 400 and "languages" in missing.content.decode()
    done = client.post(
        url, {"campaign": upload(EXAMPLES / "esaai.json"), "languages": "en-cs", "name": "AI"}
    )
    campaign = Campaign.objects.get(name="AI")
    assert done.status_code == 302 and done["Location"].endswith(f"/campaigns/{campaign.id}/")
    assert campaign.tasks.get().task_type == "esa_prefilled"


def test_imported_campaign_annotated_through_the_api_and_exported(manager, make_annotator):
    call_command("import_pearmut", str(EXAMPLES / "esa.json"), "--owner", "manager")
    task = Task.objects.get()
    annotator = make_annotator(task.campaign, "ann1")
    api = APIClient()
    api.force_authenticate(annotator)
    shown = []
    for _ in range(3):
        item = api.get(f"/api/v1/tasks/{task.id}/next").json()
        answer = {"score": 70, "spans": [{"start": 0, "end": 3, "severity": "minor"}]}
        response = api.post(
            "/api/v1/judgments", {"task": task.id, "slot": item["slot"], **answer}, format="json"
        )
        assert response.status_code == 201, response.content
        shown.append(item)
    manager_api = APIClient()
    manager_api.force_authenticate(manager)
    response = manager_api.get(
        f"/api/v1/campaigns/{task.campaign_id}/results/human/judgments.pearmut.jsonl?task={task.id}"
    )
    assert response.status_code == 200, response.content
    lines = [
        json.loads(line)
        for line in b"".join(response.streaming_content).decode().splitlines()
        if line
    ]
    values = [value for line in lines for item in line["annotation"] for value in item.values()]
    assert all(line["user_id"] == "ann1" for line in lines)
    assert len(values) == 3
    assert all(
        v["score"] == 70
        and v["error_spans"] == [{"start_i": 0, "end_i": 2, "category": None, "severity": "minor"}]
        for v in values
    )
    # The items keep Pearmut's ids: the first shown item is the first of task 1.
    first = json.loads((EXAMPLES / "esa.json").read_text(encoding="utf-8"))["data"][0][0][0]
    assert any(item["item_id"] == first["item_id"] for line in lines for item in line["item"])
