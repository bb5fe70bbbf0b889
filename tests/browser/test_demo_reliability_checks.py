"""The demo's reliability table in headless Chromium (issue 24, "Must show"): the organiser
opens the human results of the careless-raters demo campaign (``load_demo_reliability``) with
"only annotators who pass" on; in the ESA and the MQM task the careful raters pass and each
careless one is flagged with the check that caught them (``qc-reformed``, let start again after
a hasty first attempt, passes on its second). Screenshots of both tasks' tables,
desktop and 390 px wide, in ../qc-shots (outside the repo)."""

from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.management.commands.load_demo_reliability import CAMPAIGN
from annotation.models import Campaign
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SHOTS = Path(__file__).resolve().parents[3] / "qc-shots"
CAUGHT = {
    "qc-unmarked": "attention checks (missed",
    "qc-drifting": "repeats)",
    "qc-hasty": "too fast",
    "qc-constant": "straight-lining",
}


def _table_shot(page, task_id: int, path: Path) -> None:
    """From the task's reliability heading to the end of its section."""
    top = page.locator(f"#reliability-{task_id}").evaluate(
        "e => e.getBoundingClientRect().top + window.scrollY"
    )
    left, bottom, width = page.locator(f"#task-{task_id}").evaluate(
        "e => { const b = e.getBoundingClientRect();"
        " return [b.left + window.scrollX, b.bottom + window.scrollY, b.width]; }"
    )
    clip = {"x": left, "y": top - 8, "width": width, "height": bottom - top + 8}
    page.screenshot(path=str(path), full_page=True, clip=clip)


def test_the_demo_reliability_table_flags_each_careless_rater(page, live_server, django_user_model):
    call_command("load_demo_reliability")
    campaign = Campaign.objects.get(name=CAMPAIGN)
    organiser = django_user_model.objects.get(username="organiser")
    organiser.set_password("organiser-password-1")
    organiser.save()
    log_in(page, live_server, "organiser", "organiser-password-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.id}/results/human/?passing=1")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for task in campaign.tasks.order_by("id"):
        table = page.locator(f"#reliability-{task.id} + .table-wrap table")
        rows = {}
        for row in table.locator("tbody tr").all():
            cells = row.locator("td")
            rows[cells.first.text_content().strip()] = (
                row.get_attribute("data-passes"),
                cells.last.text_content(),
            )
        for name in ("qc-careful-1", "qc-careful-2", "qc-careful-3"):
            assert rows[name] == ("1", "passes"), rows[name]
        # Let start again after a hasty first attempt: the row is the careful second one's.
        assert rows["qc-reformed attempt 2"] == ("1", "passes")
        for name, reason in CAUGHT.items():
            if name in rows:
                assert rows[name][0] == "0" and reason in rows[name][1], rows[name]
        expected = set(CAUGHT) - ({"qc-constant"} if task.task_type == "mqm" else set())
        assert {name for name, (passes, _) in rows.items() if passes == "0"} == expected
        dropped = page.locator(f"#task-{task.id} ul.dropped li")
        assert dropped.count() == len(expected)
        _table_shot(page, task.id, SHOTS / f"demo-reliability-{task.task_type}-desktop.png")
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    for task in campaign.tasks.order_by("id"):
        _table_shot(page, task.id, SHOTS / f"demo-reliability-{task.task_type}-390.png")
        # The page itself never scrolls sideways: a wide table scrolls in its own box.
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
