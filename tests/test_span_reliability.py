"""The reliability table for ESA, MQM and contrastive MQM tasks (issue 24 §3), each figure
checked against a hand-computed case; the contrastive MQM ranking table and the document
page scores in the results (issue 22 leftovers). Failed before: error-span tasks had no
reliability rows, contrastive MQM no results at all, and no result read ``PageScore``."""

from __future__ import annotations

import csv
import io
import itertools
import json
import statistics
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import AnnotatorExclusion, CheckOutcome, ItemType, Judgment, Slot
from annotation.selectors.human.spans import span_results, span_task_results
from annotation.services.assignment import slot_claim_next
from annotation.services.judgments import judgment_record
from annotation.services.page_judgments import page_record_and_claim_next

pytestmark = pytest.mark.django_db

MQM_CATEGORY = "Accuracy/Mistranslation"
STEADY_SECONDS, FIRST_IDLE_SECONDS, HASTY_SECONDS = 10, 500, 1


def _judge(task, user, answer, seconds, first_seconds=None):
    """Every slot the annotator gets, each taking ``seconds`` (the first ``first_seconds``)."""
    now = timezone.now() - timedelta(days=1)
    first = True
    while (slot := slot_claim_next(task=task, annotator_id=user.id, now=now)) is not None:
        slot = Slot.objects.select_related("item__system").get(id=slot.id)
        took = first_seconds if first and first_seconds else seconds
        now += timedelta(seconds=took)
        judgment_record(
            task_id=task.id,
            slot_id=slot.id,
            annotator_id=user.id,
            answer=answer(task, slot),
            now=now,
        )
        now += timedelta(seconds=3)
        first = False


def _damage(slot):
    start, end = slot.item.check_span
    return [{"start": start, "end": end, "severity": "major"}]


def steady_esa(task, slot):
    """70 for outputs, 62 for a repeat, 30 with the damage marked for a bad reference."""
    if slot.item.item_type == ItemType.BAD:
        return {"score": 30, "spans": _damage(slot)}
    return {"score": 62 if slot.is_repeat else 70, "spans": []}


def hasty_esa(task, slot):
    return {"score": 90, "spans": []}


@pytest.fixture
def esa_judged(launched, loaded_campaign, make_annotator):
    task = launched(
        "esa", bad_reference_rate=0.25, repeat_rate=0.25, batch_size=12, items_per_annotator=12
    )
    steady = make_annotator(loaded_campaign, "steady")
    hasty = make_annotator(loaded_campaign, "hasty")
    _judge(task, steady, steady_esa, STEADY_SECONDS, FIRST_IDLE_SECONDS)
    _judge(task, hasty, hasty_esa, HASTY_SECONDS)
    return task, steady, hasty


def _counts(task, user):
    """The annotator's judged slots: outputs, repeats, bad references."""
    slots = [
        judgment.slot
        for judgment in Judgment.objects.filter(task=task, annotator=user).select_related(
            "slot__item"
        )
    ]
    repeats = sum(s.is_repeat for s in slots)
    bad = sum(s.item.item_type == ItemType.BAD for s in slots)
    return len(slots) - repeats - bad, repeats, bad


