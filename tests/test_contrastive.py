"""Contrastive screens (cESA, contrastive MQM, contrastive DA): the balanced plan, the whole
screen's submit (validated, atomic, idempotent), one judgment row per output and system
linked by the screen, results per system, exports and the annotator API."""

import itertools
import random
import re
from collections import Counter

import pytest
from django.db import connection
from rest_framework.test import APIClient

from annotation.models import ErrorSpan, Item, Judgment, OutputJudgment, Slot
from annotation.selectors.contrastive import contrastive_scores, contrastive_system_means
from annotation.services.assignment import slot_claim_next
from annotation.services.contrastive import BalancedPlan, check_candidate_add
from annotation.services.imports import upload_import
from annotation.services.judgments import JudgmentError, judgment_record
from annotation.services.tasks import TaskError, task_create, task_launch

pytestmark = pytest.mark.django_db

SYSTEMS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")
SEGMENTS = 10


def _lines(texts):
    return "\n".join(texts).encode() + b"\n"


@pytest.fixture
def six_systems(campaign, manager):
    """Ten segments and six systems; delta and echo translate segment 0 identically."""
    sources = [f"Source sentence number {i} for the test." for i in range(SEGMENTS)]
    upload_import(
        campaign=campaign, kind="source", files=[("src.en", _lines(sources))], user=manager
    )
    for name in SYSTEMS:
        texts = [f"Satz {i} in Fassung {len(name) * 7 + ord(name[0])}." for i in range(SEGMENTS)]
        if name in ("delta", "echo"):
            texts[0] = "Der gleiche Satz von zwei Systemen."
        upload_import(
            campaign=campaign,
            kind="system",
            name=name,
            files=[(f"{name}.de", _lines(texts))],
            user=manager,
        )
    return campaign


def launch(campaign, task_type="contrastive_esa", **settings):
    settings.setdefault("seed", 7)
    task = task_create(campaign=campaign, task_type=task_type, **settings)
    task_launch(task_id=task.id)
    task.refresh_from_db()
    return task


def claim(task, user):
    return slot_claim_next(task=task, annotator_id=user.id)


def record(task, user, slot, answer):
    return judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=user.id, answer=answer)


def full_answer(slot, scores=None):
    """Every candidate scored, a minor span on each one's first word."""
    candidates = slot.item.candidates
    scores = scores or [90 - 10 * i for i in range(len(candidates))]
    return {
        "candidates": [
            {
                "score": score,
                "spans": [{"start": 0, "end": candidate["text"].index(" "), "severity": "minor"}],
            }
            for candidate, score in zip(candidates, scores, strict=True)
        ]
    }


# -- The plan ----------------------------------------------------------------------------------


def test_the_plan_meets_every_pair_and_fills_every_position_about_equally():
    plan = BalancedPlan(6, 3, random.Random(3))
    met, placed = Counter(), Counter()
    for _ in range(60):
        screens = plan.segment()
        assert sorted(s for screen in screens for s in screen) == list(range(6))  # each once
        for screen in screens:
            met.update(frozenset(pair) for pair in itertools.combinations(screen, 2))
            placed.update((system, position) for position, system in enumerate(screen))
    pairs = [met[frozenset(pair)] for pair in itertools.combinations(range(6), 2)]
    assert sum(pairs) == 60 * 2 * 3
    assert max(pairs) - min(pairs) <= 2, pairs  # 24 each if perfect
    positions = [placed[(s, p)] for s in range(6) for p in range(3)]
    assert max(positions) - min(positions) <= 2, positions  # 20 each if perfect


def test_a_random_plan_would_fail_the_balance_test():
    """The bound above is tight enough to tell a plan from chance (the test can fail)."""
    rng = random.Random(3)
    met = Counter()
    for _ in range(60):
        order = rng.sample(range(6), 6)
        for screen in (order[:3], order[3:]):
            met.update(frozenset(pair) for pair in itertools.combinations(screen, 2))
    pairs = [met[frozenset(pair)] for pair in itertools.combinations(range(6), 2)]
    assert max(pairs) - min(pairs) > 2


def test_a_segment_whose_systems_do_not_divide_fills_its_last_screen():
    plan = BalancedPlan(4, 3, random.Random(1))
    screens = plan.segment()
    assert [len(screen) for screen in screens] == [3, 3]
    assert {s for screen in screens for s in screen} == set(range(4))
    assert all(len(set(screen)) == 3 for screen in screens)


