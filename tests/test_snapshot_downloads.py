"""The results pages' downloads at WMT scale (issue 25 section 4): the rankings, the reliability
table, the plots and the shared task's paper tables of a large campaign are never computed in
the request. Current figures make the file (``Last-Modified``); older ones make it too, marked
(its name says "as of", ``Retry-After``, a JSON file's ``current`` false, a Typst or LaTeX
source's first line), with the refresh job asked for; none yet answers 202 with
``Retry-After``: a script gets the API's ``{"status": "computing"}``, a browser a small page
that says so and asks again by itself."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.http import parse_http_date

from annotation.models import Job, ResultsSnapshot, Task
from annotation.selectors.results_snapshots import results_versions
from annotation.services.snapshot_compute import results_snapshots_refresh
from tests.test_results_snapshots import _judge, judged  # noqa: F401 (a fixture)
from tests.test_shared_task_procedures import two_pairs  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
# (url name, arguments after the campaign id, what the file is)
HUMAN_DOWNLOADS = [
    ("results-human-rankings", ["csv"]),
    ("results-human-rankings", ["json"]),
    ("results-human-reliability", ["csv"]),
    ("results-human-reliability", ["json"]),
    ("results-human-plot", ["progress-0", "svg"]),
]


def _get(client, url, **headers):
    """The answer, its body and the queries that read judgments on the way."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, headers=headers)
        body = b"".join(response.streaming_content) if response.streaming else response.content
    reads = [q["sql"] for q in queries.captured_queries if "annotation_judgment" in q["sql"]]
    return response, body, reads


def _asked(campaign) -> bool:
    return Job.objects.filter(
        kind=Job.Kind.RESULTS_SNAPSHOT, target_id=campaign.id, state=Job.State.PENDING
    ).exists()


def _refresh(campaign) -> None:
    """What the job does, and the job's request done with (so that a new ask shows)."""
    results_snapshots_refresh(target_id=campaign.id)
    Job.objects.filter(kind=Job.Kind.RESULTS_SNAPSHOT, target_id=campaign.id).delete()


def _filename(response) -> str:
    return response["Content-Disposition"].split('filename="', 1)[1].rstrip('"')


def _assert_computing(client, url, judgments: int) -> None:
    """202 at once, nothing read: JSON for a script, a page that asks again for a browser."""
    answer, body, reads = _get(client, url)
    assert answer.status_code == 202, body[:300]
    assert reads == []
    found = json.loads(body)
    assert found["status"] == "computing" and found["judgments"] == judgments
    assert int(answer["Retry-After"]) == found["retry_after"] > 0
    page, body, reads = _get(client, url, accept=BROWSER)
    assert page.status_code == 202 and reads == [] and int(page["Retry-After"]) > 0
    text = body.decode()
    assert 'id="download-being-computed"' in text
    assert f"being computed ({judgments} judgments)" in text
    assert '<meta http-equiv="refresh" content="10">' in text
    assert "<script>" not in text and "style=" not in text  # CSP: nothing inline


@pytest.mark.parametrize("name, args", HUMAN_DOWNLOADS)
def test_large_campaign_downloads_never_compute_in_the_request(
    judged,  # noqa: F811
    client,
    manager,
    settings,
    name,
    args,
):
    settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS = 1  # every campaign counts as large
    campaign, adequacy, (_, ann2) = judged["campaign"], judged["adequacy"], judged["raters"]
    counted = results_versions([campaign.id])[campaign.id].judgments
    client.force_login(manager)
    url = reverse(name, args=[campaign.id, *args])
    extension = args[-1]

    # None computed yet: "being computed", the job asked for.
    _assert_computing(client, url, counted)
    assert _asked(campaign)
    assert not ResultsSnapshot.objects.filter(campaign=campaign).exists()

    # Computed by the job: the file, of current figures, read from the snapshot.
    _refresh(campaign)
    stored = ResultsSnapshot.objects.get(campaign=campaign, kind="human", variant="")
    answer, current, reads = _get(client, url)
    assert answer.status_code == 200 and reads == []
    assert "Retry-After" not in answer
    assert parse_http_date(answer["Last-Modified"]) == int(stored.computed_at.timestamp())
    assert "-as-of-" not in _filename(answer) and _filename(answer).endswith(f".{extension}")
    if extension == "json":
        document = json.loads(current)
        assert document["current"] is True and document["judgments"] == counted
        assert document["judgments_since"] == 0

    # New judgments: the older figures, marked as such, and the job asked again.
    _judge(adequacy, ann2, judged["rng"], limit=2)
    answer, older, reads = _get(client, url)
    assert answer.status_code == 200 and reads == []
    assert int(answer["Retry-After"]) > 0
    assert parse_http_date(answer["Last-Modified"]) == int(stored.computed_at.timestamp())
    assert f"-as-of-{stored.computed_at:%Y%m%d-%H%M}Z.{extension}" in _filename(answer)
    assert _asked(campaign)
    if extension == "json":
        document = json.loads(older)
        assert document["current"] is False and document["judgments"] == counted
        assert document["judgments_since"] == 2
        assert {k: v for k, v in document.items() if k not in ("current", "judgments_since")} == {
            k: v for k, v in json.loads(current).items() if k not in ("current", "judgments_since")
        }
    elif extension == "csv":
        assert older == current  # the same figures, as they were

    _refresh(campaign)
    answer, _, reads = _get(client, url)
    assert answer.status_code == 200 and reads == [] and "Retry-After" not in answer
    assert "-as-of-" not in _filename(answer)


def test_large_shared_task_table_files_never_compute_in_the_request(
    two_pairs,  # noqa: F811
    client,
    manager,
    settings,
):
    settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS = 1
    shared, de, cs = two_pairs
    client.force_login(manager)
    every = reverse("shared-task-tables", args=[shared.id, "all", "typ"])
    own = reverse("shared-task-tables", args=[shared.id, f"pair-{de.id}", "tex"])
    counted = results_versions([de.id, cs.id])

    # No pair computed: every file waits.
    _assert_computing(client, every, counted[de.id].judgments + counted[cs.id].judgments)
    _assert_computing(client, own, counted[de.id].judgments)
    assert _asked(de) and _asked(cs)

    # One pair computed: its own table answers; the set of every pair's still waits for cs.
    _refresh(de)
    answer, body, reads = _get(client, own)
    assert answer.status_code == 200 and reads == [] and "Retry-After" not in answer
    assert not body.startswith(b"% Figures as of") and "-as-of-" not in _filename(answer)
    _assert_computing(client, every, counted[cs.id].judgments)

    # Both current, then one pair changed: the file of older figures says so.
    _refresh(cs)
    answer, body, reads = _get(client, every)
    assert answer.status_code == 200 and reads == [] and "Retry-After" not in answer
    assert not body.startswith(b"// Figures as of") and "-as-of-" not in _filename(answer)
    Task.objects.filter(campaign=cs).update(equivalence_margin=0.25)  # a new version of cs
    answer, older, reads = _get(client, every)
    assert answer.status_code == 200 and reads == []
    assert int(answer["Retry-After"]) > 0 and answer["Last-Modified"]
    assert older.startswith(b"// Figures as of ") and b"being computed" in older.split(b"\n")[0]
    assert older.split(b"\n", 1)[1] == body  # the same tables below the note
    assert "-as-of-" in _filename(answer)
    assert _asked(cs)
    # The pair that did not change: its own file is current.
    answer, _, reads = _get(client, own)
    assert answer.status_code == 200 and reads == [] and "Retry-After" not in answer
