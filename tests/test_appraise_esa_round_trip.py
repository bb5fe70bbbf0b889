"""The shared Appraise ESA export round-tripped through the database: the campaign's batches
(the texts) imported, the export imported into its ESA task, exported as ``.esa.csv``,
imported again into a second copy of the campaign: the same spans, scores and times.

The expectations are read from the CSV text here with ``csv`` and ``json`` (Appraise's end
is inclusive, so a span's stored exclusive end is ``end_i + 1``), not with the code under
test."""

import csv
import gzip
import io
import json
from dataclasses import replace

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Batch, ErrorSpan, Judgment, Slot
from annotation.services.appraise import appraise_import, appraise_load
from annotation.services.appraise_scores import appraise_scores_import
from annotation.services.span_imports import SpanImportError
from metrics.spans import read_appraise_esa
from tests.conftest import DATA

pytestmark = pytest.mark.django_db
FOLDER = DATA / "esa-appraise-export"
EXPORT = FOLDER / "240521rc6ESA.scores.csv"


def import_batches(owner, name):
    parsed = appraise_load(
        manifest_text=(FOLDER / "ruction_manifest_esa.json").read_text(encoding="utf-8"),
        batches_text=gzip.decompress(
            (FOLDER / "batches_wmt23_en-de_esa.first12.json.gz").read_bytes()
        ).decode(),
        manifest_name="manifest",
        batches_name="batches",
    )
    parsed.name = name
    return appraise_import(parsed=parsed, owner=owner)


def latest_rows(text):
    """The export's rows, one per (annotator, item): Appraise recorded three items twice
    (two identical pairs, one re-annotation); the later timeEnd wins."""
    kept = {}
    for row in csv.reader(io.StringIO(text)):
        key = (row[0], int(row[2]))
        if key not in kept or float(row[11]) >= float(kept[key][11]):
            kept[key] = row
    return kept


def expected_spans(row):
    spans = []
    for span in json.loads(row[9]):
        missing = span["start_i"] == "missing"
        spans.append(
            (
                None if missing else span["start_i"],
                None if missing else span["end_i"] + 1,  # inclusive -> exclusive
                span["severity"],
                span.get("error_type") or "",  # the tutorial's pre-filled spans have none
            )
        )
    return sorted(spans, key=repr)


def stored(task):
    """(annotator, Appraise itemID) -> system, item type, score, spans, times."""
    result = {}
    judgments = Judgment.objects.filter(task=task).select_related("annotator", "item__system")
    for judgment in judgments.prefetch_related("spans"):
        key = (judgment.annotator.username, judgment.item.source_meta["itemID"])
        result[key] = (
            judgment.item.candidates[0]["systems"][0],
            judgment.item.item_type,
            judgment.score,
            sorted(
                ((s.start, s.end, s.severity, s.category) for s in judgment.spans.all()), key=repr
            ),
            round(judgment.served_at.timestamp(), 3),
            round(judgment.submitted_at.timestamp(), 3),
        )
    return result


def export(client, task):
    url = reverse("results-human-judgments", args=[task.campaign_id, "esa.csv"])
    response = client.get(url + f"?task={task.id}")
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()


