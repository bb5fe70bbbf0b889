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
