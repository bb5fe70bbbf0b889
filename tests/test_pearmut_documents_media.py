"""Pearmut documents and media, with the shared example files: documents of several items
import as document pages (one page per document and system, in reading order) unless a
document holds a tutorial or an attention check; media sources import as the segment's
SourceMedia (a file beside the campaign file, or a data: URL) or are refused naming the URL
evalsite cannot fetch."""

import base64
import json
from collections import defaultdict

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.models import Campaign, Judgment, SourceMedia, Task
from annotation.selectors.pages import page_slots
from annotation.services.assignment import slot_claim_next
from annotation.services.campaigns import membership_set
from annotation.services.page_judgments import page_record_and_claim_next
from tests.conftest import DATA

pytestmark = pytest.mark.django_db
EXAMPLES = DATA / "pearmut-examples"
MULTIMODAL = EXAMPLES / "multimodal.json"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)
WAV = b"RIFF" + bytes(4) + b"WAVE" + bytes(64)

# Which shared files become document pages, and why the others do not (by hand from the
# files: the longest document, and whether a document holds a check).
UNITS = {
    "esa.json": "document",  # 50 documents of up to 12 items
    "mqm.json": "document",  # up to 7 items
    "da.json": "document",  # up to 9 items
    "esaai.json": "document",  # 2 items
    "custom_mqm.json": "document",  # 3 items
    "dynamic.json": "document",  # 2 items
    "annotation/campaign_esa.json": "document",  # 2 items
    "annotated_cache/data/tasks/example_contrastive.json": "document",  # 2 items
    "attention_checks.json": "segment",  # every document is one item
    "singlestream.json": "segment",  # tutorials first (data_welcome)
    "tutorials/esa_deen.json": "segment",  # tutorial items in every document
    "contrastive.json": "segment",  # cESA: one screen per item
}


def _import(path, *extra):
    call_command(
        "import_pearmut", str(path), "--owner", "manager", "--name", str(path.name),
        "--languages", "en-de", *extra,
    )  # fmt: skip
    return Task.objects.get(campaign__name=path.name)


@pytest.mark.parametrize("path", sorted(UNITS))
def test_which_shared_files_become_document_pages(path, manager):
    task = _import(EXAMPLES / path)
    assert task.unit == UNITS[path]
    if task.unit == "segment":
        assert not task.slots.filter(page__isnull=False).exists()
        return
    # Every slot is on a page; a page is one document of one system, in reading order, and
    # there is one page per (Pearmut document, system).
    raw = json.loads((EXAMPLES / path).read_text(encoding="utf-8"))
    data = raw["data"]
    if isinstance(data, dict):  # Pearmut's task cache: a task per user
        tasks = list(data.values())
    elif raw["info"].get("assignment", "task-based") == "task-based":
        tasks = data
    else:  # single-stream and dynamic: one list of documents
        tasks = [data]
    expected_pages = sum(
        len({system for item in document for system in item["tgt"]})
        for pearmut_task in tasks
        for document in pearmut_task
    )
    pages = defaultdict(list)
    for slot in task.slots.filter(is_repeat=False, replica=0).select_related(
        "item__segment", "item__system"
    ):
        assert slot.page is not None
        pages[(slot.batch_id, slot.page)].append(slot)
    assert len(pages) == expected_pages
    for slots in pages.values():
        slots.sort(key=lambda s: s.position)
        assert [s.position for s in slots] == list(range(slots[0].page, slots[0].page + len(slots)))
        assert len({s.item.system_id for s in slots}) == 1
        assert len({s.item.segment.document_id for s in slots}) == 1
        indices = [s.item.segment.index for s in slots]
        assert indices == sorted(indices)
    assert task.page_size == max(
        len(document) for pearmut_task in tasks for document in pearmut_task
    )


def test_an_imported_document_is_claimed_and_submitted_as_one_page(manager, django_user_model):
    task = _import(EXAMPLES / "esa.json")
    annotator = django_user_model.objects.create_user("ann", password="ann-password-1")
    membership_set(campaign=task.campaign, user=annotator, role="annotator")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    page = page_slots(slot=slot)
    assert slot.id == page[0].id and len(page) > 1
    first_item = page[0].item.source_meta["pearmut"]
    # The page is the first Pearmut document of the first task, for one system.
    document = json.loads((EXAMPLES / "esa.json").read_text(encoding="utf-8"))["data"][0][0]
    assert [s.item.source_meta["pearmut"]["item_id"] for s in page] == [
        item["item_id"] for item in document
    ]
    assert first_item["position"] == 0
    answers = [{"slot": s.id, "score": 80, "spans": [], "ms": 1000} for s in page]
    recorded, _, _ = page_record_and_claim_next(
        task=task, slot_id=slot.id, annotator_id=annotator.id, answers=answers
    )
    assert recorded.created and Judgment.objects.filter(task=task).count() == len(page)


