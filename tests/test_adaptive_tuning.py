"""A task with a judgment budget tunes its confidence sequences to it, once, at launch
(issue 23 section 2; selectors/tuning.py): the figure from the plan, kept when the budget
changes, and read by every live figure -- the pairs, the systems' intervals, the rolling
intervals, the refresh's status and priorities, the results page, the API and the
snapshot. The answers put one pair on the edge: resolved when tuned for the budget (40
judgments per system), open under the default tuning (100), so each check tells the two
apart."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import ResultsSnapshot, Slot, SystemPriority
from annotation.selectors.adaptive import figures_from_sums
from annotation.selectors.human.ranking_status import task_ranking_status, task_statuses
from annotation.services.adaptive import task_priorities_refresh
from annotation.services.results_snapshots import results_snapshot_read
from annotation.services.task_changes import task_update
from metrics.adaptive import ranking_status, system_priorities
from metrics.adaptive.confidence import DEFAULT_TUNED_FOR
from tests.metrics.test_rolling_intervals import _by_hand
from tests.test_span_rankings_export import judge

pytestmark = pytest.mark.django_db

ADAPTIVE = {"assignment": "adaptive", "batch_size": 4, "cold_start": 2}
# Three systems, 12 segments, one judgment each: a budget of 240 is 80 a system, tuned for 40.
BUDGET, TUNED = 240, 40.0
BASE = {"Online-B": 85, "UEdin": 55, "happypoet": 50}
NOISE = {"Online-B": 0, "UEdin": 1, "happypoet": 2}


def edge_answer(system, index, text):
    """Online-B far above; UEdin 5 points above happypoet, with a little noise each."""
    return {"score": BASE[system] + (7 * index + 3 * NOISE[system]) % 11 - 5, "spans": []}


def _grouped(given) -> dict[str, list[float]]:
    scores: dict[str, list[float]] = {}
    for system, _, answer in given:
        scores.setdefault(system, []).append(float(answer["score"]))
    return scores


def test_a_budgeted_launch_fixes_the_tuning_from_its_plan(launched):
    task = launched(
        "esa", judgment_budget=BUDGET, repeat_rate=0.25, bad_reference_rate=0.25, **ADAPTIVE
    )
    slots = Slot.objects.filter(task=task)
    counted = slots.filter(is_repeat=False, item__item_type="TGT").count()
    assert counted < slots.count()  # quality control takes a share of the budget
    assert task.tuned_for == pytest.approx(BUDGET * counted / slots.count() / 3 / 2)
    # The budget may change after launch; the tuning stays the launch's.
    task_update(task_id=task.id, judgment_budget=10 * BUDGET)
    task.refresh_from_db()
    assert task.judgment_budget == 10 * BUDGET
    assert task.tuned_for == pytest.approx(BUDGET * counted / slots.count() / 3 / 2)
    assert launched("esa", name="no budget", **ADAPTIVE).tuned_for is None


def test_a_document_task_is_tuned_in_pages(launched):
    task = launched("esa", unit="document", page_size=4, judgment_budget=BUDGET, seed=7, **ADAPTIVE)
    slots = Slot.objects.filter(task=task)
    pages = set(slots.values_list("batch_id", "page"))
    assert len(pages) < slots.count()  # pages of several segments
    assert task.tuned_for == pytest.approx(BUDGET * len(pages) / slots.count() / 3 / 2)


def test_every_live_figure_uses_the_launch_tuning(
    launched, loaded_campaign, manager, make_annotator
):
    task = launched("esa", judgment_budget=BUDGET, **ADAPTIVE)
    assert task.tuned_for == TUNED
    given = judge(task, make_annotator(loaded_campaign, "ann1"), edge_answer)
    assert len(given) == 36
    scores = _grouped(given)
    tuned = ranking_status(scores, tuned_for=TUNED)
    default = ranking_status(scores)
    edge = ["resolved", "resolved"], ["resolved", "open"]
    assert ([p.status for p in tuned.pairs], [p.status for p in default.pairs]) == edge

    status = task_ranking_status(task)
    assert status is not None and status.tuning == TUNED
    assert status.pairs == tuned.pairs
    # By hand (its ratio found by scipy, hence the tolerance, far below the tunings' gap).
    hand = _by_hand(scores, 0.05, TUNED)
    default_hand = _by_hand(scores, 0.05, DEFAULT_TUNED_FOR)
    for system in status.systems:
        _, low, high = hand[system.system]
        assert system.interval == (pytest.approx(low, rel=1e-5), pytest.approx(high, rel=1e-5))
        assert system.interval[1] != pytest.approx(default_hand[system.system][2], rel=1e-3)
    (rolling,) = task_statuses(task, rolling=True)
    last = {
        name: (rolling.rolling.low[-1, i], rolling.rolling.high[-1, i])
        for i, name in enumerate(rolling.rolling.systems)
    }
    assert last == {s.system: pytest.approx(s.interval, rel=1e-12) for s in status.systems}

    # The refresh (it counts the sums): its status stopped the task, its priorities are
    # the tuned rule's.
    task_priorities_refresh(target_id=task.id, report_progress=lambda percent: None)
    task.refresh_from_db()
    assert task.settled_reason == "resolved"
    figures = figures_from_sums(task, judgments=36)
    assert figures.statuses[0].tuning == TUNED and figures.settled
    for pair, hand_pair in zip(figures.statuses[0].pairs, tuned.pairs, strict=True):
        assert pair.status == hand_pair.status
        assert pair.interval == pytest.approx(hand_pair.interval, rel=1e-9)
    wanted = system_priorities(scores, tuned_for=TUNED, cold_start=task.cold_start)
    assert wanted != system_priorities(scores, cold_start=task.cold_start)
    stored = {row.stratum: row.priority for row in SystemPriority.objects.filter(task=task)}
    assert set(stored.values()) == set(wanted.values()) == {0.0}

    # The page, the API and the snapshot read back from the database say the same.
    client = Client()
    client.force_login(manager)
    for _ in range(2):  # computed, then read from the stored snapshot
        html = client.get(reverse("results-human", args=[loaded_campaign.id])).content.decode()
        section = html[html.index(f'id="ranking-status-{task.id}-1"') :]
        assert (
            "tuned in advance for 40 judgments per system (half each system's share of "
            "the judgment budget at launch)" in section[: section.index("</section>")]
        )
    (read,) = results_snapshot_read(kind=ResultsSnapshot.Kind.HUMAN, campaigns=[loaded_campaign])
    assert read.current
    (mine,) = [r for r in read.value.span_results if r.task.id == task.id]
    assert mine.ranking_status[0].tuning == TUNED
    api = APIClient()
    api.force_authenticate(manager)
    body = api.get(f"/api/v1/campaigns/{loaded_campaign.id}/results/human").json()
    (shown,) = [t for t in body["span_rankings"] if t["task_id"] == task.id]
    assert shown["ranking_status"][0]["tuning"] == TUNED


def test_a_task_without_a_budget_keeps_the_default(launched, loaded_campaign, make_annotator):
    task = launched("esa", **ADAPTIVE)
    given = judge(task, make_annotator(loaded_campaign, "ann1"), edge_answer)
    status = task_ranking_status(task)
    assert status is not None and status.tuned_for is None
    assert status.tuning == DEFAULT_TUNED_FOR
    assert status.pairs == ranking_status(_grouped(given)).pairs
    assert [p.status for p in status.pairs] == ["resolved", "open"]
