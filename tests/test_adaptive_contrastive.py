"""Adaptive contrastive screens (issue 22 section 2, issue 23 section 1): the systems that
share a screen are chosen at claim time. A launch plans screens of sets of systems (a
batch per set; pairs filled up when sets would be too many), the claim follows the sets'
priorities the refresh wrote, a task of five
systems (two far apart, three close) settles spending most of its screens on the close
ones, the figures the refresh keeps equal the results page's live status, no annotator gets
a screen twice, concurrent annotators never share a batch and every judgment is recorded
once (a real worker refreshing), and what is not built is refused with a reason."""

from __future__ import annotations

import itertools
import math
import random
import re
import threading
import time
import uuid
from collections import Counter

import pytest
from django.db import connection
from django.db.models import Q
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import (
    Batch,
    Job,
    Judgment,
    OutputJudgment,
    Slot,
    SumsCursor,
    System,
    SystemPriority,
    Task,
    TaskNotice,
)
from annotation.selectors.adaptive import figures_from_sums
from annotation.selectors.human.ranking_status import task_statuses
from annotation.services.adaptive import task_priorities_refresh
from annotation.services.assignment import slot_claim_next
from annotation.services.contrastive_adaptive import (
    campaign_systems,
    set_stratum,
    stratum_places,
)
from annotation.services.judgments import judgment_record
from annotation.services.task_rules import TaskError
from annotation.services.tasks import task_create, task_launch
from tests.conftest import wait_for, worker_queue_drained

# Each system's quality (its outputs' scores around it): two far from the rest, three close.
QUALITY = {"far-top": 92, "close-a": 60, "close-b": 50, "close-c": 40, "far-low": 8}
ORDER = ["far-top", "close-a", "close-b", "close-c", "far-low"]
CLOSE = {"close-a", "close-b", "close-c"}
THREE = {"close-b", "close-c", "far-low"}
NOISE_SD = 12
KEY = re.compile(r"\[\[(?P<system>[^|\]]+)\|(?P<segment>\d+)\]\]")
ADAPTIVE = {"assignment": "adaptive", "batch_size": 4, "cold_start": 4, "seed": 31}


def contrastive_campaign(owner, *, segments: int = 40, systems=tuple(QUALITY)):
    """A campaign of ``segments`` segments and the ``systems``, each output naming its
    system and segment (a scripted annotator reads them as a person reads the output)."""
    from annotation.services.campaigns import campaign_create
    from annotation.services.imports import upload_import

    campaign = campaign_create(
        name=f"contrastive {uuid.uuid4().hex[:6]}",
        source_language="en",
        target_language="de",
        owner=owner,
    )
    source = "".join(f"source sentence number {i}\n" for i in range(segments)).encode()
    upload_import(campaign=campaign, kind="source", user=owner, files=[("source.en", source)])
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


def annotators(campaign, count: int, tag: str = "c"):
    from django.contrib.auth import get_user_model

    from annotation.services.campaigns import membership_set

    users = []
    for i in range(count):
        user = get_user_model().objects.create_user(f"{tag}-{uuid.uuid4().hex[:6]}-{i}")
        membership_set(campaign=campaign, user=user, role="annotator")
        users.append(user)
    return users


def output_score(text: str, annotator: str) -> int:
    """The score an attentive annotator gives the output: its system's quality with noise
    drawn from (system, segment, annotator's number), so every run answers alike."""
    match = KEY.search(text)
    if match is None:
        return 0  # a shuffled check's words: scored low
    draw = random.Random(f"{match['system']}|{match['segment']}|{annotator}")
    return max(0, min(100, round(QUALITY[match["system"]] + draw.gauss(0, NOISE_SD))))


def screen_answer(task_type: str, candidates: list[dict], annotator) -> dict:
    """The annotator's answer to a screen (``annotator``: a user of ``annotators``)."""
    number = annotator.username.rpartition("-")[2]
    entries = []
    for candidate in candidates:
        score = output_score(candidate["text"], number)
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


