"""Document ids at import (WMT XML, TSV/JSONL ``doc_id``, a separate document file), and
context that stays inside the segment's own document.

The WMT XML reading is checked against sacrebleu's own reader of that format
(``WMTXMLDataset._unwrap_wmt21_or_later``), an independent implementation.
"""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.utils.html import escape
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from sacrebleu.dataset.wmt_xml import WMTXMLDataset

from annotation.models import (
    Document,
    Output,
    PendingUpload,
    Reference,
    ReferenceSegment,
    Segment,
    Slot,
    System,
)
from annotation.selectors.annotation import item_display
from annotation.services.assignment import slot_claim_next
from annotation.services.imports import WMT_XML, upload_import, upload_plan
from annotation.services.judgments import judgment_record
from annotation.services.tasks import TaskError, task_create, task_launch
from tests.conftest import DATA
from tests.test_imports import counts

pytestmark = pytest.mark.django_db

XML = DATA / "wmt21-de-fr-xml" / "newstest2021.de-fr.first3docs.xml"
# The documents of the cut and their sizes, read off the file.
DOCUMENTS = [("salzburg.com.306606", 13), ("faz.79579", 11), ("kurier.at.204635", 24)]
SYSTEMS = {
    "LISN",
    "Manifold",
    "Online-A",
    "Online-B",
    "Online-G",
    "Online-W",
    "Online-Y",
    "P3AI",
    "talp_upc",
}


@pytest.fixture
def de_fr(manager):
    from annotation.services.campaigns import campaign_create

    return campaign_create(
        name="WMT21 de-fr", source_language="de", target_language="fr", owner=manager
    )


def xml_bytes(transform=None) -> bytes:
    text = XML.read_text(encoding="utf-8")
    return (transform(text) if transform else text).encode()


def import_xml(campaign, manager, data=None):
    return upload_import(
        campaign=campaign, kind=WMT_XML, files=[(XML.name, data or xml_bytes())], user=manager
    )


def refused_xml(campaign, manager, data, match):
    before = counts()
    with pytest.raises(Exception, match=match) as error:
        import_xml(campaign, manager, data)
    assert counts() == before
    return str(error.value)


# -- WMT XML -----------------------------------------------------------------------------------


def test_wmt_xml_imports_documents_source_reference_and_every_system(de_fr, manager):
    results = import_xml(de_fr, manager)
    assert [(r.kind, r.name) for r in results][:2] == [("source", "source"), ("reference", "A")]
    assert results[0].documents == 3 and results[0].segments == 48

    expected = WMTXMLDataset._unwrap_wmt21_or_later(str(XML))
    segments = list(Segment.objects.filter(campaign=de_fr).order_by("index"))
    assert [s.source for s in segments] == expected["src"]
    assert [s.document.external_id for s in segments] == expected["docid"]
    documents = Document.objects.filter(campaign=de_fr).order_by("position")
    assert [(d.external_id, d.segments.count(), d.implicit) for d in documents] == [
        (doc_id, size, False) for doc_id, size in DOCUMENTS
    ]
    reference = Reference.objects.get(campaign=de_fr)
    assert reference.name == "A"
    assert [rs.text for rs in reference.segments.order_by("segment__index")] == expected["ref:A"]
    assert set(System.objects.filter(campaign=de_fr).values_list("name", flat=True)) == SYSTEMS
    for name in SYSTEMS:
        outputs = Output.objects.filter(run__system__name=name).order_by("segment__index")
        assert [o.text for o in outputs] == expected[name], name


def test_wmt_xml_preview_writes_nothing(de_fr):
    before = counts()
    plan = upload_plan(campaign=de_fr, kind=WMT_XML, files=[(XML.name, xml_bytes())])
    assert counts() == before
    assert [(f.kind, f.documents) for f in plan.files][:2] == [("source", 3), ("reference", 0)]
    assert len(plan.files) == 2 + len(SYSTEMS)


