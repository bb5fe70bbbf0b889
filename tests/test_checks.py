"""Attention checks in every protocol (issue 24 §2): bad references in ESA, ESA^AI and MQM
whose damage must be marked and scored lower, MQM's HOTW errors, repeats; loud or silent per
task; outcomes recorded and read through ``check_outcomes``; checks spread inside batches,
never next to their originals."""

from __future__ import annotations

import pytest

from annotation.models import CheckOutcome, Item, ItemType, Judgment, Slot
from annotation.selectors.checks import check_outcomes, check_summaries
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import CheckWarning, judgment_record

pytestmark = pytest.mark.django_db

MQM_CATEGORY = "Accuracy/Mistranslation"


def _text(slot: Slot) -> str:
    return slot.item.candidates[0]["text"]


def _span_of_check(slot: Slot) -> tuple[int, int] | None:
    return tuple(slot.item.check_span) if slot.item.check_span else None


def attentive_answer(task, slot):
    """Marks the damage of a check (and nothing in a clean output); scores checks low."""
    damage = _span_of_check(slot)
    spans = []
    if damage is not None:
        spans = [{"start": damage[0], "end": damage[1], "severity": "major"}]
        if task.task_type == "mqm":
            spans[0]["category"] = MQM_CATEGORY
    if task.task_type == "mqm":
        return {"spans": spans}
    if task.task_type in ("esa", "esa_prefilled"):
        return {"score": 20 if damage else 80, "spans": spans}
    return {"score": 1 if slot.item.item_type == ItemType.BAD else 4}


def careless_answer(task, slot):
    """The same high score everywhere, no error marked."""
    if task.task_type == "mqm":
        return {"spans": []}
    if task.task_type in ("esa", "esa_prefilled"):
        return {"score": 90, "spans": []}
    return {"score": 5}


def judge_all(task, user, answer, *, loud_retry=None):
    """Judges every slot the annotator gets; a loud warning is answered with ``loud_retry``
    (the same answer when None). Returns the warnings seen."""
    warnings = []
    while (slot := slot_claim_next(task=task, annotator_id=user.id)) is not None:
        try:
            judgment_record(
                task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer=answer(task, slot)
            )
        except CheckWarning as warning:
            warnings.append(str(warning))
            again = (loud_retry or answer)(task, slot)
            judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer=again)
    return warnings


@pytest.mark.parametrize("task_type", ["esa", "esa_prefilled", "mqm"])
def test_span_tasks_plan_bad_references_with_their_damage(launched, task_type):
    """Failed before: an ESA task refused bad_reference_rate ("do not implement")."""
    task = launched(task_type, bad_reference_rate=0.2, repeat_rate=0.1, batch_size=10)
    bad = list(Item.objects.filter(task=task, item_type=ItemType.BAD).select_related("original"))
    assert bad, "bad references are planned for span tasks"
    for item in bad:
        start, end = item.check_span
        text, original = item.candidates[0]["text"], item.original.candidates[0]["text"]
        assert text != original and 0 <= start < end <= len(text)
        assert text[:start] == original[:start]  # the damage starts where the texts part


def test_mqm_plans_hotw_errors_marked_as_checks(launched):
    task = launched("mqm", hotw_rate=0.2, batch_size=10)
    hotw = list(Item.objects.filter(task=task, item_type=ItemType.CHK))
    assert hotw and all(item.original_id and item.check_span for item in hotw)
    for item in hotw:
        start, end = item.check_span
        original = Item.objects.get(id=item.original_id).candidates[0]["text"]
        shown = item.candidates[0]["text"]
        assert shown[start:end].split() == original[start:end].split()[::-1]


