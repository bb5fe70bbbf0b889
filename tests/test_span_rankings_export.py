"""ESA and MQM rankings in the rankings download (CSV, JSON) and the results API: the rows the
results page shows, their scores checked against means computed here by hand."""

import csv
import io
import json

import numpy as np
import pytest
from django.urls import reverse

from annotation.models import Document, Judgment, Segment
from annotation.selectors.human.spans import span_results
from annotation.services.assignment import slot_claim_next
from annotation.services.exclusions import annotator_exclude
from annotation.services.judgments import judgment_record

pytestmark = pytest.mark.django_db

ESA_QUALITY = {"Online-B": 85, "UEdin": 60, "happypoet": 30}
# MQM errors per system (Google's weights: major 5, minor 1, minor Fluency/Punctuation 0.1).
MQM_ERRORS = {
    "Online-B": [("minor", "Fluency/Punctuation")],
    "UEdin": [("minor", "Fluency/Grammar"), ("minor", "Fluency/Punctuation")],
    "happypoet": [("major", "Accuracy/Mistranslation"), ("minor", "Style/Awkward")],
}
SOCIAL_FROM = 4  # the first segment of the second domain
GOOGLE_WEIGHT = {("minor", "Fluency/Punctuation"): 0.1, "major": 5.0, "minor": 1.0}


def split_into_two_domains(campaign) -> None:
    """Segments 0-3 in a "news" document, 4-11 in a "social" one: domains of unequal size,
    so that the mean over domains differs from the plain mean."""
    news = Document.objects.get(campaign=campaign)
    news.domain = "news"
    news.save()
    social = Document.objects.create(
        campaign=campaign, external_id="second", position=news.position + 1, domain="social"
    )
    Segment.objects.filter(campaign=campaign, index__gte=SOCIAL_FROM).update(document=social)


def judge(task, user, answer_for) -> list[tuple[str, int, dict]]:
    """Judges every item ``user`` gets; returns (system, segment index, answer) of each."""
    given = []
    while (slot := slot_claim_next(task=task, annotator_id=user.id)) is not None:
        item = slot.item
        system = item.candidates[0]["systems"][0]
        answer = answer_for(system, item.segment.index, item.candidates[0]["text"])
        judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer=answer)
        given.append((system, item.segment.index, answer))
    return given


def esa_answer(system, index, text):
    score = ESA_QUALITY[system] + (7 * index) % 11 - 5 + (9 if index >= SOCIAL_FROM else 0)
    return {"score": score, "spans": [{"start": 0, "end": 1, "severity": "minor"}]}


def mqm_answer(system, index, text):
    # Every third segment is clean: a rating of 0 counts in the mean.
    errors = [] if index % 3 == 0 else MQM_ERRORS[system]
    return {
        "spans": [
            {"start": i, "end": i + 1, "severity": severity, "category": category}
            for i, (severity, category) in enumerate(errors)
        ]
    }


def hand_esa(given) -> dict[str, float]:
    """WMT24: per system the mean within each domain, then over the two domains."""
    by_domain: dict[str, dict[bool, list[int]]] = {}
    for system, index, answer in given:
        social = index >= SOCIAL_FROM
        by_domain.setdefault(system, {}).setdefault(social, []).append(answer["score"])
    return {s: (np.mean(d[False]) + np.mean(d[True])) / 2 for s, d in by_domain.items()}


def hand_mqm(given) -> dict[str, float]:
    totals: dict[str, list[float]] = {}
    for system, _, answer in given:
        weight = sum(
            GOOGLE_WEIGHT.get((s["severity"], s["category"]), GOOGLE_WEIGHT[s["severity"]])
            for s in answer["spans"]
        )
        totals.setdefault(system, []).append(weight)
    return {s: sum(v) / len(v) for s, v in totals.items()}


@pytest.fixture
def judged(loaded_campaign, launched, make_annotator):
    split_into_two_domains(loaded_campaign)
    esa = launched("esa", batch_size=36)
    mqm = launched("mqm", batch_size=36)
    rater = make_annotator(loaded_campaign, "ann")
    return {
        "campaign": loaded_campaign,
        "esa": (esa, judge(esa, rater, esa_answer)),
        "mqm": (mqm, judge(mqm, rater, mqm_answer)),
    }


def download(client, campaign, fmt) -> str:
    response = client.get(reverse("results-human-rankings", args=[campaign.id, fmt]))
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()


def by_task_and_system(rows) -> dict[tuple[int, str], dict]:
    return {(int(row["task_id"]), row["system"]): row for row in rows if row["protocol"]}


