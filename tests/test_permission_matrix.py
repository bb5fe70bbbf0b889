"""Every URL of the site against every role: the exact status code each one gets.

The policy is ``annotation/permissions.py``: anonymous visitors are sent to the login page
(pages) or get 401 (API); members of the campaign whose role does not allow the action get
403; everyone else gets 404, so that ids reveal nothing; admins (superusers) may do
everything except annotate, which needs an annotator's membership. Every named URL pattern
must be in the matrix (``test_every_url_is_in_the_matrix``), so a new endpoint cannot be
left out.
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from annotation.models import Invitation, Judgment, Segment, Slot, SourceMedia, Task
from annotation.protocols import PROTOCOLS, SETTINGS
from annotation.services.imports import WMT_XML
from tests.media_support import media_zip, png
from tests.security_world import (
    ADMIN,
    ANN,
    ANN_OTHER,
    ANON,
    MGR_OTHER,
    ORG,
    PASSWORD,
    ROLES,
    World,
    client_for,
    lines,
    world_for_module,
)

LOGIN = "302 to the login page"
ADMIN_LOGIN = "302 to the admin's login page"


def row(*codes: Any) -> dict[str, Any]:
    """Expected codes in the order of ``ROLES``: anonymous, annotator, annotator of another
    campaign, manager of another campaign, manager, organiser, admin."""
    assert len(codes) == len(ROLES)
    return dict(zip(ROLES, codes, strict=True))


def everyone(code: Any) -> dict[str, Any]:
    return row(*[code] * len(ROLES))


def results_page(ok: Any = 200) -> dict[str, Any]:
    return row(LOGIN, 403, 404, 404, ok, ok, ok)


def results_api(ok: Any = 200) -> dict[str, Any]:
    return row(401, 403, 404, 404, ok, ok, ok)


def manager_page(ok: Any) -> dict[str, Any]:
    return row(LOGIN, 403, 404, 404, ok, 403, ok)


def manager_api(ok: Any) -> dict[str, Any]:
    return row(401, 403, 404, 404, ok, 403, ok)


def annotator_page(ok: Any) -> dict[str, Any]:
    return row(LOGIN, ok, 404, 404, 403, 403, 404)


def annotator_api(ok: Any) -> dict[str, Any]:
    return row(401, ok, 404, 404, 403, 403, 404)


POST_ONLY_PAGE = row(LOGIN, *[405] * 6)
POST_ONLY_API = row(401, *[405] * 6)
STAFF_ONLY = row(*[ADMIN_LOGIN] * 6, 200)


@dataclass(frozen=True)
class Case:
    name: str  # the URL pattern's name
    method: str
    expected: dict[str, Any]
    kwargs: Callable[[World], dict[str, Any]] = lambda w: {}
    query: Callable[[World], str] = lambda w: ""
    data: Callable[[World], dict[str, Any]] | None = None
    json: bool = False
    label: str = ""
    settings: dict[str, Any] = field(default_factory=dict)  # overridden for the request
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.method.upper()} {self.name}" + (f" ({self.label})" if self.label else "")


def campaign(w: World) -> dict[str, Any]:
    return {"campaign_id": w.campaign.id}


def pending(w: World) -> dict[str, Any]:
    return {"campaign_id": w.campaign.id, "pending_id": w.pending.id}


def fmt(value: str) -> Callable[[World], dict[str, Any]]:
    return lambda w: {"campaign_id": w.campaign.id, "fmt": value}


def shared(w: World) -> dict[str, Any]:
    return {"shared_task_id": w.shared_task.id}


def shared_pair(w: World) -> dict[str, Any]:
    return {"shared_task_id": w.shared_task.id, "campaign_id": w.campaign.id}


def shared_tables(fmt_name: str) -> Callable[[World], dict[str, Any]]:
    return lambda w: {"shared_task_id": w.shared_task.id, "which": "all", "fmt": fmt_name}


def plot(key: str, fmt_name: str) -> Callable[[World], dict[str, Any]]:
    return lambda w: {"campaign_id": w.campaign.id, "key": key, "fmt": fmt_name}


def task_of(task_type: str) -> Callable[[World], dict[str, Any]]:
    return lambda w: {"task_id": w.tasks[task_type].id}


def task_in_campaign(task_type: str) -> Callable[[World], dict[str, Any]]:
    return lambda w: {"campaign_id": w.campaign.id, "task_id": w.tasks[task_type].id}


def upload_form(w: World) -> dict[str, Any]:
    return {
        "kind": "system",
        "name": "Sysname-Upload",
        "files": SimpleUploadedFile("new.de", lines("VolcTrans-GLAT.de", 12)),
    }


def metric_scores(w: World) -> dict[str, Any]:
    return {
        "name": "COMET-22",
        "better": "higher",
        "file": SimpleUploadedFile("scores.tsv", b"no-such-system\t1\t0.5\n"),
    }


def upload_api(kind: str, name: str, demo: str) -> Callable[[World], dict[str, Any]]:
    return lambda w: {"name": name, "files": SimpleUploadedFile("f.txt", lines(demo, 12))}


def invitation(w: World) -> dict[str, Any]:
    pending = Invitation.objects.filter(campaign=w.campaign, used_at=None).order_by("id").first()
    assert pending is not None
    return {"campaign_id": w.campaign.id, "invitation_id": pending.id}


def exclusion(w: World) -> dict[str, Any]:
    return {"campaign_id": w.campaign.id, "annotator_id": w.annotator2.id}


def tutorial_answer(w: World) -> dict[str, Any]:
    # No such answer: 404 for the annotator as for anyone (answers are their owner's).
    return {"task_id": w.tasks["adequacy"].id, "answer_id": 999999}


def other_task_query(w: World) -> str:
    return f"?task={w.other_task.id}"


def pairwise_query(w: World) -> str:
    return f"?task={w.tasks['pairwise'].id}"


# Media sources: a file stored for the request (the row is made inside the case's rolled-back
# savepoint) on a segment the annotator holds an item of. An annotator without the item gets
# 404: tests/test_media_sources.py (every segment here is some item of the annotator's).
MEDIA_SETTINGS = {"MEDIA_ROOT": Path(tempfile.gettempdir()) / "evalsite-matrix-media"}


def media_of_annotators_item(w: World) -> dict[str, Any]:
    held = Slot.objects.filter(annotator=w.users[ANN]).values_list("item__segment_id")
    segment = Segment.objects.filter(campaign=w.campaign, id__in=held).first()
    assert segment is not None
    data = png(4, 4)
    root = MEDIA_SETTINGS["MEDIA_ROOT"]
    root.mkdir(parents=True, exist_ok=True)
    (root / "matrix.png").write_bytes(data)
    media = SourceMedia.objects.create(
        campaign=w.campaign,
        segment=segment,
        kind="image",
        mime_type="image/png",
        path="matrix.png",
        size=len(data),
        filename="matrix.png",
    )
    return {"campaign_id": w.campaign.id, "media_id": media.id}


def media_upload(w: World) -> dict[str, Any]:
    zipped = media_zip([{"line": 1, "file": "one.png"}], {"one.png": png(4, 4)})
    return {"file": SimpleUploadedFile("media.zip", zipped)}


NEW_CAMPAIGN = {"name": "Made by the matrix", "source_language": "en", "target_language": "fr"}
# The task types the world launched (tests/security_world.py) for the annotator's pages.
TASK_TYPES = ("adequacy", "fluency", "adequacy_fluency", "pairwise", "ranking", "postedit")


def unimplemented_setting(task_type: str) -> dict[str, Any]:
    """A setting the protocol does not implement, off its default (so it must be refused)."""
    protocol = PROTOCOLS[task_type]
    name = next(n for n in ("ranking_size", "bad_reference_rate") if not protocol.applies(n))
    return {name: 3 if name == "ranking_size" else 0.1}


# Built from the protocol declarations: every protocol can be added by a manager on the
# page and through the API, and each refuses a setting it does not implement.
PROTOCOL_CASES = [
    case
    for task_type in PROTOCOLS
    for case in (
        Case(
            "task-add",
            "post",
            manager_page(302),
            lambda w: {"campaign_id": w.campaign.id},
            data=lambda w, t=task_type: {"task_type": t},
            label=task_type,
        ),
        Case(
            "api-tasks",
            "post",
            manager_api(400),
            lambda w: {"campaign_id": w.campaign.id},
            data=lambda w, t=task_type: {"task_type": t, **unimplemented_setting(t)},
            json=True,
            label=f"{task_type} with a setting it lacks",
        ),
    )
]
assert set(SETTINGS) >= {"ranking_size", "bad_reference_rate"}

CASES = [
    # Pages: accounts.
    Case("login", "get", row(200, *[302] * 6)),
    Case("login", "post", row(200, *[302] * 6), data=lambda w: {"username": "x", "password": "y"}),
    Case("login", "put", row(200, *[302] * 6)),
    Case("logout", "get", everyone(405)),
    Case("logout", "post", everyone(302)),
    # Each user's own token: every logged-in user, no one else's.
    Case("account-token", "get", row(LOGIN, *[200] * 6)),
    Case("account-token", "post", row(LOGIN, *[302] * 6)),
    Case("invitation-accept", "get", everyone(200)),
    Case(
        "invitation-accept",
        "post",
        everyone(302),
        data=lambda w: {"token": w.token, "username": "perm-invited", "password": PASSWORD},
    ),
    # Joining as the user logged in: members of the campaign are told so (200), others join.
    Case(
        "invitation-accept",
        "post",
        row(200, 200, 302, 302, 200, 200, 302),
        data=lambda w: {"action": "join", "token": w.token},
        label="join logged in",
    ),
    Case("invitation-details", "get", row(*[405] * 7)),
    Case("invitation-details", "post", everyone(200), data=lambda w: {"token": w.token}),
    Case(
        "invitation-details",
        "post",
        everyone(404),
        data=lambda w: {"token": "not-a-token"},
        label="unknown token",
    ),
    # Pages: campaigns.
    Case("home", "get", row(LOGIN, 302, 302, 200, 200, 200, 200)),
    Case("campaign-create", "get", row(LOGIN, 403, 403, 200, 200, 403, 200)),
    # Importing a Pearmut campaign creates one: the same right as "New campaign".
    Case("campaign-import-pearmut", "get", row(LOGIN, 403, 403, 200, 200, 403, 200)),
    Case(
        "campaign-create",
        "post",
        row(LOGIN, 403, 403, 302, 302, 403, 302),
        data=lambda w: NEW_CAMPAIGN,
    ),
    Case("campaign-detail", "get", results_page(), campaign),
    Case("campaign-systems", "get", results_page(), campaign),
    Case("campaign-upload", "get", POST_ONLY_PAGE, campaign),
    Case("campaign-upload", "post", manager_page(200), campaign, data=upload_form),
    Case("campaign-media-upload", "get", POST_ONLY_PAGE, campaign),
    Case(
        "campaign-media-upload",
        "post",
        manager_page(302),
        campaign,
        data=media_upload,
        settings=MEDIA_SETTINGS,
    ),
    Case(
        "source-media",
        "get",
        row(LOGIN, 200, 404, 404, 200, 200, 200),
        media_of_annotators_item,
        settings=MEDIA_SETTINGS,
    ),
    Case(
        "source-media",
        "post",
        row(LOGIN, *[405] * 6),
        media_of_annotators_item,
        settings=MEDIA_SETTINGS,
    ),
    Case("campaign-upload-confirm", "get", POST_ONLY_PAGE, pending),
    Case("campaign-upload-confirm", "post", manager_page(302), pending),
    Case("campaign-upload-cancel", "get", POST_ONLY_PAGE, pending),
    Case("campaign-upload-cancel", "post", manager_page(302), pending),
    Case("campaign-metrics-rerun", "get", POST_ONLY_PAGE, campaign),
    Case("campaign-metrics-rerun", "post", manager_page(302), campaign),
    Case("campaign-metric-scores", "get", POST_ONLY_PAGE, campaign),
    # An unknown system: the manager passes, is sent back to the campaign with the error.
    Case("campaign-metric-scores", "post", manager_page(302), campaign, data=metric_scores),
    Case("task-add", "get", POST_ONLY_PAGE, campaign),
    # A setting fluency does not implement: the manager passes, and gets the campaign page
    # back with the form as sent and the error beside it (400).
    Case(
        "task-add",
        "post",
        manager_page(400),
        campaign,
        data=lambda w: {"task_type": "fluency", "scale": "likert5", "ranking_size": 4},
    ),
    *PROTOCOL_CASES,
    Case(
        "task-launch",
        "get",
        POST_ONLY_PAGE,
        lambda w: {"campaign_id": w.campaign.id, "task_id": w.tasks["fluency"].id},
    ),
    Case(
        "task-launch",
        "post",
        manager_page(302),
        lambda w: {"campaign_id": w.campaign.id, "task_id": w.tasks["fluency"].id},
    ),
    Case("task-edit", "get", manager_page(200), task_in_campaign("fluency")),
    Case(
        "task-edit",
        "post",
        manager_page(302),
        task_in_campaign("fluency"),
        data=lambda w: {"instructions": "Read twice.", "task_type": "fluency"},
    ),
    *(
        Case(
            "task-change",
            "post",
            manager_page(302),
            lambda w, change=change: {**task_in_campaign("fluency")(w), "change": change},
            data=lambda w: {"confirmed": "1"},
            label=change,
        )
        for change in ("pause", "resume", "close", "delete", "crowd-link", "continue")
    ),
    Case(
        "task-change",
        "get",
        POST_ONLY_PAGE,
        lambda w: {**task_in_campaign("fluency")(w), "change": "pause"},
    ),
    Case("crowd-verdicts", "get", manager_page(200), task_in_campaign("adequacy")),
    Case("crowd-participants", "get", manager_page(200), task_in_campaign("adequacy")),
    # No such participant: the manager passes and is sent back with the reason.
    Case(
        "crowd-participant-restart",
        "post",
        manager_page(302),
        lambda w: {**task_in_campaign("adequacy")(w), "participant_id": 999_999},
    ),
    Case(
        "crowd-participant-restart",
        "get",
        POST_ONLY_PAGE,
        lambda w: {**task_in_campaign("adequacy")(w), "participant_id": 999_999},
    ),
    # The organiser is no annotator: the manager passes and is sent back with the reason.
    Case(
        "annotator-restart",
        "post",
        manager_page(302),
        lambda w: {**task_in_campaign("adequacy")(w), "annotator_id": w.users[ORG].id},
        data=lambda w: {"confirmed": "1"},
    ),
    Case(
        "annotator-restart",
        "get",
        POST_ONLY_PAGE,
        lambda w: {**task_in_campaign("adequacy")(w), "annotator_id": w.users[ORG].id},
    ),
    *(
        Case(
            "campaign-state",
            "post",
            manager_page(302),
            lambda w, change=change: {"campaign_id": w.campaign.id, "change": change},
            data=lambda w: {"confirmed": "1"},
            label=change,
        )
        for change in ("close", "archive", "delete")
    ),
    Case(
        "campaign-state",
        "get",
        POST_ONLY_PAGE,
        lambda w: {"campaign_id": w.campaign.id, "change": "close"},
    ),
    # Public: a participant link with a wrong secret is refused to everyone.
    Case(
        "crowd-start",
        "get",
        everyone(400),
        lambda w: {"task_id": w.tasks["adequacy"].id, "secret": "not-the-secret"},
        query=lambda w: "?PROLIFIC_PID=abc123&STUDY_ID=s1&SESSION_ID=x1",
    ),
    Case(
        "crowd-start",
        "post",
        everyone(400),
        lambda w: {"task_id": w.tasks["adequacy"].id, "secret": "not-the-secret"},
        data=lambda w: {"PROLIFIC_PID": "abc123"},
    ),
    Case("invitation-add", "get", POST_ONLY_PAGE, campaign),
    Case(
        "invitation-add",
        "post",
        manager_page(302),
        campaign,
        data=lambda w: {"role": "annotator", "note": "matrix"},
    ),
    Case("invitations-created", "get", manager_page(302), campaign),
    Case("campaign-members", "get", results_page(), campaign),
    Case("member-add", "get", POST_ONLY_PAGE, campaign),
    Case(
        "member-add",
        "post",
        manager_page(302),
        campaign,
        data=lambda w: {"username": w.users[ANN_OTHER].username, "role": "annotator"},
    ),
    Case("invitation-revoke", "get", POST_ONLY_PAGE, invitation),
    Case("invitation-revoke", "post", manager_page(302), invitation),
    # Pages: annotation.
    Case("task-list", "get", row(LOGIN, *[200] * 6)),
    *(
        Case("annotate", "get", annotator_page(200), task_of(task_type), label=task_type)
        for task_type in TASK_TYPES
    ),
    Case("annotate-skip", "get", POST_ONLY_PAGE, task_of("adequacy")),
    Case(
        "annotate-skip",
        "post",
        annotator_page(302),
        task_of("adequacy"),
        data=lambda w: {"skipped_slot": w.leased.id, "reason": "garbled"},
    ),
    Case("annotate-submit", "get", POST_ONLY_PAGE, task_of("adequacy")),
    Case(
        "annotate-submit",
        "post",
        annotator_page(302),
        task_of("adequacy"),
        data=lambda w: {"slot": w.leased.id, "score": "3", "candidates": "1"},
    ),
    Case(
        "annotate-submit",
        "post",
        annotator_page(200),  # the page's script gets JSON, not a redirect
        task_of("adequacy"),
        data=lambda w: {"slot": w.leased.id, "score": "3", "candidates": "1"},
        headers={"X-Requested-With": "fetch"},
        label="by the page's script",
    ),
    # A document page's submit; an adequacy task of the world shows segments: refused (400)
    # for its annotator, after the access checks.
    Case("annotate-page", "get", POST_ONLY_PAGE, task_of("adequacy")),
    Case(
        "annotate-page",
        "post",
        row(LOGIN, 400, 404, 404, 403, 403, 404),
        task_of("adequacy"),
        data=lambda w: {"page": w.leased.id, "answers": "[]"},
        headers={"X-Requested-With": "fetch"},
    ),
    # Pages: results and downloads.
    Case("results-automatic", "get", results_page(), campaign),
    Case("results-automatic-download", "get", results_page(), fmt("csv"), label="csv"),
    Case("results-automatic-download", "get", results_page(), fmt("json"), label="json"),
    Case(
        "results-automatic-download",
        "get",
        row(LOGIN, 403, 404, 404, 404, 404, 404),
        fmt("xml"),
        label="unknown format",
    ),
    Case("results-human", "get", results_page(), campaign),
    *(
        Case("results-human-judgments", "get", results_page(), fmt(name), label=name)
        for name in ("csv", "jsonl", "appraise")
    ),
    Case(
        "results-human-judgments",
        "get",
        results_page(),
        fmt("wmt"),
        query=pairwise_query,
        label="wmt",
    ),
    Case(
        "results-human-judgments",
        "get",
        results_page(400),
        fmt("wmt"),
        label="wmt without a task",
    ),
    Case(
        "results-human-judgments",
        "get",
        row(LOGIN, 403, 404, 404, 404, 404, 404),
        fmt("csv"),
        query=other_task_query,
        label="task of another campaign",
    ),
    *(
        Case("results-human-rankings", "get", results_page(), fmt(name), label=name)
        for name in ("csv", "json")
    ),
    # Managers and organisers exclude (the README's roles); GET is the confirmation page.
    Case("results-human-exclusion", "get", results_page(), exclusion),
    Case(
        "results-human-exclusion",
        "post",
        results_page(302),
        exclusion,
        data=lambda w: {"excluded": "1"},
    ),
    # Reliability: the download; excluding those who fail (managers and organisers, POST).
    *(
        Case("results-human-reliability", "get", results_page(), fmt(name), label=name)
        for name in ("csv", "json")
    ),
    Case(
        "results-human-reliability",
        "get",
        row(LOGIN, 403, 404, 404, 404, 404, 404),
        fmt("xml"),
        label="unknown format",
    ),
    Case("results-human-exclude-failing", "get", POST_ONLY_PAGE, task_in_campaign("adequacy")),
    Case(
        "results-human-exclude-failing",
        "post",
        results_page(302),
        task_in_campaign("adequacy"),
    ),
    # API.
    Case("api-token", "get", everyone(405)),
    Case(
        "api-token",
        "post",
        everyone(200),
        data=lambda w: {"username": w.users[ANN].username, "password": PASSWORD},
    ),
    Case(
        "api-token",
        "post",
        everyone(400),
        data=lambda w: {"username": w.users[ANN].username, "password": "wrong"},
        label="wrong password",
    ),
    Case("api-token-rotate", "post", row(401, *[200] * 6)),
    Case("api-campaigns", "get", row(401, *[200] * 6)),
    Case("api-pearmut-import", "get", POST_ONLY_API),
    # No file sent: who may create campaigns gets the 400 that names the missing field.
    Case("api-pearmut-import", "post", row(401, 403, 403, 400, 400, 403, 400)),
    Case(
        "api-campaigns",
        "post",
        row(401, 403, 403, 201, 201, 403, 201),
        data=lambda w: NEW_CAMPAIGN,
        json=True,
    ),
    Case("api-campaign", "get", results_api(), campaign),
    # Only a draft is deleted: the world's campaign is launched, so a manager gets the 400.
    Case("api-campaign", "delete", manager_api(400), campaign, label="launched"),
    Case("api-tasks", "get", manager_api(200), campaign),
    Case(
        "api-tasks",
        "post",
        manager_api(201),
        campaign,
        data=lambda w: {"task_type": "adequacy", "scale": "da100"},
        json=True,
    ),
    Case("api-task", "get", manager_api(200), task_in_campaign("fluency")),
    Case(
        "api-task",
        "patch",
        manager_api(200),
        task_in_campaign("fluency"),
        data=lambda w: {"instructions": "Read twice."},
        json=True,
    ),
    # Launched tasks are closed, not deleted: the manager passes the check, then gets 400.
    Case("api-task", "delete", manager_api(400), task_in_campaign("fluency")),
    Case("api-task-launch", "post", manager_api(400), task_in_campaign("fluency")),
    Case("api-task-pause", "post", manager_api(200), task_in_campaign("fluency")),
    Case("api-task-resume", "post", manager_api(400), task_in_campaign("fluency")),
    Case("api-task-close", "post", manager_api(200), task_in_campaign("fluency")),
    Case("api-task-pause", "get", POST_ONLY_API, task_in_campaign("fluency")),
    # Only a task that stopped by itself continues: the manager passes, then gets 400.
    Case("api-task-continue", "post", manager_api(400), task_in_campaign("fluency")),
    Case("api-task-continue", "get", POST_ONLY_API, task_in_campaign("fluency")),
    Case("api-systems", "get", results_api(), campaign),
    Case("api-source-upload", "get", POST_ONLY_API, campaign),
    # The campaign has its source: the manager passes the permission check, then gets 400.
    Case(
        "api-source-upload",
        "post",
        manager_api(400),
        campaign,
        data=upload_api("source", "", "source.en"),
    ),
    Case("api-reference-upload", "get", POST_ONLY_API, campaign),
    Case(
        "api-reference-upload",
        "post",
        manager_api(200),  # the same reference again: unchanged
        campaign,
        data=upload_api("reference", "A", "reference.A.de"),
    ),
    Case("api-wmt-xml-upload", "get", POST_ONLY_API, campaign),
    # Not WMT XML (and the campaign has its source): the manager passes, then gets 400.
    Case(
        "api-wmt-xml-upload",
        "post",
        manager_api(400),
        campaign,
        data=upload_api(WMT_XML, "", "source.en"),
    ),
    Case("api-media-upload", "get", POST_ONLY_API, campaign),
    Case(
        "api-media-upload",
        "post",
        manager_api(201),
        campaign,
        data=media_upload,
        settings=MEDIA_SETTINGS,
    ),
    Case("api-metric-scores", "get", POST_ONLY_API, campaign),
    # An unknown system: the manager passes, then gets 400 and nothing is stored.
    Case("api-metric-scores", "post", manager_api(400), campaign, data=metric_scores),
    Case("api-system-upload", "get", POST_ONLY_API, campaign),
    Case(
        "api-system-upload",
        "post",
        manager_api(201),
        campaign,
        data=upload_api("system", "Sysname-Api", "VolcTrans-GLAT.de"),
    ),
    *(
        Case("api-next-item", "get", annotator_api(200), task_of(task_type), label=task_type)
        for task_type in TASK_TYPES
    ),
    Case("api-judgments", "get", POST_ONLY_API),
    Case(
        "api-judgments",
        "post",
        annotator_api(201),
        data=lambda w: {"task": w.tasks["adequacy"].id, "slot": w.leased.id, "score": 3},
        json=True,
    ),
    Case("api-pages", "get", POST_ONLY_API),
    Case(
        "api-pages",
        "post",
        annotator_api(400),
        data=lambda w: {"task": w.tasks["adequacy"].id, "slot": w.leased.id, "answers": []},
        json=True,
    ),
    Case("api-skip", "get", POST_ONLY_API, task_of("adequacy")),
    Case(
        "api-skip",
        "post",
        annotator_api(201),
        task_of("adequacy"),
        data=lambda w: {"slot": w.leased.id, "reason": "other"},
        json=True,
    ),
    Case("api-results-automatic", "get", results_api(), campaign),
    Case("api-results-human", "get", results_api(), campaign),
    Case("api-results-human-spans", "get", results_api(), campaign),
    Case("api-task-prefilled-spans", "get", POST_ONLY_API, task_of("adequacy")),
    # No file sent: the manager's answer is the 400 that names the missing field.
    Case("api-task-prefilled-spans", "post", manager_api(400), task_of("adequacy")),
    Case("task-prefill", "get", POST_ONLY_PAGE, task_in_campaign("adequacy")),
    # No file sent: back to the campaign page with the error.
    Case("task-prefill", "post", manager_page(302), task_in_campaign("adequacy")),
    # Tutorials (the world's tasks have none: the tutorial page leads to the task's items).
    Case("tutorial", "get", annotator_page(302), task_of("adequacy")),
    Case("tutorial-answer", "get", POST_ONLY_PAGE, task_of("adequacy")),
    Case("tutorial-answer", "post", annotator_page(302), task_of("adequacy")),
    Case("tutorial-feedback", "get", annotator_page(404), tutorial_answer),
    Case("tutorial-retry", "get", POST_ONLY_PAGE, task_of("adequacy")),
    Case("tutorial-retry", "post", annotator_page(302), task_of("adequacy")),
    Case("tutorial-manage", "get", manager_page(200), task_in_campaign("adequacy")),
    Case("tutorial-upload", "get", POST_ONLY_PAGE, task_in_campaign("adequacy")),
    Case("tutorial-upload", "post", manager_page(302), task_in_campaign("adequacy")),
    Case("tutorial-rules", "get", POST_ONLY_PAGE, task_in_campaign("adequacy")),
    Case("tutorial-rules", "post", manager_page(302), task_in_campaign("adequacy")),
    Case("tutorial-clear", "get", POST_ONLY_PAGE, task_in_campaign("adequacy")),
    Case("tutorial-clear", "post", manager_page(302), task_in_campaign("adequacy")),
    Case("api-tutorial", "get", annotator_api(200), task_of("adequacy")),
    Case("api-tutorial-answers", "get", POST_ONLY_API, task_of("adequacy")),
    Case(
        "api-tutorial-answers",
        "post",
        annotator_api(404),  # no tutorial in the world's task
        task_of("adequacy"),
        data=lambda w: {"item": 1, "score": 3},
        json=True,
    ),
    Case("api-tutorial-retry", "get", POST_ONLY_API, task_of("adequacy")),
    Case("api-tutorial-retry", "post", annotator_api(409), task_of("adequacy")),
    Case("api-tutorial-items", "get", POST_ONLY_API, task_of("adequacy")),
    Case("api-tutorial-items", "post", manager_api(400), task_of("adequacy")),
    Case("api-results-human-exclusions", "get", POST_ONLY_API, campaign),
    Case(
        "api-results-human-exclusions",
        "post",
        results_api(200),
        campaign,
        data=lambda w: {"annotator": w.annotator2.id, "excluded": True},
        json=True,
    ),
    *(
        Case("api-results-human-judgments", "get", results_api(), fmt(name), label=name)
        for name in ("csv", "jsonl")
    ),
    Case(
        "api-results-human-judgments",
        "get",
        row(401, 403, 404, 404, 404, 404, 404),
        fmt("csv"),
        query=other_task_query,
        label="task of another campaign",
    ),
    Case("api-members", "get", results_api(), campaign),
    Case(
        "api-members",
        "post",
        manager_api(201),
        campaign,
        data=lambda w: {"username": w.users[ANN_OTHER].username, "role": "annotator"},
        json=True,
    ),
    Case("api-invitations", "get", results_api(), campaign),
    Case(
        "api-invitations",
        "post",
        manager_api(201),
        campaign,
        data=lambda w: {"count": 3, "role": "annotator"},
        json=True,
    ),
    Case("api-invitation", "get", POST_ONLY_API, invitation),
    Case("api-invitation", "delete", manager_api(204), invitation),
    Case("api-invitation-join", "get", POST_ONLY_API),
    # Members of the campaign are refused (400: they keep their role); others join.
    Case(
        "api-invitation-join",
        "post",
        row(401, 400, 201, 201, 400, 400, 201),
        data=lambda w: {"token": w.token},
        json=True,
    ),
    # Shared tasks: who reads the results of one of its campaigns reads it (that pair only);
    # its owner (the manager here) or an admin changes it; everyone else gets 404.
    Case("shared-tasks", "get", row(LOGIN, *[200] * 6)),
    Case(
        "shared-tasks",
        "post",
        row(LOGIN, 403, 403, 302, 302, 302, 302),
        data=lambda w: {"name": "New shared task"},
    ),
    Case("shared-task-detail", "get", row(LOGIN, 404, 404, 404, 200, 200, 200), shared),
    Case("shared-task-campaign-add", "get", POST_ONLY_PAGE, shared),
    Case(
        "shared-task-campaign-add",
        "post",
        row(LOGIN, 404, 404, 404, 302, 403, 302),
        shared,
        data=lambda w: {"campaign": w.campaign.id},
    ),
    Case("shared-task-campaign-remove", "get", POST_ONLY_PAGE, shared_pair),
    Case(
        "shared-task-campaign-remove",
        "post",
        row(LOGIN, 404, 404, 404, 302, 403, 302),
        shared_pair,
    ),
    Case("shared-task-pair-procedure", "get", POST_ONLY_PAGE, shared_pair),
    Case(
        "shared-task-pair-procedure",
        "post",
        row(LOGIN, 404, 404, 404, 302, 403, 302),
        shared_pair,
        data=lambda w: {"procedure": ""},
    ),
    *[
        Case(
            "shared-task-tables",
            "get",
            row(LOGIN, 404, 404, 404, 200, 200, 200),
            shared_tables(fmt_name),
            label=fmt_name,
        )
        for fmt_name in ("typ", "tex", "pdf")
    ],
    Case("api-shared-tasks", "get", row(401, *[200] * 6)),
    Case(
        "api-shared-tasks",
        "post",
        row(401, 403, 403, 201, 201, 201, 201),
        data=lambda w: {"name": "API shared task"},
        json=True,
    ),
    Case("api-shared-task", "get", row(401, 404, 404, 404, 200, 200, 200), shared),
    Case(
        "api-shared-task-campaigns",
        "post",
        row(401, 404, 404, 404, 409, 403, 409),
        shared,
        data=lambda w: {"campaign": w.campaign.id},
        json=True,
    ),
    Case(
        "api-shared-task-campaign",
        "patch",
        row(401, 404, 404, 404, 200, 403, 200),
        shared_pair,
        data=lambda w: {"procedure": ""},
        json=True,
    ),
    Case("api-shared-task-campaign", "delete", row(401, 404, 404, 404, 204, 403, 204), shared_pair),
    Case(
        "api-shared-task-tables",
        "get",
        row(401, 404, 404, 404, 200, 200, 200),
        shared_tables("typ"),
    ),
    # The results pages' plots as files.
    Case("results-human-plot", "get", results_page(), plot("progress-0", "svg")),
    Case("results-human-plot", "get", results_page(), plot("progress-0", "pdf"), label="pdf"),
    Case("results-automatic-plot", "get", results_page(404), plot("metric-99", "svg")),
    # Public: health, the API's schema and its docs.
    # With the broker unreachable the answer is 503 at once (without, it waits for a worker).
    Case("healthz", "get", everyone(503), settings={"CELERY_BROKER_URL": "redis://127.0.0.1:1/0"}),
    Case("api-schema", "get", everyone(200)),
    Case("api-docs", "get", everyone(200)),
    # The admin: staff only (its other pages share the same check); its login page is ours.
    Case("admin-login", "get", row(*[200] * 6, 302)),
    Case(
        "admin-login",
        "post",
        everyone(200),
        data=lambda w: {"username": w.users[ADMIN].username, "password": "wrong"},
    ),
    Case("admin:index", "get", STAFF_ONLY),
    Case("admin:auth_user_changelist", "get", STAFF_ONLY),
    Case(
        "admin:auth_user_change",
        "get",
        STAFF_ONLY,
        lambda w: {"object_id": w.users[ANN].id},
    ),
]


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker) -> Iterator[World]:
    with world_for_module(django_db_blocker) as built:
        yield built


@pytest.fixture(scope="module")
def clients(world: World, django_db_blocker) -> dict[str, Client]:
    """A logged-in client per role, kept for the module: a new client loads the middleware
    again, and WhiteNoise then indexes every static file."""
    with django_db_blocker.unblock():
        return {role: client_for(world, role) for role in ROLES}


def send(client: Client, case: Case, world: World):
    url = reverse(case.name, kwargs=case.kwargs(world)) + case.query(world)
    method = getattr(client, case.method)
    if case.data is None:
        return url, method(url, headers=case.headers)
    if case.json:
        body = json.dumps(case.data(world))
        return url, method(url, body, content_type="application/json", headers=case.headers)
    return url, method(url, case.data(world), headers=case.headers)


def _outcome(case: Case, role: str, world: World, client: Client) -> str | None:
    """What went wrong with this role's request, or None. The request runs in a savepoint
    that is rolled back and the client's cookies are put back (a case may log in or out),
    so the roles and the cases do not see each other's changes."""
    cookies = copy.deepcopy(client.cookies)
    with override_settings(**case.settings), transaction.atomic():
        url, response = send(client, case, world)
        if response.streaming:
            b"".join(response.streaming_content)  # a download fails while streaming, if at all
        transaction.set_rollback(True)
    client.cookies = cookies
    expected, status = case.expected[role], response.status_code
    if expected == LOGIN:
        redirect = response.get("Location", "").startswith(reverse("login") + "?next=")
        ok = status == 302 and redirect
    elif expected == ADMIN_LOGIN:
        redirect = response.get("Location", "").startswith(reverse("admin:login") + "?next=")
        ok = status == 302 and redirect
    else:
        ok = status == expected
    if ok:
        return None
    return f"{role} at {url}: expected {expected}, got {status} {response.get('Location', '')}"


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_status(case: Case, world: World, clients: dict[str, Client], db) -> None:
    wrong = [p for role in ROLES if (p := _outcome(case, role, world, clients[role]))]
    assert not wrong, f"{case.id}:\n" + "\n".join(wrong)