@pytest.mark.parametrize(
    ("task_type", "settings"),
    [
        ("esa", {"bad_reference_rate": 0.2, "repeat_rate": 0.2}),
        ("mqm", {"bad_reference_rate": 0.1, "hotw_rate": 0.1, "repeat_rate": 0.2}),
        ("adequacy", {"bad_reference_rate": 0.2, "repeat_rate": 0.2}),
    ],
)
def test_checks_spread_in_batches_never_next_to_their_originals(launched, task_type, settings):
    task = launched(task_type, batch_size=12, **settings)
    slots = list(Slot.objects.filter(task=task).select_related("item"))
    where = {(s.batch_id, s.item_id, s.is_repeat): s.position for s in slots}
    checks = 0
    for slot in slots:
        original = slot.item.original_id if slot.item.item_type in ("BAD", "CHK") else None
        if slot.is_repeat:
            original = slot.item_id
        if original is None:
            continue
        first = where.get((slot.batch_id, original, False))
        assert first is not None, "a check comes in the batch of its original"
        assert slot.position - first >= 2, "never adjacent, always after"
        checks += 1
    assert checks >= 4


@pytest.mark.parametrize("task_type", ["esa", "mqm", "adequacy"])
def test_silent_checks_record_outcomes_attentive_pass_careless_fail(
    launched, loaded_campaign, make_annotator, task_type
):
    settings = {"bad_reference_rate": 0.2, "repeat_rate": 0.2}
    if task_type == "mqm":
        settings["hotw_rate"] = 0.1
    task = launched(task_type, batch_size=12, items_per_annotator=12, **settings)
    good = make_annotator(loaded_campaign, "good")
    bad = make_annotator(loaded_campaign, "bad")
    assert judge_all(task, good, attentive_answer) == []
    assert judge_all(task, bad, careless_answer) == []  # silent: never warned
    rows = check_outcomes(task)
    mine = {u.id: [r for r in rows if r.annotator_id == u.id] for u in (good, bad)}
    assert mine[good.id] and all(r.passed for r in mine[good.id])
    kinds_failed = {r.kind for r in mine[bad.id] if not r.passed}
    assert "bad_reference" in kinds_failed
    if task_type == "mqm":
        assert "hotw" in kinds_failed
        assert {r.kind for r in mine[good.id]} >= {"bad_reference", "hotw", "repeat"}
    # A repeat of the same answer passes for both.
    assert all(r.passed for r in mine[bad.id] if r.kind == "repeat")
    assert not any(r.warned for r in rows)
    summaries = check_summaries(task)
    assert summaries[good.id].passes and not summaries[bad.id].passes
    assert summaries[good.id].pass_rate == 1.0
    # Silent: every answer was recorded, one judgment per slot.
    judged = Judgment.objects.filter(task=task, annotator=bad).count()
    assert judged == Slot.objects.filter(task=task, annotator=bad).count()


def test_loud_check_warns_and_asks_again_once(launched, loaded_campaign, make_annotator):
    task = launched(
        "esa", batch_size=12, items_per_annotator=12, bad_reference_rate=0.2, check_feedback="loud"
    )
    bad = make_annotator(loaded_campaign, "bad")
    warnings = judge_all(task, bad, careless_answer)
    outcomes = list(CheckOutcome.objects.filter(task=task, annotator=bad))
    failed = [o for o in outcomes if not o.passed]
    assert failed and len(warnings) == len(failed)
    assert all("look again" in w for w in warnings)
    assert all(o.loud and o.warned and o.passed_again is False for o in failed)
    # The second answer was recorded: every slot has its judgment.
    assert (
        Judgment.objects.filter(annotator=bad, task=task).count()
        == Slot.objects.filter(task=task, annotator=bad).count()
    )
    # Corrected after the warning: passed_again.
    other = make_annotator(loaded_campaign, "other")
    judge_all(task, other, careless_answer, loud_retry=attentive_answer)
    corrected = CheckOutcome.objects.filter(task=task, annotator=other, passed=False)
    assert corrected and all(o.passed_again for o in corrected)


def test_hotw_is_never_counted_in_mqm_scores(launched, loaded_campaign, make_annotator):
    from annotation.selectors.human.spans import span_task_results

    task = launched("mqm", batch_size=12, hotw_rate=0.2)
    good = make_annotator(loaded_campaign, "good")
    judge_all(task, good, attentive_answer)
    hotw = Judgment.objects.filter(task=task, item__item_type=ItemType.CHK)
    assert hotw.exists() and all(j.spans.exists() for j in hotw)
    results = span_task_results(task)
    # Only clean outputs were judged as TGT, with no error marked: every system scores 0.
    assert results.mqm is not None
    assert all(row.score == 0 for row in results.mqm.systems)


