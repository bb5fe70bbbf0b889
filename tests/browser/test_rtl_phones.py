"""Right-to-left segments and phone widths, as an annotator sees them in headless Chromium.

An Arabic translation that starts with Latin text must still be laid out right to left (with
``dir="auto"`` the first strong character, a Latin one, made it left to right), and every
annotator page must fit a 360-390 px wide phone with its progress bar in view.
"""

import pytest

from annotation.services.campaigns import campaign_create
from annotation.services.imports import upload_import
from annotation.services.tasks import task_create, task_launch
from tests.browser.conftest import log_in
from tests.browser.test_annotate_keyboard import current_slot, next_item, shoot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

# Hand-written en→ar test lines; each translation starts with a Latin brand name.
SOURCE = [
    "iPhone 15 is the newest phone from Apple.",
    "Windows updates are installed at night.",
    "Google Maps shows the way to the station.",
]
ARABIC = [
    "iPhone 15 هو أحدث هاتف من شركة آبل.",
    "Windows تثبت التحديثات في الليل.",
    "Google Maps يعرض الطريق إلى المحطة.",
]
ARABIC_OTHER = [
    "iPhone 15 أحدث هاتف لآبل.",
    "Windows يثبت التحديثات ليلا.",
    "Google Maps تبين الطريق إلى المحطة.",
]


def lines(texts):
    return "\n".join(texts).encode() + b"\n"


@pytest.fixture
def arabic_campaign(manager):
    campaign = campaign_create(
        name="News en-ar", source_language="en", target_language="ar", owner=manager
    )
    upload_import(campaign=campaign, kind="source", files=[("src.en", lines(SOURCE))], user=manager)
    upload_import(
        campaign=campaign,
        kind="reference",
        name="A",
        files=[("ref.ar", lines(ARABIC_OTHER))],
        user=manager,
    )
    for name, texts in (("sys-one", ARABIC), ("sys-two", ARABIC_OTHER)):
        upload_import(
            campaign=campaign, kind="system", files=[(f"{name}.ar", lines(texts))], user=manager
        )
    return campaign


def layout(page, selector):
    """Computed direction, and the boxes of the paragraph, its Latin start and the rest."""
    return page.eval_on_selector(
        selector,
        """element => {
          const box = (r) => ({left: r.left, right: r.right});
          const text = element.firstChild;
          const latin = document.createRange();
          const end = text.textContent.search(/[\\u0600-\\u06ff]/);
          latin.setStart(text, 0); latin.setEnd(text, end - 1);
          const arabic = document.createRange();
          arabic.setStart(text, end); arabic.setEnd(text, text.textContent.length);
          return {
            direction: getComputedStyle(element).direction,
            bidi: getComputedStyle(element).unicodeBidi,
            dir: element.getAttribute("dir"), lang: element.getAttribute("lang"),
            box: box(element.getBoundingClientRect()),
            latin: box(latin.getBoundingClientRect()),
            arabic: box(arabic.getBoundingClientRect()),
          };
        }""",
    )


def assert_right_to_left(found):
    assert (found["dir"], found["lang"], found["direction"]) == ("rtl", "ar", "rtl")
    assert found["bidi"] == "isolate"
    # Laid out right to left: the Latin start is on the right, the Arabic after it to its
    # left, and the line ends flush with the paragraph's right edge.
    assert found["latin"]["left"] > found["arabic"]["right"] - 1
    assert abs(found["latin"]["right"] - found["box"]["right"]) < 2
    assert found["arabic"]["left"] - found["box"]["left"] > 50  # short: the left is empty


def test_arabic_translation_starting_with_latin_is_right_to_left(
    page, live_server, arabic_campaign, make_annotator
):
    task = task_create(campaign=arabic_campaign, task_type="adequacy", show_reference=True)
    task_launch(task_id=task.id)
    make_annotator(arabic_campaign, "reader")
    log_in(page, live_server, "reader", "reader-pw-123")
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_selector("#judgment")
    shoot(page, "rtl-adequacy")
    assert_right_to_left(layout(page, ".text-card.candidate .segment"))
    assert_right_to_left(layout(page, ".text-card.reference .segment"))
    source = page.eval_on_selector(
        ".text-card.source .segment",
        "e => [e.getAttribute('dir'), e.getAttribute('lang'), getComputedStyle(e).direction]",
    )
    assert source == ["ltr", "en", "ltr"]


