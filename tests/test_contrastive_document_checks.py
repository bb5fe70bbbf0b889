"""WMT26's shuffled-translation check on contrastive document pages, and the pages' scores
per output in the results and downloads (issue 22, §2 leftovers).

A check page is a page of the batch shown again with one output's segments shuffled (five
tokens rotated), its outputs in a new order, never right after a page of its segments; the
shuffled output's mean segment score must be below each clean output's; loud or silent as
on screens, its outcome in the reliability table. Failed before: a contrastive document task
with ``shuffle_rate`` was refused at creation, and a contrastive page's scores per output
reached neither the results nor a download."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter

import pytest
from django.urls import reverse

from annotation.models import CheckOutcome, Item, ItemType, Judgment, OutputJudgment, PageScore
from annotation.selectors.checks import check_outcomes
from annotation.selectors.contrastive import contrastive_system_means
from annotation.selectors.human import human_results
from annotation.selectors.human.spans import span_results
from annotation.selectors.pages import page_outputs
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import CheckWarning
from annotation.services.page_checks import column_texts
from annotation.services.page_judgments import page_record_and_claim_next
from tests.test_contrastive_documents import SYSTEMS, page_of

pytestmark = pytest.mark.django_db

MQM_CATEGORY = "Accuracy/Mistranslation"
CHECKED = {"unit": "document", "page_size": 5, "shuffle_rate": 0.34}


def shuffled_place(item: Item) -> int | None:
    types = [candidate.get("type") for candidate in item.candidates]
    return types.index(ItemType.CHK) if ItemType.CHK in types else None


def attentive(task, slot, tie=False):
    """The shuffled output scored (MQM: marked) lower than the clean ones, or on one
    segment (``tie``) alike."""
    bad = shuffled_place(slot.item)
    entries = []
    for i, candidate in enumerate(slot.item.candidates):
        if task.task_type == "contrastive_mqm":
            whole = {"start": 0, "end": len(candidate["text"]), "severity": "major"}
            spans = [{**whole, "category": MQM_CATEGORY}] if i == bad else []
            entries.append({"spans": spans})
        else:
            entries.append({"score": 80 if tie or i != bad else 20, "spans": []})
    return entries


def careless(task, slot, tie=False):
    if task.task_type == "contrastive_mqm":
        return [{"spans": []} for _ in slot.item.candidates]
    return [{"score": 80, "spans": []} for _ in slot.item.candidates]


def judge_pages(task, user, answer, *, again=None, scores=False, tie_once=False):
    """Every page the annotator gets; a loud warning answered with ``again`` (or the same
    answer); ``tie_once``: ``answer`` told to tie on a check page's first shuffled segment.
    Returns the warnings and the check pages (their slots) met."""
    warnings, checks = [], []
    slot = slot_claim_next(task=task, annotator_id=user.id)
    while slot is not None:
        page = page_of(slot)
        is_check = page[0].item.item_type == ItemType.CHK
        if is_check:
            checks.append(page)
        damaged = [s.id for s in page if shuffled_place(s.item) is not None]
        tie_on = set(damaged[:1]) if tie_once else set()
        answers = [{"slot": s.id, "candidates": answer(task, s, tie=s.id in tie_on)} for s in page]
        outputs = len(page_outputs(item=page[0].item))
        each = list(range(50, 50 + outputs)) if scores else None
        record = {"task": task, "slot_id": page[0].id, "annotator_id": user.id}
        try:
            _, slot, _ = page_record_and_claim_next(**record, answers=answers, document_scores=each)
        except CheckWarning as warning:
            warnings.append(str(warning))
            assert not Judgment.objects.filter(slot__in=page).exists()  # nothing recorded
            if again is not None:
                answers = [{"slot": s.id, "candidates": again(task, s)} for s in page]
            _, slot, _ = page_record_and_claim_next(**record, answers=answers, document_scores=each)
    return warnings, checks


# -- Planned at launch --------------------------------------------------------------------------


@pytest.mark.parametrize("task_type", ["contrastive_esa", "contrastive_mqm", "contrastive_da"])
def test_a_check_page_shows_a_page_again_with_one_outputs_segments_shuffled(launched, task_type):
    task = launched(task_type, **CHECKED)
    checks = list(
        Item.objects.filter(task=task, item_type=ItemType.CHK)
        .select_related("original")
        .order_by("segment__index")
    )
    # 12 segments in three pages of 4 of one document; one check page (0.34 of 3 pages).
    assert len(checks) == 4
    shuffled_columns = set()
    damaged = 0
    for item in checks:
        original = item.original
        assert original.item_type == ItemType.TGT and original.segment_id == item.segment_id
        assert all(c["systems"] == [] for c in item.candidates)  # counted for no system
        assert sorted(c for cand in item.candidates for c in cand["columns"]) == [0, 1, 2]
        before = sorted(column_texts(item=original))
        after = column_texts(item=item)
        bad = shuffled_place(item)
        if bad is None:  # too short to damage: shown as it was
            assert sorted(after) == before
            continue
        damaged += 1
        (column,) = item.candidates[bad]["columns"]
        shuffled_columns.add(column)
        text = after[column]
        (source,) = Counter(before) - Counter(after)  # the one shuffled
        assert text != source and sorted(text.split()) == sorted(source.split())
        assert 2 <= sum(a != b for a, b in zip(text.split(), source.split(), strict=True)) <= 5
    assert damaged >= 2 and len(shuffled_columns) == 1  # one output, on every segment it fits


def test_a_check_page_never_follows_a_page_of_its_segments(launched):
    """With repeats too: the check page's place is moved off its original's repeat."""
    for seed in range(1, 9):
        task = launched("contrastive_esa", repeat_rate=0.34, seed=seed, **CHECKED)
        slots = list(task.slots.select_related("item").order_by("batch_id", "position"))
        checks = [s for s in slots if s.item.item_type == ItemType.CHK]
        assert checks
        for check in {(s.batch_id, s.page): s for s in checks}.values():
            before = next(
                s for s in slots if s.batch_id == check.batch_id and s.position == check.page - 1
            )
            shows = before.item.original_id or before.item_id
            originals = {
                s.item.original_id
                for s in checks
                if (s.batch_id, s.page) == (check.batch_id, check.page)
            }
            assert shows not in originals


def test_the_setting_is_still_refused_where_it_means_nothing(loaded_campaign):
    from annotation.services.tasks import TaskError, task_create

    with pytest.raises(TaskError, match="shuffle_rate"):
        task_create(campaign=loaded_campaign, task_type="esa", unit="document", shuffle_rate=0.2)


# -- Judged as the annotator answers ------------------------------------------------------------


@pytest.mark.parametrize("task_type", ["contrastive_esa", "contrastive_mqm"])
def test_silent_check_pages_pass_the_attentive_and_fail_the_careless(
    launched, loaded_campaign, make_annotator, task_type
):
    task = launched(task_type, document_score=True, judgments_per_item=2, **CHECKED)
    good, bad = (make_annotator(loaded_campaign, name) for name in ("good", "bad"))
    assert judge_pages(task, good, attentive, scores=True)[0] == []
    warnings, checks = judge_pages(task, bad, careless, scores=True)
    assert warnings == [] and checks  # silent: never warned
    rows = {r.annotator_id: r for r in check_outcomes(task) if r.kind == "contrastive"}
    assert rows[good.id].passed and not rows[bad.id].passed
    assert "not below" in rows[bad.id].reason
    # One outcome per check page, on its first slot.
    outcome = CheckOutcome.objects.get(task=task, annotator=bad)
    assert outcome.slot_id == checks[0][0].id
    # No system's results count a check page: its rows and page scores name no system.
    assert not OutputJudgment.objects.filter(
        task=task, item__item_type=ItemType.CHK, system__isnull=False
    ).exists()
    check_scores = PageScore.objects.filter(task=task, item_type=ItemType.CHK)
    assert check_scores.count() == 6 and not check_scores.filter(system__isnull=False).exists()
    if task_type == "contrastive_esa":
        counted = sum(m.judgments for m in contrastive_system_means(task))
        assert counted == OutputJudgment.objects.filter(task=task, item__item_type="TGT").count()


def test_the_page_compares_means_so_one_tie_does_not_fail(
    launched, loaded_campaign, make_annotator
):
    """Scored alike on one shuffled segment, lower on the others: the mean is lower, so the
    check passes (a check per segment would fail it)."""
    task = launched("contrastive_esa", **CHECKED)
    _, (check,) = judge_pages(
        task, make_annotator(loaded_campaign, "ann"), attentive, tie_once=True
    )
    assert sum(shuffled_place(slot.item) is not None for slot in check) >= 2
    (outcome,) = CheckOutcome.objects.filter(task=task)
    assert outcome.passed, outcome.reason


def test_a_loud_check_page_warns_once_and_records_the_second_answer(
    launched, loaded_campaign, make_annotator
):
    task = launched("contrastive_da", check_feedback="loud", **CHECKED)
    user = make_annotator(loaded_campaign, "hasty")
    warnings, checks = judge_pages(task, user, careless)
    assert len(warnings) == 1 and "words out of order" in warnings[0]
    outcome = CheckOutcome.objects.get(task=task)
    assert outcome.warned and outcome.loud and not outcome.passed
    assert outcome.passed_again is False  # the same answer again: recorded, failed again
    assert Judgment.objects.filter(slot__in=checks[0]).count() == len(checks[0])


def test_a_warned_annotator_who_corrects_passes_again(launched, loaded_campaign, make_annotator):
    task = launched("contrastive_esa", check_feedback="loud", **CHECKED)
    user = make_annotator(loaded_campaign, "learner")
    warnings, _ = judge_pages(task, user, careless, again=attentive)
    assert len(warnings) == 1
    outcome = CheckOutcome.objects.get(task=task)
    assert not outcome.passed and outcome.passed_again is True


def test_check_pages_reach_the_reliability_table(launched, loaded_campaign, make_annotator):
    task = launched("contrastive_esa", **CHECKED)
    judge_pages(task, make_annotator(loaded_campaign, "careless"), careless)
    (result,) = human_results(loaded_campaign).tasks
    (row,) = result.reliability
    assert (row.attention.passed, row.attention.total) == (0, 1)


def test_the_page_view_says_a_loud_warning_as_a_warning(
    client, launched, loaded_campaign, make_annotator
):
    task = launched("contrastive_esa", check_feedback="loud", **CHECKED)
    user = make_annotator(loaded_campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=user.id)
    while page_of(slot)[0].item.item_type != ItemType.CHK:
        page = page_of(slot)
        answers = [{"slot": s.id, "candidates": attentive(task, s)} for s in page]
        _, slot, _ = page_record_and_claim_next(
            task=task, slot_id=page[0].id, annotator_id=user.id, answers=answers
        )
    page = page_of(slot)
    client.force_login(user)
    answers = [{"slot": s.id, "candidates": careless(task, s)} for s in page]
    response = client.post(
        reverse("annotate-page", args=[task.id]),
        {"page": page[0].id, "answers": json.dumps(answers)},
        HTTP_X_REQUESTED_WITH="fetch",
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 400
    said = response.json()["error"]
    assert said.startswith("Please pay more attention") and "Not saved" not in said


# -- Page scores per output in the results and downloads ---------------------------------------


def _scored_pages(launched, loaded_campaign, make_annotator, task_type="contrastive_esa"):
    task = launched(
        task_type, unit="document", page_size=5, document_score=True, judgments_per_item=2
    )
    for name in ("ann1", "ann2"):
        judge_pages(task, make_annotator(loaded_campaign, name), careless, scores=True)
    return task


def assert_means(shown, task):
    """Each system's (mean page score, pages) as shown: its outputs' page scores."""
    by_system: dict[str, list[int]] = {}
    for name, score in PageScore.objects.filter(task=task).values_list("system__name", "score"):
        by_system.setdefault(name, []).append(score)
    assert set(shown) == set(by_system) == SYSTEMS
    for name, scores in by_system.items():
        assert shown[name] == (pytest.approx(sum(scores) / len(scores)), len(scores))


def test_the_results_show_each_systems_mean_page_score(
    client, launched, loaded_campaign, make_annotator, manager
):
    task = _scored_pages(launched, loaded_campaign, make_annotator)
    (result,) = human_results(loaded_campaign).tasks
    shown = {s.system: (s.mean, s.pages) for s in result.document_scores}
    assert_means(shown, task)
    assert all(pages == 6 for _, pages in shown.values())  # 3 pages × 2 annotators
    client.force_login(manager)
    html = client.get(reverse("results-human", args=[loaded_campaign.id])).content.decode()
    assert f'id="document-scores-{task.id}"' in html
    assert f"judgments.pages.csv?task={task.id}" in html
    # The rankings download has them as the measure document_score.
    body = client.get(reverse("results-human-rankings", args=[loaded_campaign.id, "json"]))
    rows = json.loads(b"".join(body.streaming_content))["systems"]
    assert {r["system"] for r in rows if r["measure"] == "document_score"} == SYSTEMS


def test_contrastive_mqm_results_show_the_page_scores_too(
    launched, loaded_campaign, make_annotator
):
    task = _scored_pages(launched, loaded_campaign, make_annotator, "contrastive_mqm")
    (result,) = span_results(loaded_campaign)
    assert_means({s.system: (s.mean, s.pages) for s in result.document_scores}, task)


def test_the_page_score_download_has_a_row_per_output(
    client, launched, loaded_campaign, make_annotator, manager
):
    task = _scored_pages(launched, loaded_campaign, make_annotator)
    client.force_login(manager)
    url = reverse("results-human-judgments", args=[loaded_campaign.id, "pages.csv"])
    response = client.get(f"{url}?task={task.id}")
    assert response.status_code == 200
    assert "page-scores" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    stored = PageScore.objects.filter(task=task).select_related("system", "annotator")
    assert len(rows) == stored.count() == 18  # 3 pages × 3 outputs × 2 annotators
    by_key = {(int(r["page"]), int(r["position"])): r for r in rows}
    for score in stored:
        row = by_key[(score.slot_id, score.position)]
        assert row["system"] == score.system.name and int(row["score"]) == score.score
        assert (
            row["output"] == "ABC"[score.position] and row["annotator"] == score.annotator.username
        )
        assert row["item_type"] == "TGT" and row["segments"] == "4"
    jsonl = client.get(
        reverse("results-human-judgments", args=[loaded_campaign.id, "pages.jsonl"])
        + f"?task={task.id}&pseudonymise=1"
    )
    lines = [json.loads(line) for line in b"".join(jsonl.streaming_content).splitlines()]
    assert len(lines) == 18 and all(line["annotator"].startswith("a-") for line in lines)
    assert {line["system"] for line in lines} == SYSTEMS
