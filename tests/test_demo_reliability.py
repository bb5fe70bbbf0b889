"""The demo's careless raters (``load_demo_reliability``, run by ``load_demo``): on its ESA and
MQM tasks the three careful simulated raters pass every reliability check and each careless
one is caught, by the check meant for them, with the failed checks named by kind."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from annotation.management.commands.load_demo_reliability import CAMPAIGN
from annotation.models import Campaign, CheckOutcome, Judgment
from annotation.selectors.human.spans import span_task_results

pytestmark = pytest.mark.django_db


def test_each_careless_demo_rater_is_caught_by_its_check():
    call_command("load_demo_reliability")
    campaign = Campaign.objects.get(name=CAMPAIGN)
    judgments = Judgment.objects.filter(task__campaign=campaign).count()
    call_command("load_demo_reliability")  # idempotent
    assert Judgment.objects.filter(task__campaign=campaign).count() == judgments
    tables, tutorials = {}, {}
    for task in campaign.tasks.all():
        assert task.slots.exclude(state="done").exists()  # still running, as a campaign does
        rows = {row.username: row for row in span_task_results(task).reliability}
        # Let start again after a hasty first attempt: the careful second one is the row's.
        reformed = rows["qc-reformed"]
        assert {row.attempt for name, row in rows.items() if name != "qc-reformed"} == {1}
        assert reformed.attempt == 2 and not reformed.too_fast
        theirs = Judgment.objects.filter(task=task, annotator_id=reformed.annotator_id)
        assert theirs.filter(excluded=True).exists()  # the hasty ones, kept
        assert theirs.filter(excluded=False).count() == reformed.time.items
        tables[task.task_type] = {name: "; ".join(row.reasons) for name, row in rows.items()}
        tutorials[task.task_type] = {
            name: (row.tutorial.passed, row.tutorial.total) if row.tutorial else None
            for name, row in rows.items()
        }
    assert set(tables) == {"esa", "mqm"}
    for task_type, reasons in tables.items():
        for careful in ("qc-careful-1", "qc-careful-2", "qc-careful-3"):
            assert reasons[careful] == "", (task_type, careful, reasons[careful])
        assert "attention checks (missed" in reasons["qc-unmarked"]
        assert "bad reference" in reasons["qc-unmarked"]
        assert (
            "repeats)" in reasons["qc-drifting"] and "bad reference" not in reasons["qc-drifting"]
        )
        assert reasons["qc-hasty"].startswith("too fast")
        assert reasons["qc-reformed"] == ""
    assert "HOTW error" in tables["mqm"]["qc-unmarked"]
    assert tables["esa"]["qc-constant"].startswith("straight-lining")
    assert "qc-constant" not in tables["mqm"]
    # The ESA task's tutorial: passed by all, "hasty" at the second attempt (1 of 2 items
    # as expected, then 2 of 2); the MQM task has none.
    assert tutorials["esa"]["qc-hasty"] == (3, 4)
    assert {tutorials["esa"][name] for name in tutorials["esa"] if name != "qc-hasty"} == {(2, 2)}
    assert set(tutorials["mqm"].values()) == {None}
    # Every kind of check was answered in the MQM task, and silently (recorded only).
    kinds = set(CheckOutcome.objects.filter(task__campaign=campaign).values_list("kind", flat=True))
    assert kinds == {"bad_reference", "repeat", "hotw"}
