"""Contrastive documents (cESA, contrastive MQM, contrastive DA with the document unit): a
page of one document's segments, each with the same systems' outputs side by side; one
submit per page, validated whole, atomic and idempotent, one judgment per segment with its
rows per output (as a contrastive screen writes them), and a page score per output."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import (
    ErrorSpan,
    Judgment,
    Output,
    OutputJudgment,
    PageScore,
    Segment,
    Slot,
    Task,
)
from annotation.selectors.contrastive import contrastive_system_means
from annotation.selectors.pages import page_outputs
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import JudgmentError
from annotation.services.page_judgments import page_record_and_claim_next
from annotation.services.tasks import TaskError, task_create
from tests.conftest import DATA

pytestmark = pytest.mark.django_db

SYSTEMS = {"Online-B", "UEdin", "happypoet"}
APPRAISE = DATA / "appraise-contrastive"


def page_of(slot: Slot) -> list[Slot]:
    return list(
        Slot.objects.filter(batch_id=slot.batch_id, page=slot.page)
        .select_related("item__segment")
        .order_by("position")
    )


def cesa_answers(slots, score=70, **extra):
    """Every candidate of every segment scored ``score``, no spans."""
    return [
        {
            "slot": s.id,
            "candidates": [{"score": score, "spans": []} for _ in s.item.candidates],
            **extra,
        }
        for s in slots
    ]


def claimed_page(launched, make_annotator, task_type="contrastive_esa", **settings):
    settings = {"unit": "document", "page_size": 5, **settings}
    task = launched(task_type, **settings)
    annotator = make_annotator(task.campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    return task, annotator, slot, page_of(slot)


# -- Settings and the plan ---------------------------------------------------------------------


def test_the_contrastive_protocols_take_the_document_unit(loaded_campaign):
    for task_type in ("contrastive_esa", "contrastive_mqm", "contrastive_da"):
        task = task_create(
            campaign=loaded_campaign, task_type=task_type, unit="document", page_size=6, seed=1
        )
        assert (task.unit, task.page_size) == ("document", 6)
    with pytest.raises(TaskError, match="set context to 0"):
        task_create(
            campaign=loaded_campaign,
            task_type="contrastive_esa",
            unit="document",
            context_size=1,
            seed=1,
        )


def test_a_page_shows_one_documents_segments_with_the_same_systems_in_one_order(launched):
    task = launched("contrastive_esa", unit="document", page_size=5, ranking_size=2)
    slots = list(Slot.objects.filter(task=task).select_related("item__segment"))
    pages: dict[tuple[int, int], list[Slot]] = {}
    for slot in slots:
        assert slot.page is not None
        pages.setdefault((slot.batch_id, slot.page), []).append(slot)
    orders = []
    for (_, first), page in pages.items():
        page.sort(key=lambda s: s.position)
        assert [s.position for s in page] == list(range(first, first + len(page)))
        indices = [s.item.segment.index for s in page]
        assert indices == sorted(indices) and len(page) <= 5
        assert len({s.item.segment.document_id for s in page}) == 1
        # Every segment of the page: the same systems, each in the same place (column).
        order = page_outputs(item=page[0].item)
        assert len(order) == 2 and set(order) <= SYSTEMS
        for slot in page:
            assert page_outputs(item=slot.item) == order
            assert slot.item.system_id is None
            for candidate in slot.item.candidates:
                assert [order[c] for c in candidate["columns"]] == candidate["systems"]
        orders.append(tuple(order))
    # 12 segments in pages of 4; 3 systems by 2: two groups (the second filled up), each
    # system in both places over the task (the places are drawn again page by page).
    assert Counter(len(p) for p in pages.values()) == {4: 6}
    places = Counter((name, place) for order in orders for place, name in enumerate(order))
    assert {name for name, _ in places} == SYSTEMS
    assert len(set(orders)) > 1
    assert {place for _, place in places} == {0, 1}


def test_identical_outputs_of_a_segment_are_one_candidate_in_both_places(loaded_campaign, launched):
    segment = Segment.objects.get(campaign=loaded_campaign, index=2)
    Output.objects.filter(segment=segment, run__system__name__in=["UEdin", "happypoet"]).update(
        text="Zweimal derselbe Satz."
    )
    task = launched("contrastive_esa", unit="document", page_size=5)
    slot = Slot.objects.get(task=task, item__segment=segment)
    candidates = slot.item.candidates
    assert len(candidates) == 2
    same = next(c for c in candidates if c["text"] == "Zweimal derselbe Satz.")
    assert sorted(same["systems"]) == ["UEdin", "happypoet"] and len(same["columns"]) == 2
    assert sorted(page_outputs(item=slot.item)) == sorted(SYSTEMS)


# -- One submit per page -----------------------------------------------------------------------


def test_a_page_records_one_judgment_per_segment_and_a_row_per_output(launched, make_annotator):
    task, annotator, slot, page = claimed_page(launched, make_annotator, document_score=True)
    assert len(page) == 4 and all(len(s.item.candidates) == 3 for s in page)
    answers = cesa_answers(page, ms=900)
    answers[1]["candidates"][2] = {
        "score": 35,
        "spans": [{"start": 0, "end": 3, "severity": "major"}],
    }
    recorded, next_slot, _ = page_record_and_claim_next(
        task=task,
        slot_id=slot.id,
        annotator_id=annotator.id,
        answers=answers,
        document_scores=[80, 60, 40],
    )
    assert recorded.created and len(recorded.judgment_ids) == 4
    judgments = list(
        Judgment.objects.filter(id__in=recorded.judgment_ids).order_by("slot__position")
    )
    assert [j.slot_id for j in judgments] == [s.id for s in page]
    assert [j.candidate_scores for j in judgments] == [
        [70, 70, 70],
        [70, 70, 35],
        [70] * 3,
        [70] * 3,
    ]
    # One row per output and system, in the candidate's place, as a contrastive screen's.
    rows = OutputJudgment.objects.filter(judgment__in=judgments)
    assert rows.count() == 12
    second = rows.filter(judgment=judgments[1]).select_related("system")
    for row in second:
        candidate = page[1].item.candidates[row.position]
        assert row.system.name in candidate["systems"]
        assert row.score == (35 if row.position == 2 else 70)
    span = ErrorSpan.objects.get(judgment__in=judgments)
    assert (span.judgment_id, span.candidate, span.severity) == (judgments[1].id, 2, "major")
    # A page score per output, with its system and its place on the page.
    order = page_outputs(item=page[0].item)
    scores = PageScore.objects.filter(slot=page[0]).order_by("position").select_related("system")
    assert [(s.position, s.system.name, s.score) for s in scores] == list(
        zip(range(3), order, [80, 60, 40], strict=True)
    )
    assert next_slot is not None and next_slot.page != slot.page
    # Results read the page's rows as any contrastive screen's.
    means = {m.system: m for m in contrastive_system_means(task)}
    assert set(means) == SYSTEMS and sum(m.judgments for m in means.values()) == 12


@pytest.mark.parametrize(
    ("change", "scores", "message"),
    [
        (lambda a: a[:-1], [1, 2, 3], "missing: segment 4"),
        (
            lambda a: [a[0], {**a[1], "candidates": a[1]["candidates"][:2]}, *a[2:]],
            [1, 2, 3],
            "segment 2: candidates must give one answer for each of the 3",
        ),
        (
            lambda a: [
                *a[:2],
                {**a[2], "candidates": [a[2]["candidates"][0], {"score": 101}, {"score": 5}]},
                a[3],
            ],
            [1, 2, 3],
            "segment 3: translation 2: score must be from 0 to 100",
        ),
        (
            lambda a: [
                {
                    **a[0],
                    "candidates": [
                        {"score": 5, "spans": [{"start": 0, "end": 10**6, "severity": "minor"}]},
                        *a[0]["candidates"][1:],
                    ],
                },
                *a[1:],
            ],
            [1, 2, 3],
            "segment 1: translation 1:",
        ),
        (lambda a: a, [1, 2], "a score for each of its 3 translations"),
        (lambda a: a, [1, 2, 101], "page score of translation C must be a whole number"),
        (lambda a: a, None, "a score for each of its 3 translations"),
    ],
)
def test_a_page_is_validated_whole_and_nothing_is_written(
    launched, make_annotator, change, scores, message
):
    task, annotator, slot, page = claimed_page(launched, make_annotator, document_score=True)
    with pytest.raises(JudgmentError, match=message) as error:
        page_record_and_claim_next(
            task=task,
            slot_id=slot.id,
            annotator_id=annotator.id,
            answers=change(cesa_answers(page)),
            document_scores=scores,
        )
    assert error.value.code == "invalid"
    assert not Judgment.objects.filter(task=task).exists()
    assert not OutputJudgment.objects.exists() and not PageScore.objects.exists()


def test_a_page_is_atomic_when_its_last_segment_is_refused(launched, make_annotator):
    """The page's last slot is released meanwhile: the loop refuses it, and the segments
    recorded before it in the same submit (their rows per output, spans and page scores)
    are rolled back."""
    task, annotator, slot, page = claimed_page(launched, make_annotator, document_score=True)
    Slot.objects.filter(id=page[-1].id).update(annotator=None, state=Slot.State.OPEN)
    answers = cesa_answers(page)
    answers[0]["candidates"][0]["spans"] = [{"start": 0, "end": 2, "severity": "minor"}]
    with pytest.raises(JudgmentError, match="no longer assigned") as error:
        page_record_and_claim_next(
            task=task,
            slot_id=slot.id,
            annotator_id=annotator.id,
            answers=answers,
            document_scores=[50, 50, 50],
        )
    assert error.value.code == "conflict"
    assert not Judgment.objects.filter(task=task).exists()
    assert not OutputJudgment.objects.exists()
    assert not ErrorSpan.objects.exists() and not PageScore.objects.exists()


def test_a_resubmit_records_nothing_twice_and_another_answer_is_a_conflict(
    launched, make_annotator
):
    task, annotator, slot, page = claimed_page(launched, make_annotator, document_score=True)

    def submit(answers, scores):
        return page_record_and_claim_next(
            task=task,
            slot_id=slot.id,
            annotator_id=annotator.id,
            answers=answers,
            document_scores=scores,
        )[0]

    first = submit(cesa_answers(page), [90, 50, 10])
    again = submit(cesa_answers(page), [90, 50, 10])
    assert first.created and not again.created
    assert again.judgment_ids == first.judgment_ids
    assert Judgment.objects.filter(task=task).count() == 4
    assert OutputJudgment.objects.count() == 12 and PageScore.objects.count() == 3
    other = cesa_answers(page)
    other[3]["candidates"][1]["score"] = 20
    with pytest.raises(JudgmentError, match="already recorded as") as error:
        submit(other, [90, 50, 10])
    assert error.value.code == "conflict"
    with pytest.raises(JudgmentError, match="already scored 90, 50, 10"):
        submit(cesa_answers(page), [90, 50, 11])
    assert OutputJudgment.objects.count() == 12 and PageScore.objects.count() == 3


def test_without_a_page_score_none_is_taken(launched, make_annotator):
    task, annotator, slot, page = claimed_page(launched, make_annotator)
    with pytest.raises(JudgmentError, match="asks for no page score"):
        page_record_and_claim_next(
            task=task,
            slot_id=slot.id,
            annotator_id=annotator.id,
            answers=cesa_answers(page),
            document_scores=[1, 2, 3],
        )
    recorded, _, _ = page_record_and_claim_next(
        task=task, slot_id=slot.id, annotator_id=annotator.id, answers=cesa_answers(page)
    )
    assert recorded.created and not PageScore.objects.exists()


def test_a_contrastive_mqm_page_stores_its_categories(launched, make_annotator):
    task, annotator, slot, page = claimed_page(launched, make_annotator, "contrastive_mqm")
    answers = [
        {"slot": s.id, "candidates": [{"spans": []} for _ in s.item.candidates]} for s in page
    ]
    answers[0]["candidates"][1]["spans"] = [
        {"start": 0, "end": 2, "severity": "minor", "category": "Fluency/Grammar"}
    ]
    recorded, _, _ = page_record_and_claim_next(
        task=task, slot_id=slot.id, annotator_id=annotator.id, answers=answers
    )
    assert recorded.created and OutputJudgment.objects.filter(task=task).count() == 12
    span = ErrorSpan.objects.get(judgment__task=task)
    assert (span.category, span.candidate) == ("Fluency/Grammar", 1)


def test_a_contrastive_da_page_takes_scores_and_no_spans(launched, make_annotator):
    task, annotator, slot, page = claimed_page(launched, make_annotator, "contrastive_da")
    spans = cesa_answers(page)
    spans[0]["candidates"][0]["spans"] = [{"start": 0, "end": 2, "severity": "minor"}]
    with pytest.raises(JudgmentError, match="segment 1: contrastive DA has no error spans"):
        page_record_and_claim_next(
            task=task, slot_id=slot.id, annotator_id=annotator.id, answers=spans
        )
    recorded, _, _ = page_record_and_claim_next(
        task=task, slot_id=slot.id, annotator_id=annotator.id, answers=cesa_answers(page)
    )
    assert recorded.created and OutputJudgment.objects.filter(task=task).count() == 12


# -- The page and the API ----------------------------------------------------------------------


def test_the_page_shows_the_candidates_escaped_without_names_and_a_submit_answers_json(
    client, launched, make_annotator
):
    task, annotator, slot, page = claimed_page(launched, make_annotator, document_score=True)
    first = page[0].item
    first.candidates[0]["text"] = "<b>x</b> y"
    first.save(update_fields=["candidates"])
    client.force_login(annotator)
    html = client.get(reverse("annotate", args=[task.id])).content.decode()
    assert html.count('class="doc-segment cdoc-segment"') == 4
    assert html.count('class="text-card candidate cdoc-candidate"') == 12
    assert "&lt;b&gt;x&lt;/b&gt; y" in html and "<b>x</b>" not in html
    assert not any(name in html for name in SYSTEMS)
    assert html.count('name="document-score-') == 3
    assert "js/span_editor." in html and "js/contrastive_document." in html
    url = reverse("annotate-page", args=[task.id])
    fetch = {"HTTP_X_REQUESTED_WITH": "fetch"}
    post = {"page": slot.id, "answers": json.dumps(cesa_answers(page))}
    short = client.post(url, {**post, "document_scores": "[50, 50]"}, **fetch)
    assert short.status_code == 400 and "for each of its 3 translations" in short.json()["error"]
    broken = client.post(url, {**post, "document_scores": "[50,"}, **fetch)
    assert broken.status_code == 400
    good = client.post(url, {**post, "document_scores": "[50, 60, 70]"}, **fetch)
    assert good.status_code == 200 and good.json()["status"] == "recorded"
    again = client.post(url, {**post, "document_scores": "[50, 60, 70]"}, **fetch)
    assert again.json()["status"] == "already_recorded"
    assert OutputJudgment.objects.count() == 12 and PageScore.objects.count() == 3


def test_the_api_serves_a_contrastive_page_and_takes_its_answers(launched, make_annotator):
    task = launched("contrastive_esa", unit="document", page_size=5, document_score=True)
    annotator = make_annotator(task.campaign, "ann")
    api = APIClient()
    api.force_authenticate(annotator)
    body = api.get(reverse("api-next-item", args=[task.id])).json()
    assert body["unit"] == "document" and body["outputs"] == ["A", "B", "C"]
    assert len(body["page"]) == 4
    for segment in body["page"]:
        assert [c["label"] for c in segment["candidates"]] == ["A", "B", "C"]
        assert "systems" not in json.dumps(segment)
    answers = [
        {"slot": s["slot"], "candidates": [{"score": 60, "spans": []}] * 3} for s in body["page"]
    ]
    post = {"task": task.id, "slot": body["slot"], "answers": answers}
    refused = api.post(reverse("api-pages"), {**post, "document_score": 50}, format="json")
    assert refused.status_code == 400 and "scored per translation" in refused.json()["error"]
    done = api.post(reverse("api-pages"), {**post, "document_scores": [9, 8, 7]}, format="json")
    assert done.status_code == 201, done.json()
    assert len(done.json()["judgments"]) == 4 and len(done.json()["next"]["page"]) == 4
    again = api.post(reverse("api-pages"), {**post, "document_scores": [9, 8, 7]}, format="json")
    assert again.status_code == 200 and again.json()["status"] == "already_recorded"
    assert OutputJudgment.objects.count() == 12


# -- Appraise ContrastiveDocument batches -----------------------------------------------------


def test_appraise_contrastive_document_batches_import_as_a_contrastive_document_task(
    manager, make_annotator
):
    folder = APPRAISE
    call_command(
        "import_appraise", str(folder / "manifest.json"), str(folder / "batches.json"),
        "--owner", "manager",
    )  # fmt: skip
    task = Task.objects.get()
    assert (task.task_type, task.unit, task.page_size, task.document_score) == (
        "contrastive_da",
        "document",
        2,
        True,
    )
    batch = json.loads((folder / "batches.json").read_text(encoding="utf-8"))[0]["items"]
    slots = list(Slot.objects.filter(task=task).select_related("item").order_by("position"))
    assert [s.page for s in slots] == [0, 0]
    for slot, item in zip(slots, batch, strict=False):
        assert [(c["systems"], c["text"], c["columns"]) for c in slot.item.candidates] == [
            ([t["targetID"]], t["targetText"], [i]) for i, t in enumerate(item["targets"])
        ]
    annotator = make_annotator(task.campaign, "ann")
    slot = slot_claim_next(task=task, annotator_id=annotator.id)
    page = page_of(slot)
    assert len(page) == 2
    recorded, _, _ = page_record_and_claim_next(
        task=task,
        slot_id=slot.id,
        annotator_id=annotator.id,
        answers=cesa_answers(page),
        document_scores=[70, 50, 30],
    )
    assert recorded.created and OutputJudgment.objects.count() == 6
    scores = PageScore.objects.order_by("position").values_list("system__name", "score")
    targets = [t["targetID"] for t in batch[0]["targets"]]
    assert list(scores) == list(zip(targets, [70, 50, 30], strict=True))