def test_launch_plans_screens_from_the_seed_with_hidden_and_collapsed_systems(six_systems):
    task = launch(six_systems)
    again = launch(six_systems, name="again")
    items = list(Item.objects.filter(task=task).order_by("id"))
    assert len(items) == SEGMENTS * 2  # six systems, three a screen
    assert [i.candidates for i in items] == [
        i.candidates for i in Item.objects.filter(task=again).order_by("id")
    ]
    met, placed = Counter(), Counter()
    for item in items:
        names = [n for c in item.candidates for n in c["systems"]]
        assert len(names) == len(set(names)) == 3
        met.update(frozenset(pair) for pair in itertools.combinations(names, 2))
        placed.update((n, p) for p, c in enumerate(item.candidates) for n in c["systems"])
    # Measured on the stored screens: 60 meetings over 15 pairs, 4 each if perfect.
    pairs = [met[frozenset(pair)] for pair in itertools.combinations(SYSTEMS, 2)]
    assert sum(pairs) == 60 and max(pairs) - min(pairs) <= 2, pairs
    assert all(placed[(n, 0)] >= 2 for n in SYSTEMS), placed  # everyone is shown first
    # delta and echo translated segment 0 alike: where they meet, one candidate names both.
    shared = [
        c for i in items if i.segment.index == 0 for c in i.candidates if len(c["systems"]) == 2
    ]
    meet = [
        i
        for i in items
        if i.segment.index == 0 and any("delta" in c["systems"] for c in i.candidates)
    ]
    if any("echo" in c["systems"] for c in meet[0].candidates):
        assert [sorted(c["systems"]) for c in shared] == [["delta", "echo"]]
        assert len(meet[0].candidates) == 2


def test_outputs_per_screen_is_a_setting_from_2_to_the_systems(six_systems):
    task = launch(six_systems, ranking_size=2)
    assert {len(i.candidates) for i in Item.objects.filter(task=task, segment__index__gt=0)} == {2}
    with pytest.raises(TaskError, match="at least 7"):
        task_create(campaign=six_systems, task_type="contrastive_esa", ranking_size=7)
    assert task_create(campaign=six_systems, task_type="contrastive_da").ranking_size == 3


def test_repeats_are_planned_on_screens(six_systems, make_annotator):
    task = launch(six_systems, repeat_rate=0.5, batch_size=10)
    repeats = Slot.objects.filter(task=task, is_repeat=True)
    assert repeats.exists()
    ann = make_annotator(six_systems, "ann")
    seen = 0
    while (slot := claim(task, ann)) is not None:
        record(task, ann, slot, full_answer(slot))
        seen += slot.is_repeat
    assert seen > 0
    repeated = OutputJudgment.objects.filter(task=task, is_repeat=True)
    assert repeated.count() >= 3 * seen - seen  # a collapsed candidate has one row per system
    # A repeat's screen is the same item as its original, judged again by the same annotator.
    for row in repeated:
        assert OutputJudgment.objects.filter(
            item_id=row.item_id, annotator=ann, is_repeat=False, system=row.system
        ).exists()


def test_a_check_candidate_has_a_place_and_counts_for_no_system(six_systems, make_annotator):
    task = launch(six_systems)
    ann = make_annotator(six_systems, "ann")
    slot = claim(task, ann)
    item = slot.item
    position = check_candidate_add(
        item=item, text="Satz mit vertauschten Wörtern.", rng=random.Random(1)
    )
    item.save(update_fields=["candidates"])
    slot.item.refresh_from_db()
    record(task, ann, slot, full_answer(slot))
    check = OutputJudgment.objects.get(judgment__slot=slot, position=position)
    assert check.system is None and check.candidate_type == "CHK"


# -- The submit --------------------------------------------------------------------------------


def test_a_screen_is_stored_as_one_row_per_output_and_system(six_systems, make_annotator):
    task = launch(six_systems)
    ann = make_annotator(six_systems, "ann")
    slot = claim(task, ann)
    recorded = record(task, ann, slot, full_answer(slot, [80, 55, 20]))
    screen = Judgment.objects.get(id=recorded.judgment_id)
    assert screen.candidate_scores == [80, 55, 20] and screen.slot_id == slot.id
    rows = list(OutputJudgment.objects.filter(judgment=screen).order_by("position"))
    assert [(r.position, r.system.name, r.score) for r in rows] == [
        (p, name, [80, 55, 20][p])
        for p, candidate in enumerate(slot.item.candidates)
        for name in candidate["systems"]
    ]
    assert {(r.slot_id, r.item_id, r.annotator_id) for r in rows} == {
        (slot.id, slot.item_id, ann.id)
    }
    spans = ErrorSpan.objects.filter(judgment=screen).order_by("candidate")
    assert [(s.candidate, s.start, s.severity) for s in spans] == [
        (p, 0, "minor") for p in range(3)
    ]


