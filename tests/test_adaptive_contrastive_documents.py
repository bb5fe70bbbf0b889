"""Adaptive contrastive documents (issue 22 section 2, issue 23 section 1): a document task's
pages show sets of systems chosen at claim time. A launch plans, per document, a block of
pages for each set (a batch holds whole documents of one set); a set's cold start is counted
in pages; after it the claim follows the priorities the refresh wrote; the refresh counts a
page's outputs as the live status does (one observation per system and page); a task of five
systems (two far apart, three close) settles by itself, its pages judged exactly once, repeats
and checks reaching their annotator; concurrent annotators over the API with a real worker
share no batch; and the task form accepts the setting."""

from __future__ import annotations

import itertools
import math
import random
import time
import uuid
from collections import Counter

import pytest
from django.db import connection
from django.db.models import Q
from rest_framework.test import APIClient

from annotation.models import Batch, Judgment, OutputJudgment, Slot, SystemPriority, Task
from annotation.selectors.human.ranking_status import task_statuses
from annotation.services.assignment import slot_claim_next
from annotation.services.contrastive_adaptive import set_stratum
from annotation.services.judgments import CLAIM_NONE
from annotation.services.page_judgments import page_record_and_claim_next
from annotation.services.tasks import task_create, task_launch
from tests.test_adaptive_contrastive import (
    CLOSE,
    KEY,
    NOISE_SD,
    ORDER,
    QUALITY,
    _screen_systems,
    _stratum_names,
    annotators,
    assert_figures_equal_the_live_status,
    expected_stratum,
    refresh,
    settled_by_concurrent_annotators,
)

# The systems' qualities here: the close ones closer than on segment screens, since a page's
# mean of two segments halves the noise's variance (the ranking would settle in the cold
# start, leaving the priorities nothing to choose).
PAGE_QUALITY = QUALITY | {"close-a": 56, "close-b": 50, "close-c": 44}


def screen_answer(task_type: str, candidates: list[dict], annotator) -> dict:
    """The annotator's answer to one segment of a page (``annotator``: a user of
    ``annotators``): each output scored around its system's quality, with noise drawn from
    (system, segment, annotator's number); a shuffled check's words scored low."""
    number = annotator.username.rpartition("-")[2]
    entries = []
    for candidate in candidates:
        match = KEY.search(candidate["text"])
        score = 0
        if match is not None:
            draw = random.Random(f"{match['system']}|{match['segment']}|{number}")
            quality = PAGE_QUALITY[match["system"]]
            score = max(0, min(100, round(quality + draw.gauss(0, NOISE_SD))))
        if task_type == "contrastive_mqm":
            majors = round((100 - score) / 20)  # fewer errors for better outputs
            spans = [
                {
                    "start": i,
                    "end": i + 1,
                    "severity": "major",
                    "category": "Accuracy/Mistranslation",
                }
                for i in range(majors)
            ]
            entries.append({"spans": spans})
        elif task_type == "contrastive_esa":
            entries.append({"score": score, "spans": []})
        else:
            entries.append({"score": score})
    return {"candidates": entries}


SEGMENTS_PER_DOCUMENT = 4
PAGE_SIZE = 2
# A batch of 4 segments holds one document of one set: two pages.
ADAPTIVE = {
    "unit": "document",
    "page_size": PAGE_SIZE,
    "assignment": "adaptive",
    "batch_size": 4,
    "cold_start": 4,
    "seed": 41,
}


def document_campaign(owner, *, documents: int = 24, systems=tuple(QUALITY)):
    """A campaign of ``documents`` documents of four segments and the ``systems``, each
    output naming its system and segment (the scripted annotator reads them)."""
    from annotation.services.campaigns import campaign_create
    from annotation.services.imports import upload_import

    campaign = campaign_create(
        name=f"contrastive documents {uuid.uuid4().hex[:6]}",
        source_language="en",
        target_language="de",
        owner=owner,
    )
    segments = documents * SEGMENTS_PER_DOCUMENT
    source = "".join(f"source sentence number {i}\n" for i in range(segments)).encode()
    ids = "".join(f"doc-{i // SEGMENTS_PER_DOCUMENT}\n" for i in range(segments)).encode()
    upload_import(
        campaign=campaign,
        kind="source",
        user=owner,
        files=[("source.en", source)],
        documents=("documents.txt", ids),
    )
    for name in systems:
        text = "".join(
            f"[[{name}|{i}]] the output of {name} for segment {i}, a sentence long enough "
            "for its words to be shuffled\n"
            for i in range(segments)
        ).encode()
        upload_import(
            campaign=campaign, kind="system", name=name, user=owner, files=[("out.de", text)]
        )
    return campaign


def launch(campaign, task_type: str = "contrastive_esa", **settings) -> Task:
    task = task_create(campaign=campaign, task_type=task_type, **(ADAPTIVE | settings))
    task_launch(task_id=task.id)
    task.refresh_from_db()
    return task


