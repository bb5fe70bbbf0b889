"""Media sources (issue 22 §3): a zip with a manifest, validated whole before anything is
written; files served with HTTP ranges under the item's permissions; shown on the screen."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import SourceMedia
from annotation.services.campaigns import membership_set
from tests.media_support import media_zip, png, wav

PNG, WAV = png(), wav()
# Lines 1-12 of the loaded campaign: an image for odd lines, audio with a transcript for even.
ALL_LINES = [
    {"line": line, "file": f"media/{line}.png"}
    if line % 2
    else {"line": line, "file": f"media/{line}.wav", "transcript": f"Spoken line {line}."}
    for line in range(1, 13)
]
ALL_FILES = {entry["file"]: PNG if entry["file"].endswith(".png") else WAV for entry in ALL_LINES}


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def api(manager):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=manager).key}")
    return client


def upload(api, campaign_id, content, filename="media.zip"):
    return api.post(
        f"/api/v1/campaigns/{campaign_id}/media",
        {"file": SimpleUploadedFile(filename, content)},
        format="multipart",
    )


def stored_files(root):
    return sorted(path.name for path in root.rglob("*") if path.is_file()) if root.exists() else []


@pytest.fixture
def uploaded(api, loaded_campaign, media_root):
    response = upload(api, loaded_campaign.id, media_zip(ALL_LINES, ALL_FILES))
    assert response.status_code == 201, response.content
    return {m.segment.index + 1: m for m in SourceMedia.objects.select_related("segment")}


@pytest.mark.django_db
def test_zip_upload_stores_each_file_once_and_links_its_line(api, loaded_campaign, media_root):
    response = upload(api, loaded_campaign.id, media_zip(ALL_LINES, ALL_FILES))
    assert response.status_code == 201, response.content
    body = response.json()
    assert [row["line"] for row in body] == list(range(1, 13))
    assert body[0] == {
        "line": 1,
        "file": "media/1.png",
        "kind": "image",
        "mime_type": "image/png",
        "size": len(PNG),
    }
    by_line = {m.segment.index + 1: m for m in SourceMedia.objects.select_related("segment")}
    assert by_line[2].kind == "audio" and by_line[2].transcript == "Spoken line 2."
    # Stored by content: twelve entries, two distinct files.
    assert len(stored_files(media_root)) == 2
    assert (media_root / by_line[1].path).read_bytes() == PNG
    # Uploading again replaces the lines' files rather than adding rows.
    assert upload(api, loaded_campaign.id, media_zip(ALL_LINES, ALL_FILES)).status_code == 201
    assert SourceMedia.objects.count() == 12


REFUSALS = {
    "unknown type": (
        [{"line": 1, "file": "a.svg"}],
        {"a.svg": b"<svg onload='alert(1)'/>"},
        "a.svg",
        "unknown media type",
    ),
    "content not of its type": (
        [{"line": 1, "file": "page.png"}],
        {"page.png": b"<html><script>alert(1)</script></html>"},
        "page.png",
        "not image/png",
    ),
    "missing file": ([{"line": 1, "file": "gone.png"}], {}, "gone.png", "not in the zip"),
    "path traversal in the manifest": (
        [{"line": 1, "file": "../etc/passwd.png"}],
        {"a.png": PNG},
        "../etc/passwd.png",
        "leaving the zip",
    ),
    "path traversal in the zip": (
        [{"line": 1, "file": "a.png"}],
        {"a.png": PNG, "../evil.png": PNG},
        "../evil.png",
        "leaving the zip",
    ),
    "oversize": ([{"line": 1, "file": "big.wav"}], {"big.wav": b"x" * 2000}, "big.wav", "over"),
    "line out of range": ([{"line": 13, "file": "a.png"}], {"a.png": PNG}, "entry 2", "1 to 12"),
    "two files for a line": (
        [{"line": 1, "file": "a.png"}, {"line": 1, "file": "b.png"}],
        {"a.png": PNG, "b.png": PNG},
        "b.png",
        "line 1 has a file already",
    ),
    "unnamed file": ([{"line": 1, "file": "a.png"}], {"a.png": PNG, "b.png": PNG}, "b.png", ""),
    "unknown key": ([{"line": 1, "file": "a.png", "mime": "x"}], {"a.png": PNG}, "entry 2", "mime"),
}


@pytest.mark.django_db
@pytest.mark.parametrize("case", REFUSALS, ids=list(REFUSALS))
def test_a_bad_zip_is_refused_naming_the_file_and_writes_nothing(
    api, loaded_campaign, media_root, settings, case
):
    settings.MEDIA_FILE_MAX_BYTES = 1000
    manifest, files, named, problem = REFUSALS[case]
    # A good entry first: the whole zip is refused, not just the bad entry.
    good = {"line": 2, "file": "good.wav"}
    response = upload(
        api, loaded_campaign.id, media_zip([good, *manifest], {"good.wav": WAV[:500], **files})
    )
    assert response.status_code == 400, response.content
    message = response.json()["error"]
    assert named in message and problem in message
    assert SourceMedia.objects.count() == 0
    assert stored_files(media_root) == []


@pytest.mark.django_db
def test_a_zip_without_manifest_or_not_a_zip_is_refused(api, loaded_campaign, media_root):
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.png", PNG)
    response = upload(api, loaded_campaign.id, buffer.getvalue())
    assert response.status_code == 400 and "no manifest.json" in response.json()["error"]
    response = upload(api, loaded_campaign.id, PNG, filename="a.png")
    assert response.status_code == 400 and "a.png" in response.json()["error"]
    assert stored_files(media_root) == []


def media_url(media):
    return f"/campaigns/{media.campaign_id}/media/{media.id}"


@pytest.fixture
def organiser_client(loaded_campaign, django_user_model):
    user = django_user_model.objects.create_user("organiser", password="organiser-pw-123")
    membership_set(campaign=loaded_campaign, user=user, role="organiser")
    client = Client()
    client.force_login(user)
    return client


def body(response):
    return b"".join(response.streaming_content)


@pytest.mark.django_db
def test_ranges_full_partial_suffix_and_unsatisfiable(uploaded, organiser_client):
    url = media_url(uploaded[2])
    size = len(WAV)
    whole = organiser_client.get(url)
    assert whole.status_code == 200 and body(whole) == WAV
    assert whole["Content-Type"] == "audio/wav" and whole["Accept-Ranges"] == "bytes"
    assert whole["Content-Length"] == str(size)

    partial = organiser_client.get(url, HTTP_RANGE="bytes=10-19")
    assert partial.status_code == 206 and body(partial) == WAV[10:20]
    assert partial["Content-Range"] == f"bytes 10-19/{size}"
    assert partial["Content-Length"] == "10"

    open_ended = organiser_client.get(url, HTTP_RANGE=f"bytes={size - 5}-")
    assert open_ended.status_code == 206 and body(open_ended) == WAV[-5:]

    suffix = organiser_client.get(url, HTTP_RANGE="bytes=-100")
    assert suffix.status_code == 206 and body(suffix) == WAV[-100:]
    assert suffix["Content-Range"] == f"bytes {size - 100}-{size - 1}/{size}"

    past_the_end = organiser_client.get(url, HTTP_RANGE="bytes=5-999999999")
    assert past_the_end.status_code == 206 and body(past_the_end) == WAV[5:]

    for bad in (f"bytes={size}-", "bytes=20-10", "bytes=-0", "bytes=x-y", "bytes=-"):
        refused = organiser_client.get(url, HTTP_RANGE=bad)
        assert refused.status_code == 416, bad
        assert refused["Content-Range"] == f"bytes */{size}"

    head = organiser_client.head(url, HTTP_RANGE="bytes=0-3")
    assert head.status_code == 206 and head["Content-Length"] == "4"


@pytest.mark.django_db
def test_media_follow_the_items_permissions(
    uploaded,
    launched,
    loaded_campaign,
    make_annotator,
    organiser_client,
    manager,
    django_user_model,
):
    task = launched("adequacy")
    annotator = make_annotator(loaded_campaign, "annotator")
    idle = make_annotator(loaded_campaign, "idle")  # a member without an item yet
    client = Client()
    client.force_login(annotator)
    page = client.get(f"/annotate/{task.id}/")
    assert page.status_code == 200
    slot = task.slots.filter(annotator=annotator).select_related("item").first()
    mine = SourceMedia.objects.get(segment_id=slot.item.segment_id)
    url = media_url(mine)

    assert client.get(url).status_code == 200
    idle_client = Client()
    idle_client.force_login(idle)
    assert idle_client.get(url).status_code == 404
    assert organiser_client.get(url).status_code == 200
    manager_client = Client()
    manager_client.force_login(manager)
    assert manager_client.get(url).status_code == 200
    outsider = django_user_model.objects.create_user("outsider", password="outsider-pw-123")
    outsider_client = Client()
    outsider_client.force_login(outsider)
    assert outsider_client.get(url).status_code == 404
    assert Client().get(url).status_code == 302  # to the login page
    # The id of another campaign's media under this campaign's URL finds nothing.
    assert client.get(f"/campaigns/{loaded_campaign.id}/media/999999").status_code == 404
    # Posting is not reading.
    assert client.post(url).status_code == 405


@pytest.mark.django_db
def test_the_screen_shows_the_media_with_native_controls(
    uploaded, launched, loaded_campaign, make_annotator
):
    task = launched("adequacy")
    annotator = make_annotator(loaded_campaign, "annotator")
    client = Client()
    client.force_login(annotator)
    html = client.get(f"/annotate/{task.id}/").content.decode()
    slot = task.slots.filter(annotator=annotator).select_related("item").first()
    media = SourceMedia.objects.get(segment_id=slot.item.segment_id)
    url = media_url(media)
    if media.kind == "image":
        assert f'<img src="{url}"' in html
    else:
        assert f'<audio controls preload="metadata" src="{url}">' in html
        assert media.transcript in html
    assert "<script>" not in html and "style=" not in html


@pytest.mark.django_db
def test_the_campaign_page_uploads_media_and_shows_a_refusal(loaded_campaign, manager, media_root):
    client = Client()
    client.force_login(manager)
    page = client.get(f"/campaigns/{loaded_campaign.id}/").content.decode()
    assert f'action="/campaigns/{loaded_campaign.id}/media/upload/"' in page
    url = f"/campaigns/{loaded_campaign.id}/media/upload/"
    bad = media_zip([{"line": 1, "file": "gone.png"}], {})
    refused = client.post(url, {"file": SimpleUploadedFile("bad.zip", bad)}, follow=True)
    text = refused.content.decode()
    assert "No media were stored." in text and "gone.png" in text
    assert SourceMedia.objects.count() == 0 and stored_files(media_root) == []
    good = media_zip(ALL_LINES, ALL_FILES)
    done = client.post(url, {"file": SimpleUploadedFile("good.zip", good)}, follow=True)
    assert "good.zip: 12 media files stored." in done.content.decode()
    assert SourceMedia.objects.count() == 12


def test_every_allowed_type_has_its_signature():
    from annotation.services.media import MEDIA_SUFFIXES, SIGNATURES

    assert {mime for _, mime in MEDIA_SUFFIXES.values()} == set(SIGNATURES)
    assert SIGNATURES["image/png"](PNG) and SIGNATURES["audio/wav"](WAV)
    assert not SIGNATURES["image/png"](WAV) and not SIGNATURES["audio/mpeg"](b"<html>")


@pytest.mark.django_db
def test_the_next_item_api_names_the_media_file(
    uploaded, launched, loaded_campaign, make_annotator
):
    task = launched("adequacy")
    annotator = make_annotator(loaded_campaign, "annotator")
    client = APIClient()
    client.force_authenticate(annotator)
    item = client.get(f"/api/v1/tasks/{task.id}/next").json()
    slot = task.slots.select_related("item").get(id=item["slot"])
    media = SourceMedia.objects.get(segment_id=slot.item.segment_id)
    assert item["source_media"] == {
        "kind": media.kind,
        "mime_type": media.mime_type,
        "url": media_url(media),
        "transcript": media.transcript,
    }
    session = Client()
    session.force_login(annotator)
    assert session.get(item["source_media"]["url"]).status_code == 200


@pytest.mark.django_db
def test_a_video_source_gets_native_video_controls(
    api, launched, loaded_campaign, make_annotator, media_root
):
    webm = b"\x1a\x45\xdf\xa3" + b"\x00" * 60  # a WebM header; the browser would play the rest
    manifest = [{"line": line, "file": f"{line}.webm"} for line in range(1, 13)]
    files = {entry["file"]: webm for entry in manifest}
    assert upload(api, loaded_campaign.id, media_zip(manifest, files)).status_code == 201
    task = launched("adequacy")
    annotator = make_annotator(loaded_campaign, "viewer")
    client = Client()
    client.force_login(annotator)
    html = client.get(f"/annotate/{task.id}/").content.decode()
    assert '<video controls preload="metadata" src="/campaigns/' in html
    assert "<figcaption>" not in html  # no transcript, no caption
