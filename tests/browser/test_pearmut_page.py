"""The Pearmut import page in a browser: a refused file shows its reason, an accepted one
lands on its campaign (screenshot kept under var/screenshots)."""

from pathlib import Path

import pytest

from tests.browser.conftest import log_in
from tests.conftest import DATA

pytestmark = pytest.mark.django_db(transaction=True)
EXAMPLES = DATA / "pearmut-examples"
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def test_pearmut_import_page(page, live_server, manager):
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/new/pearmut/")
    page.set_input_files("input[name=campaign]", str(EXAMPLES / "multimodal.json"))
    page.click("button.primary")
    assert "embeds a page (<iframe> https://www.youtube.com/" in page.inner_text(".error")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "pearmut-import-refused.png"), full_page=True)
    page.set_input_files("input[name=campaign]", str(EXAMPLES / "esa.json"))
    page.click("button.primary")
    page.wait_for_url("**/campaigns/*/")
    assert "Imported 200 items" in page.content()
    page.screenshot(path=str(SHOTS / "pearmut-import-done.png"), full_page=True)


def test_hotw_table_on_the_results_page(page, live_server, manager):
    from django.core.management import call_command

    from annotation.models import Campaign

    anthea = DATA / "mqm-anthea-marot" / "anthea_sxs_export.tsv"
    call_command(
        "import_mqm", str(anthea), "--name", "Anthea", "--owner", "manager", "--languages", "en-de"
    )
    campaign = Campaign.objects.get(name="Anthea")
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.id}/results/human/")
    table = page.locator("table.hotw")
    assert "Demo-Project:rater1" in table.inner_text()
    table.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(f"#task-{campaign.tasks.get().id}").screenshot(path=str(SHOTS / "hotw-table.png"))