def drop_last_translation(system):
    def transform(text):
        start = text.rindex(f'<hyp system="{system}"')
        return text[:start] + text[text.index("</hyp>", start) + len("</hyp>") :]

    return transform


def drop_segment(system, seg_id):
    def transform(text):
        start = text.index(f'<hyp system="{system}"')
        end = text.index("</hyp>", start)
        block = re.sub(rf'\s*<seg id="{seg_id}">.*?</seg>', "", text[start:end], count=1)
        return text[:start] + block + text[end:]

    return transform


@pytest.mark.parametrize(
    ("transform", "match"),
    [
        (lambda t: t.replace("</doc>", "</dok>", 1), "not well-formed XML at column"),
        (
            lambda t: t.replace("<dataset", '<!DOCTYPE d [<!ENTITY e "x">]>\n<dataset', 1),
            "DOCTYPE or ENTITY declaration is not allowed",
        ),
        (
            lambda t: t.replace(
                "<dataset",
                '<!DOCTYPE d [<!ENTITY p SYSTEM "file:///etc/passwd">]>\n<dataset',
                1,
            ).replace("Mattersburg-Bank:", "&p; Mattersburg-Bank:", 1),
            "DOCTYPE or ENTITY declaration is not allowed",
        ),
        (
            lambda t: t.replace("<dataset", "<datasets", 1).replace("</dataset>", "</datasets>"),
            "the root element is <datasets>",
        ),
        (
            drop_segment("Online-B", 5),
            "system 'Online-B' lacks segment 5 of document "
            "'salzburg.com.306606' \\(12 segments where the source has 13\\)",
        ),
        (
            lambda t: t.replace('<hyp system="LISN"', '<hyp system="P3AI"', 1),
            "two systems named 'P3AI' in document 'salzburg.com.306606'",
        ),
        (
            lambda t: t.replace(
                '<doc origlang="de" id="faz.79579">',
                '<doc origlang="de" id="salzburg.com.306606">',
                1,
            ),
            "document 'salzburg.com.306606' appears twice",
        ),
        (
            drop_last_translation("LISN"),
            "system 'LISN' has no translation of document 'kurier.at.204635'",
        ),
        (lambda t: t.replace('<seg id="3">', '<seg id="3b">', 1), "lacks segment 3b"),
        (
            lambda t: t.replace('<src lang="de">', '<src lang="en">', 1),
            "the file translates en-fr, the campaign de-fr",
        ),
        (
            lambda t: t.replace("Mattersburg-Bank: ÖVP", "\x85Mattersburg-Bank: ÖVP", 1),
            "control character U\\+0085",
        ),
    ],
    ids=[
        "malformed",
        "entity",
        "external-entity",
        "root",
        "missing-segment",
        "duplicate-system",
        "duplicate-document",
        "system-missing-from-a-document",
        "mismatched-segment-ids",
        "languages",
        "control-character",
    ],
)
def test_bad_wmt_xml_is_refused_whole(de_fr, manager, transform, match):
    message = refused_xml(de_fr, manager, xml_bytes(transform), match)
    assert message.startswith(XML.name)


def test_test_suite_documents_are_skipped_with_a_warning(de_fr, manager):
    marked = xml_bytes(
        lambda t: t.replace(
            '<doc origlang="de" id="faz.79579">', '<doc id="faz.79579" testsuite="x">'
        )
    )
    results = import_xml(de_fr, manager, marked)
    assert results[0].documents == 2 and results[0].segments == 13 + 24
    assert results[0].warnings == [f"{XML.name}: document 'faz.79579' is a test suite; skipped"]


def test_wmt_xml_into_a_campaign_with_a_source_is_refused(de_fr, manager):
    import_xml(de_fr, manager)
    refused_xml(de_fr, manager, xml_bytes(), "the campaign has its source already")


# -- TSV / JSON Lines doc_id and the separate document file ------------------------------------


