"""In headless Chromium: the add-task form and the edit page show the fields of the chosen
protocol only (static/js/task_form.js), for every protocol, and hidden fields are not sent."""

from pathlib import Path

import pytest

from annotation.models import Task
from annotation.protocols import PROTOCOLS, SETTINGS
from annotation.services.campaigns import membership_set
from annotation.services.tasks import task_create, task_launch
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def shoot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def shown_settings(page, form: str) -> set[str]:
    return set(
        page.eval_on_selector_all(
            f"{form} [name]",
            "inputs => inputs.filter(i => i.getClientRects().length).map(i => i.name)",
        )
    ) & set(SETTINGS)


def test_each_protocol_shows_its_own_fields(page, live_server, loaded_campaign, manager):
    membership_set(campaign=loaded_campaign, user=manager, role="manager")
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/")
    page.click("#add-task summary")
    form = "#add-task form"
    assert page.is_hidden(".task-form-note")  # the no-script note goes with the script
    for task_type, protocol in PROTOCOLS.items():
        page.select_option(f"{form} [name=task_type]", task_type)
        assert shown_settings(page, form) == set(protocol.setting_names), task_type
        page.locator("#add-task").screenshot(path=str(SHOTS / f"task-add-{task_type}.png"))
    # A value typed for ranking, then hidden by choosing ESA, is not sent: ESA's defaults.
    page.select_option(f"{form} [name=task_type]", "ranking")
    page.fill(f"{form} [name=ranking_size]", "3")
    page.select_option(f"{form} [name=task_type]", "esa")
    page.fill(f"{form} [name=name]", "ESA, news")
    page.get_by_role("button", name="Add task").click()
    page.wait_for_selector("text=created")
    task = Task.objects.get(campaign=loaded_campaign, name="ESA, news")
    assert (task.task_type, task.ranking_size) == ("esa", 5)
    shoot(page, "task-added")


def test_the_edit_page_of_each_protocol(page, live_server, loaded_campaign, manager):
    membership_set(campaign=loaded_campaign, user=manager, role="manager")
    log_in(page, live_server, "manager", "manager-password-1")
    for task_type, protocol in PROTOCOLS.items():
        task = task_create(campaign=loaded_campaign, task_type=task_type)
        page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/tasks/{task.id}/edit/")
        assert shown_settings(page, "#task-edit") == set(protocol.setting_names), task_type
        assert page.inner_text("h1").startswith(task.name)
        shoot(page, f"task-edit-{task_type}")
        page.get_by_role("button", name="Save").click()
        page.wait_for_selector("text=Task saved.")
    mqm = Task.objects.get(campaign=loaded_campaign, task_type="mqm")
    assert (mqm.mqm_categories, mqm.mqm_weights) == ([], {})
    # Launched: its own fields still show, only the name, wording, lease and crowd settings
    # can change.
    ranking = Task.objects.get(campaign=loaded_campaign, task_type="ranking")
    task_launch(task_id=ranking.id)
    page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/tasks/{ranking.id}/edit/")
    assert shown_settings(page, "#task-edit") == set(PROTOCOLS["ranking"].setting_names)
    assert page.is_disabled("[name=seed]") and page.is_enabled("[name=name]")
    page.fill("[name=name]", "Ranking, round 2")
    shoot(page, "task-edit-launched")
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector("text=Task saved.")
    assert Task.objects.get(id=ranking.id).name == "Ranking, round 2"


def test_without_the_script_every_field_shows_with_its_note(
    browser, live_server, loaded_campaign, manager
):
    membership_set(campaign=loaded_campaign, user=manager, role="manager")
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, java_script_enabled=False
    )
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/login/")
        page.fill("[name=username]", "manager")
        page.fill("[name=password]", "manager-password-1")
        page.click("button[type=submit], form button")
        page.wait_for_url(lambda url: "/login/" not in url)
        page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/")
        page.click("#add-task summary")
        assert shown_settings(page, "#add-task form") == set(SETTINGS)
        assert page.is_visible(".task-form-note")
        assert page.is_visible("text=For MQM error annotation")
        page.locator("#add-task").screenshot(path=str(SHOTS / "task-add-no-script.png"))
    finally:
        context.close()
