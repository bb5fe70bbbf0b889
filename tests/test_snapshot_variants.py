"""Results snapshots at WMT scale, the rest (issue 25 section 4): a large campaign with no
snapshot yet is answered at once with a page that says its results are being computed (and
reloads itself) while the refresh job computes them; the page's query choices, the results
API and a shared-task pair ranked by a chosen WMT procedure read snapshots of their own
instead of computing on each request; a variant is kept current only when asked for."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.api.human import HumanResultsSerializer
from annotation.models import Job, ResultsSnapshot
from annotation.selectors.human import human_results
from annotation.selectors.human.meta import meta_evaluation
from annotation.selectors.human.spans import span_results
from annotation.selectors.results_snapshots import results_versions, snapshot_value
from annotation.selectors.shared_task_pairs import pair_results
from annotation.services.results_snapshots import results_snapshots_refresh_stale
from annotation.services.shared_tasks import shared_task_create, shared_task_pair_procedure_set
from annotation.services.snapshot_compute import results_snapshots_refresh
from tests.test_results_snapshots import _judge, judged  # noqa: F401 (a fixture)
from tests.test_shared_task_procedures import two_pairs  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

HUMAN, PAIR = ResultsSnapshot.Kind.HUMAN, ResultsSnapshot.Kind.PAIR


def _judgment_reads(queries) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if "annotation_judgment" in q["sql"]]


def _get(client, url):
    """The answer and the queries that read judgments on the way."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, response.content[:500]
    return response, _judgment_reads(queries)


FIGURES = ("current", "as_of", "judgments", "judgments_since")


def _figures_only(response) -> dict:
    """The results API's body without the fields that say how current it is."""
    return {key: value for key, value in response.json().items() if key not in FIGURES}


def test_large_campaign_without_snapshot_is_answered_at_once(judged, client, manager, settings):  # noqa: F811
    settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS = 1  # every campaign counts as large
    campaign = judged["campaign"]
    client.force_login(manager)
    url = reverse("results-human", args=[campaign.id])
    page, reads = _get(client, url)
    text = page.content.decode()
    # Nothing computed on the request: a page that says so, with the count, and reloads.
    assert reads == []
    assert 'id="results-being-computed"' in text
    counted = results_versions([campaign.id])[campaign.id].judgments  # the loop's count
    assert counted > 0
    assert f"being computed ({counted} judgments)" in text
    assert '<meta http-equiv="refresh" content="10">' in text
    assert "<script>" not in text and "style=" not in text  # CSP: nothing inline
    assert not ResultsSnapshot.objects.filter(campaign=campaign).exists()
    job = Job.objects.get(kind=Job.Kind.RESULTS_SNAPSHOT, target_id=campaign.id)
    assert job.state == Job.State.PENDING
    # A choice of the page is asked for the same way.
    choice, reads = _get(client, url + "?passing=1")
    assert reads == [] and b'id="results-being-computed"' in choice.content

    results_snapshots_refresh(target_id=campaign.id)
    page, reads = _get(client, url)
    assert reads == [] and b"results-being-computed" not in page.content
    assert b"Human results" in page.content and b'id="results-as-of"' not in page.content
    # The choice asked for was computed by the same job.
    choice, reads = _get(client, url + "?passing=1")
    assert reads == [] and b"results-being-computed" not in choice.content


def test_small_campaign_without_snapshot_is_computed_on_the_page(judged, client, manager):  # noqa: F811
    campaign = judged["campaign"]
    client.force_login(manager)
    page, reads = _get(client, reverse("results-human", args=[campaign.id]))
    assert reads and b"results-being-computed" not in page.content
    assert ResultsSnapshot.objects.filter(campaign=campaign, kind=HUMAN, variant="").exists()


@pytest.mark.parametrize(
    "query, variant",
    [
        ("?procedure=wmt25", "procedure=wmt25"),
        ("?weights=linear&passing=1", "weights=linear&passing=1"),
        ("?passing=1&procedure=wmt26", "procedure=wmt26&passing=1"),
    ],
)
def test_page_choices_read_a_snapshot_of_their_own(judged, client, manager, query, variant):  # noqa: F811
    campaign = judged["campaign"]
    client.force_login(manager)
    url = reverse("results-human", args=[campaign.id]) + query
    first, reads = _get(client, url)
    assert reads  # computed once (a small campaign: on the page) ...
    second, reads = _get(client, url)
    assert reads == [], f"{query} read judgments again: {reads[:2]}"  # ... then read
    stored = ResultsSnapshot.objects.get(campaign=campaign, kind=HUMAN, variant=variant)
    assert stored.judgments > 0
    assert first.content.count(b"<tr") == second.content.count(b"<tr")
    # What the snapshot holds is the selectors' output for these choices.
    page = snapshot_value(stored)
    choices = dict(pair.split("=") for pair in variant.split("&"))
    direct_spans = span_results(
        campaign,
        procedure=choices.get("procedure", "wmt24"),
        passing_only="passing" in choices,
    )
    assert repr(page.span_results) == repr(direct_spans)
    direct = human_results(
        campaign, weights=choices.get("weights"), passing_only="passing" in choices
    )
    assert repr(page.results.tasks) == repr(direct.tasks)


