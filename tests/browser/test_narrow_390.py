"""At 390 px, as on a phone: the slider's end labels mark its ends, the campaign page does not
scroll sideways, and the quality-control table's "Exclude…" is whole. Screenshots at 1280
and 390 px in var/screenshots."""

from pathlib import Path

import pytest

from annotation.services.tasks import task_create
from tests.browser.conftest import log_in
from tests.conftest import answer_for
from tests.human_support import judge_all

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
PHONE = {"width": 390, "height": 844}
# The thumb is 1.25rem wide and its centre reaches the track's ends less half of it.
SLACK = 12


def narrow_page(browser):
    return browser.new_context(viewport=PHONE).new_page()


def shoot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def ends(page, row):
    """The slider's box and its two end labels' boxes within the slider row ``row``."""
    return page.eval_on_selector(
        row,
        """row => {
          const box = (e) => {
            const r = e.getBoundingClientRect();
            return [r.left, r.right, r.top];
          };
          const labels = row.querySelectorAll(':scope > span');
          return {range: box(row.querySelector('input[type=range]')),
                  low: box(labels[0]), high: box(labels[labels.length - 1])};
        }""",
    )


@pytest.mark.parametrize(("task_type", "scale"), [("esa", None), ("adequacy", "da100")])
def test_the_slider_labels_mark_its_ends(
    browser, live_server, launched, loaded_campaign, make_annotator, task_type, scale
):
    task = launched(task_type, **({"scale": scale} if scale else {}))
    make_annotator(loaded_campaign, "ann")
    page = narrow_page(browser)
    log_in(page, live_server, "ann", "ann-pw-123")
    page.goto(f"{live_server.url}/annotate/{task.id}/")
    page.wait_for_selector(".slider-row input[type=range]")
    shoot(page, f"slider-390-{task_type}")
    box = ends(page, ".slider-row")
    left, right = box["range"][0], box["range"][1]
    assert abs(box["low"][0] - left) <= SLACK, box  # the low label starts at the left end
    assert abs(box["high"][1] - right) <= SLACK, box  # the high label ends at the right end
    assert box["low"][2] > box["range"][2]  # under the slider, not beside it
    assert fits(page)


def test_the_campaign_page_does_not_scroll_sideways(browser, live_server, launched, manager):
    task = launched("adequacy")
    task_create(campaign=task.campaign, task_type="esa")  # a draft too: more buttons
    for width in (1280, 390):
        page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
        log_in(page, live_server, "manager", "manager-password-1")
        page.goto(f"{live_server.url}/campaigns/{task.campaign.id}/")
        page.wait_for_selector("#systems")
        shoot(page, f"campaign-{width}")
        wide = page.evaluate(
            """() => Array.from(document.querySelectorAll('body *'))
                 .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
                 .slice(0, 5).map((e) => e.tagName + '.' + e.className)"""
        )
        assert fits(page), wide


def test_exclude_is_whole_in_the_quality_table(
    browser, live_server, launched, loaded_campaign, make_annotator
):
    task = launched("adequacy", judgments_per_item=2, repeat_rate=0.2)
    annotators = [make_annotator(loaded_campaign, name) for name in ("ann", "bea")]
    judge_all(task, annotators, lambda user, slot: answer_for("adequacy", value=3))
    for width in (1280, 390):
        page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
        log_in(page, live_server, "manager", "manager-password-1")
        page.goto(f"{live_server.url}/campaigns/{loaded_campaign.id}/results/human/")
        button = page.locator("table.quality a", has_text="Exclude…").first
        # Down to it, as a reader scrolls the page; nothing scrolled sideways.
        button.evaluate("b => window.scrollTo(0, b.getBoundingClientRect().top + scrollY - 200)")
        shoot(page, f"results-quality-{width}")
        whole = button.evaluate(
            """b => {
              const r = b.getBoundingClientRect();
              // Every box that clips it (overflow other than visible) holds it whole.
              for (let e = b.parentElement; e; e = e.parentElement) {
                const s = getComputedStyle(e);
                if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
                const c = e.getBoundingClientRect();
                if (r.left < c.left - 0.5 || r.right > c.right + 0.5 ||
                    r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5) return false;
              }
              return r.left >= 0 && r.right <= window.innerWidth
                && b.scrollWidth <= b.clientWidth + 1;
            }"""
        )
        assert whole, f"'Exclude…' is clipped at {width} px"
        assert fits(page)