def test_arabic_post_edit_box_is_right_to_left(page, live_server, arabic_campaign, make_annotator):
    task = task_create(campaign=arabic_campaign, task_type="postedit")
    task_launch(task_id=task.id)
    make_annotator(arabic_campaign, "editor")
    log_in(page, live_server, "editor", "editor-pw-123")
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_selector("#judgment")
    shoot(page, "rtl-postedit")
    found = page.eval_on_selector(
        "textarea.post-edit",
        "e => [e.getAttribute('dir'), e.getAttribute('lang'), getComputedStyle(e).direction]",
    )
    assert found == ["rtl", "ar", "rtl"]


# -- phones ----------------------------------------------------------------------------------

PHONE_WIDTHS = (360, 390)
TASKS = {
    "adequacy": dict(task_type="adequacy", context_size=1, show_reference=True),
    "adequacy-100": dict(task_type="adequacy", scale="da100"),
    "fluency": dict(task_type="fluency"),
    "adequacy-fluency": dict(task_type="adequacy_fluency"),
    "pairwise": dict(task_type="pairwise", show_reference=True),
    "pairwise-100": dict(task_type="pairwise", scale="da100"),
    "ranking": dict(task_type="ranking", ranking_size=3),
    "postedit": dict(task_type="postedit"),
    "esa": dict(task_type="esa", show_reference=True),
    "mqm": dict(task_type="mqm", context_size=1),
}


@pytest.fixture
def phone(browser):
    def open_at(width):
        context = browser.new_context(viewport={"width": width, "height": 800})
        return context, context.new_page()

    return open_at


def fits(page, width):
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= width, f"{page.url} is {scroll_width} px wide at {width} px"


def progress_in_view(page, selector="progress.progress"):
    bar = page.locator(selector).first
    assert bar.is_visible()
    found = bar.bounding_box()
    width = page.viewport_size["width"]
    assert found["width"] >= 40 and found["x"] >= 0 and found["x"] + found["width"] <= width


@pytest.mark.parametrize("name", list(TASKS))
def test_annotate_page_fits_a_phone(phone, live_server, loaded_campaign, make_annotator, name):
    settings = dict(TASKS[name])
    task = task_create(campaign=loaded_campaign, **settings)
    task_launch(task_id=task.id)
    make_annotator(loaded_campaign, "phone")
    for width in PHONE_WIDTHS:
        context, page = phone(width)
        log_in(page, live_server, "phone", "phone-pw-123")
        page.goto(f"{live_server.url}/annotate/{task.id}/")
        page.wait_for_selector("#judgment")
        fits(page, width)
        progress_in_view(page, ".task-progress progress")
        if width == 390:
            shoot(page, f"phone-{name}")
        context.close()


@pytest.mark.parametrize("width", PHONE_WIDTHS)
def test_task_list_and_done_page_fit_a_phone(
    phone, live_server, loaded_campaign, make_annotator, width
):
    task = task_create(campaign=loaded_campaign, task_type="adequacy", items_per_annotator=1)
    task_launch(task_id=task.id)
    make_annotator(loaded_campaign, "phone")
    context, page = phone(width)
    log_in(page, live_server, "phone", "phone-pw-123")
    page.goto(f"{live_server.url}/annotate/")
    page.wait_for_selector("table.list")
    shoot(page, f"phone-task-list-{width}")
    fits(page, width)  # "Not started": no batch yet, so no bar
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_selector("#judgment")
    page.goto(f"{live_server.url}/annotate/")  # started: the batch's bar is on the list
    page.wait_for_selector("table.list")
    fits(page, width)
    progress_in_view(page)
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_selector("#judgment")
    slot = current_slot(page)
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    next_item(page, slot)
    page.wait_for_selector(".done")
    shoot(page, f"phone-done-{width}")
    fits(page, width)
    context.close()
