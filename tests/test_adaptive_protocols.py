"""Adaptive assignment for every scored protocol (issue 23 section 1): Likert/DA, ESA, ESA^AI
and MQM (lower is better), segment and document units. Each kind is launched adaptive, its
claims are checked against the priorities the refresh wrote (the claim's own order,
recomputed here), and it settles by itself on answers that order its systems; the figures
the refresh keeps incrementally equal the live status computed from every judgment."""

from __future__ import annotations

import math

import pytest
from django.urls import reverse

from annotation.models import (
    REFERENCE_STRATUM,
    Batch,
    Judgment,
    Slot,
    SumsCursor,
    SystemPriority,
    Task,
)
from annotation.selectors.adaptive import figures_from_sums
from annotation.selectors.human.ranking_status import task_statuses
from annotation.services.adaptive import task_priorities_refresh
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import CLAIM_NONE, judgment_record
from annotation.services.page_judgments import page_record_and_claim_next
from annotation.services.task_rules import TaskError
from annotation.services.tasks import task_create

pytestmark = pytest.mark.django_db

# Each system's quality: ESA and DA scores around these, MQM errors in proportion.
QUALITY = {"Online-B": 88, "UEdin": 55, "happypoet": 22}
MQM_MAJORS = {"Online-B": 0, "UEdin": 2, "happypoet": 4}
ORDER = ["Online-B", "UEdin", "happypoet"]

KINDS = {
    "adequacy": ("adequacy", {"scale": "da100"}),
    "adequacy_fluency": ("adequacy_fluency", {"scale": "da100"}),
    "esa": ("esa", {}),
    "esa_prefilled": ("esa_prefilled", {}),
    "mqm": ("mqm", {}),
    "esa_document": ("esa", {"unit": "document", "page_size": 3, "judgments_per_item": 3}),
    "adequacy_document": (
        "adequacy",
        {"scale": "da100", "unit": "document", "page_size": 3, "judgments_per_item": 3},
    ),
}


def answer(task: Task, item, noise: int) -> dict:
    """An answer that orders the systems as ``QUALITY`` does, with a little noise."""
    system = item.system.name if item.system else "Online-B"  # a reference: judged well
    if task.task_type == "mqm":
        spans = [
            {"start": i, "end": i + 1, "severity": "major", "category": "Accuracy/Mistranslation"}
            for i in range(MQM_MAJORS[system])
        ]
        if noise % 2:
            spans.append({"start": 9, "end": 10, "severity": "minor", "category": "Style/Awkward"})
        return {"spans": spans}
    score = {"score": QUALITY[system] + noise % 7 - 3}
    if task.task_type == "adequacy_fluency":
        score["fluency"] = QUALITY[system] + noise % 5 - 2
    if task.task_type in ("esa", "esa_prefilled"):
        score["spans"] = []
    return score


def expected_stratum(task: Task, annotator_id: int) -> int | None:
    """The system the claim should take now, by its own rule (evalsite_adaptive_batch):
    still in the cold start first (fewest first), then the priority discounted by what was
    claimed since, among systems with an open batch holding nothing the annotator had."""
    had = set(Slot.objects.filter(task=task, annotator_id=annotator_id).values_list("item_id"))
    open_strata = set()
    for batch in Batch.objects.filter(task=task, state="open"):
        items = set(Slot.objects.filter(batch=batch).values_list("item_id"))
        if not items & had:
            open_strata.add(batch.stratum)

    def key(row: SystemPriority):
        seen = row.judged + row.pending
        cold = seen < task.cold_start
        share = (row.judged / max(seen, 1)) ** 2
        # PostgreSQL's float8: infinity x 0 is NaN, and NaN sorts above every number.
        nan = not cold and math.isinf(row.priority) and share == 0
        effective = 0.0 if cold or nan else row.priority * share
        return (not cold, not nan, -effective, seen, row.stratum)

    rows = sorted(
        (row for row in SystemPriority.objects.filter(task=task) if row.stratum in open_strata),
        key=key,
    )
    return rows[0].stratum if rows else None


def refresh(task: Task) -> None:
    """What the job does after each closed batch (the tests run in one transaction, so the
    job queued on commit never runs)."""
    task_priorities_refresh(target_id=task.id, report_progress=lambda percent: None)


def judge_batch(task: Task, user, counter: list[int]) -> bool:
    """The annotator claims a batch and judges it whole (page by page in a document task);
    False when the claim gives nothing. Checks that the batch is the priorities' choice."""
    wanted = expected_stratum(task, user.id)
    slot = slot_claim_next(task=task, annotator_id=user.id)
    if slot is None:
        return False
    batch = Batch.objects.get(id=slot.batch_id)
    assert batch.stratum == wanted, (batch.stratum, wanted)
    while slot is not None:
        if task.unit == "document":
            page = list(
                Slot.objects.filter(batch_id=slot.batch_id, page=slot.page)
                .select_related("item__system")
                .order_by("position")
            )
            answers = []
            for shown in page:
                counter[0] += 1
                answers.append({"slot": shown.id, **answer(task, shown.item, counter[0])})
            page_record_and_claim_next(
                task=task, slot_id=slot.id, annotator_id=user.id, answers=answers, claim=CLAIM_NONE
            )
        else:
            counter[0] += 1
            item = Slot.objects.select_related("item__system").get(id=slot.id).item
            given = answer(task, item, counter[0])
            judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer=given)
        batch.refresh_from_db()
        if batch.state == "done":
            break
        slot = slot_claim_next(task=task, annotator_id=user.id)
    return True