def test_appraise_esa_export_round_trip(manager, client, tmp_path):
    text = EXPORT.read_text(encoding="utf-8")
    original = latest_rows(text)
    assert len(original) == 1203 - 3
    first = import_batches(manager, "ruction ESA")
    assert first.task_type == "esa"
    call_command("import_appraise_esa", str(EXPORT), "--task", str(first.id))

    got = stored(first)
    assert got.keys() == original.keys()
    for key, row in original.items():
        system, item_type, score, spans, start, end = got[key]
        assert (system, item_type, score) == (row[1], row[3], int(row[6]))
        assert spans == expected_spans(row), key
        assert (start, end) == (float(row[10]), float(row[11]))
    assert ErrorSpan.objects.filter(judgment__task=first).count() == sum(
        len(json.loads(row[9])) for row in original.values()
    )

    client.force_login(manager)
    exported = export(client, first)
    # The written file is the original less the superseded rows, field for field; the spans
    # compare as JSON, as Appraise wrote some without an error_type, which is null here.
    written = {(row[0], int(row[2])): row for row in csv.reader(io.StringIO(exported))}
    assert written.keys() == original.keys()
    for key, row in original.items():
        assert written[key][:9] + written[key][10:] == row[:9] + row[10:]
        spans = [{"error_type": None, **span} for span in json.loads(row[9])]
        assert json.loads(written[key][9]) == spans
    # Every other line comes back byte for byte.
    exported_lines = set(exported.splitlines())
    for row in original.values():
        complete = all("error_type" in span for span in json.loads(row[9]))
        assert (_line(row) in exported_lines) == complete

    second = import_batches(manager, "ruction ESA again")
    path = tmp_path / "again.csv"
    path.write_text(exported, encoding="utf-8")
    call_command("import_appraise_esa", str(path), "--task", str(second.id))
    assert stored(second) == got
    assert export(client, second) == exported


def _line(row):
    """A row as Appraise (and Python's csv module) writes it."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(row)
    return buffer.getvalue()


def _rows(text):
    return list(read_appraise_esa(io.StringIO(text, newline="")))


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda line: line.replace("wmt23.ONLINE-W", "wmt23.NoSuchSystem", 1), "no Appraise batch"),
        (
            lambda line: line.replace(
                '"start_i"":1111,""end_i"":1116', '"start_i"":1111,""end_i"":99999'
            ),
            "end",
        ),
        (lambda line: line.replace(",96,", ",196,", 1), "whole number from 0 to 100"),
    ],
)
def test_bad_exports_write_nothing(manager, change, match):
    task = import_batches(manager, "ruction ESA")
    lines = EXPORT.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = change(lines[1])  # engdeu7009, item 99, score 96, two spans
    with pytest.raises(SpanImportError, match=match):
        appraise_scores_import(task=task, rows=_rows("".join(lines)))
    assert not Judgment.objects.filter(task=task).exists()
    assert not ErrorSpan.objects.exists()


def test_two_annotators_cannot_share_one_batch(manager):
    task = import_batches(manager, "ruction ESA")
    rows = _rows(EXPORT.read_text(encoding="utf-8"))
    # A second annotator with the rows of batch 2, of which REDUNDANCY 1 makes one copy.
    rows += [replace(r, login="someone-else") for r in rows if r.login == "engdeu7002"]
    with pytest.raises(SpanImportError, match="judged by someone else"):
        appraise_scores_import(task=task, rows=rows)
    assert not Judgment.objects.filter(task=task).exists()


def test_an_unfinished_batch_stays_with_its_annotator(manager):
    """An annotator who judged part of a batch: those slots are done, the rest open, and the
    batch is theirs (its lease over), so nobody else is served the items they judged."""
    task = import_batches(manager, "ruction ESA")
    rows = [r for r in _rows(EXPORT.read_text(encoding="utf-8")) if r.login == "engdeu7001"]
    result = appraise_scores_import(task=task, rows=rows[:40])
    assert (result.judgments, result.annotators, result.superseded) == (40, 1, 0)
    batch = Batch.objects.get(task=task, annotator__username="engdeu7001")
    assert batch.state == Batch.State.LEASED
    assert batch.slots.filter(state=Slot.State.DONE).count() == 40
    assert batch.slots.exclude(state=Slot.State.DONE).count() == batch.size - 40
    complete = appraise_scores_import(
        task=task, rows=[r for r in _rows(EXPORT.read_text()) if r.login == "engdeu7002"]
    )
    assert complete.judgments == 100
    done = Batch.objects.get(task=task, annotator__username="engdeu7002")
    assert done.state == Batch.State.DONE