def _old_api_body(campaign, *, task_id=None, procedure="wmt24", passing=False, weights=None):
    """The results API's body as it was computed on each request before snapshots."""
    results = human_results(campaign, weights=weights, task_id=task_id, passing_only=passing)
    body = {
        "tasks": results.tasks,
        "span_rankings": span_results(
            campaign, task_id=task_id, agreement=False, procedure=procedure, passing_only=passing
        ),
        "excluded": sorted(results.excluded),
        "correlations": results.correlations,
        "meta_evaluation": meta_evaluation(campaign, results.excluded),
    }
    # Through JSON as the API answers (NaN is null there); without how current it is.
    how_current = dict.fromkeys(FIGURES, 0)
    data = json.loads(json.dumps(HumanResultsSerializer({**body, **how_current}).data))
    return {key: value for key, value in data.items() if key not in FIGURES}


def test_results_api_serves_the_snapshot(judged, client, manager):  # noqa: F811
    campaign, adequacy = judged["campaign"], judged["adequacy"]
    client.force_login(manager)
    url = reverse("api-results-human", args=[campaign.id])
    client.get(reverse("results-human", args=[campaign.id]))  # the page stores the snapshot
    answer, reads = _get(client, url)
    assert reads == [], f"the API computed again: {reads[:2]}"
    assert _figures_only(answer) == _old_api_body(campaign)
    assert answer.json()["current"] is True
    # One task: the same snapshot, restricted (its correlations from its own scores only).
    answer, reads = _get(client, f"{url}?task={adequacy.id}")
    assert reads == []
    assert _figures_only(answer) == _old_api_body(campaign, task_id=adequacy.id)
    assert [t["id"] for t in answer.json()["tasks"]] == [adequacy.id]
    # Choices: a snapshot of their own, shared with the page's same choices.
    query = "?procedure=wmt25&passing=true&weights=quadratic"
    first, _ = _get(client, url + query)
    again, reads = _get(client, url + query)
    assert reads == [] and again.json() == first.json()
    expected = _old_api_body(campaign, procedure="wmt25", passing=True, weights="quadratic")
    assert _figures_only(first) == expected
    _, reads = _get(
        client,
        reverse("results-human", args=[campaign.id])
        + "?procedure=wmt25&passing=1&weights=quadratic",
    )
    assert reads == []
    # The error-span results of the API read the page's snapshot of that procedure too.
    spans, reads = _get(client, reverse("api-results-human-spans", args=[campaign.id]))
    assert reads == [] and spans.json()["tasks"]


@pytest.mark.parametrize(
    "name, args",
    [
        ("results-human-rankings", ["csv"]),
        ("results-human-reliability", ["json"]),
        ("results-human-plot", ["progress-0", "svg"]),
    ],
)
def test_downloads_read_the_current_snapshot(judged, client, manager, name, args):  # noqa: F811
    campaign = judged["campaign"]
    client.force_login(manager)
    url = reverse(name, args=[campaign.id, *args])

    def body(response) -> bytes:
        assert response.status_code == 200
        return b"".join(response.streaming_content) if response.streaming else response.content

    computed = body(client.get(url))  # a small campaign: computed here, and stored
    with CaptureQueriesContext(connection) as queries:
        read = body(client.get(url))
    assert _judgment_reads(queries) == []
    if name != "results-human-plot":  # (a plot file's bytes may differ run to run)
        assert read == computed


