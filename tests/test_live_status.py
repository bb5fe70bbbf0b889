"""The live ranking status of every scored protocol (issue 23, section 2): the entry point
``task_ranking_status``, the results page and API, and the rolling-interval figure. Each
number is checked against one computed here from the answers given (means by hand, MQM
weights by hand, page means by hand, intervals by the hand formula of
tests/metrics/test_rolling_intervals.py) or against an independent selector."""

from __future__ import annotations

import math
import statistics

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Slot
from annotation.selectors.contrastive import contrastive_system_means
from annotation.selectors.human import human_results
from annotation.selectors.human.ranking_status import (
    task_ranking_status,
    task_statuses,
)
from annotation.services.assignment import slot_claim_next
from annotation.services.page_judgments import page_record_and_claim_next
from metrics.adaptive import ranking_status
from tests.human_support import judge_all
from tests.metrics.test_rolling_intervals import _by_hand
from tests.test_contrastive import SYSTEMS, claim, launch, record, six_systems  # noqa: F401
from tests.test_span_rankings_export import MQM_ERRORS, hand_mqm, judge, mqm_answer

pytestmark = pytest.mark.django_db

CATEGORY = "Fluency/Grammar"
ESA_MEANS = {"Online-B": 85, "UEdin": 55, "happypoet": 25}


def esa_answer(system, index, text):
    return {"score": ESA_MEANS[system] + (7 * index) % 11 - 5, "spans": []}


def _grouped(given) -> dict[str, list[float]]:
    scores: dict[str, list[float]] = {}
    for system, _, answer in given:
        scores.setdefault(system, []).append(float(answer["score"]))
    return scores


@pytest.fixture
def page_client(manager):
    client = Client()
    client.force_login(manager)
    return client


@pytest.fixture
def api(manager):
    client = APIClient()
    client.force_authenticate(manager)
    return client


def test_esa_status_entry_point_page_api_and_figure(
    launched, loaded_campaign, make_annotator, page_client, api, django_assert_max_num_queries
):
    task = launched("esa", judgments_per_item=2, batch_size=36)
    given = []
    for name in ("ann1", "ann2"):
        given += judge(task, make_annotator(loaded_campaign, name), esa_answer)
    assert len(given) == 72
    with django_assert_max_num_queries(2):  # the exclusions, the judgments
        status = task_ranking_status(task)
    assert status is not None
    assert (status.statistic, status.unit, status.lower_is_better) == (
        "ESA score",
        "judgment",
        False,
    )
    assert [s.system for s in status.systems] == ["Online-B", "UEdin", "happypoet"]
    hand = _by_hand(_grouped(given), 0.05, 100.0)  # the default tuning, fixed in advance
    for system in status.systems:
        mean, low, high = hand[system.system]
        assert system.judgments == 24
        assert system.mean == pytest.approx(mean, abs=1e-12)
        assert system.interval == (pytest.approx(low, rel=1e-3), pytest.approx(high, rel=1e-3))
    assert [p.status for p in status.pairs] == ["resolved", "resolved"]
    assert status.settled and status.still_needed == 0
    assert status.pairs[0].difference == pytest.approx(
        hand["Online-B"][0] - hand["UEdin"][0], abs=1e-12
    )

    html = page_client.get(reverse("results-human", args=[loaded_campaign.id])).content.decode()
    section = html[html.index(f'id="ranking-status-{task.id}-1"') :]
    assert "The ranking is settled" in section[:2000]
    assert "Mean ESA score" in section[:3000]
    key = f"span-rolling-{task.id}-0"
    assert key in html and "as judgments came in" in html
    for fmt, start in (("svg", b"<?xml"), ("pdf", b"%PDF")):
        response = page_client.get(
            reverse("results-human-plot", args=[loaded_campaign.id, key, fmt])
        )
        assert response.status_code == 200
        assert response.content.startswith(start)

    body = api.get(f"/api/v1/campaigns/{loaded_campaign.id}/results/human").json()
    (shown,) = [t for t in body["span_rankings"] if t["task_id"] == task.id]
    (live,) = shown["ranking_status"]
    assert live["statistic"] == "ESA score" and live["settled"] is True
    assert [s["system"] for s in live["systems"]] == ["Online-B", "UEdin", "happypoet"]
    assert [s["mean"] for s in live["systems"]] == [s.mean for s in status.systems]
    rolling = live["rolling"]
    assert rolling["looks"][-1] == 72
    last = {s["system"]: (s["low"][-1], s["high"][-1]) for s in rolling["systems"]}
    assert last == {s.system: pytest.approx(s.interval, rel=1e-12) for s in status.systems}
    assert sum(s["judgments"][0] for s in rolling["systems"]) == rolling["looks"][0]


