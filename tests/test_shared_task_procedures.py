"""Per-pair ranking procedure in a shared task: an organiser chooses, per language pair, which
WMT procedure ranks it (ESA: WMT24, WMT25 or WMT26; DA and Likert: WMT21); the choice is stored
on the pair and used by the pair's table, the global table and the downloads; page control and
API field; choices that do not apply to the pair's protocol are refused."""

import pytest
from django.urls import reverse

from annotation.errors import ApplicationError
from annotation.models import SharedTaskCampaign
from annotation.selectors.human.spans import span_results
from annotation.selectors.shared_task_tables import global_grid
from annotation.selectors.shared_tasks import shared_task_results
from annotation.services.campaigns import campaign_create
from annotation.services.imports import WMT_XML, upload_import
from annotation.services.shared_tasks import (
    shared_task_campaign_add,
    shared_task_create,
    shared_task_pair_procedure_set,
)
from annotation.services.tasks import task_create, task_launch
from tests.test_shared_tasks import PAIRS, _pair_campaign, _xml

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_pairs(manager, make_annotator):
    de = _pair_campaign(manager, make_annotator, "de", PAIRS["de"])
    cs = _pair_campaign(manager, make_annotator, "cs", PAIRS["cs"])
    shared = shared_task_create(name="WMT procedures", owner=manager, campaign_ids=[de.id, cs.id])
    return shared, de, cs


def _de(shared, de, cs):
    results = shared_task_results(shared, {de.id, cs.id})
    return results, next(p for p in results.pairs if p.campaign.id == de.id)


def test_the_chosen_procedure_ranks_the_pair_and_the_others_keep_theirs(two_pairs):
    shared, de, cs = two_pairs
    results, pair = _de(shared, de, cs)
    assert pair.procedure == "wmt24" and pair.chosen_procedure == ""
    assert pair.procedure_choices == ("wmt24", "wmt25", "wmt26")
    # WMT24, the mean of domain means: A (80 + 20) / 2 = 50.
    assert {r.system: r.score for r in pair.rows}["A"] == pytest.approx(50.0)
    assert "WMT24" in pair.table.caption()

    shared_task_pair_procedure_set(shared_task=shared, campaign_id=de.id, procedure="wmt25")
    assert SharedTaskCampaign.objects.get(shared_task=shared, campaign=de).procedure == "wmt25"
    results, pair = _de(shared, de, cs)
    (wmt25,) = span_results(de, procedure="wmt25")
    # The pair's rows are the campaign's own WMT25 ranking: the raw mean of all judgments,
    # A (5 x 80 + 3 x 20) / 8 = 57.5, rank ranges and clusters from WMT25's tests.
    assert [(r.system, r.score, r.rank_range, r.cluster) for r in pair.rows] == [
        (s.system, s.score, s.rank_range, s.cluster) for s in wmt25.esa.systems
    ]
    assert {r.system: r.score for r in pair.rows}["A"] == pytest.approx(57.5)
    assert all(r.interval is None for r in pair.rows)  # WMT25 computes no interval
    assert "WMT25" in pair.table.caption()
    other = next(p for p in results.pairs if p.campaign.id == cs.id)
    assert other.procedure == "wmt24"
    assert "en-de: ESA (WMT25); en-cs: ESA (WMT24)" in global_grid(results).caption

    shared_task_pair_procedure_set(shared_task=shared, campaign_id=de.id, procedure="wmt26")
    (wmt26,) = span_results(de, procedure="wmt26")
    _, pair = _de(shared, de, cs)
    assert [(r.system, r.score, r.rank_range) for r in pair.rows] == [
        (s.system, s.score, s.rank_range) for s in wmt26.esa.systems
    ]
    shared_task_pair_procedure_set(shared_task=shared, campaign_id=de.id, procedure="")
    assert _de(shared, de, cs)[1].procedure == "wmt24"


def test_procedures_that_do_not_apply_are_refused(two_pairs, manager):
    shared, de, _ = two_pairs
    with pytest.raises(ApplicationError, match="choose one of wmt24, wmt25, wmt26"):
        shared_task_pair_procedure_set(shared_task=shared, campaign_id=de.id, procedure="wmt21")
    with pytest.raises(ApplicationError, match="not in the shared task"):
        shared_task_pair_procedure_set(shared_task=shared, campaign_id=0, procedure="wmt25")
    # A DA pair ranks as WMT21 only.
    fr = campaign_create(name="en-fr", source_language="en", target_language="fr", owner=manager)
    upload_import(
        campaign=fr, kind=WMT_XML, files=[("t.xml", _xml(PAIRS["cs"], "fr"))], user=manager
    )
    task = task_create(seed=12345, campaign=fr, task_type="adequacy")
    task_launch(task_id=task.id)
    shared_task_campaign_add(shared_task=shared, campaign_id=fr.id, by=manager)
    with pytest.raises(ApplicationError, match="choose one of wmt21"):
        shared_task_pair_procedure_set(shared_task=shared, campaign_id=fr.id, procedure="wmt25")
    shared_task_pair_procedure_set(shared_task=shared, campaign_id=fr.id, procedure="wmt21")
    results = shared_task_results(shared, {fr.id})
    assert results.pairs[0].procedure == "wmt21"
    assert results.pairs[0].procedure_choices == ("wmt21",)


def test_page_control_api_field_and_downloads(two_pairs, client, manager):
    shared, de, cs = two_pairs
    client.force_login(manager)
    page = client.get(reverse("shared-task-detail", args=[shared.id])).content.decode()
    assert reverse("shared-task-pair-procedure", args=[shared.id, de.id]) in page
    assert '<option value="wmt25">WMT25</option>' in page

    answer = client.post(
        reverse("shared-task-pair-procedure", args=[shared.id, de.id]), {"procedure": "wmt25"}
    )
    assert answer.status_code == 302
    assert SharedTaskCampaign.objects.get(shared_task=shared, campaign=de).procedure == "wmt25"
    refused = client.post(
        reverse("shared-task-pair-procedure", args=[shared.id, de.id]),
        {"procedure": "wmt99"},
        follow=True,
    )
    assert "choose one of wmt24, wmt25, wmt26" in refused.content.decode()

    typst = client.get(reverse("shared-task-tables", args=[shared.id, f"pair-{de.id}", "typ"]))
    assert "WMT25" in typst.content.decode()
    latex = client.get(reverse("shared-task-tables", args=[shared.id, "all", "tex"]))
    assert "WMT25" in latex.content.decode() and "WMT24" in latex.content.decode()

    body = client.get(f"/api/v1/shared-tasks/{shared.id}").json()
    pairs = {p["campaign"]: p for p in body["pairs"]}
    assert pairs[de.id]["procedure"] == "wmt25" and pairs[de.id]["procedure_chosen"] == "wmt25"
    assert pairs[cs.id]["procedure"] == "wmt24" and pairs[cs.id]["procedure_chosen"] == ""
    assert pairs[cs.id]["procedure_choices"] == ["wmt24", "wmt25", "wmt26"]
    url = f"/api/v1/shared-tasks/{shared.id}/campaigns/{cs.id}"
    answer = client.patch(url, {"procedure": "wmt26"}, content_type="application/json")
    assert answer.status_code == 200 and answer.json()["procedure"] == "wmt26"
    assert client.get(f"/api/v1/shared-tasks/{shared.id}").json()["pairs"][1]["procedure"] == (
        "wmt26"
    )
    bad = client.patch(url, {"procedure": "wmt21"}, content_type="application/json")
    assert bad.status_code == 400 and "choose one of wmt24" in bad.content.decode()
