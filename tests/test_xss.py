"""Text from uploads and users shows as text: segments, references, system, campaign and user
names carrying HTML or script, on every page that shows them; CSV downloads neutralise
formulas; JSON keeps the raw text and is served as JSON."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from django.urls import reverse

from annotation.exports import csv_stream
from annotation.lib.spreadsheet import FORMULA_STARTS
from annotation.models import Campaign, Output, Reference, Segment, System, SystemRun, Task
from annotation.services.campaigns import campaign_create, membership_set
from annotation.services.imports import upload_import
from annotation.services.scoring import run_metrics_compute
from annotation.services.tasks import task_create, task_launch
from tests.conftest import answer_for
from tests.human_support import judge_all

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
ARABIC = "مرحبا بالعالم"
HEBREW = "שלום עולם"
# How Django's escaping writes them; a page showing the payload must show these.
SCRIPT_SHOWN = "&lt;script&gt;alert(1)&lt;/script&gt;"
IMG_SHOWN = "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"
RAW = ("<script>alert", "<img src=x", 'onerror=alert(1)>"', "onerror=alert(1)>", "<u>")

CAMPAIGN = f"XSS {SCRIPT}"
DESCRIPTION = f"about {IMG}"
# Language codes are free text (16 characters at most): a formula and markup.
SOURCE_LANGUAGE, TARGET_LANGUAGE = "=2+5", "de<u>x"
REFERENCE = f"ref {SCRIPT}"
FORMULA = '=HYPERLINK("http://evil.example","x")'
SYSTEMS = (f"sys {SCRIPT}", IMG, FORMULA, "@SUM(A1)", f"{ARABIC} نظام")
# Annotators: markup, a formula, the other formula starts (tab, CR, plus, minus).
USERNAMES = (SCRIPT, IMG, "=1+2", "\t@tab", "\r+cr", "-2+3")
VIEWER = f"viewer {IMG}"  # judges nothing before the item pages are checked
SEGMENTS = 6
POST_EDIT = f"{FORMULA} {SCRIPT}"
TASKS: dict[str, dict[str, Any]] = {
    "adequacy": {"show_reference": True, "context_size": 1, "bad_reference_rate": 0.3},
    "fluency": {},
    "adequacy_fluency": {},
    "pairwise": {},
    "ranking": {"ranking_size": 3},
    "postedit": {},
}


def text(kind: str, number: int) -> str:
    """Every text carries every payload, so whichever item is served shows them all."""
    return f"{kind} {number} {SCRIPT} {IMG} {ARABIC} {HEBREW}"


def jsonl(texts: list[str], documents: list[str] | None = None) -> bytes:
    rows = [
        {"text": t, **({"doc_id": documents[i]} if documents else {})} for i, t in enumerate(texts)
    ]
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()


@dataclass
class Payloads:
    campaign: Campaign
    manager: Any
    annotators: list[Any]
    viewer: Any
    admin: Any
    tasks: dict[str, Task]


def _answer(task: Task):
    def answer(user: Any, slot: Any) -> dict[str, Any]:
        if task.task_type == "postedit":
            return {"post_edit": POST_EDIT}
        return answer_for(task.task_type, len(slot.item.candidates), value=1 + slot.id % 4)

    return answer


def build() -> Payloads:
    users = get_user_model().objects
    manager = users.create_user("xss-manager")
    manager.user_permissions.add(
        Permission.objects.get(codename="add_campaign", content_type__app_label="annotation")
    )
    campaign = campaign_create(
        name=CAMPAIGN,
        source_language="en",
        target_language="de",
        owner=manager,
        description=DESCRIPTION,
    )
    # Hostile language codes, which campaign_create refuses now, as a campaign made before
    # the codes were validated (or by the admin) still has them.
    Campaign.objects.filter(id=campaign.id).update(
        source_language=SOURCE_LANGUAGE, target_language=TARGET_LANGUAGE
    )
    campaign.refresh_from_db()
    # Documents whose ids are formulas: they land in the exports' document column.
    documents = ["=doc(1)"] * 3 + ["+doc(2)"] * 3
    sources = [text("source", i) for i in range(SEGMENTS)]
    upload_import(
        campaign=campaign,
        kind="source",
        files=[("s.jsonl", jsonl(sources, documents))],
        user=manager,
    )
    references = [text("reference", i) for i in range(SEGMENTS)]
    upload_import(
        campaign=campaign,
        kind="reference",
        name=REFERENCE,
        files=[("r.jsonl", jsonl(references))],
        user=manager,
    )
    for k, name in enumerate(SYSTEMS):
        outputs = [text(f"output {k}", i) + " gut" * (i % (k + 2)) for i in range(SEGMENTS)]
        upload_import(
            campaign=campaign,
            kind="system",
            name=name,
            files=[("o.jsonl", jsonl(outputs))],
            user=manager,
        )
    for run in SystemRun.objects.filter(campaign=campaign):
        run_metrics_compute(target_id=run.id, report_progress=lambda percent: None)
    annotators = [users.create_user(name) for name in USERNAMES]
    viewer = users.create_user(VIEWER)
    for user in [*annotators, viewer]:
        membership_set(campaign=campaign, user=user, role="annotator")
    tasks = {}
    for task_type, settings in TASKS.items():
        task = task_create(
            seed=12345,
            campaign=campaign,
            task_type=task_type,
            judgments_per_item=3,
            items_per_annotator=4,
            **settings,
        )
        task_launch(task_id=task.id)
        task.refresh_from_db()
        judge_all(task, annotators, _answer(task))
        tasks[task_type] = task
    admin_user = users.create_user("xss-admin", is_staff=True, is_superuser=True)
    return Payloads(campaign, manager, annotators, viewer, admin_user, tasks)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker) -> Iterator[Payloads]:
    with django_db_blocker.unblock(), transaction.atomic():
        yield build()
        transaction.set_rollback(True)


def client(user: Any) -> Client:
    logged_in = Client()
    logged_in.force_login(user)
    return logged_in


def html_of(response) -> str:
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"].startswith("text/html")
    return response.content.decode()


def assert_shown_as_text(html: str, *shown: str, where: str = "") -> None:
    for raw in RAW:
        assert raw not in html, f"{where}: {raw!r} is not escaped"
    for expected in shown:
        assert expected in html, f"{where}: {expected!r} is not shown"


@pytest.mark.parametrize("task_type", list(TASKS))
def test_annotator_page_of_every_task_type(task_type: str, world: Payloads, db) -> None:
    url = reverse("annotate", kwargs={"task_id": world.tasks[task_type].id})
    html = html_of(client(world.viewer).get(url))
    assert 'name="slot"' in html, "an item is shown"
    assert_shown_as_text(
        html,
        SCRIPT_SHOWN,
        IMG_SHOWN,
        ARABIC,
        HEBREW,
        "XSS " + SCRIPT_SHOWN,
        "viewer " + IMG_SHOWN,
        "de&lt;u&gt;x",
        where=task_type,
    )
    # Segments take dir and lang from the campaign's languages (annotation/lib/languages.py);
    # this campaign's codes are not language tags, so lang is empty, never raw markup.
    assert 'dir="auto"' not in html and 'lang="" dir="ltr"' in html


def test_task_list_and_done_page(world: Payloads, db) -> None:
    assert_shown_as_text(html_of(client(world.viewer).get(reverse("task-list"))), SCRIPT_SHOWN)
    done = client(world.annotators[0]).get(
        reverse("annotate", kwargs={"task_id": world.tasks["fluency"].id})
    )
    html = html_of(done)
    assert "All done" in html
    assert_shown_as_text(html, "XSS " + SCRIPT_SHOWN, SCRIPT_SHOWN, where="done page")


def test_campaign_pages(world: Payloads, db) -> None:
    manager = client(world.manager)
    campaign = {"campaign_id": world.campaign.id}
    assert_shown_as_text(html_of(manager.get(reverse("home"))), "XSS " + SCRIPT_SHOWN)
    detail = html_of(manager.get(reverse("campaign-detail", kwargs=campaign)))
    assert_shown_as_text(
        detail,
        "XSS " + SCRIPT_SHOWN,
        "about " + IMG_SHOWN,
        "ref " + SCRIPT_SHOWN,
        "sys " + SCRIPT_SHOWN,
        ARABIC,
        where="campaign page",
    )
    systems = html_of(manager.get(reverse("campaign-systems", kwargs=campaign)))
    assert_shown_as_text(systems, "sys " + SCRIPT_SHOWN, IMG_SHOWN, ARABIC, where="systems")
    invitation = manager.post(
        reverse("invitation-add", kwargs=campaign), {"role": "annotator"}, follow=True
    )
    assert_shown_as_text(html_of(invitation), "XSS " + SCRIPT_SHOWN, where="invitation")


def test_forms_show_what_was_typed_as_text(world: Payloads, db) -> None:
    manager = client(world.manager)
    taken = {"name": CAMPAIGN, "source_language": "en", "target_language": "de"}
    html = html_of(manager.post(reverse("campaign-create"), taken))
    assert "exists already" in html
    assert_shown_as_text(html, SCRIPT_SHOWN, where="campaign form")
    wrong = {"token": "not-a-token", "username": SCRIPT, "password": "long-enough-1"}
    html = html_of(Client().post(reverse("invitation-accept"), wrong))
    assert "not valid" in html
    assert_shown_as_text(html, SCRIPT_SHOWN, where="invitation form")
    html = html_of(Client().post(reverse("login"), {"username": IMG, "password": "wrong"}))
    assert_shown_as_text(html, IMG_SHOWN, where="login form")


def test_upload_preview_and_upload_errors(world: Payloads, db) -> None:
    manager = client(world.manager)
    url = reverse("campaign-upload", kwargs={"campaign_id": world.campaign.id})
    outputs = [f"new {i} {SCRIPT} {IMG} {HEBREW}" for i in range(SEGMENTS)]
    # Not the script: an uploaded file's name loses everything up to its last slash.
    upload = SimpleUploadedFile(f"{IMG}.jsonl", jsonl(outputs))
    preview = manager.post(url, {"kind": "system", "name": f"new {IMG}", "files": upload})
    assert_shown_as_text(
        html_of(preview),
        f"new 0 {SCRIPT_SHOWN} {IMG_SHOWN} {HEBREW}",
        "new " + IMG_SHOWN,
        IMG_SHOWN + ".jsonl",
        "XSS " + SCRIPT_SHOWN,
        where="preview",
    )
    # A file that fails validation is named in the error message: as text.
    short = SimpleUploadedFile(f"{IMG}.txt", f"{SCRIPT}\n".encode())
    response = manager.post(url, {"kind": "system", "name": "short", "files": short})
    assert response.status_code == 400  # the campaign page again, the error beside the form
    html = response.content.decode()
    assert "Nothing was imported" in html
    assert_shown_as_text(html, IMG_SHOWN + ".txt", where="upload error")


def test_results_pages(world: Payloads, db) -> None:
    manager = client(world.manager)
    campaign = {"campaign_id": world.campaign.id}
    automatic = html_of(manager.get(reverse("results-automatic", kwargs=campaign)))
    assert "<svg" in automatic and 'class="matrix"' in automatic
    assert_shown_as_text(
        automatic, "sys " + SCRIPT_SHOWN, IMG_SHOWN, ARABIC, where="automatic results"
    )
    human = html_of(manager.get(reverse("results-human", kwargs=campaign)))
    assert "<svg" in human
    assert_shown_as_text(
        human,
        "sys " + SCRIPT_SHOWN,
        IMG_SHOWN,
        ARABIC,
        f'<td dir="auto">{SCRIPT_SHOWN}</td>',  # the annotator named like a script
        f'<td dir="auto">{IMG_SHOWN}</td>',
        where="human results",
    )


def test_admin_pages(world: Payloads, db) -> None:
    staff = client(world.admin)
    user = world.annotators[0]
    pages = [
        reverse("admin:auth_user_changelist") + "?q=script",
        reverse("admin:auth_user_change", args=[user.id]),
    ]
    # Annotation models get the same check as soon as someone registers them.
    for model in (Campaign, Segment, Reference, System, SystemRun, Output, Task):
        if admin.site.is_registered(model):
            meta = model._meta
            pages.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
            first = model.objects.filter(pk__isnull=False).order_by("pk").first()
            if first is not None:
                change = f"admin:{meta.app_label}_{meta.model_name}_change"
                pages.append(reverse(change, args=[first.pk]))
    for url in pages:
        assert_shown_as_text(html_of(staff.get(url)), SCRIPT_SHOWN, where=url)


def csv_cells(response) -> list[list[str]]:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return list(csv.reader(io.StringIO(body.decode())))


def is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def assert_no_formula(rows: list[list[str]], where: str) -> set[str]:
    """No cell a spreadsheet would run (numbers such as -0.5 are fine); returns the cells
    that were neutralised."""
    neutralised = set()
    for row in rows:
        for cell in row:
            assert not (cell[:1] in FORMULA_STARTS and not is_number(cell)), f"{where}: {cell!r}"
            if cell[:1] == "'" and cell[1:2] in FORMULA_STARTS:
                neutralised.add(cell)
    return neutralised


def test_every_csv_download_neutralises_formulas(world: Payloads, db) -> None:
    manager = client(world.manager)
    campaign_id = world.campaign.id

    def url(name: str, fmt: str, query: str = "") -> str:
        return reverse(name, kwargs={"campaign_id": campaign_id, "fmt": fmt}) + query

    pairwise, ranking = world.tasks["pairwise"].id, world.tasks["ranking"].id
    downloads = {
        "automatic": url("results-automatic-download", "csv"),
        "judgments": url("results-human-judgments", "csv"),
        "appraise": url("results-human-judgments", "appraise"),
        "wmt pairwise": url("results-human-judgments", "wmt", f"?task={pairwise}"),
        "wmt ranking": url("results-human-judgments", "wmt", f"?task={ranking}"),
        "rankings": url("results-human-rankings", "csv"),
        "api judgments": url("api-results-human-judgments", "csv"),
        "api wmt": url("api-results-human-judgments", "wmt", f"?task={ranking}"),
    }
    neutralised = {
        name: assert_no_formula(csv_cells(manager.get(u)), name) for name, u in downloads.items()
    }
    for name in ("automatic", "rankings", "wmt pairwise", "wmt ranking"):
        assert "'" + FORMULA in neutralised[name] and "'@SUM(A1)" in neutralised[name], name
    for name in ("judgments", "appraise", "api judgments"):
        cells = neutralised[name]
        assert {"'" + FORMULA, "'=1+2", "'\t@tab", "'\r+cr", "'-2+3", "'=doc(1)"} <= cells, name
        assert "'=2+5" in cells or "'=2+5-de<u>x" in cells, name  # the languages
    assert "'" + POST_EDIT in neutralised["judgments"]


def test_csv_stream_neutralises_every_formula_start() -> None:
    rows = [[start + "1+2" for start in sorted(FORMULA_STARTS)] + [-1.5, "plain"]]
    written = list(csv.reader(io.StringIO("".join(csv_stream(rows)))))
    assert written == [
        ["'" + start + "1+2" for start in sorted(FORMULA_STARTS)] + ["-1.5", "plain"]
    ]


def test_json_keeps_the_raw_text_as_json(world: Payloads, db) -> None:
    manager = client(world.manager)
    campaign = {"campaign_id": world.campaign.id}

    def fetch(response) -> str:
        assert response.status_code == 200
        assert response["Content-Type"].split(";")[0] in {
            "application/json",
            "application/x-ndjson",
        }
        assert response["X-Content-Type-Options"] == "nosniff"
        body = b"".join(response.streaming_content) if response.streaming else response.content
        return body.decode()

    fmt = {**campaign, "fmt": "json"}
    automatic = json.loads(fetch(manager.get(reverse("results-automatic-download", kwargs=fmt))))
    assert automatic["campaign"] == CAMPAIGN
    assert {row["system"] for row in automatic["systems"]} == set(SYSTEMS)
    rankings = json.loads(fetch(manager.get(reverse("results-human-rankings", kwargs=fmt))))
    assert {row["system"] for row in rankings["systems"]} >= set(SYSTEMS)
    human = json.loads(fetch(manager.get(reverse("api-results-human", kwargs=campaign))))
    usernames = {a["username"] for task in human["tasks"] for a in task["annotators"]}
    assert set(USERNAMES) <= usernames
    lines = fetch(
        manager.get(reverse("results-human-judgments", kwargs={**campaign, "fmt": "jsonl"}))
    )
    assert {json.loads(line)["annotator"] for line in lines.splitlines()} == set(USERNAMES)
    campaigns = json.loads(fetch(manager.get(reverse("api-campaigns"))))
    assert campaigns[0]["name"] == CAMPAIGN and campaigns[0]["description"] == DESCRIPTION
    viewer = client(world.viewer)
    task = world.tasks["adequacy"]
    item = json.loads(fetch(viewer.get(reverse("api-next-item", kwargs={"task_id": task.id}))))
    assert SCRIPT in item["source"] and IMG in item["candidates"][0]["text"]
    # The annotate page's script gets its errors as JSON (and shows them as text).
    response = viewer.post(
        reverse("annotate-submit", kwargs={"task_id": task.id}),
        {"slot": item["slot"], "score": SCRIPT, "candidates": "1"},
        headers={"X-Requested-With": "fetch"},
    )
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert SCRIPT in response.json()["error"]