def test_jsonl_doc_ids_are_honoured(campaign, manager):
    data = (
        b'{"text": "a", "doc_id": "x"}\n{"text": "b", "doc_id": "x"}\n{"text": "c", "doc_id": 7}\n'
    )
    upload_import(campaign=campaign, kind="source", files=[("s.jsonl", data)], user=manager)
    assert list(
        Segment.objects.order_by("index").values_list("document__external_id", "document__implicit")
    ) == [("x", False), ("x", False), ("7", False)]


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"doc_id\ttext\nd1\tOne\n\tTwo\n", "line 2: no document id here, but other segments"),
        (b"doc_id\ttext\nd1\tOne\nd2\tTwo\nd1\tThree\n", "line 3: document 'd1' resumes"),
    ],
)
def test_partial_or_scattered_doc_ids_are_refused(campaign, manager, data, match):
    before = counts()
    with pytest.raises(Exception, match=match):
        upload_import(campaign=campaign, kind="source", files=[("s.tsv", data)], user=manager)
    assert counts() == before


def test_plain_text_source_without_ids_is_one_implicit_document(campaign, manager):
    results = upload_import(
        campaign=campaign, kind="source", files=[("s.en", b"a\nb\n")], user=manager
    )
    assert results[0].documents == 0
    assert list(Document.objects.values_list("implicit", flat=True)) == [True]


def test_document_file_gives_a_plain_text_source_its_documents(campaign, manager):
    upload_import(
        campaign=campaign,
        kind="source",
        files=[("s.en", b"a\nb\nc\n")],
        documents=("s.docids", b"d1\nd1\nd2\n"),
        user=manager,
    )
    assert list(
        Segment.objects.order_by("index").values_list("source", "document__external_id")
    ) == [("a", "d1"), ("b", "d1"), ("c", "d2")]


@pytest.mark.parametrize(
    ("source", "documents", "match"),
    [
        (("s.en", b"a\nb\nc\n"), b"d1\nd2\n", "s.docids: 2 document ids, but the source has 3"),
        (("s.en", b"a\nb\n"), b"d1\n\n", "s.docids, line 2: empty document id"),
        (("s.tsv", b"doc_id\ttext\nx\ta\n"), b"d1\n", "s.tsv has document ids already"),
    ],
)
def test_bad_document_file_is_refused(campaign, manager, source, documents, match):
    before = counts()
    with pytest.raises(Exception, match=match):
        upload_import(
            campaign=campaign,
            kind="source",
            files=[source],
            documents=("s.docids", documents),
            user=manager,
        )
    assert counts() == before


# -- the command, the form and the API ----------------------------------------------------------


def test_import_campaign_with_wmt_xml(manager, capsys):
    call_command(
        "import_campaign", "de-fr", "--owner", "manager", "--languages", "de-fr", "--wmt-xml", XML
    )
    out = capsys.readouterr().out
    assert "source source: created, 48 segments in 3 documents" in out
    assert "system talp_upc: created, 48 segments" in out
    assert Document.objects.filter(campaign__name="de-fr", implicit=False).count() == 3


def test_import_campaign_with_a_document_file(manager, tmp_path):
    (tmp_path / "src.en").write_text("a\nb\nc\n")
    (tmp_path / "src.docids").write_text("d1\nd2\nd2\n")
    call_command(
        "import_campaign",
        "docs",
        "--owner",
        "manager",
        "--languages",
        "en-de",
        "--source",
        tmp_path / "src.en",
        "--documents",
        tmp_path / "src.docids",
    )
    assert list(
        Segment.objects.order_by("index").values_list("document__external_id", flat=True)
    ) == ["d1", "d2", "d2"]
    (tmp_path / "bad.docids").write_text("d1\n")
    with pytest.raises(CommandError, match="1 document ids, but the source has 3"):
        call_command(
            "import_campaign",
            "docs-2",
            "--owner",
            "manager",
            "--languages",
            "en-de",
            "--source",
            tmp_path / "src.en",
            "--documents",
            tmp_path / "bad.docids",
        )
    assert not Segment.objects.filter(campaign__name="docs-2").exists()


