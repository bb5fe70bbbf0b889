"""Shared tasks: campaigns (one per language pair) read together. Each pair's ranking is the
campaign's own (span_results), per-domain scores and the global table are checked against
sums done by hand, AutoRank against a hand computation, and every page, API answer and
download shows a reader only the pairs their campaign role lets them see."""

import shutil
import subprocess

import pytest
from django.urls import reverse

from annotation.errors import ApplicationError
from annotation.models import Role, SharedTask
from annotation.selectors.human.spans import span_results
from annotation.selectors.shared_task_tables import autorank_tables
from annotation.selectors.shared_tasks import shared_task_results
from annotation.services.assignment import slot_claim_next
from annotation.services.campaigns import campaign_create, membership_set
from annotation.services.imports import WMT_XML, upload_import
from annotation.services.judgments import judgment_record
from annotation.services.metric_uploads import metric_scores_upload
from annotation.services.shared_tasks import (
    shared_task_campaign_add,
    shared_task_campaign_remove,
    shared_task_create,
)
from annotation.services.tasks import task_create, task_launch

pytestmark = pytest.mark.django_db

NEWS, SOCIAL = 5, 3  # segments per domain
# Offsets summing to zero within each domain, so that a system's domain mean is its base.
OFFSETS = {"news": [0, 5, -5, 10, -10], "social": [0, 4, -4]}
# Base ESA score of each system per domain. By hand (mean of the two domain means):
#   en-de: A (80+20)/2 = 50, B (60+60)/2 = 60, C (30+30)/2 = 30  -> B, A, C
#   en-cs: A (70+70)/2 = 70, D (90+60)/2 = 75                   -> D, A
PAIRS = {
    "de": {"A": (80, 20), "B": (60, 60), "C": (30, 30), "Fancy_&_#1 {x}": (40, 40)},
    "cs": {"A": (70, 70), "D": (90, 60)},
}


def _xml(systems, target) -> bytes:
    def doc(doc_id, domain, n):
        def segs(prefix):
            return "".join(f'<seg id="{i}">{prefix} {doc_id} {i}.</seg>' for i in range(1, n + 1))

        hyps = "".join(
            f'<hyp lang="{target}" system="{name}"><p>{segs(f"Satz von {i} in")}</p></hyp>'
            for i, name in enumerate(systems)
        )
        return (
            f'<doc id="{doc_id}" origlang="en" domain="{domain}">'
            f'<src lang="en"><p>{segs("Sentence in")}</p></src>'
            f'<ref lang="{target}" translator="A"><p>{segs("Satz in")}</p></ref>{hyps}</doc>'
        )

    body = doc("news-1", "news", NEWS) + doc("social-1", "social", SOCIAL)
    xml = '<?xml version="1.0" encoding="utf-8"?><dataset id="t">' + body + "</dataset>"
    return xml.replace("&", "&amp;").replace("&amp;amp;", "&amp;").encode()


def _pair_campaign(manager, make_annotator, target, systems, *, judge=True):
    campaign = campaign_create(
        name=f"en-{target}", source_language="en", target_language=target, owner=manager
    )
    upload_import(
        campaign=campaign, kind=WMT_XML, files=[("t.xml", _xml(systems, target))], user=manager
    )
    task = task_create(seed=12345, campaign=campaign, task_type="esa", batch_size=40)
    task_launch(task_id=task.id)
    if not judge:
        return campaign
    rater = make_annotator(campaign, f"rater-{target}")
    while (slot := slot_claim_next(task=task, annotator_id=rater.id)) is not None:
        item = slot.item
        system = item.candidates[0]["systems"][0]
        document = item.segment.document
        position = item.segment.index - (NEWS if document.domain == "social" else 0)
        base = systems[system][0 if document.domain == "news" else 1]
        judgment_record(
            task_id=task.id,
            slot_id=slot.id,
            annotator_id=rater.id,
            answer={"score": base + OFFSETS[document.domain][position], "spans": []},
        )
    return campaign


