"""The reliability table on a campaign with simulated careless raters, each caught by the
right check; the "only annotators who pass" switch; the API and download columns."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

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
    for row in rows.values():
        assert row.time.median_seconds is not None and row.time.median_seconds <= 60
        assert row.repeats.pairs > 0
        assert row.consensus is None  # no candidates scored side by side in a Likert task
        assert row.tutorial is None