def test_mqm_status_is_lower_is_better_with_the_tasks_weights(
    launched, loaded_campaign, make_annotator, page_client
):
    task = launched("mqm", judgments_per_item=2, batch_size=36)
    given = []
    for name in ("ann1", "ann2"):
        given += judge(task, make_annotator(loaded_campaign, name), mqm_answer)
    status = task_ranking_status(task)
    assert status is not None
    assert (status.statistic, status.lower_is_better) == ("MQM score", True)
    expected = hand_mqm(given)  # Google's weights, summed by hand
    assert [s.system for s in status.systems] == sorted(expected, key=expected.get)
    assert [s.system for s in status.systems] == list(MQM_ERRORS)  # planted: best first
    for system in status.systems:
        assert system.mean == pytest.approx(expected[system.system], abs=1e-12)
    for pair in status.pairs:
        assert pair.difference < 0  # the upper (better) system has the lower MQM score
        assert pair.interval[0] <= pair.difference <= pair.interval[1]
    html = page_client.get(reverse("results-human", args=[loaded_campaign.id])).content.decode()
    section = html[html.index(f'id="ranking-status-{task.id}-1"') :]
    assert "Mean MQM score ↓" in section[:3000]
    assert "MQM score (lower is better)" in html


def _contrastive_answer(slot, planted):
    """Each candidate scored by its first system's planted mean (cESA), or marked with
    that many minor errors (contrastive MQM: planted error counts)."""
    candidates = slot.item.candidates
    segment = slot.item.segment.index
    if isinstance(next(iter(planted.values())), int):
        return {
            "candidates": [
                {
                    "spans": [
                        {"start": j, "end": j + 1, "severity": "minor", "category": CATEGORY}
                        for j in range(planted[c["systems"][0]])
                    ]
                }
                for c in candidates
            ]
        }
    return {
        "candidates": [
            {"score": round(planted[c["systems"][0]] + segment % 3), "spans": []}
            for c in candidates
        ]
    }


@pytest.mark.parametrize(
    ("task_type", "planted", "statistic"),
    [
        ("contrastive_esa", {s: 90.0 - 12 * i for i, s in enumerate("abcdef")}, "ESA score"),
        ("contrastive_mqm", {s: i % 3 for i, s in enumerate("abcdef")}, "MQM score"),
    ],
)
def test_contrastive_status_reads_each_candidates_score(
    six_systems,  # noqa: F811
    make_annotator,
    page_client,
    task_type,
    planted,
    statistic,
):
    task = launch(six_systems, task_type, judgments_per_item=3)
    planted = {name: planted[name[0]] for name in SYSTEMS}
    for name in ("ann1", "ann2", "ann3"):
        user = make_annotator(six_systems, name)
        while (slot := claim(task, user)) is not None:
            record(task, user, slot, _contrastive_answer(slot, planted))
    status = task_ranking_status(task)
    assert status is not None and status.statistic == statistic
    # The existing per-system means (annotation/selectors/contrastive.py): the same numbers.
    means = {m.system: (m.mean, m.judgments) for m in contrastive_system_means(task)}
    assert {s.system: (s.mean, s.judgments) for s in status.systems} == {
        name: (pytest.approx(mean, abs=1e-12), n) for name, (mean, n) in means.items()
    }
    html = page_client.get(reverse("results-human", args=[six_systems.id])).content.decode()
    assert f'id="ranking-status-{task.id}-1"' in html
    assert f"rolling-{task.id}-0" in html


