"""Manager pages: create a campaign, upload with a preview, confirm or cancel."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Campaign, PendingUpload, Segment, SystemRun

pytestmark = pytest.mark.django_db


@pytest.fixture
def web(client, manager):
    client.force_login(manager)
    return client


def post_upload(web, campaign, kind, filename, content, **fields):
    return web.post(
        f"/campaigns/{campaign.id}/upload/",
        {"kind": kind, "files": SimpleUploadedFile(filename, content), **fields},
    )


def test_create_campaign_page(web):
    response = web.post(
        "/campaigns/new/", {"name": "New", "source_language": "en", "target_language": "cs"}
    )
    campaign = Campaign.objects.get(name="New")
    assert response.status_code == 302
    assert response.url == f"/campaigns/{campaign.id}/"


def test_upload_preview_then_confirm(web, campaign):
    response = post_upload(web, campaign, "source", "src.en", b"ein Satz\n<b>zwei</b>\n")
    assert response.status_code == 200
    assert b"Check before importing" in response.content
    assert b"&lt;b&gt;zwei&lt;/b&gt;" in response.content  # escaped, never rendered as HTML
    assert Segment.objects.count() == 0  # a preview writes nothing
    pending = PendingUpload.objects.get()
    response = web.post(f"/campaigns/{campaign.id}/upload/{pending.id}/confirm/")
    assert response.status_code == 302
    assert Segment.objects.count() == 2
    assert not PendingUpload.objects.exists()
    # Confirming the same preview again (a double click) imports nothing more.
    web.post(f"/campaigns/{campaign.id}/upload/{pending.id}/confirm/")
    assert Segment.objects.count() == 2


def test_invalid_upload_shows_the_error_and_writes_nothing(web, campaign, settings):
    settings.UPLOAD_MAX_BYTES = 5 * 1024 * 1024
    post_upload(web, campaign, "source", "src.en", b"a\nb\n")
    web.post(f"/campaigns/{campaign.id}/upload/{PendingUpload.objects.get().id}/confirm/")
    response = post_upload(web, campaign, "system", "s.de", b"only one\n", name="S", add_run="on")
    assert response.status_code == 400
    page = response.content.decode()
    assert "s.de: 1 lines, but the source has 2" in page
    assert SystemRun.objects.count() == 0
    # The error is beside the form, which keeps the manager's choices.
    form = page[page.index('id="upload"') :]
    assert form.index("upload-error") < form.index('name="kind"')
    assert '<option value="system" selected>' in form
    assert 'name="name" value="S"' in form
    assert re.search(r'<input type="checkbox" name="add_run"[^>]* checked>', form)
    assert "Files up to 5.0 MB each." in form  # the limit in MB, as errors give sizes


def test_detail_page_lists_systems_with_their_job(web, campaign):
    post_upload(web, campaign, "source", "src.en", b"a\nb\n")
    web.post(f"/campaigns/{campaign.id}/upload/{PendingUpload.objects.get().id}/confirm/")
    post_upload(web, campaign, "system", "s.de", b"x\ny\n", name="Sys-1")
    web.post(f"/campaigns/{campaign.id}/upload/{PendingUpload.objects.get().id}/confirm/")
    page = web.get(f"/campaigns/{campaign.id}/").content.decode()
    assert "Sys-1" in page
    assert '<progress class="progress"' in page or "Done" in page


def test_annotator_cannot_see_the_manager_page(client, campaign, django_user_model):
    from annotation.services.campaigns import membership_set

    annotator = django_user_model.objects.create_user("ann", password="x-password-1")
    membership_set(campaign=campaign, user=annotator, role="annotator")
    client.force_login(annotator)
    assert client.get(f"/campaigns/{campaign.id}/").status_code == 403
    assert client.post(f"/campaigns/{campaign.id}/upload/", {"kind": "source"}).status_code == 403


def test_annotators_land_on_their_tasks(client, campaign, django_user_model):
    from annotation.services.campaigns import membership_set

    annotator = django_user_model.objects.create_user("ann", password="x-password-1")
    membership_set(campaign=campaign, user=annotator, role="annotator")
    client.force_login(annotator)
    response = client.get("/")
    assert response.status_code == 302 and response.url == "/annotate/"