def _patterns(resolver: URLResolver, namespace: str = "") -> Iterator[tuple[str, URLPattern]]:
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _patterns(pattern, inner)
        else:
            yield namespace, pattern


def _site_patterns() -> dict[str, URLPattern]:
    """Every pattern outside the admin (whose pages all share one staff check), by name."""
    named: dict[str, URLPattern] = {}
    for namespace, pattern in _patterns(get_resolver()):
        if namespace.startswith("admin:"):
            continue
        assert pattern.name, f"URL pattern {pattern.pattern} has no name: name it and add it here"
        named[namespace + pattern.name] = pattern
    return named


def test_every_url_is_in_the_matrix() -> None:
    site = _site_patterns()
    listed = {case.name for case in CASES}
    missing = set(site) - listed
    assert not missing, f"URL names missing from the permission matrix: {sorted(missing)}"
    stale = {name for name in listed - set(site) if not name.startswith("admin:")}
    assert not stale, f"the matrix lists URL names that no longer exist: {sorted(stale)}"


def test_every_method_of_the_class_based_views_is_in_the_matrix() -> None:
    """Class-based views (the API, login, logout, schema) say which methods they take; each
    needs its row. Function views take GET and POST, which the matrix lists where they
    exist."""
    listed = {(case.name, case.method) for case in CASES}
    for name, pattern in _site_patterns().items():
        view_class = getattr(pattern.callback, "view_class", None)
        if view_class is None:
            continue
        for method in view_class.http_method_names:
            if method in {"options", "head", "trace"} or not hasattr(view_class, method):
                continue
            assert (name, method) in listed, f"{method.upper()} {name} is not in the matrix"


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_the_api_refuses_methods_it_does_not_have(
    method: str, world: World, clients: dict[str, Client], db
) -> None:
    listed = {(case.name, case.method) for case in CASES}
    for case in CASES:
        if not case.name.startswith("api-") or case.name in {"api-schema", "api-docs"}:
            continue
        if (case.name, method) in listed:  # a method the operation has (DELETE an invitation)
            continue
        url = reverse(case.name, kwargs=case.kwargs(world))
        assert getattr(clients[ADMIN], method)(url).status_code == 405, f"{method.upper()} {url}"
        anonymous = 405 if case.name == "api-token" else 401
        assert getattr(clients[ANON], method)(url).status_code == anonymous, url


def test_the_world_is_what_the_matrix_assumes(world: World, db) -> None:
    """Guards the fixture: if these change, the matrix's expectations mean something else."""
    assert set(world.tasks) == set(TASK_TYPES)
    assert all(task.state == Task.State.LAUNCHED for task in world.tasks.values())
    assert world.leased.annotator_id == world.users[ANN].id
    assert Judgment.objects.filter(annotator=world.annotator2).exists()
    assert not world.users[ORG].has_perm("annotation.add_campaign")
    assert world.users[MGR_OTHER].has_perm("annotation.add_campaign")
    assert world.users[ANN_OTHER].memberships.get().campaign == world.other