def page_of(slot: Slot) -> list[Slot]:
    return list(
        Slot.objects.filter(batch_id=slot.batch_id, page=slot.page)
        .select_related("item")
        .order_by("position")
    )


def judge_batch(task: Task, user) -> int | None:
    """The annotator claims a batch and judges it page by page, one submit each; its
    stratum (None: nothing given). Checks that the batch is the priorities' choice."""
    wanted = expected_stratum(task, user.id)
    slot = slot_claim_next(task=task, annotator_id=user.id)
    if slot is None:
        task.refresh_from_db()
        assert task.settled_at is not None or wanted is None
        return None
    batch = Batch.objects.get(id=slot.batch_id)
    assert batch.stratum == wanted, (batch.stratum, wanted)
    while slot is not None:
        page = page_of(slot)
        assert page[0].id == slot.id  # the claim serves a page from its first slot
        answers = [
            {"slot": shown.id, **screen_answer(task.task_type, shown.item.candidates, user)}
            for shown in page
        ]
        page_record_and_claim_next(
            task=task, slot_id=slot.id, annotator_id=user.id, answers=answers, claim=CLAIM_NONE
        )
        batch.refresh_from_db()
        if batch.state == "done":
            break
        slot = slot_claim_next(task=task, annotator_id=user.id)
    return batch.stratum