@pytest.fixture
def world(manager, make_annotator, django_user_model):
    de = _pair_campaign(manager, make_annotator, "de", PAIRS["de"])
    cs = _pair_campaign(manager, make_annotator, "cs", PAIRS["cs"])
    shared = shared_task_create(name="WMT test", owner=manager, campaign_ids=[de.id, cs.id])
    organiser = django_user_model.objects.create_user("org-de", password="org-de-pw-123")
    membership_set(campaign=de, user=organiser, role=Role.ORGANISER)
    return {"de": de, "cs": cs, "shared": shared, "organiser": organiser}


def test_pair_tables_are_the_campaigns_rankings_with_domain_means(world, manager):
    results = shared_task_results(world["shared"], {world["de"].id, world["cs"].id})
    de, cs = results.pairs
    (campaign_ranking,) = span_results(world["de"])
    # The pair's rows are the campaign's own ranking: order, scores, clusters, rank ranges.
    assert [(r.system, r.score, r.cluster, r.rank_range, r.interval) for r in de.rows] == [
        (s.system, s.score, s.cluster, s.rank_range, s.interval)
        for s in campaign_ranking.esa.systems
    ]
    assert [r.system for r in de.rows] == ["B", "A", "Fancy_&_#1 {x}", "C"]
    assert {r.system: r.score for r in de.rows} == pytest.approx(
        {"A": 50.0, "B": 60.0, "C": 30.0, "Fancy_&_#1 {x}": 40.0}
    )
    assert de.table.domains == ("news", "social")
    assert {r.system: r.domain_scores for r in de.rows}["A"] == pytest.approx((80.0, 20.0))
    assert [r.system for r in cs.rows] == ["D", "A"]
    assert {r.system: r.domain_scores for r in cs.rows}["D"] == pytest.approx((90.0, 60.0))


def test_global_table_orders_by_average_normalised_rank(world):
    results = shared_task_results(world["shared"], {world["de"].id, world["cs"].id})
    # By hand: en-de B 0, A 1/3, Fancy 2/3, C 1; en-cs D 0, A 1. A: (1/3 + 1)/2 = 2/3.
    # B and D tie at 0 over one pair each: by name. A (2/3, two pairs) before Fancy (2/3,
    # one pair): more pairs first.
    rows = [(r.system, r.average_normalised_rank, r.pairs) for r in results.global_rows]
    assert rows == [
        ("B", 0.0, 1),
        ("D", 0.0, 1),
        ("A", pytest.approx(2 / 3), 2),
        ("Fancy_&_#1 {x}", pytest.approx(2 / 3), 1),
        ("C", 1.0, 1),
    ]


def test_autorank_beside_the_human_ranking(world, manager):
    de = world["de"]
    n = NEWS + SOCIAL

    def upload(name, higher, values):
        lines = [f"{s}\t{v}" for s, v in values.items() for _ in range(n)]
        metric_scores_upload(campaign=de, name=name, higher_is_better=higher, text="\n".join(lines))

    # By hand, N = 4: m1 (higher better, best 0.9, worst 0.5): B 1, A 1 + 3*0.1/0.4 = 1.75,
    # Fancy 1 + 3*0.3/0.4 = 3.25, C 4. m2 (lower better, best 10, worst 40): A 1, C 2,
    # Fancy 3, B 4. AutoRank: A 1.375, B 2.5, C 3.0, Fancy 3.125.
    upload("m1", True, {"A": 0.8, "B": 0.9, "C": 0.5, "Fancy_&_#1 {x}": 0.6})
    upload("m2", False, {"A": 10, "B": 40, "C": 20, "Fancy_&_#1 {x}": 30})
    results = shared_task_results(world["shared"], {de.id})
    (table,) = autorank_tables(results)
    assert table.autorank == pytest.approx(
        {"A": 1.375, "B": 2.5, "C": 3.0, "Fancy_&_#1 {x}": 3.125}
    )
    rows = {row.cells[0]: row.cells for row in table.grid.rows}
    assert rows["A"][3:5] == ["1.38", "1"] or rows["A"][3:5] == ["1.37", "1"]
    assert rows["B"][4] == "2"  # first in the human ranking, second by AutoRank


