"""A real headless Chromium (Debian's package) driven by Playwright against the live server."""

import os
import shutil

import pytest

CHROMIUM = "/usr/bin/chromium"
# Playwright's sync API runs an event loop in the test's thread; the ORM calls the tests
# make between browser steps are still plain synchronous code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    yield page
    context.close()


def log_in(page, live_server, username, password):
    """Logs in with the keyboard only."""
    page.goto(f"{live_server.url}/login/")
    # The username field has autofocus; type only once the browser has applied it.
    page.wait_for_function("document.activeElement && document.activeElement.name === 'username'")
    page.keyboard.type(username)
    page.keyboard.press("Tab")
    page.keyboard.type(password)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/login/" not in url)


@pytest.fixture(autouse=True)
def plain_static_names(settings):
    # The live server serves static files from the finders, which know the files by their
    # plain names, not by the hashed names of the production manifest.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def check_task(page, live_server, launched, loaded_campaign, make_annotator):
    """A loud or silent attention-check task opened by its annotator: ``check_task("esa",
    "loud", bad_reference_rate=0.2, …)`` launches it with that ``check_feedback`` and logs
    "ann" in on its first screen; returns the task (the browser tests of each check)."""
    from tests.browser.test_annotate_keyboard import start

    def open_task(task_type: str, feedback: str, **settings):
        task = launched(task_type, check_feedback=feedback, **settings)
        annotator = make_annotator(loaded_campaign, "ann")
        start(page, live_server, task, annotator, "ann-pw-123")
        return task

    return open_task


def to_first_check(page, found, answer, *, screens: int, what: str):
    """Answers each screen with ``answer(page)`` until ``found(slot_id)`` is truthy on the
    one shown; returns (that slot id, what ``found`` said). ``what`` names the check."""
    from tests.browser.test_annotate_keyboard import current_slot, next_item

    for _ in range(screens):
        slot = current_slot(page)
        if hit := found(slot):
            return slot, hit
        answer(page)
        next_item(page, slot)
    raise AssertionError(f"no {what} in the batch")