def test_esa_reliability_figures_equal_the_hand_computed_ones(esa_judged):
    task, steady, hasty = esa_judged
    rows = {row.username: row for row in span_task_results(task).reliability}
    assert set(rows) == {"steady", "hasty"}
    outputs, repeats, bad = _counts(task, steady)
    assert (outputs, repeats, bad) == (9, 2, 3)  # 12 a batch, 3 bad references, 2 repeats
    n = outputs + repeats + bad
    row = rows["steady"]
    assert row.time.items == n
    # The first item's 500 s are capped at 60 (idle), the others took 10 s.
    assert row.time.mean_seconds == pytest.approx((60 + STEADY_SECONDS * (n - 1)) / n)
    assert row.time.median_seconds == pytest.approx(STEADY_SECONDS)
    assert (row.repeats.pairs, row.repeats.mean) == (2, pytest.approx(8.0))  # |70 - 62|
    assert (row.attention.passed, row.attention.total) == (bad + repeats, bad + repeats)
    assert row.straight_lining.identical_share == pytest.approx(outputs / n)  # 70 nine times
    assert not row.straight_lining.flagged and not row.too_fast and row.passes

    row = rows["hasty"]
    outputs, repeats, bad = _counts(task, hasty)
    # Its bad references are neither marked nor scored lower; its repeats are the same 90.
    assert (row.attention.passed, row.attention.total) == (repeats, bad + repeats)
    assert row.repeats.mean == 0.0
    assert row.time.median_seconds == pytest.approx(HASTY_SECONDS)
    assert row.too_fast and row.straight_lining.identical_share == 1.0
    assert row.straight_lining.flagged and not row.passes
    assert any(r.startswith(f"passed {repeats} of {bad + repeats} attention") for r in row.reasons)
    assert row.bad_reference_verdict is None  # the checks the loop recorded stand for it


def test_the_switch_ranks_an_esa_task_without_who_fails(esa_judged):
    task, _, _ = esa_judged
    result = span_task_results(task, passing_only=True)
    assert [row.username for row in result.passing.dropped] == ["hasty"]
    # Only steady's 70s are left; everyone's include hasty's 90s.
    assert result.passing.rows and {row["score"] for row in result.passing.rows} == {70.0}
    assert max(row["score"] for row in result.ranking_rows()) > 70
    assert span_task_results(task).passing is None


def test_the_page_api_and_downloads_show_the_esa_reliability_table(esa_judged, manager, client):
    task, steady, hasty = esa_judged
    campaign = task.campaign
    client.force_login(manager)
    page = client.get(f"/campaigns/{campaign.id}/results/human/?passing=1").content.decode()
    assert f'id="reliability-{task.id}"' in page
    assert f'data-annotator="{hasty.id}" data-passes="0"' in page
    assert f'data-annotator="{steady.id}" data-passes="1"' in page
    assert "ESA ranking: all counted annotators" in page
    body = client.get(f"/api/v1/campaigns/{campaign.id}/results/human?passing=true").json()
    (spans,) = body["span_rankings"]
    rows = {row["annotator"]: row for row in spans["reliability"]}
    assert rows["steady"]["repeat_mean_abs_difference"] == pytest.approx(8.0)
    assert rows["hasty"]["too_fast"] and rows["hasty"]["straight_lining"]
    assert [d["annotator"] for d in spans["passing"]["dropped"]] == ["hasty"]
    assert {s["score"] for s in spans["passing"]["systems"]} == {70.0}
    download = client.get(f"/campaigns/{campaign.id}/results/human/reliability.csv")
    table = list(csv.DictReader(io.StringIO(b"".join(download.streaming_content).decode())))
    assert {(row["task_type"], row["annotator"]) for row in table} == {
        ("esa", "steady"),
        ("esa", "hasty"),
    }
    # The button excludes who fails, reversibly.
    client.post(f"/campaigns/{campaign.id}/results/human/tasks/{task.id}/exclude-failing/")
    assert AnnotatorExclusion.objects.filter(annotator=hasty, task=task).exists()
    assert not span_task_results(task, passing_only=True).passing.dropped