def test_upload_form_previews_and_imports_wmt_xml(client, manager, de_fr):
    client.force_login(manager)
    response = client.post(
        f"/campaigns/{de_fr.id}/upload/",
        {"kind": WMT_XML, "files": SimpleUploadedFile(XML.name, xml_bytes())},
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Check before importing" in page and "talp_upc" in page
    assert not Segment.objects.exists()
    pending = PendingUpload.objects.get()
    response = client.post(f"/campaigns/{de_fr.id}/upload/{pending.id}/confirm/", follow=True)
    page = response.content.decode()
    assert "imported source (48 segments in 3 documents)" in page
    assert "<p>48 segments in 3 documents;" in page
    assert System.objects.filter(campaign=de_fr).count() == len(SYSTEMS)


def test_upload_form_takes_a_document_file_with_the_source(client, manager, campaign):
    client.force_login(manager)
    preview = client.post(
        f"/campaigns/{campaign.id}/upload/",
        {
            "kind": "source",
            "files": SimpleUploadedFile("s.en", b"a\nb\n"),
            "documents": SimpleUploadedFile("s.docids", b"d1\nd2\n"),
        },
    )
    assert '<td class="num">2</td>\n      <td class="num">2</td>' in preview.content.decode()
    pending = PendingUpload.objects.get()
    client.post(f"/campaigns/{campaign.id}/upload/{pending.id}/confirm/")
    assert list(Document.objects.values_list("external_id", flat=True)) == ["d1", "d2"]


@pytest.fixture
def api(manager):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=manager).key}")
    return client


def test_api_uploads_wmt_xml(api, de_fr):
    url = f"/api/v1/campaigns/{de_fr.id}/wmt-xml"
    bad = xml_bytes(drop_segment("LISN", 2))
    response = api.post(url, {"files": [SimpleUploadedFile(XML.name, bad)]}, format="multipart")
    assert response.status_code == 400
    assert "system 'LISN' lacks segment 2" in response.json()["error"]
    assert not Segment.objects.exists()
    response = api.post(
        url, {"files": [SimpleUploadedFile(XML.name, xml_bytes())]}, format="multipart"
    )
    assert response.status_code == 201, response.content
    assert response.json()[0] | {"warnings": []} == {
        "kind": "source",
        "name": "source",
        "status": "created",
        "segments": 48,
        "run_number": None,
        "warnings": [],
        "documents": 3,
    }
    assert len(response.json()) == 2 + len(SYSTEMS)


