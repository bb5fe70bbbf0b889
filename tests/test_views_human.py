"""The human-results page, its downloads and its API: who sees what, escaping, CSRF."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotation.models import AnnotatorExclusion, Judgment, RunScore, SystemRun
from annotation.services.campaigns import membership_set
from annotation.services.imports import upload_import
from annotation.services.tasks import task_create, task_launch
from tests.human_support import judge_all

pytestmark = pytest.mark.django_db

SOURCE = b"one two three four five six\nseven eight nine ten eleven\ntwelve thirteen fourteen\n"
SYSTEMS = {
    "good": b"eins zwei drei vier funf sechs\nsieben acht neun zehn elf\nzwolf dreizehn vierzehn\n",
    "<script>alert(1)</script>": b"eins zwei drei\nsieben acht neun zehn elf\nzwolf\n",
    "plain": b"ein zwo\nsieben\nzwolf dreizehn vierzehn\n",
}
REFERENCE = b"eins zwei drei vier funf sechs\nsieben acht neun zehn elf\nzwolf dreizehn\n"
QUALITY = {"good": 5, "<script>alert(1)</script>": 4, "plain": 2}


@pytest.fixture
def results(campaign, manager, make_annotator, django_user_model):
    upload_import(campaign=campaign, kind="source", files=[("s.en", SOURCE)], user=manager)
    # The reference set the scores below are filed under (only the current set counts).
    upload_import(
        campaign=campaign, kind="reference", name="A", files=[("r.de", REFERENCE)], user=manager
    )
    for i, (name, data) in enumerate(SYSTEMS.items()):
        upload_import(
            campaign=campaign, kind="system", name=name, files=[("x.de", data)], user=manager
        )
        run = SystemRun.objects.get(system__name=name)
        RunScore.objects.create(
            run=run,
            metric="bleu",
            references="A",
            score=30 - 10 * i,
            ci_low=0,
            ci_high=50,
            signature="test",
            samples=1000,
            seed=1,
        )
    task = task_create(seed=12345, campaign=campaign, task_type="adequacy", judgments_per_item=3)
    task_launch(task_id=task.id)
    # Small batches, so that each of the three annotators gets some rankings.
    ranking = task_create(
        seed=12345, campaign=campaign, task_type="ranking", ranking_size=3, batch_size=1
    )
    task_launch(task_id=ranking.id)
    users = [make_annotator(campaign, f"ann{i}") for i in range(3)]
    judge_all(
        task,
        users,
        lambda user, slot: {"score": QUALITY[slot.item.system.name] - (user.id + slot.id) % 2},
    )
    judge_all(
        ranking, users, lambda user, slot: {"ranks": list(range(1, len(slot.item.candidates) + 1))}
    )
    organiser = django_user_model.objects.create_user("org", password="org-password-1")
    membership_set(campaign=campaign, user=organiser, role="organiser")
    stranger = django_user_model.objects.create_user("stranger", password="x-password-1")
    return {
        "campaign": campaign,
        "task": task,
        "ranking": ranking,
        "annotators": users,
        "organiser": organiser,
        "stranger": stranger,
    }


def urls(campaign_id: int, task_id: int) -> list[str]:
    base = f"/campaigns/{campaign_id}/results/human"
    return [
        f"{base}/",
        f"{base}/judgments.csv",
        f"{base}/judgments.jsonl?pseudonymise=1",
        f"{base}/judgments.appraise?task={task_id}",
        f"{base}/rankings.csv",
        f"{base}/rankings.json",
    ]


def test_manager_sees_everything_escaped(client, manager, results):
    client.force_login(manager)
    campaign = results["campaign"]
    page = client.get(f"/campaigns/{campaign.id}/results/human/").content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    for heading in ("Ranking by adequacy", "Agreement", "Annotators", "Progress"):
        assert heading in page
    assert "Fleiss&#x27; kappa" in page or "Fleiss' kappa" in page
    assert page.count("<svg") >= 4  # progress, ranking intervals, scatter
    assert "against BLEU" in page
    # Each chart title says the task's measure once; the Pearson r says its metric score.
    assert "Adequacy: adequacy" not in page and "Adequacy: mean z" in page
    assert "Pearson r, corpus-level metric score" in page
    # A link to the confirmation page in each task's table (two tasks).
    assert page.count(">Exclude…</a>") == 2 * len(results["annotators"])
    # The ranking table lists the planted order.
    table = page[page.index("Ranking by adequacy") :]
    assert table.index(">good<") < table.index("&lt;script&gt;") < table.index(">plain<")
    for url in urls(campaign.id, results["task"].id)[1:]:
        response = client.get(url)
        assert response.status_code == 200 and response.streaming, url


def test_organisers_exclude_after_a_confirmation_naming_the_scope(client, results):
    """The README names organisers as the people who exclude annotators."""
    client.force_login(results["organiser"])
    campaign = results["campaign"]
    for url in urls(campaign.id, results["task"].id):
        assert client.get(url).status_code == 200, url
    page = client.get(f"/campaigns/{campaign.id}/results/human/").content.decode()
    assert ">Exclude…</a>" in page
    target = results["annotators"][0]
    url = f"/campaigns/{campaign.id}/results/human/annotators/{target.id}/exclusion/"
    confirm = client.get(f"{url}?task={results['task'].id}")
    text = confirm.content.decode()
    assert confirm.status_code == 200 and not AnnotatorExclusion.objects.exists()
    assert f"Exclude from task #{results['task'].id} only" in text
    assert f"Exclude from every task of {campaign.name}" in text
    judged = Judgment.objects.filter(annotator=target, task__campaign=campaign)
    for task_id in set(judged.values_list("task_id", flat=True)):
        count = judged.filter(task_id=task_id).count()
        assert re.search(rf"#{task_id} [^<]+</td><td class=\"num\">{count}<", text), task_id
    assert client.post(url, {"excluded": "1"}).status_code == 302
    assert AnnotatorExclusion.objects.filter(annotator=target).exists()
    stranger = results["stranger"]
    other = f"/campaigns/{campaign.id}/results/human/annotators/{stranger.id}/exclusion/"
    assert client.get(other).status_code == 404  # judged nothing here: nothing to confirm


def test_annotators_get_403_and_strangers_404(client, results):
    campaign = results["campaign"]
    for user, status in ((results["annotators"][0], 403), (results["stranger"], 404)):
        client.force_login(user)
        for url in urls(campaign.id, results["task"].id):
            assert client.get(url).status_code == status, (user, url)
        api = APIClient()
        api.force_authenticate(user)
        assert api.get(f"/api/v1/campaigns/{campaign.id}/results/human").status_code == status
    client.logout()
    assert client.get(f"/campaigns/{campaign.id}/results/human/").status_code == 302  # login


def test_exclusion_needs_csrf_and_toggles(manager, results):
    campaign, target = results["campaign"], results["annotators"][1]
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(manager)
    url = f"/campaigns/{campaign.id}/results/human/annotators/{target.id}/exclusion/"
    assert browser.post(url, {"excluded": "1"}).status_code == 403
    page = browser.get(f"/campaigns/{campaign.id}/results/human/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = browser.post(url, {"excluded": "1", "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert AnnotatorExclusion.objects.filter(annotator=target, created_by=manager).exists()
    page = browser.get(f"/campaigns/{campaign.id}/results/human/").content.decode()
    assert ">Include again</button>" in page and "1 annotator excluded" in page
    browser.post(url, {"excluded": "0", "csrfmiddlewaretoken": token})
    assert not AnnotatorExclusion.objects.exists()


def test_wmt_download_needs_a_ranking_task(client, manager, results):
    client.force_login(manager)
    campaign = results["campaign"]
    base = f"/campaigns/{campaign.id}/results/human/judgments"
    assert client.get(f"{base}.wmt?task={results['task'].id}").status_code == 400
    assert client.get(f"{base}.wmt").status_code == 400
    response = client.get(f"{base}.wmt?task={results['ranking'].id}")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][:6] == ["srclang", "trglang", "srcIndex", "documentId", "segmentId", "judgeId"]
    assert client.get(f"{base}.xlsx").status_code == 404
    assert client.get(f"{base}.csv?task=999999").status_code == 404
    # Found by the form fuzz test: "²" passed isdigit() and failed int() (a 500).
    assert client.get(f"{base}.wmt?task=²").status_code == 404
    assert client.get(f"{base}.csv?task=%C2%B2").status_code == 404


def test_api_results_exclusions_and_downloads(manager, results):
    api = APIClient()
    api.force_authenticate(manager)
    campaign = results["campaign"]
    body = api.get(f"/api/v1/campaigns/{campaign.id}/results/human").json()
    adequacy = next(t for t in body["tasks"] if t["task_type"] == "adequacy")
    assert [s["system"] for s in adequacy["likert"][0]["systems"]] == list(QUALITY)
    assert {a["coefficient"] for a in adequacy["agreement"]} >= {
        "Cohen's kappa, inter-annotator",
        "Fleiss' kappa",
    }
    assert len(adequacy["annotators"]) == 3
    assert body["correlations"][0]["metric"] == "bleu"
    ranking = next(t for t in body["tasks"] if t["task_type"] == "ranking")
    assert len(ranking["pairwise"]) == 3

    target = results["annotators"][2]
    url = f"/api/v1/campaigns/{campaign.id}/results/human/exclusions"
    response = api.post(url, {"annotator": target.id, "excluded": True}, format="json")
    assert response.json() == {"annotator": target.id, "excluded": True}
    stranger = results["stranger"]
    response = api.post(url, {"annotator": stranger.id, "excluded": True}, format="json")
    assert response.status_code == 400 and "no judgments" in response.json()["error"]
    body = api.get(f"/api/v1/campaigns/{campaign.id}/results/human").json()
    assert body["excluded"] == [target.id]

    organiser = APIClient()
    organiser.force_authenticate(results["organiser"])
    included = organiser.post(url, {"annotator": target.id, "excluded": False}, format="json")
    assert included.json() == {"annotator": target.id, "excluded": False}
    api.post(url, {"annotator": target.id, "excluded": True}, format="json")

    download = api.get(
        f"/api/v1/campaigns/{campaign.id}/results/human/judgments.csv?included=1&pseudonymise=1"
    )
    rows = list(csv.DictReader(io.StringIO(b"".join(download.streaming_content).decode())))
    assert rows and all(row["annotator"].startswith("a-") for row in rows)
    assert all(row["excluded"] == "false" for row in rows)
    bad = api.get(
        f"/api/v1/campaigns/{campaign.id}/results/human/judgments.wmt?task={results['task'].id}"
    )
    assert bad.status_code == 400


def test_api_query_parameters_are_validated(manager, results):
    # Found by the API fuzz test: unknown values were silently ignored.
    api = APIClient()
    api.force_authenticate(manager)
    base = f"/api/v1/campaigns/{results['campaign'].id}/results/human"
    for query in ("weights=cubic", "task=abc", "task=0"):
        response = api.get(f"{base}?{query}")
        assert response.status_code == 400, query
        assert list(response.json()["fields"]) == [query.split("=")[0]]
    assert api.get(f"{base}?weights=quadratic&task={results['task'].id}").status_code == 200
    assert api.get(f"{base}/judgments.csv?included=maybe").status_code == 400
    missing = api.get(f"{base}/judgments.xlsx")
    assert missing.status_code == 404 and ".csv, .jsonl" in missing.json()["error"]


def test_page_before_any_judgment(client, manager, launched):
    for task_type in ("adequacy", "ranking", "postedit"):
        task = launched(task_type)
    client.force_login(manager)
    page = client.get(f"/campaigns/{task.campaign_id}/results/human/")
    assert page.status_code == 200
    assert "0 judgments by 0 annotators" in page.content.decode()
    api = APIClient()
    api.force_authenticate(manager)
    body = api.get(f"/api/v1/campaigns/{task.campaign_id}/results/human").json()
    assert [t["judgments"] for t in body["tasks"]] == [0, 0, 0]
    download = client.get(f"/campaigns/{task.campaign_id}/results/human/judgments.csv")
    assert b"".join(download.streaming_content).decode().count("\n") == 1  # the header


def test_pseudonymised_and_identified_downloads_have_different_names(client, manager, results):
    client.force_login(manager)
    campaign = results["campaign"]
    base = f"/campaigns/{campaign.id}/results/human/judgments"
    names = {}
    for fmt in ("csv", "jsonl", "appraise"):
        for query in ("", "?pseudonymise=1", "?included=1&pseudonymise=1"):
            response = client.get(f"{base}.{fmt}{query}")
            b"".join(response.streaming_content)
            names[fmt, query] = response["Content-Disposition"]
    assert len(set(names.values())) == len(names)
    prefix = f'attachment; filename="evalsite-{campaign.id}'
    assert names["csv", ""] == f'{prefix}-identified-judgments.csv"'
    assert names["csv", "?pseudonymise=1"] == f'{prefix}-pseudonymised-judgments.csv"'
    assert names["jsonl", "?included=1&pseudonymise=1"] == (
        f'{prefix}-included-pseudonymised-judgments.jsonl"'
    )


def test_a_task_scoped_exclusion_changes_that_task_alone(manager, results):
    """Excluded from the adequacy task only: that task reads as with a campaign-wide
    exclusion, the ranking task as with none; the counted-only download drops exactly the
    annotator's adequacy judgments."""
    from annotation.selectors.exports import judgment_export_rows
    from annotation.selectors.human import human_results
    from annotation.services.exclusions import annotator_exclude

    campaign, adequacy, ranking = results["campaign"], results["task"], results["ranking"]
    target = results["annotators"][0]

    def snapshot():
        tasks = {t.task.id: t for t in human_results(campaign).tasks}
        return (
            [
                (s.name, s.score.raw, s.score.judgments)
                for s in tasks[adequacy.id].likert[0].systems
            ],
            [(s.name, s.score.wins, s.score.losses) for s in tasks[ranking.id].pairwise],
            {
                row.annotator_id: row.excluded
                for task in tasks.values()
                for row in task.quality
                if task.task.id == adequacy.id
            },
        )

    none = snapshot()
    annotator_exclude(campaign=campaign, annotator_id=target.id, excluded=True, by=manager)
    everywhere = snapshot()
    annotator_exclude(campaign=campaign, annotator_id=target.id, excluded=False, by=manager)
    assert snapshot() == none
    annotator_exclude(
        campaign=campaign, annotator_id=target.id, excluded=True, by=manager, task_id=adequacy.id
    )
    scoped = snapshot()
    assert scoped[0] == everywhere[0] != none[0]  # adequacy: as if excluded everywhere
    assert scoped[1] == none[1]  # ranking: untouched
    assert scoped[2][target.id] is True
    counted = list(judgment_export_rows(campaign=campaign, included_only=True))
    every = list(judgment_export_rows(campaign=campaign))
    dropped = {r["id"] for r in every} - {r["id"] for r in counted}
    expected = set(
        Judgment.objects.filter(task=adequacy, annotator=target).values_list("id", flat=True)
    )
    assert dropped == expected and expected
    flagged = {r["id"] for r in every if r["excluded"]}
    assert flagged == expected


def test_api_exclusion_of_one_task(results):
    api = APIClient()
    api.force_authenticate(results["organiser"])
    campaign, task, target = results["campaign"], results["ranking"], results["annotators"][1]
    url = f"/api/v1/campaigns/{campaign.id}/results/human/exclusions"
    body = {"annotator": target.id, "excluded": True, "task": task.id}
    response = api.post(url, body, format="json")
    assert response.json() == body
    assert AnnotatorExclusion.objects.get(annotator=target).task_id == task.id
    assert api.get(f"/api/v1/campaigns/{campaign.id}/results/human").json()["excluded"] == []
    wrong = api.post(url, {**body, "task": 10**9}, format="json")
    assert wrong.status_code == 404 and "no such task" in wrong.json()["error"]