def expected_stratum(task: Task, annotator_id: int) -> int | None:
    """The set the claim should take now, by its own rule (evalsite_adaptive_batch): still
    in its cold start (its own, in screens) first, fewest first, then the priority
    discounted by what was claimed since, among sets with an open batch holding nothing
    the annotator had."""
    had = set(Slot.objects.filter(task=task, annotator_id=annotator_id).values_list("item_id"))
    open_strata = set()
    for batch in Batch.objects.filter(task=task, state="open"):
        if not set(Slot.objects.filter(batch=batch).values_list("item_id")) & had:
            open_strata.add(batch.stratum)

    def key(row: SystemPriority):
        seen = row.judged + row.pending
        cold = seen < (row.cold_start if row.cold_start is not None else task.cold_start)
        share = (row.judged / max(seen, 1)) ** 2
        nan = not cold and math.isinf(row.priority) and share == 0  # PostgreSQL: inf x 0
        effective = 0.0 if cold or nan else row.priority * share
        return (not cold, not nan, -effective, seen, row.stratum)

    rows = sorted(
        (row for row in SystemPriority.objects.filter(task=task) if row.stratum in open_strata),
        key=key,
    )
    return rows[0].stratum if rows else None


def refresh(task: Task) -> None:
    """What the job does after each closed batch (these tests run in one transaction)."""
    task_priorities_refresh(target_id=task.id, report_progress=lambda percent: None)


def judge_batch(task: Task, user) -> int | None:
    """The annotator claims a batch and judges it whole; its stratum, None when nothing is
    given. Checks that the batch is the priorities' choice."""
    wanted = expected_stratum(task, user.id)
    stratum = judge_batch_as_claimed(task, user)
    task.refresh_from_db()
    if stratum is None and task.settled_at is not None:
        return None  # stopped: the claim hands out nothing
    assert stratum == wanted, (stratum, wanted)
    return stratum


def judge_batch_as_claimed(task: Task, user) -> int | None:
    """The annotator claims a batch and judges it whole; its stratum (None: nothing)."""
    slot = slot_claim_next(task=task, annotator_id=user.id)
    if slot is None:
        return None
    batch = Batch.objects.get(id=slot.batch_id)
    while slot is not None:
        item = Slot.objects.select_related("item").get(id=slot.id).item
        given = screen_answer(task.task_type, item.candidates, user)
        judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer=given)
        batch.refresh_from_db()
        if batch.state == "done":
            break
        slot = slot_claim_next(task=task, annotator_id=user.id)
    return batch.stratum


def assert_figures_equal_the_live_status(task: Task) -> None:
    cursor = SumsCursor.objects.get(task=task)
    incremental = figures_from_sums(task, judgments=cursor.judgments).statuses
    full = task_statuses(task)
    assert len(incremental) == len(full) == 1
    mine, theirs = incremental[0], full[0]
    assert (mine.measure, mine.statistic) == (theirs.measure, theirs.statistic)
    assert [s.system for s in mine.systems] == [s.system for s in theirs.systems]
    for a, b in zip(mine.systems, theirs.systems, strict=True):
        assert a.judgments == b.judgments
        assert a.mean == pytest.approx(b.mean, abs=1e-9)
        assert a.interval == pytest.approx(b.interval, abs=1e-9)
    assert [p.status for p in mine.pairs] == [p.status for p in theirs.pairs]
    assert cursor.judgments == Judgment.objects.filter(task=task).count()


def _screen_systems(item) -> list[str]:
    return [name for candidate in item.candidates for name in candidate["systems"]]


def _stratum_names(campaign, stratum: int) -> set[str]:
    ids = campaign_systems(campaign_id=campaign.id)
    names = dict(System.objects.filter(campaign=campaign).values_list("id", "name"))
    return {names[ids[place]] for place in stratum_places(stratum=stratum)}