def test_results_api_answers_older_figures_of_a_large_campaign_marked(
    judged,  # noqa: F811
    client,
    manager,
    settings,
):
    campaign, adequacy, (_, ann2) = judged["campaign"], judged["adequacy"], judged["raters"]
    client.force_login(manager)
    url = reverse("api-results-human", args=[campaign.id])
    client.get(url)  # computed (a small campaign) and stored
    before = _old_api_body(campaign)
    settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS = 1  # now large: never computed in the request
    _judge(adequacy, ann2, judged["rng"], limit=1)
    answer, reads = _get(client, url)
    assert reads == []  # the stored figures, as they were, said to be older
    assert _figures_only(answer) == before != _old_api_body(campaign)
    assert answer.json()["current"] is False and answer.json()["judgments_since"] == 1


def test_a_variant_is_kept_current_only_when_asked(judged, client, manager, settings):  # noqa: F811
    settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS = 1
    campaign, adequacy, (_, ann2) = judged["campaign"], judged["adequacy"], judged["raters"]
    client.force_login(manager)
    url = reverse("results-human", args=[campaign.id])
    client.get(url + "?procedure=wmt26")  # asked for
    results_snapshots_refresh(target_id=campaign.id)
    variant = ResultsSnapshot.objects.get(campaign=campaign, variant="procedure=wmt26")
    counted = variant.judgments
    _judge(adequacy, ann2, judged["rng"], limit=1)
    # The sweep asks the job for the page as first shown; the job leaves the variant alone,
    # since nobody looked at it since.
    assert results_snapshots_refresh_stale() == 1
    results_snapshots_refresh(target_id=campaign.id)
    assert ResultsSnapshot.objects.get(id=variant.id).judgments == counted
    assert ResultsSnapshot.objects.get(campaign=campaign, variant="").judgments == counted + 1
    assert results_snapshots_refresh_stale() == 0
    # Looked at again: shown as of its count and asked for; the job brings it current.
    page, reads = _get(client, url + "?procedure=wmt26")
    assert reads == [] and f"as of {counted} judgments" in page.content.decode()
    assert results_snapshots_refresh_stale() == 1
    results_snapshots_refresh(target_id=campaign.id)
    assert ResultsSnapshot.objects.get(id=variant.id).judgments == counted + 1


def test_a_pair_ranked_by_a_chosen_procedure_comes_from_the_snapshot(two_pairs, client, manager):  # noqa: F811
    shared, de, cs = two_pairs
    shared_task_pair_procedure_set(shared_task=shared, campaign_id=de.id, procedure="wmt25")
    # Choosing asked the job for the pair's table by that procedure.
    assert Job.objects.filter(kind=Job.Kind.RESULTS_SNAPSHOT, target_id=de.id).exists()
    for campaign in (de, cs):
        results_snapshots_refresh(target_id=campaign.id)
    stored = ResultsSnapshot.objects.get(campaign=de, kind=PAIR, variant="wmt25")
    assert stored.judgments > 0
    client.force_login(manager)
    page, reads = _get(client, reverse("shared-task-detail", args=[shared.id]))
    assert reads == [], f"a pair was computed on the page: {reads[:2]}"
    body, reads = _get(client, reverse("api-shared-task", args=[shared.id]))
    assert reads == []
    pair = next(p for p in body.json()["pairs"] if p["campaign"] == de.id)
    assert pair["procedure"] == "wmt25" and pair["procedure_chosen"] == "wmt25"
    direct = pair_results(de, "wmt25")
    assert [(s["system"], s["score"]) for s in pair["systems"]] == [
        (r.system, r.score) for r in direct.rows
    ]
    assert "WMT25" in page.content.decode()
    # Back to the default: the job drops the table by a procedure no shared task chooses.
    shared_task_pair_procedure_set(shared_task=shared, campaign_id=de.id, procedure="")
    results_snapshots_refresh(target_id=de.id)
    assert set(
        ResultsSnapshot.objects.filter(campaign=de, kind=PAIR).values_list("variant", flat=True)
    ) == {""}


def test_shared_task_page_with_a_large_pair_not_computed_refreshes_itself(
    judged,  # noqa: F811
    client,
    manager,
    settings,
):
    settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS = 1
    campaign = judged["campaign"]
    shared = shared_task_create(name="WMT pending", owner=manager, campaign_ids=[campaign.id])
    client.force_login(manager)
    page, reads = _get(client, reverse("shared-task-detail", args=[shared.id]))
    text = page.content.decode()
    assert reads == []
    assert 'id="pairs-being-computed"' in text and 'http-equiv="refresh"' in text
    results_snapshots_refresh(target_id=campaign.id)
    page, _ = _get(client, reverse("shared-task-detail", args=[shared.id]))
    assert b"pairs-being-computed" not in page.content
    assert b'http-equiv="refresh"' not in page.content
