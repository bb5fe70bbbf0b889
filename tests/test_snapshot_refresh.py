"""The refresh job at WMT scale (issue 25 section 4): it computes a pair's task once. The
human results page as first shown and the shared-task pair table rank the same task (a
Likert task as WMT21, an ESA task by the default procedure); the job computes the page first
and the pair table reuses its task's results (fewer reads of the database: the judgments'
COPY reads, which Django does not see, aside), and stores exactly the table computed from
nothing."""

import numpy as np
import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import ResultsSnapshot
from annotation.selectors.results_snapshots import human_page, pair_page, snapshot_value
from annotation.selectors.shared_task_pairs import pair_results
from annotation.services.shared_tasks import shared_task_create
from annotation.services.snapshot_compute import results_snapshots_refresh
from tests.test_results_snapshots import _judge, judged  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def _queries(compute) -> int:
    cache.clear()  # the meta-evaluation's cache: each computes it
    with CaptureQueriesContext(connection) as queries:
        compute()
    return len(queries.captured_queries)


@pytest.fixture
def likert_only(launched, loaded_campaign, make_annotator):
    """A campaign whose pair is ranked by its adequacy task (no error-span task)."""
    rng = np.random.default_rng(11)
    task = launched("adequacy", judgments_per_item=2, batch_size=60)
    for name in ("lk1", "lk2"):
        _judge(task, make_annotator(loaded_campaign, name), rng)
    return loaded_campaign


@pytest.mark.parametrize("fixture", ["judged", "likert_only"])
def test_the_job_computes_the_pair_task_once(request, fixture, manager):
    found = request.getfixturevalue(fixture)
    campaign = found["campaign"] if fixture == "judged" else found
    shared_task_create(name="WMT refresh", owner=manager, campaign_ids=[campaign.id])
    ResultsSnapshot.objects.filter(campaign=campaign).delete()

    # The pair from the page's task results asks the database less than from nothing (the
    # task's statistics are not computed again).
    page = human_page(campaign)
    reused = _queries(lambda: pair_page(campaign, "", page))
    alone = _queries(lambda: pair_results(campaign))
    assert reused < alone, (reused, alone)
    assert repr(pair_page(campaign, "", page).table) == repr(pair_results(campaign).table)

    # The job computes the page, then the pair from it: the table computed from nothing.
    results_snapshots_refresh(target_id=campaign.id)
    stored = ResultsSnapshot.objects.get(campaign=campaign, kind=ResultsSnapshot.Kind.PAIR)
    pair = snapshot_value(stored)
    direct = pair_results(campaign)
    assert pair.task.task_type == ("esa" if fixture == "judged" else "adequacy")
    assert pair.rows and repr(pair.table) == repr(direct.table)
    assert pair.automatic == direct.automatic and pair.procedure == direct.procedure