def test_mqm_reliability_reads_hotw_checks_and_penalty_repeats(
    launched, loaded_campaign, make_annotator
):
    task = launched("mqm", hotw_rate=0.25, repeat_rate=0.25, batch_size=12, items_per_annotator=12)
    careful = make_annotator(loaded_campaign, "careful")
    blind = make_annotator(loaded_campaign, "blind")

    def careful_answer(task, slot):
        # The injected error found; a repeat with one more minor error (1 point apart).
        if slot.item.item_type == ItemType.CHK:
            return {"spans": [{**_damage(slot)[0], "category": MQM_CATEGORY}]}
        minor = {"start": 0, "end": 2, "severity": "minor", "category": MQM_CATEGORY}
        return {"spans": [minor] if slot.is_repeat else []}

    _judge(task, careful, careful_answer, STEADY_SECONDS)
    _judge(task, blind, lambda task, slot: {"spans": []}, STEADY_SECONDS)
    rows = {row.username: row for row in span_task_results(task).reliability}
    hotw = CheckOutcome.objects.filter(task=task, kind="hotw")
    found = hotw.filter(annotator=careful).count()
    missed = hotw.filter(annotator=blind).count()
    assert found == missed == 3
    assert (rows["careful"].attention.passed, rows["careful"].attention.total) == (5, 5)
    assert (rows["careful"].repeats.pairs, rows["careful"].repeats.mean) == (2, 1.0)
    assert (rows["blind"].attention.passed, rows["blind"].attention.total) == (2, 5)
    assert not rows["blind"].passes and rows["careful"].passes
    # Many good translations have no error: MQM has no straight-lining flag.
    assert rows["blind"].straight_lining is None


# -- Contrastive MQM: the results table and the consensus likelihood ---------------------------

PENALTY = {"Online-B": 0, "UEdin": 1, "happypoet": 5}  # what careful raters mark
ERRORS = {
    0: [],
    1: [{"start": 0, "end": 2, "severity": "minor", "category": MQM_CATEGORY}],
    5: [{"start": 0, "end": 2, "severity": "major", "category": MQM_CATEGORY}],
}


@pytest.fixture
def contrastive_mqm_judged(launched, loaded_campaign, make_annotator):
    """Three careful raters and one who marks the reverse; ``log`` holds every (rater, screen,
    system, penalty) answered on a real screen the first time."""
    task = launched("contrastive_mqm", judgments_per_item=4, batch_size=12)
    log = []

    def rater(reverse):
        def answer(task, slot):
            entries = []
            for candidate in slot.item.candidates:
                penalties = [PENALTY[s] for s in candidate["systems"]]
                penalty = max(penalties)
                if reverse:
                    penalty = 5 - penalty if penalty != 1 else 1
                entries.append({"spans": ERRORS[penalty]})
                if not slot.is_repeat and slot.item.item_type == ItemType.TGT:
                    log.extend(
                        (slot.annotator_id, slot.id, s, penalty) for s in candidate["systems"]
                    )
            return {"candidates": entries}

        return answer

    users = {}
    for name, reverse in [("c1", False), ("c2", False), ("c3", False), ("odd", True)]:
        users[name] = make_annotator(loaded_campaign, name)
        _judge(task, users[name], rater(reverse), STEADY_SECONDS)
    return task, users, log


def test_the_contrastive_mqm_table_ranks_the_outputs_mqm_scores(contrastive_mqm_judged):
    task, _, log = contrastive_mqm_judged
    (result,) = span_results(task.campaign)
    assert result.task == task and result.protocol == "mqm" and not result.higher_is_better
    rows = result.ranking_rows()
    by_system = {}
    for _, _, system, penalty in log:
        by_system.setdefault(system, []).append(penalty)
    expected = {system: statistics.fmean(p) for system, p in by_system.items()}
    assert [row["system"] for row in rows] == sorted(expected, key=expected.get)  # lower first
    for row in rows:
        assert row["score"] == pytest.approx(expected[row["system"]])
        assert row["judgments"] == len(by_system[row["system"]])


