"""The automatic-metrics results page and its downloads."""

import csv
import io

import pytest

from annotation.models import SystemRun
from annotation.services.campaigns import membership_set
from annotation.services.imports import upload_import
from annotation.services.scoring import JOB_METRICS, run_metrics_compute

pytestmark = pytest.mark.django_db

SOURCE = b"one two three four\nfive six seven eight\nnine ten eleven twelve\n"
REFERENCE = b"eins zwei drei vier\nfunf sechs sieben acht\nneun zehn elf zwolf\n"
SYSTEMS = {
    "good": REFERENCE,
    '=HYPERLINK("x")': b"eins zwei drei\nfunf sechs sieben acht\nneun zehn elf\n",
    "<script>bad</script>": b"ein zwo\nfunf\nneun\n",
}


@pytest.fixture
def scored(campaign, manager):
    upload_import(campaign=campaign, kind="source", files=[("s.en", SOURCE)], user=manager)
    upload_import(
        campaign=campaign, kind="reference", name="A", files=[("r.de", REFERENCE)], user=manager
    )
    for name, data in SYSTEMS.items():
        upload_import(
            campaign=campaign, kind="system", name=name, files=[("x.de", data)], user=manager
        )
    for run_id in SystemRun.objects.values_list("id", flat=True):
        run_metrics_compute(target_id=run_id, report_progress=lambda percent: None)
    return campaign


def test_page_shows_scores_plots_and_matrix_escaped(client, manager, scored):
    client.force_login(manager)
    page = client.get(f"/campaigns/{scored.id}/results/automatic/").content.decode()
    assert "<svg" in page and 'table class="matrix"' in page
    assert "<script>bad</script>" not in page
    assert "&lt;script&gt;bad&lt;/script&gt;" in page
    assert page.index(">good<") < page.index("&lt;script&gt;")  # ordered by BLEU


def test_csv_download_neutralises_formulas(client, manager, scored):
    client.force_login(manager)
    response = client.get(f"/campaigns/{scored.id}/results/automatic.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 3 * len(JOB_METRICS)
    names = {row["system"] for row in rows}
    assert '\'=HYPERLINK("x")' in names


def test_json_download(client, manager, scored):
    client.force_login(manager)
    body = client.get(f"/campaigns/{scored.id}/results/automatic.json").json()
    assert len(body["systems"]) == 3 * len(JOB_METRICS)
    assert len(body["pairs"]) == 3 * len(JOB_METRICS) * 2  # 3 pairs, every metric, 2 tests


def test_annotators_never_see_results(client, scored, django_user_model):
    annotator = django_user_model.objects.create_user("ann", password="x-password-1")
    membership_set(campaign=scored, user=annotator, role="annotator")
    client.force_login(annotator)
    assert client.get(f"/campaigns/{scored.id}/results/automatic/").status_code == 403
    assert client.get(f"/campaigns/{scored.id}/results/automatic.csv").status_code == 403


def test_api_results(manager, scored):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(manager)
    body = client.get(f"/api/v1/campaigns/{scored.id}/results/automatic").json()
    assert {row["metric"] for row in body["systems"]} == set(JOB_METRICS)
    assert len(body["pairs"]) == 3 * len(JOB_METRICS) * 2