@pytest.mark.django_db
def test_an_adaptive_launch_plans_screens_of_sets_of_systems(manager):
    campaign = contrastive_campaign(manager)
    task = launch(campaign, judgments_per_item=2)
    rows = {row.stratum: row for row in SystemPriority.objects.filter(task=task)}
    # Five systems on screens of three: each of the ten sets of three is a stratum.
    assert set(rows) == {set_stratum(places=trio) for trio in itertools.combinations(range(5), 3)}
    # Each set first gets ceil(4 / (10 x 3 / 5)) = 1 screen: every system seen 6 times.
    assert {row.cold_start for row in rows.values()} == {1}
    positions: Counter = Counter()
    screens_per_set: Counter = Counter()
    for slot in Slot.objects.filter(task=task, is_repeat=False).select_related("item", "batch"):
        shown = _screen_systems(slot.item)
        assert len(shown) == len(set(shown)) == 3  # the screen size, no system twice
        assert set(shown) == _stratum_names(campaign, slot.batch.stratum)
        if slot.replica == 0:
            screens_per_set[slot.batch.stratum] += 1
            positions.update((name, place) for place, name in enumerate(shown))
    assert set(screens_per_set.values()) == {40}  # every set on every segment
    for name in QUALITY:  # positions balanced: each system about as often in each place
        placed = [positions[(name, place)] for place in range(3)]
        assert max(placed) - min(placed) <= 3, (name, placed)


@pytest.mark.django_db
def test_many_systems_make_pairs_filled_up_to_the_screen(manager):
    """Eleven systems on screens of three would be 165 sets: the strata are the 55 pairs,
    each screen its pair and one system that met it least."""
    names = [f"sys-{i:02d}" for i in range(11)]
    campaign = contrastive_campaign(manager, segments=11, systems=names)
    task = launch(campaign)
    strata = set(SystemPriority.objects.filter(task=task).values_list("stratum", flat=True))
    assert strata == {set_stratum(places=pair) for pair in itertools.combinations(range(11), 2)}
    met: Counter = Counter()
    for item, stratum in Slot.objects.filter(task=task).values_list("item", "batch__stratum"):
        shown = _screen_systems(task.items.get(id=item))
        assert len(set(shown)) == 3 and _stratum_names(campaign, stratum) < set(shown)
        met.update(itertools.combinations(sorted(shown), 2))
    assert len(met) == 55  # every pair met
    assert max(met.values()) - min(met.values()) <= 3, met


@pytest.mark.django_db
def test_after_the_cold_start_the_claim_follows_the_priorities(manager):
    campaign = contrastive_campaign(manager, segments=12)
    task = launch(campaign)
    first, second, third = annotators(campaign, 3)
    rows = list(SystemPriority.objects.filter(task=task).order_by("stratum"))
    wanted = rows[3].stratum
    for row in rows:  # every set past its cold start; one with most to gain
        row.judged, row.pending = 4, 0
        row.priority = 5.0 if row.stratum == wanted else 1.0
    SystemPriority.objects.bulk_update(rows, ["judged", "pending", "priority"])
    claimed = slot_claim_next(task=task, annotator_id=first.id)
    assert Batch.objects.get(id=claimed.batch_id).stratum == wanted
    # Claimed once (5 x (4/8)^2 = 1.25 > 1): still first; twice (0.56 < 1): another set.
    claimed = slot_claim_next(task=task, annotator_id=second.id)
    assert Batch.objects.get(id=claimed.batch_id).stratum == wanted
    claimed = slot_claim_next(task=task, annotator_id=third.id)
    assert Batch.objects.get(id=claimed.batch_id).stratum != wanted


