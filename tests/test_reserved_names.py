"""A system may not take the name the human reference is ranked under ("Human", any case):
its judgments would merge with the reference's in the results. Refused through the service,
the upload form, the API, the command line and Appraise imports, writing nothing."""

import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.lib.textfiles import UploadError
from annotation.models import HUMAN, Campaign, PendingUpload, System, SystemRun
from annotation.services.appraise import AppraiseError, appraise_parse
from annotation.services.imports import upload_import
from tests.conftest import DATA

pytestmark = pytest.mark.django_db

SOURCE = b"one\ntwo\n"
OUTPUT = b"eins\nzwei\n"
REFUSAL = "names the human reference in the results; rename the system"


@pytest.fixture
def sourced(campaign, manager):
    upload_import(campaign=campaign, kind="source", files=[("src.en", SOURCE)], user=manager)
    return campaign


def test_the_reserved_name_is_the_one_results_use():
    # The results name the human reference "Human" (annotation.selectors.human.loading).
    from annotation.selectors.human.loading import HUMAN as RANKED_AS

    assert HUMAN == RANKED_AS == "Human"


@pytest.mark.parametrize("name", ["Human", "human", "HUMAN", " hUmAn "])
def test_the_service_refuses_the_name_in_any_case(sourced, manager, name):
    with pytest.raises(UploadError, match=REFUSAL):
        upload_import(
            campaign=sourced, kind="system", name=name, files=[("s.de", OUTPUT)], user=manager
        )
    assert not System.objects.exists()


def test_a_name_taken_from_the_file_or_an_archive_is_refused_too(sourced, manager):
    with pytest.raises(UploadError, match=f"newstest.hyp.human.de: 'human' {REFUSAL}"):
        upload_import(
            campaign=sourced,
            kind="system",
            files=[("newstest.hyp.human.de", OUTPUT)],
            user=manager,
        )
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("newstest.hyp.Online-B.de", OUTPUT)
        zipped.writestr("newstest.hyp.HUMAN.de", b"ein\nzwo\n")
    with pytest.raises(UploadError, match=REFUSAL):
        upload_import(
            campaign=sourced, kind="system", files=[("all.zip", archive.getvalue())], user=manager
        )
    assert not System.objects.exists()  # the whole archive is refused, Online-B included


def test_names_that_only_contain_it_and_references_are_accepted(sourced, manager):
    for name in ("Human-A", "NotHuman"):
        upload_import(
            campaign=sourced,
            kind="system",
            name=name,
            files=[(f"{name}.de", name.encode() + b"\n" + OUTPUT.split(b"\n")[1] + b"\n")],
            user=manager,
        )
    upload_import(
        campaign=sourced, kind="reference", name="Human", files=[("r.de", OUTPUT)], user=manager
    )
    assert sorted(System.objects.values_list("name", flat=True)) == ["Human-A", "NotHuman"]


def test_the_upload_form_shows_the_refusal(client, manager, sourced):
    client.force_login(manager)
    response = client.post(
        f"/campaigns/{sourced.id}/upload/",
        {"kind": "system", "name": "human", "files": SimpleUploadedFile("s.de", OUTPUT)},
    )
    assert response.status_code == 400
    assert REFUSAL in response.content.decode()
    assert not PendingUpload.objects.exists() and not SystemRun.objects.exists()


def test_the_api_answers_400(manager, sourced):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=manager).key}")
    response = api.post(
        f"/api/v1/campaigns/{sourced.id}/systems/upload",
        {"files": [SimpleUploadedFile("s.de", OUTPUT)], "name": "Human"},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json() == {"error": f"s.de: 'Human' {REFUSAL}", "code": "invalid"}
    assert not SystemRun.objects.exists()


def test_the_command_refuses_it_and_imports_nothing(manager, tmp_path):
    source, output = tmp_path / "src.en", tmp_path / "out.de"
    source.write_bytes(SOURCE)
    output.write_bytes(OUTPUT)
    with pytest.raises(CommandError, match=REFUSAL):
        call_command(
            "import_campaign",
            "Reserved",
            "--owner",
            "manager",
            "--languages",
            "en-de",
            "--source",
            str(source),
            "--system",
            f"HUMAN={output}",
        )
    assert not Campaign.objects.filter(name="Reserved").exists()


def test_appraise_targets_named_human_are_refused_outside_reference_items(manager):
    folder = DATA / "appraise-examples" / "Direct"
    manifest = json.loads((folder / "manifest.json").read_text())
    batches = json.loads((folder / "batches.json").read_text())
    item = next(i for i in batches[0]["items"] if i["itemType"] == "TGT")
    item["targetID"] = "human"
    with pytest.raises(AppraiseError, match="system 'human' would merge with the human reference"):
        appraise_parse(manifest=manifest, batches=batches)