@pytest.mark.django_db
def test_an_adaptive_document_launch_plans_pages_of_sets_of_systems(manager):
    campaign = document_campaign(manager, documents=6)
    task = launch(campaign, judgments_per_item=2)
    rows = {row.stratum: row for row in SystemPriority.objects.filter(task=task)}
    trios = [set_stratum(places=trio) for trio in itertools.combinations(range(5), 3)]
    assert set(rows) == set(trios)
    # ceil(4 / (10 x 3 / 5)) = 1 page per set before priorities count, stored in slots (the
    # claim's unit): a page here holds two segments.
    assert {row.cold_start for row in rows.values()} == {2}
    pages: dict[tuple[int, int], list[Slot]] = {}
    for slot in Slot.objects.filter(task=task).select_related("item__segment", "batch"):
        pages.setdefault((slot.batch_id, slot.page), []).append(slot)
    documents_per_set: Counter = Counter()
    for page in pages.values():
        shown = {tuple(_screen_systems(slot.item)) for slot in page}
        assert len(shown) == 1  # one order of the same systems on every segment of a page
        (names,) = shown
        assert len(set(names)) == 3 == len(names)
        stratum = page[0].batch.stratum
        assert set(names) == _stratum_names(campaign, stratum)
        assert len({slot.item.segment.document_id for slot in page}) == 1
        if not page[0].is_repeat and page[0].replica == 0 and page[0].item.original_id is None:
            documents_per_set[stratum, page[0].item.segment.document_id] += 1
    # Every set on every document, each document in pages of two.
    assert Counter(stratum for stratum, _ in documents_per_set) == dict.fromkeys(trios, 6)
    assert set(documents_per_set.values()) == {SEGMENTS_PER_DOCUMENT // PAGE_SIZE}
    # A batch holds whole documents of one set.
    for batch in Batch.objects.filter(task=task):
        originals = Slot.objects.filter(batch=batch, is_repeat=False, item__original=None)
        per_document = Counter(originals.values_list("item__segment__document_id", flat=True))
        assert set(per_document.values()) == {SEGMENTS_PER_DOCUMENT}


@pytest.mark.django_db
def test_five_systems_settle_by_pages_spending_most_on_the_close_ones(manager):
    campaign = document_campaign(manager)
    task = launch(campaign, batch_size=8, repeat_rate=0.25, shuffle_rate=0.25)
    users = annotators(campaign, 3, tag="d")
    slots = Slot.objects.filter(task=task).count()
    strata = SystemPriority.objects.filter(task=task).count()
    claimed_sets = []
    claimed = True
    while claimed:
        claimed = False
        for user in users:
            stratum = judge_batch(task, user)
            if stratum is not None:
                claimed_sets.append(_stratum_names(campaign, stratum))
                claimed = True
                refresh(task)
    task.refresh_from_db()
    assert task.settled_reason == "resolved"
    status = task_statuses(task)[0]
    assert status.unit == "page"
    assert [s.system for s in status.systems] == ORDER
    assert_figures_equal_the_live_status(task)
    judged = Judgment.objects.filter(task=task).count()
    assert judged < slots * 0.6, (judged, slots)  # stopped long before the pages ran out
    # The cold start gave every set a batch; after it, the batches served the close systems.
    assert len({frozenset(names) for names in claimed_sets[:strata]}) == strata
    adaptive_phase = claimed_sets[strata:]
    assert adaptive_phase and all(len(names & CLOSE) >= 2 for names in adaptive_phase)
    observed = Counter(
        OutputJudgment.objects.filter(task=task, system__isnull=False).values_list(
            "system__name", flat=True
        )
    )
    far_share = (observed["far-top"] + observed["far-low"]) / sum(observed.values())
    assert far_share < 0.35, observed
    # Each page judged once, whole, by one annotator; each slot at most once; never an item
    # twice to an annotator.
    by_page: dict[tuple[int, int], set[int]] = {}
    for batch, page, annotator in Judgment.objects.filter(task=task).values_list(
        "slot__batch_id", "slot__page", "annotator_id"
    ):
        by_page.setdefault((batch, page), set()).add(annotator)
    assert max(len(who) for who in by_page.values()) == 1
    for batch, page in by_page:
        left = Slot.objects.filter(batch_id=batch, page=page).exclude(state="done")
        assert not left.exists()
    assert max(Counter(Judgment.objects.values_list("slot_id", flat=True)).values()) == 1
    per_annotator = Counter(
        Judgment.objects.filter(task=task, is_repeat=False).values_list("annotator_id", "item_id")
    )
    assert max(per_annotator.values()) == 1
    # The refresh counted each set's judgments (slots: the claim's unit).
    by_set = Counter(
        Judgment.objects.filter(task=task).values_list("slot__batch__stratum", flat=True)
    )
    stored = dict(SystemPriority.objects.filter(task=task).values_list("stratum", "judged"))
    assert stored == {stratum: by_set.get(stratum, 0) for stratum in stored}
    # Repeat pages and shuffled-page checks reach whoever judged their original.
    first = dict(
        Judgment.objects.filter(task=task, is_repeat=False).values_list("item_id", "annotator_id")
    )
    companions = Judgment.objects.filter(task=task).filter(
        Q(is_repeat=True) | Q(item__original__isnull=False)
    )
    rows = companions.values_list("item_id", "item__original_id", "annotator_id", "is_repeat")
    assert sum(1 for row in rows if row[3]) and sum(1 for row in rows if row[1])
    for item, original, annotator, repeat in rows:
        assert first[item if repeat else original] == annotator


@pytest.mark.django_db
@pytest.mark.parametrize("task_type", ["contrastive_mqm", "contrastive_da"])
def test_the_refresh_counts_pages_as_the_live_status(manager, task_type):
    """Contrastive MQM (lower is better) and DA (z-scores per annotator) by pages: the
    running sums give the page's figures, one observation per system and page."""
    campaign = document_campaign(manager, documents=6)
    task = launch(campaign, task_type=task_type, judgments_per_item=2)
    users = annotators(campaign, 2, tag="m")
    for _ in range(6):
        for user in users:
            judge_batch(task, user)
            refresh(task)
    assert_figures_equal_the_live_status(task)
    status = task_statuses(task)[0]
    assert status.unit == "page" and status.lower_is_better is (task_type == "contrastive_mqm")
    pages = Judgment.objects.filter(task=task, is_repeat=False, item__original=None)
    shown = {
        (b, p, a) for b, p, a in pages.values_list("slot__batch_id", "slot__page", "annotator_id")
    }
    assert sum(s.judgments for s in status.systems) == 3 * len(shown)


@pytest.mark.django_db
def test_the_task_form_accepts_adaptive_contrastive_documents(manager, client):
    campaign = document_campaign(manager, documents=2)
    client.force_login(manager)
    form = {
        "task_type": "contrastive_esa",
        "unit": "document",
        "page_size": "2",
        "assignment": "adaptive",
        "cold_start": "4",
        "judgments_per_item": "1",
        "ranking_size": "3",
    }
    answer = client.post(f"/campaigns/{campaign.id}/tasks/", form)
    assert answer.status_code == 302, answer.content.decode()[-2000:]
    task = Task.objects.get(campaign=campaign)
    assert (task.unit, task.assignment) == ("document", "adaptive")


# A scripted annotator's pause between pages, leaving the refresh job its turn.
THINK_SECONDS = 0.05


def _annotate(task_id: int, token: str, user, acknowledged: list, errors: list) -> None:
    """A scripted annotator over the API: judges pages until the task gives it nothing."""
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    try:
        body = api.get(f"/api/v1/tasks/{task_id}/next").json()
        while body and not body.get("done"):
            answers = [
                {
                    "slot": shown["slot"],
                    **screen_answer("contrastive_esa", shown["candidates"], user),
                }
                for shown in body["page"]
            ]
            post = {"task": task_id, "slot": body["slot"], "answers": answers}
            response = api.post("/api/v1/pages", post, format="json")
            if response.status_code != 201:
                errors.append(response.content)
                return
            acknowledged.extend(response.json()["judgments"])
            body = response.json()["next"]
            time.sleep(THINK_SECONDS)
    finally:
        connection.close()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_concurrent_annotators_and_a_real_worker_stop_the_document_task(
    celery_worker_process, manager
):
    """Four annotators at once over the API, page by page, a real worker refreshing: the
    task stops by itself, every judgment recorded once, no batch shared (SKIP LOCKED)."""
    campaign = document_campaign(manager)
    task = launch(campaign, judgments_per_item=2)
    settled_by_concurrent_annotators(task, _annotate)
    assert task_statuses(task)[0].systems[0].system == ORDER[0]
    assert math.isfinite(task_statuses(task)[0].systems[0].mean)
