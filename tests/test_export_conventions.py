"""The downloads agree with each other (issue 21): one segment numbering per format, one
itemID rule for both Appraise files, one name per ranking column, one formula guard for every
CSV and TSV, one list of formats for the page and the API."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.downloads import JUDGMENT_FORMATS
from annotation.lib.spreadsheet import FORMULA_STARTS
from annotation.models import Item, Judgment, Segment
from annotation.selectors.exports import appraise_item_id
from annotation.services.assignment import slot_claim_next
from annotation.services.crowd import task_crowd_link_enable
from annotation.services.judgments import judgment_record
from annotation.services.task_changes import task_update
from metrics.spans import group_ratings, read_mqm_tsv
from tests.human_support import judge_all

pytestmark = pytest.mark.django_db

FORMULA_USER = "=cmd"


def judge_spans(task, user) -> None:
    while (slot := slot_claim_next(task=task, annotator_id=user.id)) is not None:
        text = slot.item.candidates[0]["text"]
        spans = [{"start": 0, "end": 3, "severity": "major"}]
        if task.task_type == "mqm":
            spans[0]["category"] = "Accuracy/Mistranslation"
        answer = {"spans": spans} if task.task_type == "mqm" else {"spans": spans, "score": 50}
        assert text
        judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer=answer)


@pytest.fixture
def judged(launched, loaded_campaign, make_annotator, manager):
    user = make_annotator(loaded_campaign, FORMULA_USER)
    esa = launched("esa", batch_size=36)
    mqm = launched("mqm", batch_size=36)
    adequacy = launched("adequacy", batch_size=36)
    for task in (esa, mqm):
        judge_spans(task, user)
    judge_all(adequacy, [user], lambda user, slot: {"score": 1 + slot.item.id % 5})
    client = Client()
    client.force_login(manager)
    return loaded_campaign, {"esa": esa, "mqm": mqm, "adequacy": adequacy}, client


def get(client, campaign, fmt: str, query: str = "") -> str:
    response = client.get(reverse("results-human-judgments", args=[campaign.id, fmt]) + query)
    assert response.status_code == 200, response
    return b"".join(response.streaming_content).decode()


def is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def raw_formulas(rows) -> list[str]:
    return [c for row in rows for c in row if c[:1] in FORMULA_STARTS and not is_number(c)]


def test_esa_csv_mqm_tsv_and_participants_csv_guard_formulas(judged, launched, manager):
    campaign, tasks, client = judged
    esa = list(
        csv.reader(io.StringIO(get(client, campaign, "esa.csv", f"?task={tasks['esa'].id}")))
    )
    assert esa and raw_formulas(esa) == []
    assert {row[0] for row in esa} == {"'" + FORMULA_USER}
    tsv = get(client, campaign, "mqm.tsv", f"?task={tasks['mqm'].id}")
    fields = [line.split("\t") for line in tsv.splitlines()]
    assert raw_formulas(fields) == []
    assert {row[4] for row in fields[1:]} == {"'" + FORMULA_USER}

    crowd = launched("fluency", batch_size=3)
    task_update(task_id=crowd.id, completion_code="C1234ABC")
    crowd = task_crowd_link_enable(task_id=crowd.id)
    participant = Client(enforce_csrf_checks=True)
    url = f"/crowd/{crowd.id}/{crowd.crowd_secret}/"
    params = {"participant": "-1-2"}
    assert participant.get(url, params).status_code == 200
    token = participant.cookies["csrftoken"].value
    participant.post(url, {**params, "csrfmiddlewaretoken": token})
    body = client.get(f"/campaigns/{campaign.id}/tasks/{crowd.id}/participants.csv")
    rows = list(csv.reader(io.StringIO(body.content.decode())))
    assert raw_formulas(rows) == []
    assert rows[1][0] == "'-1-2"


def test_segment_numbers_and_item_ids_follow_one_rule_per_format(judged):
    campaign, tasks, client = judged
    esa_task = tasks["esa"]
    index_of = {i.id: i.segment.index for i in Item.objects.select_related("segment")}
    # Appraise's two files: the same judgment has the same itemID in both.
    esa_rows = list(
        csv.reader(io.StringIO(get(client, campaign, "esa.csv", f"?task={esa_task.id}")))
    )
    appraise_rows = list(
        csv.reader(io.StringIO(get(client, campaign, "appraise", f"?task={esa_task.id}")))
    )
    esa_ids = sorted((row[1], row[2], row[10]) for row in esa_rows)
    appraise_ids = sorted((row[1], row[2], f"{float(row[9]):.3f}") for row in appraise_rows)
    assert [(s, i) for s, i, _ in esa_ids] == [(s, i) for s, i, _ in appraise_ids]
    numbers = {
        appraise_item_id(None, index_of[j.item_id]) for j in Judgment.objects.filter(task=esa_task)
    }
    assert {int(row[2]) for row in esa_rows} == numbers == set(range(1, 13))

    # The judgment CSV and JSON Lines number segments from 1, as the metric uploads do.
    by_id = {j.id: index_of[j.item_id] for j in Judgment.objects.all()}
    rows = list(csv.DictReader(io.StringIO(get(client, campaign, "csv"))))
    assert rows and all(int(r["segment_id"]) == by_id[int(r["judgment_id"])] + 1 for r in rows)
    lines = [json.loads(line) for line in get(client, campaign, "jsonl").splitlines()]
    assert all(d["segment_id"] == by_id[d["judgment_id"]] + 1 for d in lines)

    # Google's MQM TSV: doc the document's name, doc_id the position in it, seg_id the
    # segment's number in the test set, both from 1.
    tsv = get(client, campaign, "mqm.tsv", f"?task={tasks['mqm'].id}")
    ratings = list(group_ratings(read_mqm_tsv(io.StringIO(tsv))))
    segments = {s.index: s for s in Segment.objects.select_related("document")}
    position = {s.index: 1 + s.index for s in segments.values()}  # one document of 12
    assert len({s.document_id for s in segments.values()}) == 1
    assert ratings
    for rating in ratings:
        index = int(rating.seg_id) - 1
        assert rating.doc == segments[index].document.external_id == "rt-dog-park"
        assert int(rating.doc_id) == position[index]
        assert rating.source == segments[index].source


def test_ranking_columns_mean_one_thing_in_the_api_and_the_downloads(judged, manager):
    campaign, _, client = judged
    api = APIClient()
    api.force_authenticate(manager)
    body = api.get(f"/api/v1/campaigns/{campaign.id}/results/human").json()
    likert = body["tasks"][0]["likert"][0]["systems"]
    assert likert and all("systems_beaten" in s and "wins" not in s for s in likert)
    text = client.get(f"/campaigns/{campaign.id}/results/human/rankings.csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(text.streaming_content).decode())))
    adequacy = [r for r in rows if r["task_type"] == "adequacy"]
    assert adequacy and {r["higher_is_better"] for r in adequacy} == {"True"}
    esa = [r for r in rows if r["task_type"] == "esa"]
    assert esa and {r["domains"] for r in esa} == {""}  # a plain mean: no domains, not "[]"
    assert {r["higher_is_better"] for r in esa} == {"True"}
    mqm = [r for r in rows if r["task_type"] == "mqm"]
    assert mqm and {r["higher_is_better"] for r in mqm} == {"False"}


def test_the_page_and_the_api_serve_the_same_formats(judged, manager):
    campaign, tasks, client = judged
    api = APIClient()
    api.force_authenticate(manager)
    for fmt in JUDGMENT_FORMATS:
        query = f"?task={tasks['esa'].id}" if fmt != "wmt" else ""
        page = client.get(reverse("results-human-judgments", args=[campaign.id, fmt]) + query)
        path = f"/api/v1/campaigns/{campaign.id}/results/human/judgments.{fmt}{query}"
        answer = api.get(path)
        assert (page.status_code, answer.status_code) in ((200, 200), (400, 400)), fmt
        if page.status_code == 200:
            assert page["Content-Type"] == answer["Content-Type"], fmt
    assert client.get(f"/campaigns/{campaign.id}/results/human/judgments.xlsx").status_code == 404
