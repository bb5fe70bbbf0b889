"""Results snapshots (issue 25 section 4): the human results page and the shared-task page
read stored results of the campaign's current version; the stored results equal the direct
computation; every change of their inputs gives a new version (the loop's counters for new
judgments, triggers for the rest); a large campaign's stale results are shown marked and a
refresh job is asked for, which brings them current and is idempotent."""

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Job, Judgment, ResultsSnapshot, Task
from annotation.selectors.human import human_results
from annotation.selectors.human.spans import span_results
from annotation.selectors.results_snapshots import results_versions
from annotation.selectors.shared_tasks import pair_results
from annotation.services.assignment import slot_claim_next
from annotation.services.exclusions import annotator_exclude
from annotation.services.judgments import judgment_record
from annotation.services.results_snapshots import (
    results_snapshot_read,
    results_snapshots_refresh_stale,
)
from annotation.services.shared_tasks import shared_task_create
from annotation.services.snapshot_compute import results_snapshots_refresh

pytestmark = pytest.mark.django_db

HUMAN, PAIR = ResultsSnapshot.Kind.HUMAN, ResultsSnapshot.Kind.PAIR
QUALITY = {"Online-B": 80, "UEdin": 65, "happypoet": 40}


def _judge(task, rater, rng, *, limit=None):
    """Judges the rater's slots (at most ``limit``); scores follow the system's quality."""
    done = 0
    while (limit is None or done < limit) and (
        slot := slot_claim_next(task=task, annotator_id=rater.id)
    ) is not None:
        system = (slot.item.candidates[0]["systems"] or ["?"])[0]
        score = int(np.clip(QUALITY.get(system, 60) + rng.integers(-15, 16), 0, 100))
        if task.task_type == "adequacy":
            answer = {"score": max(1, min(5, round(score / 20)))}
        else:
            answer = {"score": score, "spans": []}
        judgment_record(task_id=task.id, slot_id=slot.id, annotator_id=rater.id, answer=answer)
        done += 1
    return done


@pytest.fixture
def judged(launched, loaded_campaign, make_annotator):
    """An adequacy and an ESA task, two raters; one adequacy slot left for later."""
    rng = np.random.default_rng(7)
    adequacy = launched("adequacy", judgments_per_item=2, batch_size=60)
    esa = launched("esa", judgments_per_item=2, batch_size=60)
    raters = [make_annotator(loaded_campaign, name) for name in ("ann1", "ann2")]
    for rater in raters:
        _judge(esa, rater, rng)
    _judge(adequacy, raters[0], rng)
    _judge(adequacy, raters[1], rng, limit=20)
    return {"campaign": loaded_campaign, "adequacy": adequacy, "raters": raters, "rng": rng}


def _stored(campaign, kind=HUMAN):
    return ResultsSnapshot.objects.get(campaign=campaign, kind=kind)


def test_snapshots_equal_the_direct_computation(judged):
    campaign = judged["campaign"]
    (computed,) = results_snapshot_read(kind=HUMAN, campaigns=[campaign])
    (read,) = results_snapshot_read(kind=HUMAN, campaigns=[campaign])  # from the database
    assert computed.current and read.current
    direct = human_results(campaign)
    assert read.value.results.tasks and read.value.span_results
    # Every table of every task (rankings, intervals, clusters, agreement, quality control,
    # reliability, ranking status) and the span tasks' rankings, field by field.
    assert repr(read.value.results.tasks) == repr(direct.tasks)
    assert repr(read.value.results.correlations) == repr(direct.correlations)
    assert repr(read.value.results.progress) == repr(direct.progress)
    assert repr(read.value.span_results) == repr(span_results(campaign))
    (pair,) = results_snapshot_read(kind=PAIR, campaigns=[campaign])
    (pair,) = results_snapshot_read(kind=PAIR, campaigns=[campaign])
    assert pair.current and pair.value.rows
    assert repr(pair.value.table) == repr(pair_results(campaign).table)


def test_every_input_change_gives_a_new_version(judged, manager):
    campaign, adequacy = judged["campaign"], judged["adequacy"]
    ann1, ann2 = judged["raters"]

    def version():
        return results_versions([campaign.id])[campaign.id]

    before = version()
    # A judgment through the loop: its batch counter moves (no trigger on the hot path).
    _judge(adequacy, ann2, judged["rng"], limit=1)
    after_judgment = version()
    assert after_judgment.digest != before.digest
    assert after_judgment.judgments == before.judgments + 1
    # Durations the loop sets later do not count; an exclusion, an edited score and a task
    # setting do (the triggers).
    Judgment.objects.filter(task=adequacy).update(duration_ms=1234)
    assert version().digest == after_judgment.digest
    annotator_exclude(campaign=campaign, annotator_id=ann1.id, excluded=True, by=manager)
    after_exclusion = version()
    assert after_exclusion.digest != after_judgment.digest
    first = Judgment.objects.filter(task=adequacy).order_by("id").first()
    Judgment.objects.filter(id=first.id).update(excluded=True)
    after_edit = version()
    assert after_edit.digest != after_exclusion.digest
    Task.objects.filter(id=adequacy.id).update(equivalence_margin=0.25)
    assert version().digest != after_edit.digest


