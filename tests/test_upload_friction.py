"""Uploads as a manager meets them: system names derived by one rule and editable per file in
the preview, long lines warned, binary files and trailing blank lines named, segments in the
preview shown in their language's direction."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.lib.textfiles import UploadError, name_from_filename, system_name_from_filename
from annotation.models import PendingUpload, Segment, System
from annotation.services.imports import upload_import, upload_plan
from tests.test_imports import lines, refused

pytestmark = pytest.mark.django_db


@pytest.fixture
def loaded(campaign, manager):
    """A source of 5 lines ("segment 0" ...) and one system, sys1."""
    upload_import(campaign=campaign, kind="source", files=[("src.en", lines(5))], user=manager)
    upload_import(
        campaign=campaign, kind="system", name="sys1", files=[("s.de", lines(5, "h"))], user=manager
    )
    return campaign


@pytest.mark.parametrize(
    ("filename", "expected"),
    [
        ("uedin-primary.de", "uedin-primary"),  # was "uedin-primary.de"
        ("x.hyp.de", "x"),  # was "de"
        ("newstest2021.en-de.hyp.Online-B.de", "Online-B"),
        ("newstest2021.en-de.hyp.Online-B.de.txt", "Online-B"),
        ("wmt23.en-de.hyp.GPT-4.5.de", "GPT-4.5"),
        ("Online-B.en-de.txt", "Online-B"),
        ("Online-B.en_de.tsv", "Online-B"),
        ("Lingua.Custodia.jsonl", "Lingua.Custodia"),
        ("facebook-wmt19.zh-Hant", "facebook-wmt19"),
        ("system1.txt", "system1"),
        ("GPT-4", "GPT-4"),
        ("de", "de"),  # nothing else to name it after
        ("outputs.zip:run-3/UEdin.de", "UEdin"),  # a file inside an archive
        ("outputs.tar.gz:hyps/newstest.hyp.Tohoku.de", "Tohoku"),
        ("kiwi.deu", "kiwi"),  # the campaign's target language, given as a three-letter code
    ],
)
def test_system_names_from_file_names(filename, expected):
    assert system_name_from_filename(filename, ("deu", "eng")) == expected


def test_several_files_are_named_after_their_files(loaded, manager):
    plan = upload_plan(
        campaign=loaded,
        kind="system",
        files=[("uedin-primary.de", lines(5, "a")), ("x.hyp.de", lines(5, "b"))],
    )
    assert [planned.name for planned in plan.files] == ["uedin-primary", "x"]


def test_a_binary_file_is_called_binary(loaded, manager):
    pdf = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n"
    message = refused(loaded, manager, "system", [("sys.pdf", pdf)], "binary")
    assert message == "sys.pdf: this is a binary file (a PDF document), not text; upload UTF-8 text"
    docx = b"PK\x03\x04\x14\x00\x06\x00" + b"\x00" * 40
    message = refused(loaded, manager, "system", [("sys.docx", docx)], "binary")
    assert "a zip file (a Word or Excel document is one)" in message
    nul = b"hyp 0\nhyp\x00 1\n"
    message = refused(loaded, manager, "system", [("sys.bin", nul)], "binary")
    assert message == (
        "sys.bin: this is a binary file (it holds NUL bytes), not text; upload UTF-8 text"
    )
    utf16 = "hyp 0\nhyp 1\n".encode("utf-16")
    message = refused(loaded, manager, "system", [("sys.de", utf16)], "UTF-16")
    assert message == "sys.de: the file is UTF-16 text; save it as UTF-8"


def test_a_trailing_blank_line_is_named(loaded, manager):
    message = refused(loaded, manager, "system", [("s.de", lines(5) + b"\n")], "blank")
    assert message == (
        "s.de: 6 lines, but the source has 5: the file ends with a blank line; "
        "remove the trailing blank line"
    )
    message = refused(loaded, manager, "reference", [("r.de", lines(5) + b"\n\n")], "blank")
    assert message.startswith("r.de, line 7: the file ends with a blank line")


def test_a_source_with_a_trailing_blank_line(campaign, manager):
    with pytest.raises(UploadError) as refusal:
        upload_plan(campaign=campaign, kind="source", files=[("s.en", b"a\nb\n\n")])
    assert str(refusal.value) == (
        "s.en, line 3: the file ends with a blank line, which would be an empty segment; "
        "remove the trailing blank line"
    )


def test_a_line_far_longer_than_its_source_is_warned(loaded, manager):
    texts = [f"hyp {i}" for i in range(5)]
    texts[2] = "x" * 5_000_000  # a 5 MB line, where the source line is "segment 2"
    data = "\n".join(texts).encode() + b"\n"
    plan = upload_plan(campaign=loaded, kind="system", files=[("long.de", data)])
    assert plan.warnings == [
        "long.de, line 3: 5,000,000 characters where its source line has 9; is this the right file?"
    ]
    # A translation a few times its short source's length is normal and not warned.
    normal = b"".join(b"%d %s\n" % (i, b"w" * 150) for i in range(5))
    assert upload_plan(campaign=loaded, kind="system", files=[("ok.de", normal)]).warnings == []


def test_many_long_lines_are_counted_not_listed(campaign, manager):
    upload_import(campaign=campaign, kind="source", files=[("s.en", lines(8))], user=manager)
    data = b"".join(b"x" * 1000 + b"\n" for _ in range(8))
    plan = upload_plan(campaign=campaign, kind="system", files=[("long.de", data)])
    assert len(plan.warnings) == 6  # five named, then the other three counted
    assert plan.warnings[4].startswith("long.de, line 5: 1,000 characters where")
    assert plan.warnings[5] == ("long.de: 3 more lines over 4 times as long as their source line")


# -- the pages -------------------------------------------------------------------------------


@pytest.fixture
def web(client, manager):
    client.force_login(manager)
    return client


def upload(web, campaign, kind, files, **fields):
    uploads = [SimpleUploadedFile(name, data) for name, data in files]
    return web.post(f"/campaigns/{campaign.id}/upload/", {"kind": kind, "files": uploads, **fields})


def test_preview_names_each_file_and_the_names_can_be_edited(web, loaded):
    files = [("uedin-primary.de", lines(5, "a")), ("x.hyp.de", lines(5, "b"))]
    page = upload(web, loaded, "system", files).content.decode()
    assert 'name="name-0" value="uedin-primary"' in page
    assert 'name="name-1" value="x"' in page
    pending = PendingUpload.objects.get()
    confirm = f"/campaigns/{loaded.id}/upload/{pending.id}/confirm/"

    # Two files under one name: refused, the preview kept with the names as typed.
    response = web.post(confirm, {"name-0": "UEdin", "name-1": "UEdin"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was imported." in page and "the name &#x27;UEdin&#x27; is also" in page
    assert 'name="name-1" value="UEdin"' in page
    assert PendingUpload.objects.filter(id=pending.id).exists()
    assert not System.objects.filter(name="UEdin").exists()

    response = web.post(confirm, {"name-0": "UEdin", "name-1": "X-Sys"})
    assert response.status_code == 302
    assert set(System.objects.values_list("name", flat=True)) == {"sys1", "UEdin", "X-Sys"}
    assert not PendingUpload.objects.exists()


def test_an_empty_name_in_the_preview_falls_back_to_the_file_name(web, loaded):
    upload(web, loaded, "system", [("uedin-primary.de", lines(5, "a"))])
    pending = PendingUpload.objects.get()
    web.post(f"/campaigns/{loaded.id}/upload/{pending.id}/confirm/", {"name-0": " "})
    assert System.objects.filter(name="uedin-primary").exists()


def test_preview_warns_about_a_long_line(web, loaded):
    texts = b"hyp 0\nhyp 1\n" + b"x" * 5_000_000 + b"\nhyp 3\nhyp 4\n"
    page = upload(web, loaded, "system", [("long.de", texts)]).content.decode()
    assert "All files passed validation" not in page
    assert "read the 1 warning first" in page
    assert "long.de, line 3: 5,000,000 characters where its source line has 9" in page


@pytest.mark.parametrize(
    ("source_language", "target_language", "expected"),
    [("en", "ar", 'lang="ar" dir="rtl"'), ("en", "de", 'lang="de" dir="ltr"')],
)
def test_preview_shows_segments_in_their_direction(
    web, manager, source_language, target_language, expected
):
    from annotation.services.campaigns import campaign_create

    campaign = campaign_create(
        name="c", source_language=source_language, target_language=target_language, owner=manager
    )
    upload_import(campaign=campaign, kind="source", files=[("s.en", b"a b\n")], user=manager)
    page = upload(web, campaign, "system", [("sys.ar", "iPhone هاتف\n".encode())])
    assert f'<div class="segment muted" {expected}>iPhone' in page.content.decode()
    source_page = upload(web, campaign, "reference", [("r", "iPhone هاتف\n".encode())], name="R")
    assert f'<div class="segment muted" {expected}>' in source_page.content.decode()
    assert Segment.objects.count() == 1


@pytest.mark.parametrize(
    ("filename", "expected"),
    [
        ("newstest2021.en-de.ref.A.de", "A"),
        ("reference.B.de", "B"),
        ("wmt23.en-de.ref.refA.txt", "refA"),
        ("human-translation.de", "human-translation"),
        ("ref.de", "ref"),  # nothing else to name it after
    ],
)
def test_reference_names_from_file_names(filename, expected):
    assert name_from_filename(filename, "reference", ("deu", "eng")) == expected


def test_a_reference_without_a_name_is_named_after_its_file_in_the_preview(web, loaded):
    page = upload(web, loaded, "reference", [("newstest2021.en-de.ref.A.de", lines(5, "r"))])
    assert page.status_code == 200
    assert 'name="name-0" value="A"' in page.content.decode()
    pending = PendingUpload.objects.get()
    web.post(f"/campaigns/{loaded.id}/upload/{pending.id}/confirm/", {"name-0": "A"})
    assert list(loaded.references.values_list("name", flat=True)) == ["A"]