def assert_figures_equal_the_live_status(task: Task) -> None:
    cursor = SumsCursor.objects.get(task=task)
    incremental = figures_from_sums(task, judgments=cursor.judgments).statuses
    full = task_statuses(task)
    assert len(incremental) == len(full) >= 1
    for mine, theirs in zip(incremental, full, strict=True):
        assert (mine.measure, mine.statistic, mine.unit) == (
            theirs.measure,
            theirs.statistic,
            theirs.unit,
        )
        assert [s.system for s in mine.systems] == [s.system for s in theirs.systems]
        for a, b in zip(mine.systems, theirs.systems, strict=True):
            assert a.judgments == b.judgments
            assert a.mean == pytest.approx(b.mean, abs=1e-9)
            assert a.interval == pytest.approx(b.interval, abs=1e-9)
        assert [p.status for p in mine.pairs] == [p.status for p in theirs.pairs]
        for a, b in zip(mine.pairs, theirs.pairs, strict=True):
            if math.isfinite(b.difference):
                assert a.difference == pytest.approx(b.difference, abs=1e-9)
    assert cursor.judgments == Judgment.objects.filter(task=task).count()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_adaptive_task_of_each_scored_kind_claims_by_priority_and_settles(
    kind, launched, loaded_campaign, make_annotator, manager, client
):
    task_type, settings = KINDS[kind]
    task = launched(
        task_type, assignment="adaptive", batch_size=4, cold_start=2, seed=23, **settings
    )
    strata = set(Batch.objects.filter(task=task).values_list("stratum", flat=True))
    assert len(strata) == 3 and REFERENCE_STRATUM not in strata  # a batch per system
    users = [make_annotator(loaded_campaign, f"a{i}") for i in range(task.judgments_per_item)]
    counter = [0]
    claimed = True
    while claimed:
        claimed = False
        for user in users:
            if judge_batch(task, user, counter):
                claimed = True
                refresh(task)
    task.refresh_from_db()
    assert task.settled_reason == "resolved", kind
    status = task_statuses(task)[0]
    lower_first = task_type == "mqm"
    assert [s.system for s in status.systems] == ORDER
    assert status.lower_is_better is lower_first
    assert_figures_equal_the_live_status(task)
    judged = dict(SystemPriority.objects.filter(task=task).values_list("stratum", "judged"))
    in_batches: dict[int, int] = {}
    for stratum in Judgment.objects.filter(task=task).values_list(
        "slot__batch__stratum", flat=True
    ):
        in_batches[stratum] = in_batches.get(stratum, 0) + 1
    assert judged == {stratum: in_batches.get(stratum, 0) for stratum in judged}
    # The organiser is told on the results page, in the protocol's own section.
    client.force_login(manager)
    html = client.get(reverse("results-human", args=[loaded_campaign.id])).content.decode()
    assert f'id="task-settled-{task.id}"' in html and "Continue the task" in html


@pytest.mark.parametrize(
    ("task_type", "settings"),
    [
        ("pairwise", {}),
        ("ranking", {}),
        ("postedit", {}),
    ],
)
def test_a_protocol_without_scored_outputs_refuses_adaptive(loaded_campaign, task_type, settings):
    with pytest.raises(TaskError, match="do not implement assignment"):
        task_create(
            campaign=loaded_campaign, task_type=task_type, assignment="adaptive", **settings
        )


def test_an_adaptive_task_does_not_settle_while_a_system_is_unjudged(
    launched, loaded_campaign, make_annotator
):
    # The status knows only the systems judged so far: two systems far apart would settle it
    # while the third waits for its cold start (found in the contrastive work, where
    # concurrent first screens left a system out).
    task = launched("esa", assignment="adaptive", batch_size=12, cold_start=24, seed=23)
    user = make_annotator(loaded_campaign, "a0")
    counter = [0]
    for _ in range(2):
        assert judge_batch(task, user, counter)
        refresh(task)
    judged = SystemPriority.objects.filter(task=task, judged__gt=0).count()
    assert judged == 2
    status = figures_from_sums(task, judgments=counter[0]).statuses[0]
    assert status.settled  # the two judged systems alone are resolved
    task.refresh_from_db()
    assert task.settled_at is None
    assert judge_batch(task, user, counter)
    refresh(task)
    assert SystemPriority.objects.filter(task=task, judged=0).count() == 0
    task.refresh_from_db()
    assert task.settled_reason == "resolved"  # once every system is judged
