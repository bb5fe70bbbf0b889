"""Quality control on document pages records its outcome (issue 22 §2, issue 24 §2-3): a
repeat page is judged against the annotator's first page (the mean absolute difference of
the segments' scores), a bad-reference page by its damaged segments (every damage marked on
ESA and MQM, the mean score below the originals'), an MQM HOTW page by its injected errors;
one outcome per page on its first slot, loud or silent as on screens, in the reliability
table. Failed before: repeat and bad-reference pages recorded no outcome, and an ESA, MQM
or HOTW rate planned no check page on a document task at all."""

from __future__ import annotations

import pytest

from annotation.models import CheckOutcome, Item, ItemType, Judgment, Slot
from annotation.selectors.checks import check_outcomes
from annotation.selectors.human import human_results
from annotation.selectors.human.reliability import missed_said
from annotation.selectors.human.spans import span_results
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import CheckWarning
from annotation.services.page_judgments import page_record_and_claim_next

pytestmark = pytest.mark.django_db

MQM_CATEGORY = "Accuracy/Mistranslation"
PAGES = {"unit": "document", "page_size": 5}  # 12 segments: pages of 4
HIGH, LOW = 70, 20


def page_of(slot: Slot) -> list[Slot]:
    return list(
        Slot.objects.filter(batch_id=slot.batch_id, page=slot.page)
        .select_related("item")
        .order_by("position")
    )


def is_damaged(slot: Slot) -> bool:
    return slot.item.item_type in (ItemType.BAD, ItemType.CHK) and bool(slot.item.check_span)


def span(task, start, end, severity="major"):
    found = {"start": start, "end": end, "severity": severity}
    return {**found, "category": MQM_CATEGORY} if task.task_type == "mqm" else found


def answer(task, slot, *, score, spans=()):
    """One segment's answer: its score (MQM has none: its spans score it) and its spans."""
    given: dict = {}
    if task.task_type in ("esa", "mqm"):
        given["spans"] = list(spans)
    if task.task_type != "mqm":
        given["score"] = score
    return given


def attentive(task, slot, number=0):
    """Every damage marked and scored lower; a repeat answered as the first time."""
    if not is_damaged(slot):
        return answer(task, slot, score=HIGH)
    return answer(task, slot, score=LOW, spans=[span(task, *slot.item.check_span)])


def careless(task, slot, number=0):
    """Everything scored alike, nothing marked."""
    return answer(task, slot, score=HIGH)


def erratic(task, slot, number=0):
    """Repeats answered far from the first time (MQM: two errors where there were none)."""
    if not slot.is_repeat:
        return attentive(task, slot)
    return answer(task, slot, score=LOW, spans=[span(task, 0, 1), span(task, 2, 3)])


def contrastive(score_of):
    """A contrastive page's answer: every output scored ``score_of(slot)``."""

    def given(task, slot, number=0):
        return {
            "candidates": [{"score": score_of(slot), "spans": []} for _ in slot.item.candidates]
        }

    return given


def judge_pages(task, user, respond, *, again=None):
    """Every page the annotator gets, ``respond(task, slot, number)`` answering each segment;
    a loud warning answered with ``again`` (or the same answers). Returns the warnings (page,
    words) and the pages."""
    warnings, pages = [], []
    slot = slot_claim_next(task=task, annotator_id=user.id)
    while slot is not None:
        page = page_of(slot)
        pages.append(page)
        answers = [{"slot": s.id, **respond(task, s, n)} for n, s in enumerate(page)]
        record = {"task": task, "slot_id": page[0].id, "annotator_id": user.id}
        try:
            _, slot, _ = page_record_and_claim_next(**record, answers=answers)
        except CheckWarning as warning:
            warnings.append((page, str(warning)))
            assert not Judgment.objects.filter(slot__in=page).exists()  # nothing recorded
            if again is not None:
                answers = [{"slot": s.id, **again(task, s, n)} for n, s in enumerate(page)]
            _, slot, _ = page_record_and_claim_next(**record, answers=answers)
    return warnings, pages