def test_pages_read_snapshots_without_reading_judgments(judged, client, manager):
    campaign = judged["campaign"]
    shared = shared_task_create(name="WMT snapshot", owner=manager, campaign_ids=[campaign.id])
    client.force_login(manager)
    for url in (
        reverse("results-human", args=[campaign.id]),
        reverse("shared-task-detail", args=[shared.id]),
    ):
        first = client.get(url)
        assert first.status_code == 200
        with CaptureQueriesContext(connection) as queries:
            second = client.get(url)
        assert second.status_code == 200
        read = [q["sql"] for q in queries.captured_queries if "annotation_judgment" in q["sql"]]
        assert read == [], f"{url} read judgments again: {read[:2]}"
        assert b'id="results-as-of"' not in second.content
    assert {s.kind for s in ResultsSnapshot.objects.filter(campaign=campaign)} == {HUMAN, PAIR}


def test_small_campaign_shows_a_change_at_once(judged, client, manager):
    campaign, (ann1, _) = judged["campaign"], judged["raters"]
    client.force_login(manager)
    url = reverse("results-human", args=[campaign.id])
    assert b"excluded from the rankings" not in client.get(url).content
    annotator_exclude(campaign=campaign, annotator_id=ann1.id, excluded=True, by=manager)
    page = client.get(url)
    assert b"1 annotator excluded from the rankings" in page.content
    assert b'id="results-as-of"' not in page.content


def test_large_campaign_stale_results_marked_and_refreshed_once(judged, client, manager, settings):
    settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS = 1  # every campaign counts as large
    campaign, adequacy, (_, ann2) = judged["campaign"], judged["adequacy"], judged["raters"]
    client.force_login(manager)
    url = reverse("results-human", args=[campaign.id])
    # No snapshot yet: left to the job (tests/test_snapshot_variants.py), here run at once.
    assert b'id="results-being-computed"' in client.get(url).content
    results_snapshots_refresh(target_id=campaign.id)
    counted = _stored(campaign).judgments
    assert results_snapshots_refresh_stale() == 0  # current: nothing asked
    _judge(adequacy, ann2, judged["rng"], limit=1)

    page = client.get(url).content.decode()
    # The older results, said to be older, and a refresh asked for (once, however often
    # the page is read).
    assert 'id="results-as-of"' in page and f"as of {counted} judgments" in page
    client.get(url)
    job = Job.objects.get(kind=Job.Kind.RESULTS_SNAPSHOT, target_id=campaign.id)
    assert job.state == Job.State.PENDING
    assert _stored(campaign).judgments == counted
    assert results_snapshots_refresh_stale() == 1

    results_snapshots_refresh(target_id=campaign.id)
    refreshed = _stored(campaign)
    assert refreshed.judgments == counted + 1
    page = client.get(url).content.decode()
    assert 'id="results-as-of"' not in page
    assert f"{counted + 1} judgments by" in page
    # Idempotent: once current, running the job again computes nothing.
    results_snapshots_refresh(target_id=campaign.id)
    assert _stored(campaign).computed_at == refreshed.computed_at
    assert results_snapshots_refresh_stale() == 0


def test_unreadable_snapshot_is_recomputed(judged):
    campaign = judged["campaign"]
    results_snapshot_read(kind=HUMAN, campaigns=[campaign])
    ResultsSnapshot.objects.filter(campaign=campaign).update(payload=b"not a pickle")
    (read,) = results_snapshot_read(kind=HUMAN, campaigns=[campaign])
    assert read.current and read.value.results.tasks
    assert bytes(_stored(campaign).payload) != b"not a pickle"


def test_shared_task_page_leaves_large_pairs_to_the_job(judged, client, manager, settings):
    settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS = 1  # every campaign counts as large
    campaign = judged["campaign"]
    shared = shared_task_create(name="WMT snapshot", owner=manager, campaign_ids=[campaign.id])
    # Adding the pair asked for its computation ahead.
    assert Job.objects.filter(kind=Job.Kind.RESULTS_SNAPSHOT, target_id=campaign.id).exists()
    client.force_login(manager)
    url = reverse("shared-task-detail", args=[shared.id])
    with CaptureQueriesContext(connection) as queries:
        page = client.get(url)
    assert b"being computed" in page.content
    assert not [q for q in queries.captured_queries if "annotation_judgment" in q["sql"]]
    # Nor does the API compute it: "being computed" (tests/test_snapshot_api.py).
    api = client.get(reverse("api-shared-task", args=[shared.id]))
    assert api.status_code == 202 and api.json()["status"] == "computing"

    results_snapshots_refresh(target_id=campaign.id)
    page = client.get(url).content.decode()
    assert "being computed" not in page and 'id="results-as-of"' not in page
    assert "Online-B" in page