def test_the_contrastive_mqm_consensus_is_wmt26s_formula(contrastive_mqm_judged, manager, client):
    task, users, log = contrastive_mqm_judged
    rows = {row.username: row for row in span_task_results(task).reliability}
    # WMT26 (humeval/02a-filter_data.py), by hand on the answers given: scores are negated
    # penalties; each system's mean and sample variance over everyone's scores.
    scores = {}
    for _, _, system, penalty in log:
        scores.setdefault(system, []).append(-penalty)
    mean = {s: statistics.fmean(x) for s, x in scores.items()}
    var = {s: statistics.variance(x) for s, x in scores.items()}
    for name, user in users.items():
        screens = {}
        for annotator, screen, system, penalty in log:
            if annotator == user.id:
                screens.setdefault(screen, {})[system] = -penalty
        values = [
            2 ** (-((x - y - (mean[a] - mean[b])) ** 2) / (2 * (var[a] + var[b]) + 1e-6))
            for on_screen in screens.values()
            for (a, x), (b, y) in itertools.combinations(on_screen.items(), 2)
        ]
        consensus = rows[name].consensus
        assert consensus.screens == len(screens)
        assert consensus.likelihood == pytest.approx(statistics.fmean(values), abs=1e-12)
    assert rows["odd"].consensus.likelihood < 0.75 and not rows["odd"].passes
    assert all(rows[name].passes for name in ("c1", "c2", "c3"))
    client.force_login(manager)
    page = client.get(f"/campaigns/{task.campaign.id}/results/human/").content.decode()
    assert f'id="task-{task.id}"' in page and "output on a contrastive screen" in page
    assert f'id="reliability-{task.id}"' in page and "Consensus" in page


# -- Document page scores ----------------------------------------------------------------------

PAGE_SCORE = {"Online-B": 80, "UEdin": 60, "happypoet": 40}


@pytest.mark.parametrize("task_type", ["esa", "adequacy"])
def test_document_scores_per_system_on_the_page_api_and_download(
    launched, loaded_campaign, make_annotator, manager, client, task_type
):
    settings = {"scale": "da100"} if task_type == "adequacy" else {}
    # Three judgments per page: each annotator judges one replica of every page.
    task = launched(
        task_type,
        unit="document",
        page_size=5,
        document_score=True,
        judgments_per_item=3,
        **settings,
    )
    given = {}
    for name, shift in [("a1", 0), ("a2", 4), ("gone", -30)]:
        user = make_annotator(loaded_campaign, name)
        slot = slot_claim_next(task=task, annotator_id=user.id)
        while slot is not None:
            page = list(
                Slot.objects.filter(batch_id=slot.batch_id, page=slot.page)
                .select_related("item__system")
                .order_by("position")
            )
            system = page[0].item.system.name if page[0].item.system else None
            score = PAGE_SCORE.get(system, 50) + shift
            answers = [{"slot": s.id, "score": 50, "spans": []} for s in page]
            if task_type == "adequacy":
                answers = [{"slot": s.id, "score": 50} for s in page]
            _, slot, _ = page_record_and_claim_next(
                task=task,
                slot_id=slot.id,
                annotator_id=user.id,
                answers=answers,
                document_score=score,
            )
            if name != "gone" and system and page[0].item.item_type == ItemType.TGT:
                given.setdefault(system, []).append(score)
    AnnotatorExclusion.objects.create(
        campaign=loaded_campaign, annotator=user, task=task, created_by=manager
    )
    expected = sorted(
        ((s, statistics.fmean(x), len(x)) for s, x in given.items()), key=lambda e: -e[1]
    )
    assert expected
    client.force_login(manager)
    body = client.get(f"/api/v1/campaigns/{loaded_campaign.id}/results/human").json()
    tasks = [*body["tasks"], *body["span_rankings"]]
    (entry,) = [t for t in tasks if t.get("id", t.get("task_id")) == task.id]
    assert [(d["system"], d["pages"]) for d in entry["document_scores"]] == [
        (s, n) for s, _, n in expected
    ]
    for document, (_, mean, _) in zip(entry["document_scores"], expected, strict=True):
        assert document["mean"] == pytest.approx(mean)
    page = client.get(f"/campaigns/{loaded_campaign.id}/results/human/").content.decode()
    assert f'id="document-scores-{task.id}"' in page
    download = client.get(f"/campaigns/{loaded_campaign.id}/results/human/rankings.json")
    rows = json.loads(b"".join(download.streaming_content))["systems"]
    documents = [r for r in rows if r["measure"] == "document_score"]
    assert [(r["system"], r["judgments"]) for r in documents] == [(s, n) for s, _, n in expected]