def test_contrastive_rule_shuffled_below_both_clean():
    from annotation.services.check_answers import contrastive_result

    assert contrastive_result(scores=[80, 20, 75], shuffled=1).passed
    assert not contrastive_result(scores=[80, 76, 75], shuffled=1).passed  # above one clean
    assert not contrastive_result(scores=[80, 80, 90], shuffled=1).passed  # a tie is no pass
    assert not contrastive_result(scores=[80, None, 90], shuffled=1).passed


def test_a_screen_with_a_shuffled_candidate_is_a_contrastive_check(
    launched, loaded_campaign, make_annotator
):
    """Ready for the contrastive protocol: an item whose candidates include one of type CHK
    (``lib.perturb.shuffled``) is checked on the candidates' scores."""
    import random

    from annotation.lib.perturb import shuffled

    task = launched("pairwise", scale="da100", batch_size=6, items_per_annotator=6)
    user = make_annotator(loaded_campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=user.id)
    item = slot.item
    text = item.candidates[1]["text"]
    item.candidates[1] = {
        **item.candidates[1],
        "text": shuffled(text, language="de", rng=random.Random(1)).text,
        "type": "CHK",
    }
    item.item_type = ItemType.CHK
    item.save(update_fields=["candidates", "item_type"])
    judgment_record(
        task_id=task.id,
        slot_id=slot.id,
        annotator_id=user.id,
        answer={"candidate_scores": [20, 70]},
    )
    (row,) = check_outcomes(task)
    assert (row.kind, row.passed) == ("contrastive", False)


def test_a_skip_cancels_every_check_made_from_the_item(launched, loaded_campaign, make_annotator):
    """sql/0029: the skipped item's bad references and HOTW errors leave the batch (before,
    only bad references did), and the batch shrinks by them."""
    from annotation.services.judgments import skip_record

    task = launched("mqm", batch_size=12, bad_reference_rate=0.2, hotw_rate=0.2)
    user = make_annotator(loaded_campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=user.id)
    companions = Slot.objects.filter(batch=slot.batch, item__original_id=slot.item_id)
    while not companions.filter(item__item_type=ItemType.CHK).exists():
        judgment_record(
            task_id=task.id,
            slot_id=slot.id,
            annotator_id=user.id,
            answer=careless_answer(task, slot),
        )
        slot = slot_claim_next(task=task, annotator_id=user.id)
        companions = Slot.objects.filter(batch=slot.batch, item__original_id=slot.item_id)
    size = slot.batch.size
    cancelled = companions.count()
    skip_record(task_id=task.id, slot_id=slot.id, annotator_id=user.id, reason="garbled")
    assert not companions.exists()
    slot.batch.refresh_from_db()
    assert slot.batch.size == size - cancelled


def test_the_api_gives_a_loud_warning_as_a_400_then_takes_the_answer(
    launched, loaded_campaign, make_annotator
):
    from rest_framework.test import APIClient

    task = launched("esa", batch_size=10, bad_reference_rate=0.2, check_feedback="loud")
    api = APIClient()
    api.force_authenticate(make_annotator(loaded_campaign, "ann"))
    item = api.get(f"/api/v1/tasks/{task.id}/next").json()
    while Slot.objects.get(id=item["slot"]).item.item_type != ItemType.BAD:
        body = {"task": task.id, "slot": item["slot"], "score": 90, "spans": []}
        item = api.post("/api/v1/judgments", body, format="json").json()["next"]
    body = {"task": task.id, "slot": item["slot"], "score": 90, "spans": []}
    warned = api.post("/api/v1/judgments", body, format="json")
    assert warned.status_code == 400 and "look again" in warned.json()["error"]
    assert not Judgment.objects.filter(slot_id=item["slot"]).exists()
    assert api.post("/api/v1/judgments", body, format="json").status_code == 201
    outcome = CheckOutcome.objects.get(slot_id=item["slot"])
    assert outcome.warned and outcome.passed_again is False
