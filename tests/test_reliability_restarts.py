"""The reliability table after "Let start again" (issue 24 §3-4): every figure of a restarted
annotator follows their current attempt (time per item, too fast, straight-lining, repeats,
attention checks, tutorial), the row says which attempt it is, and the judgments of the
earlier attempt stay in the database and in the exports, marked excluded.

Failed before: an error-span task's table kept reading the earlier attempt's judgments (a
hasty first attempt stayed flagged after careful work), the tutorial pass rate counted the
attempts before the restart, a restarted annotator had no row until they judged again, and
no row said it was a second attempt."""

from __future__ import annotations

import csv
import io
import json

import pytest

from annotation.models import ItemType, Judgment
from annotation.selectors.exports import judgment_export_rows
from annotation.selectors.human import task_results
from annotation.selectors.human.loading import campaign_usernames, system_names
from annotation.selectors.human.spans import span_task_results
from annotation.selectors.spans import span_judgments
from annotation.selectors.tutorials import tutorial_outcomes
from annotation.services.restarts import annotator_restart
from annotation.services.tutorial_uploads import tutorial_upload
from annotation.services.tutorials import tutorial_answer_record
from annotation.span_exports import spans_jsonl_lines
from tests.test_span_reliability import HASTY_SECONDS, STEADY_SECONDS, _judge, hasty_esa

pytestmark = pytest.mark.django_db

ITEMS = 12
CHECKS = {"bad_reference_rate": 0.25, "repeat_rate": 0.25}


def steady_esa(task, slot):
    """A bad reference's damage marked and scored 30, other outputs 50-90 by their item (a
    repeat alike, so no score stands out as straight-lining)."""
    if slot.item.item_type == ItemType.BAD:
        start, end = slot.item.check_span
        return {"score": 30, "spans": [{"start": start, "end": end, "severity": "major"}]}
    return {"score": 50 + slot.item_id % 5 * 10, "spans": []}


def steady_likert(task, slot):
    """A bad reference scored 1, other outputs 2-5 by their item (a repeat alike)."""
    return {"score": 1 if slot.item.item_type == ItemType.BAD else 2 + slot.item_id % 4}


def hasty_likert(task, slot):
    return {"score": 5}


ANSWERS = {"esa": (steady_esa, hasty_esa), "adequacy": (steady_likert, hasty_likert)}


def _rows(task):
    """The task's reliability table by username, as the results page computes it."""
    if task.task_type == "esa":
        return {row.username: row for row in span_task_results(task).reliability}
    result = task_results(
        task,
        usernames=campaign_usernames(task.campaign_id),
        names=system_names(task.campaign_id),
        excluded=set(),
    )
    return {row.username: row for row in result.reliability}


@pytest.mark.parametrize("task_type", ["esa", "adequacy"])
def test_a_hasty_annotator_let_start_again_is_judged_on_the_new_attempt(
    task_type, launched, loaded_campaign, make_annotator, manager
):
    task = launched(task_type, batch_size=ITEMS, items_per_annotator=ITEMS, **CHECKS)
    steady_answer, hasty_answer = ANSWERS[task_type]
    hasty = make_annotator(loaded_campaign, "hasty")
    _judge(task, hasty, hasty_answer, HASTY_SECONDS)
    row = _rows(task)["hasty"]
    assert row.too_fast and row.straight_lining.flagged and not row.passes
    assert row.attempt == 1
    first = set(Judgment.objects.filter(task=task, annotator=hasty).values_list("id", flat=True))

    assert annotator_restart(task=task, annotator_id=hasty.id, by=manager) == 2
    # Nothing judged yet in the new attempt: a row with nothing to blame them for.
    row = _rows(task)["hasty"]
    assert (row.attempt, row.time.items, row.time.median_seconds) == (2, 0, None)
    assert row.attention is None and row.repeats.pairs == 0 and row.passes

    _judge(task, hasty, steady_answer, STEADY_SECONDS)
    row = _rows(task)["hasty"]
    new = Judgment.objects.filter(task=task, annotator=hasty, excluded=False)
    assert new.count() >= 10 and not first & set(new.values_list("id", flat=True))
    # Every figure is the new attempt's: its items only, 10 s each, varied, checks passed.
    assert row.time.items == new.count()
    assert row.time.median_seconds == pytest.approx(STEADY_SECONDS) and not row.too_fast
    assert row.straight_lining.scores == new.count() and not row.straight_lining.flagged
    assert row.repeats.pairs == new.filter(is_repeat=True).count() > 0
    assert row.repeats.mean == 0.0  # a repeat scored as the first time
    assert row.attention.total > 0 and row.attention.passed == row.attention.total
    assert row.passes and row.reasons == () and row.attempt == 2
    # The earlier judgments are kept, marked excluded.
    kept = Judgment.objects.filter(id__in=first)
    assert kept.count() == len(first) and all(j.excluded for j in kept)


