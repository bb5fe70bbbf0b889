"""The results API and the shared-task API at WMT scale (issue 25 section 4): a large
campaign's figures are never computed in the request. Current figures answer 200 with
``current`` true and ``as_of``; older ones 200 with ``current`` false, ``as_of``, the
judgments since and ``Retry-After`` (the refresh job asked for); none yet 202
``{"status": "computing", "judgments": N}`` with ``Retry-After``. A small campaign is still
computed in the request, and says it is current."""

from datetime import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.http import parse_http_date

from annotation.models import Job, ResultsSnapshot, Task
from annotation.selectors.results_snapshots import results_versions
from annotation.services.shared_tasks import shared_task_create
from annotation.services.snapshot_compute import results_snapshots_refresh
from tests.test_results_snapshots import _judge, judged  # noqa: F401 (a fixture)
from tests.test_shared_task_procedures import two_pairs  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

RESULTS_APIS = ("api-results-human", "api-results-human-spans")


def _get(client, url):
    """The answer and the queries that read judgments on the way."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    reads = [q["sql"] for q in queries.captured_queries if "annotation_judgment" in q["sql"]]
    return response, reads


def _asked(campaign) -> bool:
    return Job.objects.filter(
        kind=Job.Kind.RESULTS_SNAPSHOT, target_id=campaign.id, state=Job.State.PENDING
    ).exists()


def _as_of(body) -> datetime:
    return datetime.fromisoformat(body["as_of"].replace("Z", "+00:00"))


@pytest.mark.parametrize("name", RESULTS_APIS)
def test_large_campaign_results_api_never_computes_in_the_request(
    judged,  # noqa: F811
    client,
    manager,
    settings,
    name,
):
    settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS = 1  # every campaign counts as large
    campaign, adequacy, (_, ann2) = judged["campaign"], judged["adequacy"], judged["raters"]
    counted = results_versions([campaign.id])[campaign.id].judgments
    client.force_login(manager)
    url = reverse(name, args=[campaign.id])

    # None computed yet: 202 at once, in the one status shape, and the job asked for.
    answer, reads = _get(client, url)
    assert answer.status_code == 202, answer.content[:300]
    assert reads == []
    body = answer.json()
    assert body["status"] == "computing" and body["judgments"] == counted
    assert int(answer["Retry-After"]) == body["retry_after"] > 0
    assert f"{counted} judgments" in body["message"]
    assert _asked(campaign)
    assert not ResultsSnapshot.objects.filter(campaign=campaign).exists()

    # Computed by the job: current, as of when it was computed.
    results_snapshots_refresh(target_id=campaign.id)
    stored = ResultsSnapshot.objects.get(campaign=campaign, variant="")
    answer, reads = _get(client, url)
    assert answer.status_code == 200 and reads == []
    body = answer.json()
    assert body["current"] is True and body["judgments_since"] == 0
    assert body["judgments"] == counted
    assert _as_of(body) == stored.computed_at
    assert "Retry-After" not in answer
    assert body["tasks"]

    # New judgments: the older figures, said to be older, and the job asked again.
    _judge(adequacy, ann2, judged["rng"], limit=2)
    answer, reads = _get(client, url)
    assert answer.status_code == 200 and reads == []
    body = answer.json()
    assert body["current"] is False
    assert body["judgments"] == counted and body["judgments_since"] == 2
    assert _as_of(body) == stored.computed_at
    assert int(answer["Retry-After"]) > 0
    assert _asked(campaign)

    results_snapshots_refresh(target_id=campaign.id)
    body = client.get(url).json()
    assert body["current"] is True and body["judgments"] == counted + 2


def test_small_campaign_results_api_is_computed_and_current(judged, client, manager):  # noqa: F811
    campaign, adequacy, (_, ann2) = judged["campaign"], judged["adequacy"], judged["raters"]
    client.force_login(manager)
    url = reverse("api-results-human", args=[campaign.id])
    answer, reads = _get(client, url)
    assert answer.status_code == 200 and reads  # computed here
    assert answer.json()["current"] is True and "Retry-After" not in answer
    _judge(adequacy, ann2, judged["rng"], limit=1)
    answer, reads = _get(client, url)
    assert reads and answer.json()["current"] is True
    assert answer.json()["judgments"] == results_versions([campaign.id])[campaign.id].judgments


def test_large_shared_task_api_never_computes_in_the_request(two_pairs, client, manager, settings):  # noqa: F811
    settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS = 1
    shared, de, cs = two_pairs
    client.force_login(manager)
    url = reverse("api-shared-task", args=[shared.id])
    tables = reverse("api-shared-task-tables", args=[shared.id, "all", "typ"])

    # No pair computed: 202 for the tables and their files.
    for address in (url, tables):
        answer, reads = _get(client, address)
        assert answer.status_code == 202, answer.content[:300]
        assert reads == []
        assert answer.json()["status"] == "computing" and int(answer["Retry-After"]) > 0

    # One pair computed: that pair ranked, the other said to be computing; the whole answer
    # is not current. The tables of every pair wait; the computed pair's own table does not.
    results_snapshots_refresh(target_id=de.id)
    answer, reads = _get(client, url)
    assert answer.status_code == 200 and reads == []
    body = answer.json()
    pairs = {pair["campaign"]: pair for pair in body["pairs"]}
    assert pairs[de.id]["current"] is True and pairs[de.id]["systems"]
    assert pairs[de.id]["computing"] is False
    assert pairs[cs.id]["computing"] is True and pairs[cs.id]["systems"] == []
    assert pairs[cs.id]["current"] is False and pairs[cs.id]["as_of"] is None
    assert body["current"] is False and int(answer["Retry-After"]) > 0
    assert client.get(tables).status_code == 202
    own = client.get(reverse("api-shared-task-tables", args=[shared.id, f"pair-{de.id}", "typ"]))
    assert own.status_code == 200 and "Retry-After" not in own
    assert parse_http_date(own["Last-Modified"]) > 0

    # Both current.
    results_snapshots_refresh(target_id=cs.id)
    answer, reads = _get(client, url)
    body = answer.json()
    assert reads == [] and body["current"] is True and "Retry-After" not in answer
    assert all(pair["current"] and not pair["computing"] for pair in body["pairs"])
    assert body["as_of"] == min(pair["as_of"] for pair in body["pairs"])

    # A change to one pair: its older figures, marked, and the file says so too.
    Task.objects.filter(campaign=cs).update(equivalence_margin=0.25)  # a new version
    answer, reads = _get(client, url)
    assert answer.status_code == 200 and reads == []
    pairs = {pair["campaign"]: pair for pair in answer.json()["pairs"]}
    assert pairs[cs.id]["current"] is False and pairs[cs.id]["systems"]
    assert pairs[de.id]["current"] is True
    assert answer.json()["current"] is False and int(answer["Retry-After"]) > 0
    assert _asked(cs)
    answer, reads = _get(client, tables)
    assert answer.status_code == 200 and reads == []
    assert int(answer["Retry-After"]) > 0 and answer["Last-Modified"]


def test_small_shared_task_api_is_computed_and_current(judged, client, manager):  # noqa: F811
    campaign = judged["campaign"]
    shared = shared_task_create(name="WMT small", owner=manager, campaign_ids=[campaign.id])
    client.force_login(manager)
    answer, reads = _get(client, reverse("api-shared-task", args=[shared.id]))
    assert answer.status_code == 200 and reads
    body = answer.json()
    assert body["current"] is True and body["pairs"][0]["current"] is True
    assert body["pairs"][0]["systems"] and "Retry-After" not in answer