def test_identical_outputs_are_scored_for_every_system_that_produced_them(
    six_systems, make_annotator
):
    task = launch(six_systems, ranking_size=6)  # every system on one screen per segment
    ann = make_annotator(six_systems, "ann")
    while (slot := claim(task, ann)) is not None:
        answer = full_answer(slot, list(range(10, 10 + 10 * len(slot.item.candidates), 10)))
        record(task, ann, slot, answer)
    first = Item.objects.get(task=task, segment__index=0)
    assert len(first.candidates) == 5
    rows = OutputJudgment.objects.filter(item=first, system__name__in=("delta", "echo"))
    assert rows.count() == 2 and len({(r.position, r.score) for r in rows}) == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: a["candidates"].pop(), "one answer for each of the 3"),
        (lambda a: a["candidates"][1].pop("score"), "translation 2: score is required"),
        (lambda a: a["candidates"][2].update(score=101), "translation 3: score must be from 0"),
        (lambda a: a["candidates"][1].update(score="x"), "whole number"),
        (
            lambda a: a["candidates"][2]["spans"].append(
                {"start": 0, "end": 10_000, "severity": "minor"}
            ),
            "translation 3: target span",
        ),
        (lambda a: a["candidates"][0]["spans"][0].update(severity="huge"), "minor or major"),
        (lambda a: a["candidates"][0]["spans"][0].update(category="Style"), "no category"),
        (lambda a: a.update(candidates="all good"), "one answer for each"),
        (lambda a: a["candidates"].__setitem__(0, 5), "must be an object"),
    ],
)
def test_a_screen_is_validated_whole_and_nothing_is_written(
    six_systems, make_annotator, change, message
):
    task = launch(six_systems)
    ann = make_annotator(six_systems, "ann")
    slot = claim(task, ann)
    answer = full_answer(slot)
    change(answer)
    with pytest.raises(JudgmentError, match=message) as refused:
        record(task, ann, slot, answer)
    assert refused.value.code == "invalid"
    assert not Judgment.objects.filter(task=task).exists()
    assert not OutputJudgment.objects.exists() and not ErrorSpan.objects.exists()
    record(task, ann, slot, full_answer(slot))  # the slot is still theirs
    assert OutputJudgment.objects.filter(task=task).count() >= 3


def test_a_retry_changes_nothing_and_another_answer_is_refused(six_systems, make_annotator):
    task = launch(six_systems)
    ann = make_annotator(six_systems, "ann")
    slot = claim(task, ann)
    first = record(task, ann, slot, full_answer(slot))
    again = record(task, ann, slot, full_answer(slot))
    assert (again.created, again.judgment_id) == (False, first.judgment_id)
    assert OutputJudgment.objects.filter(task=task).count() == 3
    assert ErrorSpan.objects.count() == 3
    with pytest.raises(JudgmentError, match="already recorded"):
        record(task, ann, slot, full_answer(slot, [1, 2, 3]))
    other_spans = full_answer(slot)
    other_spans["candidates"][1]["spans"] = []
    with pytest.raises(JudgmentError, match="already recorded"):
        record(task, ann, slot, other_spans)
    assert list(Judgment.objects.get(id=first.judgment_id).candidate_scores) == [90, 80, 70]


def test_a_failure_while_storing_the_outputs_leaves_nothing(six_systems, make_annotator):
    """The screen's judgment, its spans and its output rows commit together or not at all: a
    trigger makes the output rows' insert fail after the loop wrote the judgment."""
    task = launch(six_systems)
    ann = make_annotator(six_systems, "ann")
    slot = claim(task, ann)
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "RAISE EXCEPTION 'refused by the test'; END $$;"
            "CREATE TRIGGER test_refuse BEFORE INSERT ON annotation_outputjudgment "
            "FOR EACH ROW EXECUTE FUNCTION test_refuse();"
        )
    with pytest.raises(Exception, match="refused by the test"):
        record(task, ann, slot, full_answer(slot))
    assert not Judgment.objects.filter(task=task).exists()
    assert not ErrorSpan.objects.exists()
    slot.refresh_from_db()
    assert slot.state == Slot.State.LEASED
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER test_refuse ON annotation_outputjudgment")
    assert record(task, ann, slot, full_answer(slot)).created


SPELLING = "Fluency/Spelling"


