"""WMT26's attention check planned into contrastive screens (issue 24 §2, issue 22 §2): a
screen shown again with one output's words shuffled must be scored below the clean ones;
loud or silent; outcomes recorded; spread in batches, never next to their originals; and
repeats of contrastive screens judged as checks too. Failed before: ``shuffle_rate`` was an
unknown setting, and a repeated screen recorded no outcome."""

from __future__ import annotations

import pytest

from annotation.models import CheckOutcome, Item, ItemType, Judgment, OutputJudgment, Slot
from annotation.protocols import protocol_for
from annotation.selectors.checks import check_outcomes
from annotation.selectors.contrastive import contrastive_system_means
from annotation.selectors.human import human_results
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import CheckWarning, judgment_record
from annotation.services.tasks import TaskError, task_create

pytestmark = pytest.mark.django_db

MQM_CATEGORY = "Accuracy/Mistranslation"


def _shuffled_place(slot: Slot) -> int | None:
    types = [c.get("type") for c in slot.item.candidates]
    return types.index(ItemType.CHK) if ItemType.CHK in types else None


def attentive(task, slot, *, repeat_shift=0):
    """The shuffled candidate scored (or marked) lowest; clean ones alike."""
    bad = _shuffled_place(slot)
    entries = []
    for i, candidate in enumerate(slot.item.candidates):
        if task.task_type == "contrastive_mqm":
            spans = []
            if i == bad:
                end = len(candidate["text"])
                spans = [{"start": 0, "end": end, "severity": "major", "category": MQM_CATEGORY}]
            entries.append({"spans": spans})
        else:
            score = 10 if i == bad else 80 - 5 * i
            if slot.is_repeat:
                score = max(0, score - repeat_shift)
            entries.append({"score": score, "spans": []})
    return {"candidates": entries}


def careless(task, slot):
    """The same score everywhere, nothing marked."""
    if task.task_type == "contrastive_mqm":
        return {"candidates": [{"spans": []} for _ in slot.item.candidates]}
    return {"candidates": [{"score": 90, "spans": []} for _ in slot.item.candidates]}


def judge_all(task, user, answer):
    """Every slot the annotator gets; a loud warning answered with the same answer. Returns
    the warnings seen."""
    warnings = []
    while (slot := slot_claim_next(task=task, annotator_id=user.id)) is not None:
        try:
            judgment_record(
                task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer=answer(task, slot)
            )
        except CheckWarning as warning:
            warnings.append(str(warning))
            judgment_record(
                task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer=answer(task, slot)
            )
    return warnings


def test_the_rate_is_a_declared_setting_of_the_contrastive_protocols_only(loaded_campaign):
    for task_type in ("contrastive_esa", "contrastive_mqm", "contrastive_da"):
        assert protocol_for(task_type).applies("shuffle_rate")
    assert not protocol_for("esa").applies("shuffle_rate")
    with pytest.raises(TaskError, match="do not implement shuffle_rate"):
        task_create(campaign=loaded_campaign, task_type="esa", shuffle_rate=0.1)
    with pytest.raises(TaskError, match="shuffled-translation checks"):
        task_create(
            campaign=loaded_campaign,
            task_type="contrastive_esa",
            shuffle_rate=0.6,
            repeat_rate=0.5,
        )


@pytest.mark.parametrize("task_type", ["contrastive_esa", "contrastive_mqm", "contrastive_da"])
def test_check_screens_are_planned_from_a_screen_with_one_output_shuffled(launched, task_type):
    task = launched(task_type, shuffle_rate=0.25, batch_size=12)
    checks = list(Item.objects.filter(task=task, item_type=ItemType.CHK).select_related("original"))
    assert len(checks) == 4  # 3 of 12 in the first group of 9 screens, 1 in the last of 3
    for item in checks:
        original = item.original
        assert original is not None and original.item_type == ItemType.TGT
        assert item.segment_id == original.segment_id
        types = [c["type"] for c in item.candidates]
        assert types.count(ItemType.CHK) == 1 and len(types) == len(original.candidates)
        assert all(c["systems"] == [] for c in item.candidates)  # counted for no system
        bad = item.candidates[types.index(ItemType.CHK)]["text"]
        clean = sorted(c["text"] for c in item.candidates if c["type"] != ItemType.CHK)
        texts = [c["text"] for c in original.candidates]
        (source,) = [t for t in texts if t not in clean]  # the one shuffled
        assert sorted(texts) == sorted([*clean, source])
        assert bad != source and sorted(bad.split()) == sorted(source.split())
        moved = sum(a != b for a, b in zip(bad.split(), source.split(), strict=True))
        assert 2 <= moved <= 5  # five tokens rotated (repeated words may stay alike)


