"""A manager's upload in headless Chromium: names per file edited in the preview, and a refused
upload that keeps the form's choices with the error beside the form."""

import pytest

from annotation.models import System
from tests.browser.conftest import log_in
from tests.browser.test_annotate_keyboard import shoot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def outputs(word, n=12):
    return "".join(f"{word} {i}\n" for i in range(n)).encode()


def open_upload_form(page, live_server, campaign):
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{campaign.id}/")
    page.wait_for_selector("form.upload")


def test_names_per_file_are_edited_in_the_preview(page, live_server, loaded_campaign):
    open_upload_form(page, live_server, loaded_campaign)
    page.select_option("select[name=kind]", "system")
    page.set_input_files(
        "input[name=files]",
        [
            {"name": "uedin-primary.de", "mimeType": "text/plain", "buffer": outputs("a")},
            {"name": "x.hyp.de", "mimeType": "text/plain", "buffer": outputs("b")},
        ],
    )
    page.click("text=Check and preview")
    page.wait_for_selector("input.file-name")
    names = page.locator("input.file-name")
    assert [names.nth(i).input_value() for i in range(names.count())] == ["uedin-primary", "x"]
    names.nth(1).fill("Edinburgh-X")
    shoot(page, "upload-preview-names")
    page.click("button:has-text('Import')")
    page.wait_for_selector("#systems")
    assert {"uedin-primary", "Edinburgh-X"} <= set(System.objects.values_list("name", flat=True))


def test_a_refused_upload_keeps_the_choices_and_shows_the_error_beside_the_form(
    page, live_server, loaded_campaign
):
    open_upload_form(page, live_server, loaded_campaign)
    page.select_option("select[name=kind]", "system")
    page.fill("#upload input[name=name]", "Seed-2")
    page.check("input[name=add_run]")
    page.set_input_files(
        "input[name=files]",
        {"name": "seed2.de", "mimeType": "text/plain", "buffer": outputs("c") + b"\n"},
    )
    page.click("text=Check and preview")
    page.wait_for_selector(".upload-error")
    shoot(page, "upload-refused")
    error = page.locator("form.upload .upload-error")
    assert "the file ends with a blank line" in error.inner_text()
    assert page.locator("select[name=kind]").input_value() == "system"
    assert page.locator("#upload input[name=name]").input_value() == "Seed-2"
    assert page.locator("input[name=add_run]").is_checked()
    # Beside the form (just above its fields) and scrolled into view.
    assert error.bounding_box()["y"] < page.locator("select[name=kind]").bounding_box()["y"]
    assert page.evaluate("document.activeElement.classList.contains('upload-error')")
    assert not System.objects.filter(name="Seed-2").exists()


def test_the_preview_warns_about_a_line_far_longer_than_its_source(
    page, live_server, loaded_campaign
):
    open_upload_form(page, live_server, loaded_campaign)
    page.select_option("select[name=kind]", "system")
    texts = outputs("d").split(b"\n")
    texts[4] = b"x" * 5_000_000  # 5 MB on one line
    page.set_input_files(
        "input[name=files]",
        {"name": "broken.de", "mimeType": "text/plain", "buffer": b"\n".join(texts)},
    )
    page.click("text=Check and preview")
    page.wait_for_selector("input.file-name")
    shoot(page, "upload-preview-warning")
    assert "All files passed validation" not in page.content()
    warning = page.locator("li.warning").first.inner_text()
    assert warning.startswith("broken.de, line 5: 5,000,000 characters where its source line has")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280  # truncated, no wall