def test_contrastive_mqm_and_da(six_systems, make_annotator):
    mqm = launch(six_systems, "contrastive_mqm")
    da = launch(six_systems, "contrastive_da", name="da")
    ann = make_annotator(six_systems, "ann")
    slot = claim(mqm, ann)
    answer = {
        "candidates": [
            {
                "spans": [
                    {
                        "start": 0,
                        "end": 4,
                        "severity": "major",
                        "category": "Accuracy/Mistranslation",
                    }
                ]
            },
            {"spans": []},
            {
                "spans": [
                    {"start": 0, "end": 4, "severity": "minor", "category": "Fluency/Spelling"}
                ]
            },
        ]
    }
    record(mqm, ann, slot, answer)
    assert not record(mqm, ann, slot, answer).created  # a retry, not a conflict
    rows = OutputJudgment.objects.filter(task=mqm)
    assert rows.count() == 3 and {r.score for r in rows} == {None}
    means = {m.system: m.mean for m in contrastive_system_means(mqm)}
    names = [c["systems"][0] for c in slot.item.candidates]
    assert [means[n] for n in names] == [5.0, 0.0, 1.0]
    bad = {
        "candidates": [
            {"spans": [{"start": 0, "end": 4, "severity": "minor", "category": "Nope"}]},
            {},
            {},
        ]
    }
    with pytest.raises(JudgmentError, match="unknown MQM category"):
        record(mqm, ann, claim(mqm, ann), bad)
    slot = claim(da, ann)
    record(da, ann, slot, {"candidates": [{"score": 10}, {"score": 20}, {"score": 30}]})
    assert sorted(r.score for r in OutputJudgment.objects.filter(task=da)) == [10, 20, 30]
    from annotation.selectors.human import human_results
    from annotation.selectors.human.spans import span_results

    # The pairwise rankings read scores: contrastive DA's, not MQM's; contrastive MQM has the
    # error-span section its protocol declares (its MQM means are above).
    results = {r.task.id: r for r in human_results(six_systems).tasks}
    assert list(results) == [da.id] and results[da.id].pairwise
    assert [r.task.id for r in span_results(six_systems)] == [mqm.id]
    with pytest.raises(JudgmentError, match="no error spans"):
        record(
            da,
            ann,
            claim(da, ann),
            {
                "candidates": [
                    {"score": 1, "spans": [{"start": 0, "end": 1, "severity": "minor"}]},
                    {"score": 1},
                    {"score": 1},
                ]
            },
        )


# -- Results -----------------------------------------------------------------------------------


def test_results_per_system_and_paired_rows(six_systems, make_annotator):
    task = launch(six_systems, judgments_per_item=2)
    expected: dict[str, list[int]] = {}
    for name in ("ann1", "ann2"):
        ann = make_annotator(six_systems, name)
        rng = random.Random(name)
        while (slot := claim(task, ann)) is not None:
            scores = [rng.randrange(101) for _ in slot.item.candidates]
            record(task, ann, slot, full_answer(slot, scores))
            for candidate, score in zip(slot.item.candidates, scores, strict=True):
                for system in candidate["systems"]:
                    expected.setdefault(system, []).append(score)
    means = contrastive_system_means(task)
    assert {m.system: m.judgments for m in means} == {s: len(v) for s, v in expected.items()}
    assert {m.system: m.mean for m in means} == pytest.approx(
        {s: sum(v) / len(v) for s, v in expected.items()}
    )
    assert [m.mean for m in means] == sorted((m.mean for m in means), reverse=True)
    rows = list(contrastive_scores(task))
    assert len(rows) == sum(len(v) for v in expected.values())
    # An annotator the organiser leaves out counts nowhere.
    from annotation.services.exclusions import annotator_exclude

    first = rows[0]["annotator_id"]
    annotator_exclude(
        campaign=six_systems, annotator_id=first, excluded=True, by=None, task_id=task.id
    )
    kept = list(contrastive_scores(task))
    assert kept and {r["annotator_id"] for r in kept} == {r["annotator_id"] for r in rows} - {first}
    assert sum(m.judgments for m in contrastive_system_means(task)) == len(kept)
    by_screen = Counter((r["annotator_id"], r["screen"]) for r in rows)
    assert set(by_screen.values()) <= {3}  # three systems a screen (collapsed: still 3 rows)
    assert {"annotator_id", "screen", "item_id", "system_name", "score", "position"} <= set(rows[0])


