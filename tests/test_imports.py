"""The validation and import service: every bad input is refused with a clear message and
leaves the database exactly as it was."""

import io
import tarfile
import zipfile

import pytest
from django.db import transaction

from annotation.lib.textfiles import UploadError
from annotation.models import (
    Document,
    Job,
    Output,
    Reference,
    ReferenceSegment,
    Segment,
    System,
    SystemRun,
)
from annotation.services.imports import upload_import, upload_plan
from tests.conftest import DATA

pytestmark = pytest.mark.django_db

WMT21 = DATA / "wmt21-en-de"
MODELS = (Document, Segment, Reference, ReferenceSegment, System, SystemRun, Output, Job)


def counts():
    return {model.__name__: model.objects.count() for model in MODELS}


def lines(n, word="segment"):
    return "".join(f"{word} {i}\n" for i in range(n)).encode()


@pytest.fixture
def loaded(campaign, manager):
    upload_import(campaign=campaign, kind="source", files=[("src.en", lines(5))], user=manager)
    upload_import(
        campaign=campaign,
        kind="reference",
        name="A",
        files=[("ref.de", lines(5, "ref"))],
        user=manager,
    )
    upload_import(
        campaign=campaign,
        kind="system",
        name="sys1",
        files=[("sys1.de", lines(5, "hyp"))],
        user=manager,
    )
    return campaign


def refused(campaign, manager, kind, files, match, **kwargs):
    before = counts()
    with pytest.raises(UploadError, match=match) as error:
        upload_import(campaign=campaign, kind=kind, files=files, user=manager, **kwargs)
    assert counts() == before
    return str(error.value)


def test_wmt21_source_references_and_a_system_import(campaign, manager):
    def read(path):
        return [(path.name, path.read_bytes())]

    upload_import(
        campaign=campaign,
        kind="source",
        user=manager,
        files=read(WMT21 / "newstest2021.en-de.src.en"),
    )
    upload_import(
        campaign=campaign,
        kind="reference",
        name="A",
        user=manager,
        files=read(WMT21 / "newstest2021.en-de.ref.A.de"),
    )
    system_file = WMT21 / "system-outputs" / "newstest2021.en-de.hyp.Online-B.de"
    [result] = upload_import(
        campaign=campaign, kind="system", user=manager, files=read(system_file)
    )
    assert (result.name, result.status, result.segments) == ("Online-B", "created", 1002)
    assert Segment.objects.filter(campaign=campaign).count() == 1002
    expected = system_file.read_text(encoding="utf-8").split("\n")[:1002]
    stored = list(
        Output.objects.filter(run__system__name="Online-B")
        .order_by("segment__index")
        .values_list("text", flat=True)
    )
    assert stored == expected
    assert Job.objects.filter(kind=Job.Kind.RUN_METRICS, target_id=result.object_id).exists()


def test_line_count_mismatch_names_both_counts(loaded, manager):
    message = refused(loaded, manager, "system", [("short.de", lines(4))], "4 lines")
    assert message.startswith("short.de: 4 lines, but the source has 5")


def test_invalid_utf8_gives_line_and_byte_offset(loaded, manager):
    data = b"ok 0\nok 1\nbad \xff here\nok 3\nok 4\n"
    message = refused(loaded, manager, "system", [("latin.de", data)], "invalid UTF-8")
    assert message.startswith("latin.de, line 3: invalid UTF-8 at byte 14 of the file (byte 4")


def test_empty_file(campaign, manager):
    assert "src.en: the file is empty" in refused(
        campaign, manager, "source", [("src.en", b"")], "empty"
    )
    assert "the file is empty" in refused(
        campaign, manager, "source", [("src.en", b"\n\n")], "empty"
    )


def test_empty_line_in_source_or_reference_is_an_error(loaded, manager, campaign):
    data = b"a\n\nc\nd\ne\n"
    message = refused(loaded, manager, "reference", [("ref.B", data)], "empty segment", name="B")
    assert message.startswith("ref.B, line 2: empty segment")


def test_empty_line_in_a_system_output_is_a_warning(loaded, manager):
    [result] = upload_import(
        campaign=loaded,
        kind="system",
        name="gappy",
        user=manager,
        files=[("gappy.de", b"a\nb\n\nd\ne\n")],
    )
    assert result.warnings == ["gappy.de, line 3: empty output"]
    assert Output.objects.filter(run_id=result.object_id, text="").count() == 1


def test_system_name_already_used(loaded, manager):
    message = refused(
        loaded, manager, "system", [("other.de", lines(5, "other"))], "already used", name="sys1"
    )
    assert "the system name 'sys1' is already used in this campaign" in message


def test_names_the_database_cannot_hold_are_refused(loaded, manager):
    # Over-long names were 500s (DataErrors from PostgreSQL), found by the API fuzz test;
    # a NUL byte in a name would have been one too.
    refused(loaded, manager, "reference", [("r.de", lines(5, "r"))], "at most 100", name="R" * 101)
    named_by_file = [("s" * 201 + ".txt", lines(5, "s"))]
    message = refused(loaded, manager, "system", named_by_file, "at most 200")
    assert "the system name is 201 characters long" in message
    nul_in_name = [("s\x00ys.txt", lines(5, "s"))]
    refused(loaded, manager, "system", nul_in_name, "the system name contains a NUL character")


def test_same_system_file_twice_is_idempotent(loaded, manager):
    before = counts()
    [result] = upload_import(
        campaign=loaded,
        kind="system",
        name="sys1",
        user=manager,
        files=[("again.de", lines(5, "hyp"))],
    )
    assert result.status == "unchanged"
    assert counts() == before


