"""Span exports (Appraise ESA CSV, Google's MQM TSV, JSON Lines) read back by the readers of
metrics/spans give the spans that were stored."""

import csv
import io

import pytest
from django.urls import reverse

from annotation.models import Item, Judgment
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import judgment_record
from metrics.spans import group_ratings, read_appraise_esa, read_mqm_tsv, read_spans_jsonl

pytestmark = pytest.mark.django_db


def judge_all(task, user, spans_for):
    while (slot := slot_claim_next(task=task, annotator_id=user.id)) is not None:
        text = slot.item.candidates[0]["text"]
        answer = {"spans": spans_for(text)}
        if task.task_type != "mqm":
            answer["score"] = len(text) % 101
        judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer=answer)


def download(client, campaign, fmt, task):
    url = reverse("results-human-judgments", args=[campaign.id, fmt]) + f"?task={task.id}"
    response = client.get(url)
    assert response.status_code == 200, response
    return b"".join(response.streaming_content).decode()


def stored_spans(task):
    return {
        (j.item.external_id, j.annotator.username): [
            (s.start, s.end, s.severity, s.category or None) for s in j.spans.order_by("id")
        ]
        for j in Judgment.objects.filter(task=task).select_related("item", "annotator")
    }


def esa_spans(text):
    return [
        {"start": 0, "end": min(4, len(text)), "severity": "major"},
        {"start": len(text) - 1, "end": len(text), "severity": "minor"},
        {"start": None, "end": None, "severity": "minor"},
    ]


def test_esa_exports_read_back(launched, loaded_campaign, make_annotator, client, manager):
    task = launched("esa", batch_size=12)
    judge_all(task, make_annotator(loaded_campaign, "ann"), esa_spans)
    client.force_login(manager)
    expected = stored_spans(task)
    assert len(expected) == Item.objects.filter(task=task).count() == 36

    rows = list(read_appraise_esa(io.StringIO(download(client, loaded_campaign, "esa.csv", task))))
    assert len(rows) == 36
    by_score = {(r.login, r.system, r.item_id): r for r in rows}
    assert len(by_score) == 36
    for row in rows:
        assert [(s.start, s.end, s.severity, s.category) for s in row.spans] in expected.values()
        assert row.spans[0].inclusive_end == row.spans[0].end - 1  # written inclusive
    jsonl = download(client, loaded_campaign, "spans.jsonl", task)
    items = list(read_spans_jsonl(io.StringIO(jsonl)))
    back = {
        (i.fields["item"], i.fields["annotator"]): [
            (s.start, s.end, s.severity, s.category) for s in i.spans
        ]
        for i in items
    }
    assert back == expected


def test_mqm_tsv_reads_back(launched, loaded_campaign, make_annotator, client, manager):
    task = launched("mqm", batch_size=12)

    def mqm_spans(text):
        return [
            {"start": 0, "end": 3, "severity": "major", "category": "Accuracy/Mistranslation"},
            {"start": 4, "end": 6, "severity": "minor", "category": "Fluency/Punctuation"},
        ]

    judge_all(task, make_annotator(loaded_campaign, "ann"), mqm_spans)
    client.force_login(manager)
    tsv = download(client, loaded_campaign, "mqm.tsv", task)
    ratings = list(group_ratings(read_mqm_tsv(io.StringIO(tsv))))
    assert len(ratings) == 36
    for rating in ratings:
        assert [(s.start, s.end, s.severity.lower(), s.category) for s in rating.spans] == [
            (0, 3, "major", "Accuracy/Mistranslation"),
            (4, 6, "minor", "Fluency/Punctuation"),
        ]
        assert "<v>" not in rating.target  # the marks come off on reading


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        # Google's weights: major 5 + minor Fluency/Punctuation 0.1; Non-translation 25.
        ({}, {0: "0", 1: "-5.1", 2: "-25"}),
        # The campaign's own: major 10, minor punctuation stays 0.1, non-translation 30.
        ({"severity": {"major": 10}, "non_translation": 30}, {0: "0", 1: "-10.1", 2: "-30"}),
    ],
)
def test_esa_csv_of_mqm_judgments_writes_the_negated_mqm_score(
    launched, loaded_campaign, make_annotator, client, manager, weights, expected
):
    """MQM has no annotator score: the score column holds minus the computed MQM score (by
    hand above), so that higher is better as in ESA; never 0 for a segment with errors."""
    task = launched("mqm", batch_size=12, mqm_weights=weights)

    def kind(text):
        return len(text) % 3

    def mqm_spans(text):
        return [
            [],
            [
                {"start": 0, "end": 3, "severity": "major", "category": "Accuracy/Mistranslation"},
                {"start": 4, "end": 6, "severity": "minor", "category": "Fluency/Punctuation"},
            ],
            [{"start": 0, "end": len(text), "severity": "major", "category": "Non-translation!"}],
        ][kind(text)]

    judge_all(task, make_annotator(loaded_campaign, "ann"), mqm_spans)
    client.force_login(manager)
    lines = download(client, loaded_campaign, "esa.csv", task).splitlines()
    # itemId: the segment's number from 1 (the rule of every Appraise file the site writes).
    texts = {
        (i.system.name, i.segment.index + 1): i.candidates[0]["text"]
        for i in Item.objects.filter(task=task).select_related("system", "segment")
    }
    assert len(lines) == 36
    seen = set()
    for row in csv.reader(lines):
        assert row[6] == expected[kind(texts[(row[1], int(row[2]))])]
        seen.add(kind(texts[(row[1], int(row[2]))]))
    assert seen == {0, 1, 2}