@pytest.mark.parametrize("task_type", ["esa", "adequacy"])
def test_document_status_counts_pages(launched, loaded_campaign, make_annotator, task_type):
    settings = {"scale": "da100"} if task_type == "adequacy" else {}
    task = launched(task_type, unit="document", page_size=4, judgments_per_item=2, **settings)
    pages: list[tuple[str, str, float]] = []  # (annotator, system, page mean)
    for name in ("ann1", "ann2"):
        user = make_annotator(loaded_campaign, name)
        slot = slot_claim_next(task=task, annotator_id=user.id)
        while slot is not None:
            page = list(
                Slot.objects.filter(batch_id=slot.batch_id, page=slot.page)
                .select_related("item__segment", "item__system")
                .order_by("position")
            )
            system = page[0].item.system.name
            scores = [ESA_MEANS[system] + s.item.segment.index % 5 for s in page]
            extra = {"spans": []} if task_type == "esa" else {}
            answers = [
                {"slot": s.id, "score": score, **extra}
                for s, score in zip(page, scores, strict=True)
            ]
            pages.append((name, system, statistics.fmean(scores)))
            _, slot, _ = page_record_and_claim_next(
                task=task, slot_id=slot.id, annotator_id=user.id, answers=answers
            )
    if task_type == "adequacy":  # DA: each page mean z-standardised per annotator by hand
        by_annotator: dict[str, list[float]] = {}
        for name, _, mean in pages:
            by_annotator.setdefault(name, []).append(mean)
        spread = {n: (statistics.fmean(v), statistics.stdev(v)) for n, v in by_annotator.items()}
        pages = [(n, s, (m - spread[n][0]) / spread[n][1]) for n, s, m in pages]
    expected: dict[str, list[float]] = {}
    for _, system, value in pages:
        expected.setdefault(system, []).append(value)
    status = task_ranking_status(task)
    assert status is not None and status.unit == "page"
    for system in status.systems:
        assert system.judgments == len(expected[system.system]) == 6
        assert system.mean == pytest.approx(statistics.fmean(expected[system.system]))
    # Six pages a system: under the ten the rule asks for, so every pair stays open.
    assert {p.status for p in status.pairs} == {"open"}
    assert math.isnan(status.pairs[0].difference)
    if task_type == "adequacy":  # the results page reads the pages too
        (shown,) = [t for t in human_results(loaded_campaign).tasks if t.task.id == task.id]
        assert shown.ranking_status[0].systems == status.systems


def test_likert_entry_point_equals_the_results_page(launched, loaded_campaign, make_annotator):
    task = launched("adequacy", scale="da100", judgments_per_item=2)
    users = [make_annotator(loaded_campaign, f"ann{i}") for i in range(2)]
    base = {"Online-B": 80, "UEdin": 50, "happypoet": 45}

    def answer(user, slot):
        offset = (slot.item.segment.index * 13 + len(user.username)) % 17
        return {"score": base[slot.item.system.name] + offset}

    judge_all(task, users, answer)
    (on_page,) = [t for t in human_results(loaded_campaign).tasks if t.task.id == task.id]
    (shown,) = on_page.ranking_status
    live = task_ranking_status(task)
    assert live is not None and live.statistic == "mean z"
    assert live.systems == shown.systems and live.pairs == shown.pairs
    assert live.still_needed == shown.still_needed
    assert shown.rolling is not None and live.rolling is None  # the job draws no figure


def test_protocols_without_a_score_have_no_status(launched):
    assert task_ranking_status(launched("pairwise")) is None
    assert task_statuses(launched("postedit")) == []


def test_an_open_pairs_need_is_what_the_task_needs_for_it():
    a = [float(x) for x in (5, 7, 6, 9, 4, 6, 8, 5, 7, 6, 5, 8)]
    b = [float(x) for x in (6, 5, 7, 4, 6, 5, 7, 6, 4, 5, 6, 5)]
    status = ranking_status({"a": a, "b": b})
    (pair,) = status.pairs
    assert pair.status == "open"
    # One pair of two systems judged equally often: the pair's need is the task's.
    assert pair.still_needed == pytest.approx(status.still_needed) and pair.still_needed > 0
    (far,) = ranking_status({"a": [x + 50 for x in a], "b": b}).pairs
    assert far.status == "resolved" and far.still_needed == 0
    (same,) = ranking_status({"a": a, "b": a}).pairs
    assert math.isinf(same.still_needed)  # equal means never resolve at margin 0