@pytest.mark.django_db
def test_five_systems_settle_spending_most_screens_on_the_close_ones(manager, client):
    campaign = contrastive_campaign(manager)
    task = launch(campaign, repeat_rate=0.2, shuffle_rate=0.2)
    users = annotators(campaign, 3)
    screens = task.items.count()
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
    assert [s.system for s in status.systems] == ORDER
    assert_figures_equal_the_live_status(task)
    judged = Judgment.objects.filter(task=task).count()
    assert judged < screens / 2, (judged, screens)  # stopped long before the screens ran out
    observed = Counter(
        OutputJudgment.objects.filter(task=task, system__isnull=False).values_list(
            "system__name", flat=True
        )
    )
    # The cold start gave every set a batch; after it, every batch claimed served two close
    # systems (the far ones settle first), and the far ones were shown less than uniform
    # screens would show them (2/5 of the outputs).
    assert len({frozenset(names) for names in claimed_sets[:strata]}) == strata
    adaptive_phase = claimed_sets[strata:]
    assert adaptive_phase and all(len(names & CLOSE) >= 2 for names in adaptive_phase)
    far_share = (observed["far-top"] + observed["far-low"]) / sum(observed.values())
    assert far_share < 0.35, observed
    by_set = Counter(
        Judgment.objects.filter(task=task).values_list("slot__batch__stratum", flat=True)
    )
    # The refresh counted each set's screens; never a screen twice for an annotator.
    stored = dict(SystemPriority.objects.filter(task=task).values_list("stratum", "judged"))
    assert stored == {stratum: by_set.get(stratum, 0) for stratum in stored}
    per_annotator = Counter(
        Judgment.objects.filter(task=task, is_repeat=False).values_list("annotator_id", "item_id")
    )
    assert max(per_annotator.values()) == 1
    # Repeats and shuffled-screen checks reach whoever judged their original.
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
    # The live results page says it stopped, and shows the ranking status.
    client.force_login(manager)
    html = client.get(reverse("results-human", args=[campaign.id])).content.decode()
    assert f'id="task-settled-{task.id}"' in html and "Ranking status" in html


@pytest.mark.django_db
def test_a_ranking_of_the_systems_judged_so_far_does_not_stop_the_task(manager):
    """Three of five systems judged on their set's screens and ordered: the task goes on
    until the other two are judged too (the status knows only the systems judged)."""
    campaign = contrastive_campaign(manager)
    task = launch(campaign)
    (user,) = annotators(campaign, 1)
    rows = list(SystemPriority.objects.filter(task=task))
    wanted = next(r.stratum for r in rows if _stratum_names(campaign, r.stratum) == THREE)
    for row in rows:  # past the cold start; one set first until the refresh says otherwise
        row.judged, row.priority = 1, 100.0 if row.stratum == wanted else 0.0
    SystemPriority.objects.bulk_update(rows, ["judged", "priority"])
    for _ in range(10):
        judge_batch_as_claimed(task, user)
    refresh(task)
    figures = figures_from_sums(task, judgments=SumsCursor.objects.get(task=task).judgments)
    assert figures.settled and {s.system for s in figures.statuses[0].systems} == THREE
    task.refresh_from_db()
    assert task.settled_at is None
    assert not TaskNotice.objects.filter(task=task).exists()
    # The refresh sends the next claim to a set showing a system not judged yet.
    slot = slot_claim_next(task=task, annotator_id=user.id)
    assert _stratum_names(campaign, Batch.objects.get(id=slot.batch_id).stratum) - THREE


@pytest.mark.django_db
@pytest.mark.parametrize("task_type", ["contrastive_mqm", "contrastive_da"])
def test_the_refresh_figures_equal_the_live_status(manager, task_type):
    """Contrastive MQM (penalties from each output's spans, lower is better) and contrastive
    DA (z-scores per annotator): the running sums give the page's figures."""
    campaign = contrastive_campaign(manager, segments=12)
    task = launch(campaign, task_type=task_type, judgments_per_item=2)
    users = annotators(campaign, 2)
    for _ in range(6):
        for user in users:
            judge_batch(task, user)
            refresh(task)
    assert_figures_equal_the_live_status(task)
    status = task_statuses(task)[0]
    assert status.lower_is_better is (task_type == "contrastive_mqm")
    assert status.systems[0].system == "far-top"