def outcomes(task, kind):
    return list(CheckOutcome.objects.filter(task=task, kind=kind).order_by("id"))


def check_pages(pages, test):
    return [page for page in pages if test(page[0])]


# -- Planned at launch -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task_type", "rate", "item_type"),
    [
        ("esa", "bad_reference_rate", "BAD"),
        ("mqm", "bad_reference_rate", "BAD"),
        ("mqm", "hotw_rate", "CHK"),
    ],
)
def test_span_protocols_plan_damaged_pages_with_the_damage_to_mark(
    launched, task_type, rate, item_type
):
    task = launched(task_type, **PAGES, **{rate: 0.2})
    slots = list(
        Slot.objects.filter(task=task, item__item_type=item_type).select_related("item__original")
    )
    pages = {(s.batch_id, s.page) for s in slots}
    assert len(pages) == 2  # 0.2 of the group's 9 pages
    for slot in slots:
        item, original = slot.item, slot.item.original
        assert original.item_type == ItemType.TGT and original.segment_id == item.segment_id
        assert original.system_id == item.system_id
        first = Slot.objects.get(task=task, item=original, is_repeat=False)
        assert first.batch_id == slot.batch_id and first.position < slot.position
        start, end = item.check_span
        text, before = item.candidates[0]["text"], original.candidates[0]["text"]
        assert text != before and text[:start] == before[:start]
        assert text[end:] == before[len(before) - (len(text) - end) :]


def test_a_likert_plan_is_drawn_as_before(launched):
    """The Likert bad-reference pages keep their texts (one draw per segment, as before),
    and now say where the damage is."""
    task = launched("adequacy", scale="da100", bad_reference_rate=0.2, **PAGES)
    bad = Item.objects.filter(task=task, item_type=ItemType.BAD)
    assert bad.exists() and all(item.check_span for item in bad)


# -- Repeat pages ------------------------------------------------------------------------------


@pytest.mark.parametrize("task_type", ["esa", "mqm", "adequacy"])
def test_a_repeat_page_passes_alike_and_fails_far_from_the_first(
    launched, loaded_campaign, make_annotator, task_type
):
    extra = {"scale": "da100"} if task_type == "adequacy" else {}
    task = launched(task_type, repeat_rate=0.2, judgments_per_item=2, **PAGES, **extra)
    good, bad = (make_annotator(loaded_campaign, name) for name in ("good", "bad"))
    assert judge_pages(task, good, attentive)[0] == []
    warnings, pages = judge_pages(task, bad, erratic)
    assert warnings == []  # silent
    repeats = check_pages(pages, lambda slot: slot.is_repeat)
    assert len(repeats) == 2
    rows = [row for row in check_outcomes(task) if row.kind == "repeat"]
    assert [(row.annotator_id, row.passed) for row in rows] == [(good.id, True)] * 2 + [
        (bad.id, False)
    ] * 2
    # One outcome per page, on its first slot.
    assert {o.slot_id for o in outcomes(task, "repeat") if o.annotator_id == bad.id} == {
        page[0].id for page in repeats
    }
    gap = 10 if task_type == "mqm" else HIGH - LOW  # MQM: 0 the first time, 2 majors now
    assert rows[-1].reason == f"scored {gap} apart from the first time on average"


def test_a_repeat_page_is_judged_by_the_mean_difference(launched, loaded_campaign, make_annotator):
    """Hand computed: first 70 on every segment; the repeats 70, 80, 90, 100 (mean 15, within
    25 of 0-100) and 100 on every segment (mean 30: fails)."""
    task = launched("esa", repeat_rate=0.2, **PAGES)
    near = [70, 80, 90, 100]
    seen = []

    def respond(task, slot, number):
        if not slot.is_repeat:
            return answer(task, slot, score=70)
        if number == 0:
            seen.append(slot.id)
        return answer(task, slot, score=near[number] if len(seen) == 1 else 100)

    judge_pages(task, make_annotator(loaded_campaign, "ann"), respond)
    first, second = outcomes(task, "repeat")
    assert first.passed and first.reason == ""
    assert not second.passed and second.reason == "scored 30 apart from the first time on average"
    # The reliability table's repeat column: every segment of the repeat pages a pair.
    (result,) = span_results(loaded_campaign)
    (row,) = result.reliability
    assert row.repeats.pairs == 8 and row.repeats.mean == pytest.approx(
        (0 + 10 + 20 + 30 + 4 * 30) / 8
    )
    assert (row.attention.passed, row.attention.total) == (1, 2)
    assert row.missed == (("repeat", 1),)


