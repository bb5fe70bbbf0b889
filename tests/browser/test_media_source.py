"""A media source on the annotate page in headless Chromium: the image drawn, the audio's
metadata read through range requests, the transcript behind its summary, no CSP violation."""

import pytest

from annotation.services.media import media_import
from tests.browser.conftest import log_in
from tests.browser.test_annotate_keyboard import current_slot, next_item, shoot
from tests.media_support import media_zip, png, wav

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def wait_until(page, expression, timeout=10.0):
    """Polls from Python: wait_for_function's polling evaluates strings, which the CSP forbids."""
    for _ in range(int(timeout / 0.05)):
        if page.evaluate(expression):
            return
        page.wait_for_timeout(50)
    pytest.fail(f"never true: {expression}")


def every_line(suffix, data, transcript=""):
    manifest = [
        {"line": line, "file": f"{line}{suffix}", "transcript": transcript} for line in range(1, 13)
    ]
    return media_zip(manifest, {entry["file"]: data for entry in manifest})


def test_image_then_audio_source_with_native_controls(
    page, live_server, launched, loaded_campaign, make_annotator, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path / "media"
    media_import(campaign=loaded_campaign, filename="images.zip", data=every_line(".png", png()))
    task = launched("adequacy")
    make_annotator(loaded_campaign, "listener")
    problems = []
    page.on("console", lambda message: problems.append(message.text))
    log_in(page, live_server, "listener", "listener-pw-123")
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    image = page.locator(".text-card.source figure.source-media img")
    image.wait_for()
    wait_until(page, "document.querySelector('.source-media img').naturalWidth > 0")
    assert page.evaluate("document.querySelector('.source-media img').naturalWidth") == 160
    shoot(page, "media-image-source")

    # The same lines with audio and a transcript: the same item, now heard.
    media_import(
        campaign=loaded_campaign,
        filename="audio.zip",
        data=every_line(".wav", wav(seconds=2.0), "Transcript: a tone of two seconds."),
    )
    page.reload()
    page.locator(".source-media audio[controls]").wait_for()
    wait_until(page, "document.querySelector('.source-media audio').readyState >= 1")
    duration = page.evaluate("document.querySelector('.source-media audio').duration")
    assert duration == pytest.approx(2.0, abs=0.05)
    page.locator(".source-media summary").click()
    assert page.locator(".source-media figcaption .segment").is_visible()
    assert page.locator(".source-media figcaption .segment").get_attribute("lang") == "en"
    shoot(page, "media-audio-source")

    # Judged with the keyboard, the next item swapped in by the page's script has its own.
    slot = current_slot(page)
    page.locator("h1").click()  # focus off the transcript's summary
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    next_item(page, slot)
    src = page.locator(".source-media audio").get_attribute("src")
    assert src is not None and src.startswith(f"/campaigns/{loaded_campaign.id}/media/")
    wait_until(page, "document.querySelector('.source-media audio').readyState >= 1")
    assert not [text for text in problems if "Content Security Policy" in text], problems


def test_manager_uploads_media_on_the_campaign_page(
    page, live_server, loaded_campaign, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path / "media"
    zipped = tmp_path / "media.zip"
    zipped.write_bytes(every_line(".png", png()))
    log_in(page, live_server, "manager", "manager-password-1")
    page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/")
    form = page.locator(f"form[action='/campaigns/{loaded_campaign.id}/media/upload/']")
    form.locator("input[type=file]").set_input_files(str(zipped))
    form.locator("button").click()
    page.wait_for_selector("text=media.zip: 12 media files stored.")
    form.scroll_into_view_if_needed()
    shoot(page, "media-upload-form")