def test_check_screens_come_in_their_originals_batch_never_next_to_them(launched):
    task = launched("contrastive_esa", shuffle_rate=0.25, repeat_rate=0.25, batch_size=12)
    slots = list(Slot.objects.filter(task=task).select_related("item"))
    where = {(s.batch_id, s.item_id, s.is_repeat): s.position for s in slots}
    checked = 0
    for slot in slots:
        if slot.item.item_type == ItemType.CHK:
            original = slot.item.original_id
        elif slot.is_repeat:
            original = slot.item_id
        else:
            continue
        first = where.get((slot.batch_id, original, False))
        assert first is not None and slot.position - first >= 2
        checked += 1
    assert checked >= 6


@pytest.mark.parametrize("task_type", ["contrastive_esa", "contrastive_mqm"])
def test_silent_shuffle_checks_pass_the_attentive_and_fail_the_careless(
    launched, loaded_campaign, make_annotator, task_type
):
    task = launched(task_type, shuffle_rate=0.25, batch_size=12, items_per_annotator=12)
    good = make_annotator(loaded_campaign, "good")
    bad = make_annotator(loaded_campaign, "bad")
    assert judge_all(task, good, attentive) == []
    assert judge_all(task, bad, careless) == []  # silent: never warned
    rows = [r for r in check_outcomes(task) if r.kind == "contrastive"]
    mine = {u.id: [r for r in rows if r.annotator_id == u.id] for u in (good, bad)}
    assert mine[good.id] and all(r.passed for r in mine[good.id])
    assert mine[bad.id] and not any(r.passed for r in mine[bad.id])
    # No system's results count a check screen.
    checks = OutputJudgment.objects.filter(task=task, item__item_type=ItemType.CHK)
    assert checks.exists() and not checks.filter(system__isnull=False).exists()
    counted = sum(m.judgments for m in contrastive_system_means(task))
    assert (
        counted
        == OutputJudgment.objects.filter(
            task=task, item__item_type=ItemType.TGT, is_repeat=False
        ).count()
    )


def test_a_loud_shuffle_check_warns_once_and_records_the_second_answer(
    launched, loaded_campaign, make_annotator
):
    task = launched(
        "contrastive_esa",
        shuffle_rate=0.25,
        batch_size=12,
        items_per_annotator=12,
        check_feedback="loud",
    )
    user = make_annotator(loaded_campaign, "hasty")
    warnings = judge_all(task, user, careless)
    assert warnings and all("words out of order" in w for w in warnings)
    outcomes = list(CheckOutcome.objects.filter(task=task, kind="contrastive"))
    assert len(outcomes) == len(warnings)
    assert all(o.warned and o.loud and not o.passed and o.passed_again is False for o in outcomes)


@pytest.mark.parametrize(
    ("task_type", "shift", "passes"),
    [("contrastive_esa", 0, True), ("contrastive_esa", 40, False), ("contrastive_da", 20, True)],
)
def test_a_repeated_screen_is_a_check_on_every_candidates_score(
    launched, loaded_campaign, make_annotator, task_type, shift, passes
):
    task = launched(task_type, repeat_rate=0.25, batch_size=12, items_per_annotator=12)
    user = make_annotator(loaded_campaign, "ann")
    judge_all(task, user, lambda t, s: attentive(t, s, repeat_shift=shift))
    repeats = [r for r in check_outcomes(task) if r.kind == "repeat"]
    assert len(repeats) == Judgment.objects.filter(task=task, is_repeat=True).count()
    assert repeats and all(r.passed is passes for r in repeats)


def test_a_repeated_contrastive_mqm_screen_compares_each_candidates_penalty(
    launched, loaded_campaign, make_annotator
):
    task = launched("contrastive_mqm", repeat_rate=0.25, batch_size=12, items_per_annotator=12)
    user = make_annotator(loaded_campaign, "ann")

    def answer(task, slot):
        # Two major errors (10 points) on the first candidate the first time, on the second
        # when repeated: each is 10 points from its first answer (the tolerance is 5).
        marked = 1 if slot.is_repeat else 0
        errors = [
            {"start": start, "end": start + 2, "severity": "major", "category": MQM_CATEGORY}
            for start in (0, 4)
        ]
        return {
            "candidates": [
                {"spans": errors if i == marked else []} for i, _ in enumerate(slot.item.candidates)
            ]
        }

    judge_all(task, user, answer)
    repeats = [r for r in check_outcomes(task) if r.kind == "repeat"]
    assert repeats and not any(r.passed for r in repeats)
    assert all("apart from the first time" in r.reason for r in repeats)


def test_the_rankings_never_read_a_check_screen(launched, loaded_campaign, make_annotator):
    task = launched("contrastive_esa", shuffle_rate=0.25, batch_size=12, items_per_annotator=12)
    judge_all(task, make_annotator(loaded_campaign, "ann"), attentive)
    (results,) = human_results(loaded_campaign).tasks
    names = {s.name for s in results.pairwise}
    assert names == {"Online-B", "UEdin", "happypoet"}