def test_an_mqm_repeat_page_is_judged_by_its_penalties(launched, loaded_campaign, make_annotator):
    """No error the first time; one major on each segment (5 apart: within 5 MQM points)."""
    task = launched("mqm", repeat_rate=0.2, **PAGES)

    def respond(task, slot, number):
        return answer(task, slot, score=None, spans=[span(task, 0, 1)] if slot.is_repeat else [])

    judge_pages(task, make_annotator(loaded_campaign, "ann"), respond)
    assert [o.passed for o in outcomes(task, "repeat")] == [True, True]


def test_a_loud_repeat_page_warns_once_and_records_the_second_answer(
    launched, loaded_campaign, make_annotator
):
    task = launched("esa", repeat_rate=0.2, check_feedback="loud", **PAGES)
    user = make_annotator(loaded_campaign, "ann")
    warnings, _ = judge_pages(task, user, erratic, again=attentive)
    assert [words for _, words in warnings] == [
        "Please read the translations again carefully before answering"
    ] * 2
    for page, _ in warnings:
        outcome = CheckOutcome.objects.get(slot=page[0])
        assert outcome.loud and outcome.warned and not outcome.passed
        assert outcome.passed_again is True  # answered as the first time
        assert list(Judgment.objects.filter(slot__in=page).values_list("score", flat=True)) == [
            HIGH
        ] * len(page)


@pytest.mark.parametrize("task_type", ["contrastive_esa", "contrastive_da"])
def test_a_contrastive_repeat_page_compares_every_output(
    launched, loaded_campaign, make_annotator, task_type
):
    task = launched(task_type, repeat_rate=0.34, check_feedback="loud", **PAGES)
    user = make_annotator(loaded_campaign, "ann")
    far = contrastive(lambda slot: 10 if slot.is_repeat else 80)
    warnings, pages = judge_pages(task, user, far)  # the same answers again
    (repeat,) = check_pages(pages, lambda slot: slot.is_repeat)
    assert [page for page, _ in warnings] == [repeat]
    outcome = CheckOutcome.objects.get(task=task)
    assert (outcome.kind, outcome.slot_id, outcome.passed, outcome.passed_again) == (
        "repeat",
        repeat[0].id,
        False,
        False,
    )
    assert outcome.reason == "scored 70 apart from the first time on average"
    (result,) = human_results(loaded_campaign).tasks
    (row,) = result.reliability
    outputs = sum(len(slot.item.candidates) for slot in repeat)
    assert row.repeats.pairs == outputs and row.repeats.mean == pytest.approx(70)
    assert (row.attention.passed, row.attention.total) == (0, 1)


# -- Bad-reference and HOTW pages --------------------------------------------------------------


@pytest.mark.parametrize("task_type", ["esa", "mqm"])
def test_a_bad_reference_page_needs_every_damage_marked_and_a_lower_score(
    launched, loaded_campaign, make_annotator, task_type
):
    task = launched(task_type, bad_reference_rate=0.2, judgments_per_item=3, **PAGES)
    good, bad, half = (make_annotator(loaded_campaign, n) for n in ("good", "bad", "half"))
    assert judge_pages(task, good, attentive)[0] == []
    judge_pages(task, bad, careless)

    def one_missed(task, slot, number):  # all but the second damaged segment marked
        return careless(task, slot) if number == 1 and is_damaged(slot) else attentive(task, slot)

    _, pages = judge_pages(task, half, one_missed)
    rows = {}
    for row in check_outcomes(task):
        assert row.kind == "bad_reference"
        rows.setdefault(row.annotator_id, []).append(row)
    assert [r.passed for r in rows[good.id]] == [True, True]
    assert [r.passed for r in rows[bad.id]] == [False, False]
    damaged = [len(page) for page in check_pages(pages, is_damaged)]
    said = "MQM 0" if task_type == "mqm" else str(HIGH)
    assert rows[bad.id][0].reason == (
        f"the damage not marked in segments {', '.join(map(str, range(1, damaged[0] + 1)))}; "
        f"{damaged[0]} damaged segments scored {said} on average, not below their originals' "
        f"{said}"
    )
    assert [r.reason for r in rows[half.id]] == ["the damage not marked in segment 2"] * 2
    # In the reliability table: the failed pages said as bad references.
    (result,) = span_results(loaded_campaign)
    table = {row.annotator_id: row for row in result.reliability}
    assert (table[good.id].attention.passed, table[good.id].attention.total) == (2, 2)
    assert table[bad.id].missed == (("bad_reference", 2),)
    assert missed_said(table[bad.id].missed) == "2 bad references"