@pytest.mark.django_db
def test_what_is_not_built_is_refused_with_a_reason(loaded_campaign):
    with pytest.raises(TaskError, match="do not implement assignment"):
        task_create(campaign=loaded_campaign, task_type="pairwise", assignment="adaptive")
    for task_type in ("contrastive_esa", "contrastive_mqm", "contrastive_da"):
        task = task_create(campaign=loaded_campaign, task_type=task_type, assignment="adaptive")
        assert task.assignment == "adaptive"


# A scripted annotator's pause between answers (people take seconds per screen), leaving
# the refresh job its turn on a loaded machine.
THINK_SECONDS = 0.05


def _annotate(task_id: int, token: str, user, acknowledged: list, errors: list) -> None:
    """A scripted annotator over the API: judges screens until the task gives it nothing."""
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    try:
        item = api.get(f"/api/v1/tasks/{task_id}/next").json()
        while not item["done"]:
            given = screen_answer("contrastive_esa", item["candidates"], user)
            answer = {"task": task_id, "slot": item["slot"], **given}
            response = api.post("/api/v1/judgments", answer, format="json")
            if response.status_code != 201:
                errors.append(response.content)
                return
            acknowledged.append(response.json()["id"])
            item = response.json()["next"] or {"done": True}
            time.sleep(THINK_SECONDS)
    finally:
        connection.close()


def settled_by_concurrent_annotators(task: Task, annotate) -> None:
    """Four annotators at once over the API (``annotate(task_id, token, user, acknowledged,
    errors)`` each), a real worker refreshing: the task stops by itself as resolved before
    half its slots are judged, every judgment recorded exactly once, no item given to
    anyone twice and no batch shared by two annotators (SKIP LOCKED)."""
    users = annotators(task.campaign, 4, tag="w")
    tokens = [Token.objects.create(user=user).key for user in users]
    worker_queue_drained()
    acknowledged: list[int] = []
    errors: list = []
    threads = [
        threading.Thread(target=annotate, args=(task.id, token, user, acknowledged, errors))
        for token, user in zip(tokens, users, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors[:3]
    task.refresh_from_db()
    assert task.settled_reason == "resolved", Judgment.objects.filter(task=task).count()
    stored = list(Judgment.objects.filter(task=task).values_list("id", flat=True))
    assert sorted(stored) == sorted(acknowledged)  # each recorded exactly once
    assert len(stored) < Slot.objects.filter(task=task).count() / 2
    per_annotator = Counter(
        Judgment.objects.filter(task=task).values_list("annotator_id", "item_id")
    )
    assert max(per_annotator.values()) == 1
    holders: dict[int, set] = {}
    for batch_id, annotator_id in Judgment.objects.filter(task=task).values_list(
        "slot__batch_id", "annotator_id"
    ):
        holders.setdefault(batch_id, set()).add(annotator_id)
    assert max(len(who) for who in holders.values()) == 1


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_concurrent_annotators_and_a_real_worker_stop_the_task(celery_worker_process, manager):
    """Four annotators at once over the API, a real worker refreshing the sets' priorities:
    the task stops by itself before its screens run out, every judgment recorded once, no
    batch shared by two annotators (SKIP LOCKED), no screen given to anyone twice."""
    campaign = contrastive_campaign(manager, segments=30)
    task = launch(campaign, judgments_per_item=2, batch_size=5)
    settled_by_concurrent_annotators(task, _annotate)
    notice = TaskNotice.objects.get(task=task)
    assert notice.figures["order"] == ORDER
    wait_for(
        lambda: (
            not Job.objects.filter(
                kind=Job.Kind.REFRESH_PRIORITIES, target_id=task.id, state__in=("queued", "running")
            ).exists()
        )
    )
    refresh(task)  # the judgments after the stop: no batch closed to ask for a refresh
    assert_figures_equal_the_live_status(task)
