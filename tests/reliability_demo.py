"""Adds careless raters to the demo's simulated campaign, for the reliability screenshot.

Run after ``python manage.py load_demo``: ``python -m tests.reliability_demo``. It launches one
more adequacy task in "WMT21 de-fr demo, judged by simulated raters" and has it judged by the
demo's raters (three careful, sim-rater-4 at random) and two more careless ones,
``sim-constant`` (the same score every time) and ``sim-fast`` (about a second per item).
Idempotent: a second run finds the task and does nothing.

``python -m tests.reliability_demo --screenshot http://127.0.0.1:8765 FILE.png``, with the
site running on that address, then saves the table (switch on) as the organiser sees it, in
headless Chromium.
"""

from __future__ import annotations

import django

django.setup()

from datetime import timedelta  # noqa: E402

from django.contrib.auth import get_user_model  # noqa: E402
from django.utils import timezone  # noqa: E402

from annotation.management.commands.load_demo import (  # noqa: E402
    SIMULATED_CAMPAIGN,
    SIMULATED_RATERS,
)
from annotation.models import Campaign, Role, TaskType  # noqa: E402
from annotation.services.campaigns import membership_set  # noqa: E402
from annotation.services.tasks import task_create, task_launch  # noqa: E402
from tests.reliability_support import raters_judge  # noqa: E402

SEED = 31


def main() -> None:
    campaign = Campaign.objects.get(name=SIMULATED_CAMPAIGN)
    if campaign.tasks.filter(task_type=TaskType.ADEQUACY, seed=SEED).exists():
        print("the careless raters' task is there already")
        return
    User = get_user_model()
    raters = {}
    for username in SIMULATED_RATERS:
        raters[User.objects.get(username=username)] = "careful"
    raters[User.objects.get(username=SIMULATED_RATERS[-1])] = "random"
    for username, behaviour in (("sim-constant", "constant"), ("sim-fast", "fast")):
        user, created = User.objects.get_or_create(username=username)
        if created:
            user.set_unusable_password()
            user.save()
        membership_set(campaign=campaign, user=user, role=Role.ANNOTATOR)
        raters[user] = behaviour
    task = task_create(
        campaign=campaign,
        task_type=TaskType.ADEQUACY,
        judgments_per_item=3,
        repeat_rate=0.1,
        bad_reference_rate=0.1,
        reference_rate=0.1,
        seed=SEED,
    )
    task_launch(task_id=task.id)
    task.refresh_from_db()
    done = raters_judge(
        task=task, raters=raters, start=timezone.now() - timedelta(days=2), seed=SEED
    )
    print(f"task #{task.id} judged: {done}")


def screenshot(base: str, path: str) -> None:
    from playwright.sync_api import sync_playwright

    from annotation.management.commands.load_demo import demo_password

    campaign = Campaign.objects.get(name=SIMULATED_CAMPAIGN)
    task = campaign.tasks.get(task_type=TaskType.ADEQUACY, seed=SEED)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"]
        )
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.goto(f"{base}/login/")
        page.fill("input[name=username]", "organiser")
        page.fill("input[name=password]", demo_password("organiser"))
        page.press("input[name=password]", "Enter")
        page.wait_for_url(lambda url: "/login/" not in url)
        page.goto(f"{base}/campaigns/{campaign.id}/results/human/?passing=1", timeout=300_000)
        # From the reliability heading to the end of the task's section, in page coordinates.
        top = page.locator(f"#reliability-{task.id}").evaluate(
            "e => e.getBoundingClientRect().top + window.scrollY"
        )
        left, bottom, width = page.locator(f"#task-{task.id}").evaluate(
            "e => { const b = e.getBoundingClientRect();"
            " return [b.left, b.bottom + window.scrollY, b.width]; }"
        )
        clip = {"x": left, "y": top - 10, "width": width, "height": bottom - top + 10}
        page.screenshot(path=path, full_page=True, clip=clip)
        browser.close()


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--screenshot"]:
        screenshot(sys.argv[2], sys.argv[3])
    else:
        main()