def test_the_judgment_export_has_a_row_per_system_with_its_score(six_systems, make_annotator):
    import csv
    import io

    from annotation.selectors.exports import judgment_annotators, judgment_csv_chunks

    task = launch(six_systems)
    ann = make_annotator(six_systems, "ann")
    slot = claim(task, ann)
    record(task, ann, slot, full_answer(slot, [80, 55, 20]))
    text = b"".join(
        judgment_csv_chunks(campaign=six_systems, names=judgment_annotators(six_systems))
    ).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    got = sorted((r["system"], r["score"]) for r in rows)
    assert got == sorted(
        (name, str([80, 55, 20][p]))
        for p, candidate in enumerate(slot.item.candidates)
        for name in candidate["systems"]
    )


def test_the_human_results_rank_the_systems_from_the_screens(six_systems, make_annotator):
    from annotation.selectors.human import human_results

    task = launch(six_systems)
    ann = make_annotator(six_systems, "ann")
    quality = {name: 90 - 10 * i for i, name in enumerate(SYSTEMS)}
    while (slot := claim(task, ann)) is not None:
        scores = [quality[c["systems"][0]] for c in slot.item.candidates]
        record(task, ann, slot, full_answer(slot, scores))
    (result,) = human_results(six_systems).tasks
    assert result.judgments == SEGMENTS * 2
    assert result.pairwise[0].name == "alpha"


def test_the_api_claims_a_screen_without_system_names_and_takes_its_answers(
    six_systems, make_annotator
):
    task = launch(six_systems)
    ann = make_annotator(six_systems, "ann")
    client = APIClient()
    client.force_authenticate(ann)
    shown = client.get(f"/api/v1/tasks/{task.id}/next").json()
    assert shown["task_type"] == "contrastive_esa"
    assert [c["label"] for c in shown["candidates"]] == ["A", "B", "C"]
    assert not any(name in str(shown) for name in SYSTEMS)
    answer = {
        "task": task.id,
        "slot": shown["slot"],
        "candidates": [
            {"score": 70, "spans": [{"start": 0, "end": 4, "severity": "major"}]},
            {"score": 60, "spans": []},
        ],
    }
    refused = client.post("/api/v1/judgments", answer, format="json")
    assert refused.status_code == 400
    assert "one answer for each of the 3" in refused.json()["error"]
    answer["candidates"].append({"score": 50})
    done = client.post("/api/v1/judgments", answer, format="json")
    assert done.status_code == 201, done.json()
    assert done.json()["next"]["slot"] != shown["slot"]
    again = client.post("/api/v1/judgments", answer, format="json")
    assert again.status_code == 200 and again.json()["status"] == "already_recorded"
    assert OutputJudgment.objects.filter(task=task).count() == 3


def test_the_page_refuses_an_incomplete_screen_with_its_reason_and_records_a_whole_one(
    client, six_systems, make_annotator
):
    task = launch(six_systems)
    ann = make_annotator(six_systems, "ann")
    client.force_login(ann)
    page = client.get(f"/annotate/{task.id}/").content.decode()
    assert page.count('class="text-card candidate contrast"') == 3
    assert not any(name in page for name in SYSTEMS)
    slot = Slot.objects.get(id=re.search(r'name="slot" value="(\d+)"', page)[1])
    form = {"slot": slot.id, "candidates": 3, "cscore-0": 50, "cscore-2": 60}
    form |= {f"spans-{i}": "[]" for i in range(3)}
    refused = client.post(f"/annotate/{task.id}/submit/", form, HTTP_X_REQUESTED_WITH="fetch")
    assert refused.status_code == 400
    assert "translation 2: score is required" in refused.json()["error"]
    form["cscore-1"] = 40
    form["spans-1"] = '[{"start": 0, "end": 4, "severity": "major"}]'
    done = client.post(f"/annotate/{task.id}/submit/", form, HTTP_X_REQUESTED_WITH="fetch")
    assert done.status_code == 200 and done.json()["status"] == "recorded"
    assert list(Judgment.objects.get(slot=slot).candidate_scores) == [50, 40, 60]
    assert ErrorSpan.objects.get(judgment__slot=slot).candidate == 1


def test_the_results_page_ranks_a_contrastive_task(client, manager, six_systems, make_annotator):
    task = launch(six_systems)
    ann = make_annotator(six_systems, "ann")
    while (slot := claim(task, ann)) is not None:
        record(task, ann, slot, full_answer(slot))
    client.force_login(manager)
    page = client.get(f"/campaigns/{six_systems.id}/results/human/")
    assert page.status_code == 200
    text = page.content.decode()
    assert task.name in text and all(name in text for name in SYSTEMS)