def test_the_page_api_and_downloads_show_the_attempt_and_keep_the_earlier_judgments(
    launched, loaded_campaign, make_annotator, manager, client
):
    task = launched("esa", batch_size=ITEMS, items_per_annotator=ITEMS, **CHECKS)
    hasty = make_annotator(loaded_campaign, "hasty")
    _judge(task, hasty, hasty_esa, HASTY_SECONDS)
    first = set(Judgment.objects.filter(task=task, annotator=hasty).values_list("id", flat=True))
    annotator_restart(task=task, annotator_id=hasty.id, by=manager)
    _judge(task, hasty, ANSWERS["esa"][0], STEADY_SECONDS)
    campaign = task.campaign
    client.force_login(manager)

    page = client.get(f"/campaigns/{campaign.id}/results/human/").content.decode()
    table = page[page.index(f'id="reliability-{task.id}"') :]
    assert f'data-annotator="{hasty.id}" data-passes="1"' in table
    assert ">attempt 2</small>" in table[: table.index("</table>")]
    assert "every figure is of their current attempt" in table
    body = client.get(f"/api/v1/campaigns/{campaign.id}/results/human").json()
    (spans,) = body["span_rankings"]
    (api,) = spans["reliability"]
    assert (api["annotator"], api["attempt"], api["passes"]) == ("hasty", 2, True)
    download = client.get(f"/campaigns/{campaign.id}/results/human/reliability.csv")
    (exported,) = csv.DictReader(io.StringIO(b"".join(download.streaming_content).decode()))
    assert (exported["attempt"], exported["too_fast"]) == ("2", "False")

    # The exports keep both attempts, the first marked excluded (as before the restart's
    # reliability changes: what they did is untouched).
    rows = list(judgment_export_rows(campaign=campaign, task_id=task.id))
    assert {row["id"] for row in rows if row["excluded"]} == first
    assert len(rows) > len(first) and not any(row["excluded"] for row in rows[len(first) :])
    judged = span_judgments(campaign=campaign, task_id=task.id)
    marked = [
        json.loads(line)["excluded"] for line in spans_jsonl_lines(judged, pseudonymise=False)
    ]
    assert len(marked) == len(rows) and marked.count(True) == len(first)


def test_the_tutorial_pass_rate_counts_the_attempt_since_the_restart(
    launched, loaded_campaign, make_annotator, manager
):
    task = launched("esa", batch_size=ITEMS, items_per_annotator=ITEMS, seed=24)
    lines = [{"source": "Der Hund.", "target": "The dog.", "expected": {"score": [90, 100]}}]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    tutorial_upload(task=task, name="t.jsonl", data=data, pass_share=1, attempts=1)
    slow = make_annotator(loaded_campaign, "slow")
    (item,) = task.tutorial_items.all()
    wrong, right = {"score": 10, "spans": []}, {"score": 95, "spans": []}
    tutorial_answer_record(task=task, annotator_id=slow.id, item_id=item.id, answer=wrong)
    assert tutorial_outcomes(task) == [(slow.id, False)]

    annotator_restart(task=task, annotator_id=slow.id, by=manager)
    assert tutorial_outcomes(task) == []  # a new attempt, not answered yet
    tutorial_answer_record(task=task, annotator_id=slow.id, item_id=item.id, answer=right)
    assert tutorial_outcomes(task) == [(slow.id, True)]
    row = _rows(task)["slow"]
    assert (row.tutorial.passed, row.tutorial.total, row.attempt) == (1, 1, 2)


def test_a_tutorial_passed_before_a_restart_still_counts(
    launched, loaded_campaign, make_annotator, manager
):
    """Let start again after failing the checks: the tutorial passed before still gates the
    new attempt (not asked again), so its answers are still the ones shown."""
    task = launched("esa", batch_size=ITEMS, items_per_annotator=ITEMS, seed=24, **CHECKS)
    lines = [{"source": "Der Hund.", "target": "The dog.", "expected": {"score": [90, 100]}}]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    tutorial_upload(task=task, name="t.jsonl", data=data, pass_share=1, attempts=2)
    hasty = make_annotator(loaded_campaign, "hasty")
    (item,) = task.tutorial_items.all()
    answer = {"score": 95, "spans": []}
    tutorial_answer_record(task=task, annotator_id=hasty.id, item_id=item.id, answer=answer)
    _judge(task, hasty, hasty_esa, HASTY_SECONDS)
    annotator_restart(task=task, annotator_id=hasty.id, by=manager)
    assert tutorial_outcomes(task) == [(hasty.id, True)]