def test_a_likert_bad_reference_page_must_be_scored_lower(
    launched, loaded_campaign, make_annotator
):
    task = launched(
        "adequacy", scale="da100", bad_reference_rate=0.2, judgments_per_item=2, **PAGES
    )
    good, bad = (make_annotator(loaded_campaign, n) for n in ("good", "bad"))
    judge_pages(task, good, attentive)
    judge_pages(task, bad, careless)
    rows = check_outcomes(task)
    assert [(r.annotator_id, r.kind, r.passed) for r in rows] == [
        (good.id, "bad_reference", True)
    ] * 2 + [(bad.id, "bad_reference", False)] * 2
    assert rows[-1].reason.endswith("scored 70 on average, not below their originals' 70")
    (result,) = human_results(loaded_campaign).tasks
    table = {row.annotator_id: row for row in result.reliability}
    assert result.reliability.bad_reference  # the bad-reference test reads the segments too
    assert table[bad.id].missed == (("bad_reference", 2),)
    assert (table[good.id].attention.passed, table[good.id].attention.total) == (2, 2)


def test_a_loud_bad_reference_page_warns_with_the_pages_words(
    launched, loaded_campaign, make_annotator
):
    task = launched("esa", bad_reference_rate=0.2, check_feedback="loud", **PAGES)
    warnings, _ = judge_pages(task, make_annotator(loaded_campaign, "ann"), careless)
    assert [words for _, words in warnings] == [
        "Please look again: this page has errors you have not marked or scored"
    ] * 2
    assert [o.passed_again for o in outcomes(task, "bad_reference")] == [False, False]


def test_an_mqm_hotw_page_needs_every_injected_error_marked(
    launched, loaded_campaign, make_annotator
):
    task = launched("mqm", hotw_rate=0.2, judgments_per_item=2, **PAGES)
    good, bad = (make_annotator(loaded_campaign, n) for n in ("good", "bad"))
    judge_pages(task, good, attentive)
    judge_pages(task, bad, careless)
    rows = check_outcomes(task)
    assert [(r.annotator_id, r.kind, r.passed) for r in rows] == [(good.id, "hotw", True)] * 2 + [
        (bad.id, "hotw", False)
    ] * 2
    assert rows[-1].reason.startswith("the injected error not marked in segments 1, 2")
    (result,) = span_results(loaded_campaign)
    table = {row.annotator_id: row for row in result.reliability}
    assert table[bad.id].missed == (("hotw", 2),)


def test_a_repeat_page_of_originals_judged_by_someone_else_has_no_outcome(
    launched, loaded_campaign, make_annotator
):
    """A batch taken over half-way: the repeat page's originals are not theirs to compare."""
    from annotation.services.page_check_answers import page_check_result

    task = launched("esa", repeat_rate=0.2, **PAGES)
    repeat = page_of(Slot.objects.filter(task=task, is_repeat=True).order_by("position")[0])
    answers = [({"score": 10}, []) for _ in repeat]
    someone = make_annotator(loaded_campaign, "someone")
    assert (
        page_check_result(task=task, slots=repeat, answers=answers, annotator_id=someone.id) is None
    )
