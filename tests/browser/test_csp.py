"""The Content-Security-Policy holds in a real browser: every page type sends the header and
headless Chromium reports no violation (no inline script, handler or style anywhere); and no
template or server-drawn SVG carries an inline script, handler or style attribute."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

from annotation.models import Job
from annotation.services.invitations import invitation_create
from annotation.services.scoring import run_metrics_compute
from tests.browser.conftest import log_in
from tests.human_support import judge_all

ROOT = Path(__file__).resolve().parents[2]

# Chromium reports a blocked script or style on the console ("Refused to execute inline
# script because it violates the following Content Security Policy directive ...") and as a
# `securitypolicyviolation` event, which this init script (injected by Playwright, so not
# itself subject to the policy) collects.
COLLECT = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


READ_AFTER_QUEUED_TASKS = "new Promise(resolve => setTimeout(() => resolve(window.__csp || [])))"


class Watch:
    """Visits pages, checking the header and collecting violations and off-site requests."""

    def __init__(self, page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url
        self.violations: list[str] = []
        self.offsite: list[str] = []
        self.visited: list[str] = []
        page.add_init_script(COLLECT)
        page.on("console", self._console)
        page.on("request", self._request)

    def _console(self, message) -> None:
        if "Content Security Policy" in message.text:
            self.violations.append(f"{self.page.url}: {message.text}")

    def _request(self, request) -> None:
        if not request.url.startswith((self.base_url, "data:")):
            self.offsite.append(request.url)

    def check(self, response=None) -> None:
        """Checks the page now shown (after a goto, or after a form submission)."""
        if response is not None:
            policy = response.headers.get("content-security-policy")
            assert policy == settings.CONTENT_SECURITY_POLICY, self.page.url
        self.page.wait_for_load_state("load")
        # A violation's event is dispatched in a task of its own: read the reports in a task
        # queued after the load event, so those of the page's load (and its load handlers) are
        # in, without waiting any time.
        for violation in self.page.evaluate(READ_AFTER_QUEUED_TASKS):
            self.violations.append(f"{self.page.url}: {violation}")
        self.visited.append(self.page.url.removeprefix(self.base_url))

    def visit(self, path: str) -> None:
        response = self.page.goto(f"{self.base_url}{path}")
        assert response is not None and response.status == 200, (path, response)
        self.check(response)

    def submit(self, click) -> None:
        with self.page.expect_navigation() as navigation:
            click()
        self.check(navigation.value)


@pytest.fixture
def world(loaded_campaign, manager, launched, make_annotator, django_user_model):
    """Every task type launched, real metrics scores, and some human judgments."""
    campaign = loaded_campaign
    for job in Job.objects.filter(kind=Job.Kind.RUN_METRICS):
        run_metrics_compute(target_id=job.target_id, report_progress=lambda percent: None)
    # The jobs stay unfinished in the database, so the campaign page draws their progress.
    Job.objects.filter(kind=Job.Kind.RUN_METRICS).update(progress=40)
    tasks = {
        task_type: launched(task_type, **extra)
        for task_type, extra in [
            ("adequacy", {"judgments_per_item": 2}),
            ("fluency", {"scale": "da100"}),  # the 0-100 slider
            ("adequacy_fluency", {"context_size": 1}),
            ("pairwise", {"show_reference": True}),
            ("ranking", {"ranking_size": 3}),
            ("postedit", {}),
        ]
    }
    judges = [make_annotator(campaign, f"judge{i}") for i in range(2)]
    judge_all(tasks["adequacy"], judges, lambda user, slot: {"score": 1 + slot.id % 5})
    judge_all(
        tasks["ranking"],
        judges,
        lambda user, slot: {"ranks": list(range(1, len(slot.item.candidates) + 1))},
    )
    annotator = make_annotator(campaign, "ann")
    django_user_model.objects.create_superuser("root", password="root-password-1")
    _, token = invitation_create(campaign=campaign, created_by=manager)
    return {"campaign": campaign, "tasks": tasks, "annotator": annotator, "token": token}


@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_every_page_type_under_the_policy(page, live_server, world, tmp_path):
    campaign_id = world["campaign"].id
    watch = Watch(page, live_server.url)

    # Anonymous: the login page and an invitation (its code in the fragment).
    watch.visit("/login/")
    watch.visit(f"/invite/#{world['token']}")
    tokens = page.locator('input[name="token"]')  # one in each form: create, or log in
    assert [tokens.nth(i).input_value() for i in range(tokens.count())] == [world["token"]] * 2

    # A manager: campaigns, systems, results, an invitation link, an upload's preview, API docs.
    log_in(page, live_server, "manager", "manager-password-1")
    for path in (
        "/",
        "/campaigns/new/",
        f"/campaigns/{campaign_id}/",
        f"/campaigns/{campaign_id}/systems/",
        f"/campaigns/{campaign_id}/results/automatic/",
        f"/campaigns/{campaign_id}/results/automatic/?metric=chrf",
        f"/campaigns/{campaign_id}/results/human/",
    ):
        watch.visit(path)
    assert page.locator("svg.plot").count() > 0  # the human results' plots are drawn
    watch.visit(f"/campaigns/{campaign_id}/")
    assert page.locator("progress.progress").count() > 0
    watch.visit(f"/campaigns/{campaign_id}/members/")
    watch.submit(lambda: page.get_by_role("button", name="Create invitation links").click())
    assert "/invite/#" in page.get_by_label("invitation link 1").input_value()
    watch.visit(f"/campaigns/{campaign_id}/")
    upload = tmp_path / "NewSystem.de"
    upload.write_text("\n".join(f"Satz {i}." for i in range(12)) + "\n")
    page.locator("select[name=kind]").select_option("system")
    page.locator("input[name=files]").set_input_files(str(upload))
    watch.submit(lambda: page.get_by_role("button", name="Check and preview").click())
    assert "/upload/" in page.url
    watch.visit("/api/docs/")
    page.wait_for_selector(".swagger-ui .opblock", timeout=20000)  # the UI ran and drew
    watch.check()

    # An annotator: the task list and every task type's page.
    page.context.clear_cookies()
    log_in(page, live_server, "ann", "ann-pw-123")
    watch.visit("/annotate/")
    shown = []
    for task_type, task in world["tasks"].items():
        watch.visit(f"/annotate/{task.id}/")
        shown.append((task_type, page.locator("#judgment").count(), page.locator(".done").count()))
    # The judges finished adequacy and ranking: those show the "all done" page.
    assert shown == [
        (task_type, int(task_type not in done), int(task_type in done))
        for task_type in world["tasks"]
        for done in [("adequacy", "ranking")]
    ]

    # The Django admin, logged in through its own form.
    page.context.clear_cookies()
    watch.visit("/admin/login/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "root-password-1")
    watch.submit(lambda: page.locator("input[type=submit]").click())
    assert page.url.endswith("/admin/")
    for path in (
        "/admin/auth/user/",
        f"/admin/auth/user/{world['annotator'].id}/change/",
        "/admin/auth/user/add/",
        "/admin/auth/group/add/",
        "/admin/password_change/",
    ):
        watch.visit(path)

    assert len(watch.visited) >= 25
    assert watch.violations == []
    assert watch.offsite == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_the_watch_sees_a_violation(page, live_server):
    """The check above can fail: an inline style and script under our policy are reported."""
    watch = Watch(page, live_server.url)
    page.route(
        f"{live_server.url}/inline-probe",
        lambda route: route.fulfill(
            status=200,
            headers={"Content-Security-Policy": settings.CONTENT_SECURITY_POLICY},
            content_type="text/html",
            body='<p style="color: red">x</p><script>document.title = "ran"</script>'
            '<script src="/load-probe.js"></script>',
        ),
    )
    # A script of our origin (allowed) that breaks the policy from a load handler: its
    # report comes after the load event, and the check still reads it.
    page.route(
        f"{live_server.url}/load-probe.js",
        lambda route: route.fulfill(
            status=200,
            content_type="text/javascript",
            body='addEventListener("load", () => { const p = document.createElement("p");'
            ' p.setAttribute("style", "color: blue"); document.body.append(p); });',
        ),
    )
    page.goto(f"{live_server.url}/inline-probe")
    watch.check()
    assert page.title() != "ran"
    assert any("script-src" in v for v in watch.violations)
    assert any("style-src" in v for v in watch.violations)
    assert any("load-probe.js" in v for v in watch.violations), watch.violations


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)
HANDLER = re.compile(r"\son[a-z]+\s*=", re.IGNORECASE)
STYLE = re.compile(r"\bstyle\s*=|<style\b", re.IGNORECASE)


def test_templates_have_no_inline_script_handler_or_style():
    templates = sorted((ROOT / "templates").rglob("*.html"))
    assert len(templates) > 15
    found = [
        f"{path.relative_to(ROOT)}: {pattern.pattern}"
        for path in templates
        for pattern in (INLINE_SCRIPT, HANDLER, STYLE)
        if pattern.search(path.read_text())
    ]
    assert found == []


# A plot's standalone SVG download carries its styles inside by design: it is a file for a
# paper, sent as an attachment (annotation/views/plot_downloads.py), never drawn in a page.
STANDALONE_FILES = {"annotation/plots/files.py"}


def test_server_drawn_html_has_no_style_attribute():
    sources = [p for p in (ROOT / "annotation").rglob("*.py") if "migrations" not in p.parts]
    assert len(sources) > 30
    found = [
        str(path.relative_to(ROOT))
        for path in sources
        if re.search(r"""style=["']|<style\b""", path.read_text())
    ]
    assert sorted(found) == sorted(STANDALONE_FILES)


def test_the_patterns_catch_what_they_should():
    assert INLINE_SCRIPT.search("<script>alert(1)</script>")
    assert not INLINE_SCRIPT.search('<script src="/static/js/evalsite.js" defer></script>')
    assert HANDLER.search('<input onclick="this.select()">')
    assert STYLE.search('<span style="width: 5%">') and STYLE.search("<style>p {}</style>")