def _multimodal():
    return json.loads(MULTIMODAL.read_text(encoding="utf-8"))


def _write(tmp_path, data, name="multimodal.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_shared_multimodal_file_is_refused_naming_each_url(manager, tmp_path):
    # As shared: the first source embeds a YouTube page.
    with pytest.raises(CommandError, match="Nothing was imported") as refused:
        _import(MULTIMODAL)
    assert "src embeds a page (<iframe> https://www.youtube.com/embed/U9zFqRQ11qI" in str(
        refused.value
    )
    # Without it, the third item's translation is an audio file: refused, since evalsite
    # annotates translations as text.
    data = _multimodal()
    del data["data"][0][0][0]
    with pytest.raises(CommandError, match="tgt 'A' is a media file \\(<audio>\\)"):
        _import(_write(tmp_path, data))
    # Without that too, the audio source is a web URL, which is named.
    data["data"][0][0] = data["data"][0][0][:1]
    with pytest.raises(CommandError) as refused:
        _import(_write(tmp_path, data))
    message = str(refused.value)
    assert "https://www.signalogic.com/melp/EngSamples/Orig/ENG_M.wav" in message
    assert "fetches nothing from the network" in message
    assert not Campaign.objects.exists()


def test_media_files_beside_the_campaign_file_import_as_source_media(manager, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    (tmp_path / "clips").mkdir()
    (tmp_path / "clips" / "talk.wav").write_bytes(WAV)
    (tmp_path / "tonks.png").write_bytes(PNG)
    data = _multimodal()
    audio_item, text_item = data["data"][0][0][1], data["data"][0][0][2]
    audio_item["src"] = '<audio controls="" src="clips/talk.wav" type="audio/wav"></audio>'
    image_item = data["data"][0][1][0]
    image_item["src"] = '<p>A portrait.</p><img src="tonks.png" width="600"/>'
    data["data"][0][0] = [audio_item]
    text_item["tgt"]["A"] = "그것은 나를 놀라게 했다."
    data["data"][0][1] = [image_item, text_item]
    task = _import(_write(tmp_path, data))
    media = {m.kind: m for m in SourceMedia.objects.filter(campaign=task.campaign)}
    assert set(media) == {"audio", "image"}
    assert (media["audio"].mime_type, media["audio"].size) == ("audio/wav", len(WAV))
    assert media["image"].filename == "tonks.png"
    assert (settings.MEDIA_ROOT / media["image"].path).read_bytes() == PNG
    assert media["image"].segment.source == "A portrait."
    assert media["audio"].segment.source == ""
    # The image's document also has a text item: a page of two segments, one with media.
    assert task.unit == "document"

    # A path outside the campaign file's directory is refused, and so is a missing file.
    image_item["src"] = '<img src="../secret.png">'
    with pytest.raises(CommandError, match="outside the campaign file's directory"):
        _import(_write(tmp_path, data, "other.json"))
    image_item["src"] = '<img src="gone.png">'
    with pytest.raises(CommandError, match=r"no media file 'gone\.png' beside the campaign file"):
        _import(_write(tmp_path, data, "other.json"))
    # A file that is not what its suffix says.
    (tmp_path / "fake.png").write_bytes(b"<html>not a picture</html>")
    image_item["src"] = '<img src="fake.png">'
    with pytest.raises(CommandError, match="the content is not image/png"):
        _import(_write(tmp_path, data, "other.json"))
    assert Campaign.objects.count() == 1


def test_data_urls_import_and_an_upload_refuses_a_path(manager, tmp_path, settings, client):
    settings.MEDIA_ROOT = tmp_path / "media"
    data = _multimodal()
    image_item = data["data"][0][1][0]
    image_item["src"] = f'<img src="data:image/png;base64,{base64.b64encode(PNG).decode()}">'
    data["data"][0] = [data["data"][0][1]]
    client.force_login(manager)
    answer = client.post(
        "/api/v1/campaigns/pearmut",
        {"campaign": SimpleUploadedFile("m.json", json.dumps(data).encode()), "languages": "en-ko"},
    )
    assert answer.status_code == 201, answer.content
    (media,) = SourceMedia.objects.all()
    assert (media.kind, media.mime_type, media.filename) == ("image", "image/png", "image.png")

    image_item["src"] = '<img src="tonks.png">'
    answer = client.post(
        "/api/v1/campaigns/pearmut",
        {"campaign": SimpleUploadedFile("n.json", json.dumps(data).encode()), "languages": "en-ko"},
    )
    assert answer.status_code == 400
    assert "the file 'tonks.png', which an upload does not carry" in answer.content.decode()