def test_an_organiser_sees_only_the_pairs_of_their_campaigns(world, client, manager):
    shared, de, cs = world["shared"], world["de"], world["cs"]
    client.force_login(world["organiser"])
    page = client.get(reverse("shared-task-detail", args=[shared.id]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "en-de" in html and "en-cs" not in html and ">D<" not in html
    assert "1 more that your campaign roles do not show you" in html
    api = client.get(f"/api/v1/shared-tasks/{shared.id}").json()
    assert [p["language_pair"] for p in api["pairs"]] == ["en-de"]
    assert api["hidden_pairs"] == 1
    assert {row["system"] for row in api["global"]} == {"A", "B", "C", "Fancy_&_#1 {x}"}
    # The hidden pair's table is not downloadable either, nor its systems in any table.
    assert (
        client.get(f"/api/v1/shared-tasks/{shared.id}/tables/pair-{cs.id}.typ").status_code == 404
    )
    typst = client.get(reverse("shared-task-tables", args=[shared.id, "all", "typ"]))
    assert typst.status_code == 200 and b'"D"' not in typst.content
    # Reading is not changing: the owner's actions are refused.
    assert (
        client.post(reverse("shared-task-campaign-remove", args=[shared.id, de.id])).status_code
        == 403
    )
    answer = client.delete(f"/api/v1/shared-tasks/{shared.id}/campaigns/{de.id}")
    assert answer.status_code == 403
    assert shared.pairs.count() == 2
    listing = client.get("/api/v1/shared-tasks").json()
    assert listing == [
        {
            "id": shared.id,
            "name": "WMT test",
            "pairs": [{"campaign": de.id, "language_pair": "en-de"}],
            "hidden_pairs": 1,
        }
    ]


def test_strangers_and_annotators_get_404(world, client, django_user_model, make_annotator):
    shared = world["shared"]
    stranger = django_user_model.objects.create_user("stranger", password="stranger-pw-123")
    annotator = make_annotator(world["de"], "ann-de")
    for user in (stranger, annotator):
        client.force_login(user)
        for url in (
            reverse("shared-task-detail", args=[shared.id]),
            reverse("shared-task-tables", args=[shared.id, "all", "pdf"]),
            f"/api/v1/shared-tasks/{shared.id}",
            f"/api/v1/shared-tasks/{shared.id}/tables/global.tex",
        ):
            assert client.get(url).status_code == 404, (user, url)
        assert client.get("/api/v1/shared-tasks").json() == []
    client.logout()
    assert client.get(reverse("shared-task-detail", args=[shared.id])).status_code == 302


def test_one_campaign_per_language_pair_and_only_readable_campaigns(
    world, manager, make_annotator, django_user_model
):
    shared = world["shared"]
    second_de = campaign_create(
        name="en-de again", source_language="en", target_language="de", owner=manager
    )
    with pytest.raises(ApplicationError, match="one campaign per language pair"):
        shared_task_campaign_add(shared_task=shared, campaign_id=second_de.id, by=manager)
    outsider = django_user_model.objects.create_user("outsider", password="outsider-pw-123")
    membership_set(campaign=second_de, user=outsider, role=Role.ORGANISER)
    other = campaign_create(name="en-fr", source_language="en", target_language="fr", owner=manager)
    with pytest.raises(ApplicationError, match="no such campaign"):
        shared_task_create(name="Mine", owner=outsider, campaign_ids=[other.id])
    assert not SharedTask.objects.filter(name="Mine").exists()  # atomic: nothing left behind
    shared_task_campaign_remove(shared_task=shared, campaign_id=world["cs"].id)
    shared_task_campaign_add(shared_task=shared, campaign_id=other.id, by=manager)
    assert sorted(shared.pairs.values_list("campaign__target_language", flat=True)) == ["de", "fr"]


def test_pages_and_api_create_add_and_remove(world, client, manager):
    client.force_login(manager)
    answer = client.post(
        reverse("shared-tasks"),
        {"name": "From the page", "campaigns": [str(world["de"].id)]},
    )
    created = SharedTask.objects.get(name="From the page")
    assert answer.status_code == 302 and answer.url == reverse(
        "shared-task-detail", args=[created.id]
    )
    refused = client.post(reverse("shared-tasks"), {"name": "From the page"}, follow=True)
    assert b"exists already" in refused.content
    added = client.post(
        reverse("shared-task-campaign-add", args=[created.id]), {"campaign": world["de"].id}
    )
    assert added.status_code == 302  # refused (already there), back to the page with why
    body = {"name": "By API", "campaigns": [world["cs"].id], "autorank_metrics": ["chrF"]}
    api = client.post("/api/v1/shared-tasks", body, content_type="application/json")
    assert api.status_code == 201 and api.json()["campaigns"] == [world["cs"].id]
    shared_id = api.json()["id"]
    more = client.post(
        f"/api/v1/shared-tasks/{shared_id}/campaigns",
        {"campaign": world["de"].id},
        content_type="application/json",
    )
    assert more.status_code == 201 and more.json()["language_pair"] == "en-de"
    twice = client.post(
        f"/api/v1/shared-tasks/{shared_id}/campaigns",
        {"campaign": world["de"].id},
        content_type="application/json",
    )
    assert twice.status_code == 409
    gone = client.delete(f"/api/v1/shared-tasks/{shared_id}/campaigns/{world['de'].id}")
    assert gone.status_code == 204
    bad = client.post("/api/v1/shared-tasks", {"name": 3}, content_type="application/json")
    assert bad.status_code == 400


def test_page_shows_every_table_and_its_downloads(world, client, manager):
    client.force_login(manager)
    shared = world["shared"]
    html = client.get(reverse("shared-task-detail", args=[shared.id])).content.decode()
    for heading in ("All pairs", "By domain", "en-de by domain", "Paper-ready tables"):
        assert heading in html
    assert "Fancy_&amp;_#1 {x}" in html  # escaped in HTML
    for which in ("all", "global", "pairs", "domains", "autorank", f"pair-{world['de'].id}"):
        for fmt in ("typ", "tex", "pdf"):
            assert reverse("shared-task-tables", args=[shared.id, which, fmt]) in html
    api = client.get(f"/api/v1/shared-tasks/{shared.id}").json()
    assert api["downloads"]["global"]["pdf"].endswith(
        f"/shared-tasks/{shared.id}/tables/global.pdf"
    )
    assert api["pairs"][0]["downloads"]["typ"].endswith(f"pair-{world['de'].id}.typ")
    assert api["pairs"][0]["domains"] == ["news", "social"]
    unknown = client.get(reverse("shared-task-tables", args=[shared.id, "nonsense", "pdf"]))
    assert unknown.status_code == 404
    wrong_format = client.get(f"/api/v1/shared-tasks/{shared.id}/tables/all.docx")
    assert wrong_format.status_code == 404 and "tables download as" in wrong_format.json()["error"]


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler's pdftotext missing")
def test_downloaded_pdf_reads_like_the_tables(world, client, manager, tmp_path):
    client.force_login(manager)
    shared = world["shared"]
    answer = client.get(reverse("shared-task-tables", args=[shared.id, "all", "pdf"]))
    assert answer.status_code == 200 and answer["Content-Type"] == "application/pdf"
    path = tmp_path / "tables.pdf"
    path.write_bytes(answer.content)
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout
    assert "Fancy_&_#1 {x}" in text  # the name as it is, not as markup
    assert "WMT test, all pairs" in text and "en-de by domain" in text
    assert "60.0" in text and "80.0 (1)" in text and "20.0 (4)" in text  # ESA: one decimal
    assert "0.667" in text  # A's average normalised rank
    tex = client.get(reverse("shared-task-tables", args=[shared.id, "all", "tex"])).content
    assert rb"Fancy\_\&\_\#1 \{x\}" in tex and rb"\midrule" in tex and rb"\toprule" in tex


def test_imported_mqm_pair_marks_its_references_and_keeps_them_out_of_the_global_table(
    manager, client
):
    """The TED zh-en MQM release (Freitag et al.) as a pair: its table is the campaign's MQM
    ranking, lower is better, at two decimals; refA/refB-style references are human
    translations, marked, and not ranked against the systems in the global table."""
    from django.core.management import call_command

    from annotation.models import Campaign
    from tests.conftest import DATA

    tsv = DATA / "mqm-ted-zh-en" / "mqm_ted_zhen.tsv"
    call_command(
        "import_mqm", str(tsv), "--name", "TED", "--owner", "manager", "--languages", "zh-en"
    )
    campaign = Campaign.objects.get(name="TED")
    shared = shared_task_create(name="Real", owner=manager, campaign_ids=[campaign.id])
    results = shared_task_results(shared, {campaign.id})
    (pair,) = results.pairs
    (ranking,) = span_results(campaign)
    assert pair.protocol == "mqm" and pair.table.protocol.lower_is_better
    assert [(r.system, r.score) for r in pair.rows] == [
        (s.system, s.score) for s in ranking.mqm.systems
    ]
    humans = {r.system for r in pair.rows if r.human}
    assert humans == {"refB", "ref"} & {r.system for r in pair.rows} and "refB" in humans
    assert not humans & {row.system for row in results.global_rows}
    assert len(results.global_rows) == len(pair.rows) - len(humans)
    client.force_login(manager)
    typst = client.get(reverse("shared-task-tables", args=[shared.id, "pairs", "typ"])).content
    best = ranking.mqm.systems[0]
    assert f'emph("{best.system}") + super("†")'.encode() in typst
    assert f'"{best.score:.2f}"'.encode() in typst  # MQM's two decimals


def test_likert_pair_has_domain_columns_of_mean_z(manager, make_annotator):
    """An adequacy pair with two domains: each system's mean z per domain equals the mean,
    over its segments, of z-scores computed here from the judgments (one annotator: z over
    all of their judgments, sample standard deviation)."""
    import numpy as np

    from annotation.models import Judgment

    campaign = campaign_create(
        name="lik", source_language="en", target_language="de", owner=manager
    )
    upload_import(
        campaign=campaign, kind=WMT_XML, files=[("t.xml", _xml(PAIRS["cs"], "de"))], user=manager
    )
    task = task_create(
        seed=12345,
        campaign=campaign,
        task_type="adequacy",
        bad_reference_rate=0,
        repeat_rate=0,
        reference_rate=0,
    )
    task_launch(task_id=task.id)
    rater = make_annotator(campaign, "rater")
    # 1-5 scores: A 4 in news and 2 in social, D 5 and 3, varied by the segment's position.
    base = {("A", "news"): 4, ("A", "social"): 2, ("D", "news"): 5, ("D", "social"): 3}
    while (slot := slot_claim_next(task=task, annotator_id=rater.id)) is not None:
        system = slot.item.candidates[0]["systems"][0]
        document = slot.item.segment.document
        value = base[(system, document.domain)] - slot.item.segment.index % 2
        judgment_record(
            task_id=task.id, slot_id=slot.id, annotator_id=rater.id, answer={"score": value}
        )
    shared = shared_task_create(name="Lik", owner=manager, campaign_ids=[campaign.id])
    (pair,) = shared_task_results(shared, {campaign.id}).pairs
    assert pair.protocol == "da" and pair.table.domains == ("news", "social")
    rows = Judgment.objects.filter(task=task).values_list(
        "score", "item__system__name", "item__segment__index", "item__segment__document__domain"
    )
    scores = np.array([r[0] for r in rows], dtype=float)
    z = (scores - scores.mean()) / scores.std(ddof=1)
    expected = {}
    for (_, system, _, domain), value in zip(rows, z, strict=True):
        expected.setdefault((system, domain), []).append(value)  # one judgment per segment
    for row in pair.rows:
        for index, domain in enumerate(pair.table.domains):
            want = float(np.mean(expected[(row.system, domain)]))
            assert row.domain_scores[index] == pytest.approx(want), (row.system, domain)
    assert [r.system for r in pair.rows] == ["D", "A"]
