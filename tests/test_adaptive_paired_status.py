"""The live ranking status pairs systems where the design pairs them (issue 23 section 2;
selectors/tuning.py): a planned contrastive task whose every screen shows every system
compares each pair on its screens' differences, decided at launch. The answers give each
segment a difficulty shared by every system (+-20 points) and two systems 4 points apart:
paired, the pair is resolved; unpaired, the segments' spread keeps it open, so the checks
tell the two rules apart."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.selectors.human.ranking_status import task_ranking_status
from metrics.adaptive import ranking_status
from tests.test_contrastive import claim, launch, record, six_systems  # noqa: F401

pytestmark = pytest.mark.django_db

BASE = {"Online-B": 70, "UEdin": 66, "happypoet": 30}
NOISE = {"Online-B": 0, "UEdin": 1, "happypoet": 2}


def _score(system: str, segment: int, annotator: int) -> int:
    difficulty = (segment * 37) % 41 - 20
    return BASE[system] + difficulty + (7 * segment + 3 * NOISE[system] + annotator) % 5 - 2


def _judge_screens(task, users):
    """Every screen scored by each user; returns each system's scores and their screens
    (the users' screens numbered in the order they were judged)."""
    scores: dict[str, list[float]] = {}
    screens: dict[str, list[int]] = {}
    judged = 0
    for number, user in enumerate(users):
        while (slot := claim(task, user)) is not None:
            judged += 1
            segment = slot.item.segment.index
            answers = []
            for candidate in slot.item.candidates:
                # An output several systems share is one candidate: one score for each.
                value = _score(candidate["systems"][0], segment, number)
                answers.append({"score": value, "spans": []})
                for system in candidate["systems"]:
                    scores.setdefault(system, []).append(float(value))
                    screens.setdefault(system, []).append(judged)
            record(task, user, slot, {"candidates": answers})
    return scores, screens


def test_a_contrastive_task_showing_every_system_is_paired_on_its_screens(
    loaded_campaign, make_annotator, manager
):
    task = launch(loaded_campaign, "contrastive_esa", judgments_per_item=2)
    assert task.paired_status  # three systems, three outputs a screen
    users = [make_annotator(loaded_campaign, name) for name in ("ann1", "ann2")]
    scores, screens = _judge_screens(task, users)
    assert {len(v) for v in scores.values()} == {24}
    paired = ranking_status(scores, screens=screens)
    unpaired = ranking_status(scores)
    assert [p.status for p in paired.pairs] == ["resolved", "resolved"]
    assert [p.status for p in unpaired.pairs] == ["open", "resolved"]

    status = task_ranking_status(task)
    assert status is not None and status.paired
    assert [s.system for s in status.systems] == ["Online-B", "UEdin", "happypoet"]
    for live, hand in zip(status.pairs, paired.pairs, strict=True):
        assert (live.upper, live.lower, live.status) == (hand.upper, hand.lower, hand.status)
        assert live.difference == pytest.approx(hand.difference, abs=1e-12)
        assert live.interval == pytest.approx(hand.interval, rel=1e-12)
    assert status.settled

    client = Client()
    client.force_login(manager)
    html = client.get(reverse("results-human", args=[loaded_campaign.id])).content.decode()
    section = html[html.index(f'id="ranking-status-{task.id}-1"') :]
    assert "Each pair's interval is paired" in section[: section.index("</section>")]


def test_screens_showing_some_of_the_systems_stay_unpaired(
    six_systems,  # noqa: F811
    make_annotator,
):
    task = launch(six_systems, "contrastive_esa", judgments_per_item=2)  # 3 of 6 a screen
    assert not task.paired_status
    user = make_annotator(six_systems, "ann1")
    given: dict[str, list[float]] = {}
    while (slot := claim(task, user)) is not None:
        answers = []
        for candidate in slot.item.candidates:
            value = 20 + 10 * (len(candidate["systems"][0]) % 5) + slot.item.segment.index
            answers.append({"score": value, "spans": []})
            for system in candidate["systems"]:
                given.setdefault(system, []).append(float(value))
        record(task, user, slot, {"candidates": answers})
    status = task_ranking_status(task)
    assert status is not None and not status.paired
    assert [p.interval for p in status.pairs] == [
        pytest.approx(p.interval, rel=1e-12) for p in ranking_status(given).pairs
    ]


def test_single_output_and_adaptive_tasks_stay_unpaired(launched):
    assert not launched("esa").paired_status
    assert not launched("mqm", name="mqm").paired_status
