"""The reliability table on a campaign with simulated careless raters, each caught by the
right check; the "only annotators who pass" switch; the API and download columns."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import AnnotatorExclusion, Judgment
from annotation.selectors.human import human_results
from tests.reliability_support import raters_judge

pytestmark = pytest.mark.django_db

RATERS = {
    "careful1": "careful",
    "careful2": "careful",
    "careful3": "careful",
    "random": "random",
    "constant": "constant",
    "fast": "fast",
}


@pytest.fixture
def judged(launched, loaded_campaign, make_annotator):
    task = launched(
        "adequacy", judgments_per_item=6, bad_reference_rate=0.25, repeat_rate=0.15, seed=7
    )
    users = {make_annotator(loaded_campaign, name): kind for name, kind in RATERS.items()}
    raters_judge(task=task, raters=users, start=timezone.now() - timedelta(days=1), seed=3)
    return loaded_campaign, task, {user.username: user for user in users}


def test_each_careless_rater_is_caught_by_the_right_check(judged):
    campaign, _, _ = judged
    rows = {row.username: row for row in human_results(campaign).tasks[0].reliability}
    for name in ("careful1", "careful2", "careful3"):
        assert rows[name].passes, (name, rows[name].reasons)
    assert rows["random"].attention.rate < 0.7
    assert any("bad-reference" in r or "attention" in r for r in rows["random"].reasons)
    assert not rows["random"].too_fast and not rows["random"].straight_lining.flagged
    assert rows["constant"].straight_lining.flagged
    assert any(r.startswith("straight-lining") for r in rows["constant"].reasons)
    assert not rows["constant"].too_fast
    assert rows["fast"].too_fast
    assert [r for r in rows["fast"].reasons if not r.startswith("too fast")] == []
    assert not rows["careful1"].too_fast
    # WMT26's MAE against the others: the rater at random is furthest from everyone.
    assert rows["random"].others.mean == max(row.others.mean for row in rows.values())
    for row in rows.values():
        assert row.time.median_seconds is not None and row.time.median_seconds <= 60
        assert row.repeats.pairs > 0
        assert row.consensus is None  # no candidates scored side by side in a Likert task
        assert row.tutorial is None


CARELESS = {"random", "constant", "fast"}


def test_switch_ranks_both_ways_names_who_is_dropped_and_excludes_reversibly(
    judged, manager, client
):
    campaign, task, users = judged
    plain = human_results(campaign).tasks[0]
    assert plain.passing is None  # computed only when asked for
    both = human_results(campaign, passing_only=True).tasks[0]
    assert {row.username for row in both.passing.dropped} == CARELESS
    assert all(row.reasons for row in both.passing.dropped)
    careless_ranked = Judgment.objects.filter(
        task=task,
        annotator__username__in=CARELESS,
        item__item_type__in=["TGT", "REF"],
        is_repeat=False,
    ).count()
    everyone = sum(s.score.judgments for s in both.likert[0].systems)
    passing = sum(s.score.judgments for s in both.passing.likert[0].systems)
    assert careless_ranked > 0 and passing == everyone - careless_ranked
    assert [s.name for s in both.likert[0].systems] == [s.name for s in plain.likert[0].systems]

    client.force_login(manager)
    page = client.get(f"/campaigns/{campaign.id}/results/human/?passing=1").content.decode()
    assert "Only annotators who pass: on" in page
    assert "Dropped:" in page and "straight-lining: 100% of scores identical" in page
    assert "all counted annotators" in page and "Exclude these 3 from this task" in page
    off = client.get(f"/campaigns/{campaign.id}/results/human/?weights=linear").content.decode()
    assert "Only annotators who pass: off" in off and "Dropped:" not in off
    assert "?weights=linear&amp;passing=1#reliability-" in off  # the other choices kept

    # Excluding those who fail goes through the exclusion service: one row each, reversible.
    response = client.post(
        f"/campaigns/{campaign.id}/results/human/tasks/{task.id}/exclude-failing/"
    )
    assert response.status_code == 302 and response.url.endswith("?passing=1")
    excluded = AnnotatorExclusion.objects.filter(campaign=campaign, task=task)
    assert {e.annotator.username for e in excluded} == CARELESS
    after = human_results(campaign, passing_only=True).tasks[0]
    assert after.passing.dropped == []  # already excluded: nobody left to drop
    assert sum(s.score.judgments for s in after.likert[0].systems) == passing
    for name in CARELESS:
        client.post(
            f"/campaigns/{campaign.id}/results/human/annotators/{users[name].id}/exclusion/",
            {"excluded": "0"},
        )
    assert not AnnotatorExclusion.objects.filter(campaign=campaign).exists()
    again = human_results(campaign).tasks[0]
    assert sum(s.score.judgments for s in again.likert[0].systems) == everyone


def test_annotators_cannot_exclude_or_read_reliability(judged, client):
    campaign, task, users = judged
    client.force_login(users["careful1"])
    response = client.post(
        f"/campaigns/{campaign.id}/results/human/tasks/{task.id}/exclude-failing/"
    )
    assert response.status_code in {403, 404}
    assert client.get(f"/campaigns/{campaign.id}/results/human/reliability.csv").status_code in {
        403,
        404,
    }
    assert not AnnotatorExclusion.objects.exists()


def test_api_and_downloads_carry_the_reliability_columns(judged, manager, client):
    campaign, task, _ = judged
    client.force_login(manager)
    body = client.get(f"/api/v1/campaigns/{campaign.id}/results/human?passing=true").json()
    rows = {row["annotator"]: row for row in body["tasks"][0]["reliability"]}
    assert set(rows) == set(RATERS)
    assert rows["fast"]["too_fast"] and rows["constant"]["straight_lining"]
    assert rows["random"]["attention_rate"] < 0.7 and rows["careful1"]["passes"]
    assert rows["careful1"]["consensus_likelihood"] is None
    assert rows["careful1"]["tutorial_total"] == 0
    assert (
        rows["random"]["others_mean_abs_difference"]
        > rows["careful1"]["others_mean_abs_difference"]
    )
    assert 8 <= rows["careful1"]["seconds_per_item"] <= 40
    dropped = {row["annotator"] for row in body["tasks"][0]["passing"]["dropped"]}
    assert dropped == CARELESS
    assert body["tasks"][0]["passing"]["likert"][0]["systems"]
    plain = client.get(f"/api/v1/campaigns/{campaign.id}/results/human").json()
    assert plain["tasks"][0]["passing"] is None
    assert (
        client.get(f"/api/v1/campaigns/{campaign.id}/results/human?passing=perhaps").status_code
        == 400
    )

    download = client.get(f"/campaigns/{campaign.id}/results/human/reliability.csv")
    table = list(csv.DictReader(io.StringIO(b"".join(download.streaming_content).decode())))
    assert {row["annotator"] for row in table} == set(RATERS)
    fast = next(row for row in table if row["annotator"] == "fast")
    assert fast["too_fast"] == "True" and fast["task_id"] == str(task.id)
    assert fast["reasons"].startswith("too fast: median")
    assert set(table[0]) == {"task_id", "task_type", *rows["fast"]}
    document = json.loads(
        b"".join(
            client.get(f"/campaigns/{campaign.id}/results/human/reliability.json").streaming_content
        )
    )
    assert {row["annotator"] for row in document["annotators"]} == set(RATERS)
    assert client.get(f"/campaigns/{campaign.id}/results/human/reliability.xml").status_code == 404


def test_consensus_likelihood_on_candidates_scored_side_by_side(
    launched, loaded_campaign, make_annotator
):
    """Pairwise on the 0-100 scale scores both candidates of a screen: WMT26's consensus
    likelihood applies, and the rater at random falls below 0.75."""
    task = launched("pairwise", scale="da100", judgments_per_item=4, seed=9)
    raters = {"careful1": "careful", "careful2": "careful", "careful3": "careful"}
    raters["random"] = "random"
    users = {make_annotator(loaded_campaign, name): kind for name, kind in raters.items()}
    raters_judge(task=task, raters=users, start=timezone.now() - timedelta(days=1), seed=5)
    results = human_results(loaded_campaign, passing_only=True).tasks[0]
    rows = {row.username: row for row in results.reliability}
    assert results.scored_side_by_side
    assert rows["random"].consensus.likelihood < 0.75 and not rows["random"].consensus.kept
    assert any(r.startswith("consensus likelihood") for r in rows["random"].reasons)
    for name in ("careful1", "careful2", "careful3"):
        assert rows[name].consensus.kept and rows[name].consensus.screens >= 3, rows[name]
        assert rows[name].passes, rows[name].reasons
    assert {row.username for row in results.passing.dropped} == {"random"}
    assert results.passing.pairwise  # ranked again without them
    assert rows["random"].straight_lining is None  # no single score per judgment


def test_attention_figures_are_the_checks_the_loop_recorded(judged):
    """Once the loop records check outcomes (bad references and repeats here), the table's
    attention column counts them, first answers, per annotator."""
    from annotation.models import CheckOutcome

    campaign, task, users = judged
    recorded = list(CheckOutcome.objects.filter(task=task).values_list("annotator_id", "passed"))
    assert recorded
    rows = {row.annotator_id: row for row in human_results(campaign).tasks[0].reliability}
    for user in users.values():
        mine = [passed for who, passed in recorded if who == user.id]
        attention = rows[user.id].attention
        assert (attention.passed, attention.total) == (sum(mine), len(mine)), user.username