def test_same_outputs_under_another_name_are_refused(loaded, manager):
    refused(
        loaded, manager, "system", [("copy.de", lines(5, "hyp"))], "uploaded already", name="copy"
    )


def test_another_run_of_a_system(loaded, manager):
    [result] = upload_import(
        campaign=loaded,
        kind="system",
        name="sys1",
        add_run=True,
        user=manager,
        files=[("seed2.de", lines(5, "seed2"))],
    )
    assert (result.status, result.run_number) == ("new_run", 2)
    assert SystemRun.objects.filter(system__name="sys1").count() == 2
    assert System.objects.filter(name="sys1").count() == 1


def test_file_over_the_size_limit(loaded, manager, settings):
    settings.UPLOAD_MAX_BYTES = 100
    message = refused(loaded, manager, "system", [("big.de", b"x" * 101)], "over the upload")
    assert message == "big.de: 101 bytes is over the upload limit of 100 bytes"


def test_sizes_are_given_in_megabytes(loaded, manager, settings):
    settings.UPLOAD_MAX_BYTES = 5 * 1024 * 1024
    big = [("big.de", b"x" * (6 * 1024 * 1024 + 300_000))]
    message = refused(loaded, manager, "system", big, "over the upload")
    assert message == "big.de: 6.3 MB is over the upload limit of 5.0 MB"


def _zip(members):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return buffer.getvalue()


def test_archive_that_expands_past_the_limit(loaded, manager, settings):
    settings.UPLOAD_MAX_BYTES = 10_000
    bomb = _zip([("a.de", b"0" * 200_000)])
    assert len(bomb) < 10_000
    refused(loaded, manager, "system", [("bomb.zip", bomb)], "past the limit of 10,000 bytes")


def test_nested_archive(loaded, manager):
    inner = _zip([("x.de", lines(5))])
    refused(
        loaded,
        manager,
        "system",
        [("outer.zip", _zip([("inner.zip", inner)]))],
        "archive inside the archive",
    )


def test_archive_of_systems_imports_all_or_nothing(loaded, manager):
    good = ("newstest.en-de.hyp.good.de", lines(5, "good"))
    bad = ("newstest.en-de.hyp.bad.de", lines(3, "bad"))
    refused(loaded, manager, "system", [("all.zip", _zip([good, bad]))], "3 lines")

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in [good, ("newstest.en-de.hyp.fine.de", lines(5, "fine"))]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    results = upload_import(
        campaign=loaded, kind="system", user=manager, files=[("all.tar.gz", buffer.getvalue())]
    )
    assert sorted(result.name for result in results) == ["fine", "good"]


def test_control_characters(loaded, manager):
    message = refused(
        loaded, manager, "system", [("ctl.de", b"a\nb\x07c\nc\nd\ne\n")], "control character"
    )
    assert message == "ctl.de, line 2: control character U+0007 at column 2"


def test_tsv_record_with_a_missing_field(campaign, manager):
    data = b"doc_id\ttext\nd1\tHello\nd1\n"
    message = refused(campaign, manager, "source", [("src.tsv", data)], "fields")
    assert message == "src.tsv, line 3: 1 fields where the header has 2"


def test_tsv_without_a_text_column(campaign, manager):
    refused(campaign, manager, "source", [("src.tsv", b"doc\tsentence\nd\tx\n")], "'text' column")


def test_jsonl_record_with_a_missing_field(campaign, manager):
    data = b'{"text": "Hello", "doc_id": "d1"}\n{"doc_id": "d1"}\n'
    message = refused(campaign, manager, "source", [("src.jsonl", data)], "missing field")
    assert message == "src.jsonl, line 2: missing field 'text'"


def test_tsv_and_jsonl_sources_keep_documents(campaign, manager):
    data = b"doc_id\ttext\nd1\tOne\nd1\tTwo\nd2\tThree\n"
    upload_import(campaign=campaign, kind="source", files=[("src.tsv", data)], user=manager)
    docs = list(
        Segment.objects.filter(campaign=campaign)
        .order_by("index")
        .values_list("document__external_id", "source")
    )
    assert docs == [("d1", "One"), ("d1", "Two"), ("d2", "Three")]


def test_reference_before_source_is_refused(campaign, manager):
    refused(
        campaign, manager, "reference", [("ref.de", lines(3))], "upload the source first", name="A"
    )


def test_second_source_is_refused(loaded, manager):
    refused(loaded, manager, "source", [("src2.en", lines(5))], "has its source already")


def test_crlf_and_bom_are_the_same_outputs(loaded, manager):
    crlf = b"\xef\xbb\xbf" + lines(5, "hyp").replace(b"\n", b"\r\n")
    [result] = upload_import(
        campaign=loaded, kind="system", name="sys1", user=manager, files=[("sys1-windows.de", crlf)]
    )
    assert result.status == "unchanged"


def test_plan_writes_nothing(loaded, manager):
    before = counts()
    plan = upload_plan(
        campaign=loaded, kind="system", files=[("new.de", lines(5, "new"))], name="new"
    )
    assert [(f.name, f.action, f.segments) for f in plan.files] == [("new", "create", 5)]
    assert counts() == before


def test_metrics_job_is_queued_only_after_commit(
    loaded, manager, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks, transaction.atomic():
        upload_import(
            campaign=loaded,
            kind="system",
            name="late",
            user=manager,
            files=[("late.de", lines(5, "late"))],
        )
    assert len(callbacks) == 1