def test_api_source_with_a_document_file(api, campaign):
    response = api.post(
        f"/api/v1/campaigns/{campaign.id}/source",
        {
            "files": [SimpleUploadedFile("s.en", b"a\nb\n")],
            "documents": SimpleUploadedFile("s.docids", b"d1\nd2\n"),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    assert response.json()[0]["documents"] == 2
    response = api.post(
        f"/api/v1/campaigns/{campaign.id}/references",
        {
            "files": [SimpleUploadedFile("r.de", b"x\ny\n")],
            "name": "A",
            "documents": SimpleUploadedFile("s.docids", b"d1\nd2\n"),
        },
        format="multipart",
    )
    assert response.status_code == 400
    assert "goes with a source upload only" in response.json()["error"]


# -- context -------------------------------------------------------------------------------------


def test_context_is_refused_without_document_ids(campaign, manager):
    upload_import(campaign=campaign, kind="source", files=[("s.en", b"a\nb\n")], user=manager)
    with pytest.raises(TaskError, match="context needs document ids, and this campaign has none"):
        task_create(seed=12345, campaign=campaign, task_type="adequacy", context_size=1)
    assert not campaign.tasks.exists()
    task_create(seed=12345, campaign=campaign, task_type="adequacy", context_size=0)


def test_the_task_form_shows_the_refusal(client, manager, campaign):
    upload_import(campaign=campaign, kind="source", files=[("s.en", b"a\nb\n")], user=manager)
    client.force_login(manager)
    response = client.post(
        f"/campaigns/{campaign.id}/tasks/",
        {
            "task_type": "adequacy",
            "scale": "likert5",
            "judgments_per_item": 1,
            "ranking_size": 5,
            "context_size": 2,
            "items_per_annotator": 0,
            "repeat_rate": 0,
            "bad_reference_rate": 0,
            "reference_rate": 0,
        },
        follow=True,
    )
    page = response.content.decode()
    assert "context needs document ids" in page
    assert "2 segments without document ids (so no context)" in page
    assert not campaign.tasks.exists()


def test_context_never_crosses_a_document_boundary(de_fr, manager, make_annotator):
    import_xml(de_fr, manager)
    task = task_create(seed=12345, campaign=de_fr, task_type="adequacy", context_size=2)
    task_launch(task_id=task.id)
    user = make_annotator(de_fr, "reader")
    # The sources of each document, in file order, as sacrebleu's reader gives them.
    expected = WMTXMLDataset._unwrap_wmt21_or_later(str(XML))
    by_document: dict[str, list[str]] = {}
    for source, doc_id in zip(expected["src"], expected["docid"], strict=True):
        by_document.setdefault(doc_id, []).append(source)
    seen_edges = 0
    while (slot := slot_claim_next(task=task, annotator_id=user.id)) is not None:
        shown = item_display(slot)
        segment = slot.item.segment
        texts = by_document[segment.document.external_id]
        at = texts.index(segment.source)
        assert shown["context_before"] == texts[max(0, at - 2) : at]
        assert shown["context_after"] == texts[at + 1 : at + 3]
        seen_edges += at in (0, len(texts) - 1)
        judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer={"score": 3})
    # First and last segments of the documents were served, with context from one side only.
    assert seen_edges >= 2 * len(DOCUMENTS)


def test_the_implicit_document_gives_no_context(launched, loaded_campaign, make_annotator):
    task = launched("adequacy", context_size=1)
    Document.objects.filter(campaign=loaded_campaign).update(implicit=True)
    user = make_annotator(loaded_campaign, "ann")
    shown = item_display(slot_claim_next(task=task, annotator_id=user.id))
    assert shown["context_before"] == shown["context_after"] == []


def test_annotate_page_labels_context_in_reading_order(de_fr, manager, make_annotator, client):
    import_xml(de_fr, manager)
    task = task_create(
        seed=12345, campaign=de_fr, task_type="adequacy", context_size=1, show_reference=True
    )
    task_launch(task_id=task.id)
    user = make_annotator(de_fr, "reader")
    client.force_login(user)
    # Serve items until one has context on both sides.
    for _ in range(30):
        page = client.get(f"/annotate/{task.id}/").content.decode()
        if ">Previous<" in page and ">Next<" in page:
            break
        slot = re.search(r'name="slot" value="(\d+)"', page).group(1)
        client.post(f"/annotate/{task.id}/submit/", {"slot": slot, "score": "3"})
    else:
        pytest.fail("no item with context on both sides was served")
    slot_id = int(re.search(r'name="slot" value="(\d+)"', page).group(1))
    segment = Slot.objects.get(id=slot_id).item.segment
    siblings = list(Segment.objects.filter(document=segment.document).order_by("index"))
    at = [s.id for s in siblings].index(segment.id)
    previous, following = siblings[at - 1].source, siblings[at + 1].source
    reference = ReferenceSegment.objects.get(segment=segment).text

    def position(text, markup=False):
        found = page.find(text if markup else escape(text))
        assert found >= 0, text
        return found

    order = [
        position(">Previous<", markup=True),
        position(previous),
        position(">This segment<", markup=True),
        position(segment.source),
        position(">Next<", markup=True),
        position(following),
        position("Reference translation"),
        position(reference),
    ]
    assert order == sorted(order)
    # The context sits inside the source's card: nothing between the source and the reference
    # but the end of that card.
    between = page[order[5] : order[6]]
    assert between.count("<section") == 1