def test_downloads_and_api_carry_the_span_rankings_the_page_shows(judged, client, manager):
    campaign = judged["campaign"]
    esa, esa_given = judged["esa"]
    mqm, mqm_given = judged["mqm"]
    assert len(esa_given) == len(mqm_given) == 36
    page_rows = [row for result in span_results(campaign) for row in result.ranking_rows()]
    assert len(page_rows) == 6  # one row per system per task
    expected = {(esa.id, s): pytest.approx(v, abs=1e-9) for s, v in hand_esa(esa_given).items()} | {
        (mqm.id, s): pytest.approx(v, abs=1e-9) for s, v in hand_mqm(mqm_given).items()
    }
    assert {(r["task_id"], r["system"]): r["score"] for r in page_rows} == expected
    # The hand means order the systems as planted: ESA highest first, MQM lowest first.
    for task in (esa, mqm):
        rows = [r for r in page_rows if r["task_id"] == task.id]
        assert [r["system"] for r in rows] == ["Online-B", "UEdin", "happypoet"]
        assert [r["position"] for r in rows] == [1, 2, 3]
    client.force_login(manager)

    # The page shows these rows.
    html = client.get(reverse("results-human", args=[campaign.id])).content.decode()
    for row in page_rows:
        section = html[html.index(f'id="task-{row["task_id"]}"') :]
        assert f"{row['score']:.3f}" in section[: section.index("</table>")]

    # JSON: the same rows, the page's values exactly.
    document = json.loads(download(client, campaign, "json"))
    json_rows = by_task_and_system(r for r in document["systems"] if "protocol" in r)
    assert json_rows == {(r["task_id"], r["system"]): r for r in page_rows}
    esa_row, mqm_row = json_rows[(esa.id, "UEdin")], json_rows[(mqm.id, "UEdin")]
    assert esa_row["protocol"] == "esa" and esa_row["higher_is_better"] is True
    assert mqm_row["protocol"] == "mqm" and mqm_row["higher_is_better"] is False
    assert esa_row["domains"] == ["news", "social"] and mqm_row["domains"] == []
    assert esa_row["task_name"] == "Error span annotation (ESA)"
    for row in (esa_row, mqm_row):
        assert row["score_low"] <= row["score"] <= row["score_high"]
        assert row["rank_low"] <= row["position"] <= row["rank_high"]
        assert row["segments"] == row["judgments"] == 12

    # CSV: the same values, domains as a JSON array (empty when none).
    csv_rows = by_task_and_system(csv.DictReader(io.StringIO(download(client, campaign, "csv"))))
    assert csv_rows.keys() == json_rows.keys()
    for key, row in csv_rows.items():
        want = json_rows[key]
        for column in ("score", "score_low", "score_high"):
            assert float(row[column]) == want[column], (key, column)
        for column in ("position", "cluster", "rank_low", "rank_high", "segments", "judgments"):
            assert int(row[column]) == want[column], (key, column)
        assert row["higher_is_better"] == str(want["higher_is_better"])
        # No domains (a plain mean): an empty cell, not the text "[]".
        assert row["domains"] != "[]"
        assert json.loads(row["domains"] or "[]") == want["domains"]
        assert row["protocol"] == row["measure"] == want["protocol"]

    # The API's results: the same rows, per task.
    api = client.get(reverse("api-results-human", args=[campaign.id])).json()
    assert api["tasks"] == []  # no Likert, pairwise or post-editing task
    by_task = {t["task_id"]: t for t in api["span_rankings"]}
    assert by_task.keys() == {esa.id, mqm.id}
    assert by_task[esa.id]["higher_is_better"] and not by_task[mqm.id]["higher_is_better"]
    assert by_task[esa.id]["domains"] == ["news", "social"]
    for task_id, ranking in by_task.items():
        for system in ranking["systems"]:
            want = json_rows[(task_id, system["system"])]
            assert {k: want[k] for k in system} == system
    one = client.get(reverse("api-results-human", args=[campaign.id]) + f"?task={mqm.id}").json()
    assert [t["task_id"] for t in one["span_rankings"]] == [mqm.id]


def test_an_excluded_annotator_leaves_the_span_rankings_of_the_download(judged, client, manager):
    """As on the page: the only annotator of the MQM task excluded there, it has no rows."""
    campaign = judged["campaign"]
    esa, mqm = judged["esa"][0], judged["mqm"][0]
    rater = Judgment.objects.filter(task=mqm).values_list("annotator_id", flat=True).first()
    annotator_exclude(
        campaign=campaign, annotator_id=rater, excluded=True, by=manager, task_id=mqm.id
    )
    client.force_login(manager)
    document = json.loads(download(client, campaign, "json"))
    assert {r["task_id"] for r in document["systems"] if "protocol" in r} == {esa.id}
    assert [r.ranking_rows() for r in span_results(campaign) if r.task.id == mqm.id] == [[]]
