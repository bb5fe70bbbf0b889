"""`manage.py load_demo`: both demo campaigns, idempotent, and simulated raters whose results
show what the demo promises (the careless rater fails the bad-reference test)."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from annotation.models import Campaign, Judgment, SharedTask, Task
from annotation.selectors.human import human_results
from annotation.selectors.shared_tasks import shared_task_results

pytestmark = pytest.mark.django_db


def test_load_demo_is_idempotent_and_the_simulated_campaign_is_judged():
    call_command("load_demo")
    counts = (Campaign.objects.count(), Task.objects.count(), Judgment.objects.count())
    call_command("load_demo")
    assert (Campaign.objects.count(), Task.objects.count(), Judgment.objects.count()) == counts

    demo = Campaign.objects.get(name="WMT21 de-fr demo")
    assert demo.systems.count() == 5 and demo.segments.count() == 86
    # Real documents from the WMT XML test set, in file order, each its news story's segments.
    documents = list(demo.documents.order_by("position"))
    assert [d.external_id for d in documents][:2] == ["salzburg.com.306606", "faz.79579"]
    assert [d.segments.count() for d in documents] == [13, 11, 24, 27, 11]
    assert not any(d.implicit for d in documents)
    assert demo.tasks.get(task_type="adequacy").context_size == 1
    esa = demo.tasks.get(task_type="esa")
    # Every system's output of every segment of the real documents, twice (two raters).
    assert esa.items.count() == 86 * 5 and esa.slots.count() == 2 * 86 * 5
    assert set(esa.items.values_list("segment__document__external_id", flat=True)) == {
        d.external_id for d in documents
    }
    assert set(demo.tasks.values_list("state", flat=True)) == {"launched"}
    assert not Judgment.objects.filter(task__campaign=demo).exists()

    simulated = Campaign.objects.get(name__contains="simulated raters")
    results = human_results(simulated)
    adequacy = next(t for t in results.tasks if t.task.task_type == "adequacy")
    verdicts = {row.username: row.quality.verdict for row in adequacy.quality}
    assert verdicts == {
        "sim-rater-1": "passed",
        "sim-rater-2": "passed",
        "sim-rater-3": "passed",
        "sim-rater-4": "failed",
    }
    ranked = [s.name for s in adequacy.likert[0].systems]
    assert ranked[0] == "Human" and ranked[-1] == "talp_upc"
    # Every slot of both simulated tasks was judged, by all four raters in each task.
    for task in simulated.tasks.all():
        assert not task.slots.exclude(state="done").exists()
        assert Judgment.objects.filter(task=task).values("annotator").distinct().count() == 4
    # The demo shared task: the simulated de-fr campaign and the en-de pair, both ranked.
    shared = SharedTask.objects.get(name="WMT21 demo shared task")
    pairs = shared_task_results(shared, set(shared.pairs.values_list("campaign_id", flat=True)))
    assert [p.pair for p in pairs.pairs] == ["de-fr", "en-de"]
    assert all(p.rows and p.rows[0].system == "Human" for p in pairs.pairs)
    assert "Online-B" in {row.system for row in pairs.global_rows if row.pairs == 2}
