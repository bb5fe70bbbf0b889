"""An import's results are computed ahead by the refresh job on a real worker, so that the
first reader of a large imported campaign finds them stored (issue 25 section 4)."""

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Campaign, ResultsSnapshot
from annotation.selectors.results_snapshots import results_versions
from tests.conftest import DATA, wait_for, worker_queue_drained

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


def test_an_import_has_its_results_computed_before_the_first_reader(
    celery_worker_process, manager, client, settings, tmp_path
):
    settings.RESULTS_SNAPSHOT_SYNC_JUDGMENTS = 1  # every campaign counts as large
    worker_queue_drained()
    lines = (DATA / "mqm-ted-zh-en" / "mqm_ted_zhen.tsv").read_text().splitlines()[:400]
    tsv = tmp_path / "ted.tsv"
    tsv.write_text("\n".join(lines) + "\n")
    call_command(
        "import_mqm", str(tsv), "--name", "TED", "--owner", "manager", "--languages", "zh-en"
    )
    campaign = Campaign.objects.get(name="TED")

    def computed():
        stored = ResultsSnapshot.objects.filter(
            campaign=campaign, kind=ResultsSnapshot.Kind.HUMAN, variant=""
        ).first()
        current = results_versions([campaign.id])[campaign.id].digest
        return stored is not None and stored.version == current

    wait_for(computed, timeout=120)
    client.force_login(manager)
    with CaptureQueriesContext(connection) as queries:
        page = client.get(reverse("results-human", args=[campaign.id]))
    assert page.status_code == 200
    assert b"results-being-computed" not in page.content and b"results-as-of" not in page.content
    assert not [q for q in queries.captured_queries if "annotation_judgment" in q["sql"]]
