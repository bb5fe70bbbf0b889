"""ESA per domain (WMT24): documents carry the domain of WMT XML ``<doc domain>`` or of a
``domain`` column; the ranking averages systems within domains, then over domains, and
combines the per-domain Wilcoxon tests with Stouffer's method. Figures are checked against
sums done by hand and against scipy."""

import io
import json

import pytest
from django.urls import reverse
from scipy import stats

from annotation.lib.textfiles import UploadError
from annotation.models import Document
from annotation.selectors.human.spans import span_results
from annotation.services.assignment import slot_claim_next
from annotation.services.campaigns import campaign_create
from annotation.services.imports import WMT_XML, upload_import
from annotation.services.judgments import judgment_record
from annotation.services.tasks import task_create, task_launch

pytestmark = pytest.mark.django_db

# Segment scores per system and domain. News has five segments, social three, so the plain
# mean and the mean of domain means differ: by hand,
#   A: news (90+80+85+70+95)/5 = 84, social (20+40+30)/3 = 30; domains (84+30)/2 = 57,
#      plain (420+90)/8 = 63.75
#   B: news (60+70+65+75+50)/5 = 64, social (60+50+70)/3 = 60; domains (64+60)/2 = 62,
#      plain (320+180)/8 = 62.5
# A is ahead on the plain mean, B on the domain average (which WMT24 uses).
SCORES = {
    "A": {"news": [90, 80, 85, 70, 95], "social": [20, 40, 30]},
    "B": {"news": [60, 70, 65, 75, 50], "social": [60, 50, 70]},
}


def _xml() -> bytes:
    def doc(doc_id: str, domain: str, n: int) -> str:
        def segs(prefix: str) -> str:
            return "".join(f'<seg id="{i}">{prefix} {doc_id} {i}.</seg>' for i in range(1, n + 1))

        hyps = "".join(
            f'<hyp lang="de" system="{system}"><p>{segs(f"Satz von {system} in")}</p></hyp>'
            for system in SCORES
        )
        return (
            f'<doc id="{doc_id}" origlang="en" domain="{domain}">'
            f'<src lang="en"><p>{segs("Sentence in")}</p></src>'
            f'<ref lang="de" translator="A"><p>{segs("Satz in")}</p></ref>{hyps}</doc>'
        )

    return (
        '<?xml version="1.0" encoding="utf-8"?><dataset id="t">'
        + doc("news-1", "news", 5)
        + doc("social-1", "social", 3)
        + "</dataset>"
    ).encode()


@pytest.fixture
def two_domains(manager, make_annotator):
    campaign = campaign_create(
        name="Domains", source_language="en", target_language="de", owner=manager
    )
    upload_import(campaign=campaign, kind=WMT_XML, files=[("t.xml", _xml())], user=manager)
    task = task_create(seed=12345, campaign=campaign, task_type="esa", batch_size=16)
    task_launch(task_id=task.id)
    rater = make_annotator(campaign, "rater")
    while (slot := slot_claim_next(task=task, annotator_id=rater.id)) is not None:
        item = slot.item
        system = item.candidates[0]["systems"][0]
        document = item.segment.document
        position = item.segment.index - (5 if document.domain == "social" else 0)
        score = SCORES[system][document.domain][position] if system in SCORES else 50
        judgment_record(
            task_id=task.id,
            slot_id=slot.id,
            annotator_id=rater.id,
            answer={"score": score, "spans": []},
        )
    return campaign


def test_wmt_xml_domain_is_stored_on_the_documents(two_domains):
    documents = Document.objects.filter(campaign=two_domains)
    domains = dict(documents.values_list("external_id", "domain"))
    assert domains == {"news-1": "news", "social-1": "social"}


def test_esa_averages_within_domains_and_combines_wilcoxon_with_stouffer(
    two_domains, client, manager
):
    (result,) = span_results(two_domains)
    ranking = result.esa
    assert ranking.domains == ["news", "social"]
    scores = {s.system: s.score for s in ranking.systems}
    assert scores == pytest.approx({"A": 57.0, "B": 62.0})  # not the plain 63.75 and 62.5
    assert [s.system for s in ranking.systems] == ["B", "A"]
    by_domain = [
        stats.wilcoxon(SCORES["B"][d], SCORES["A"][d], alternative="greater").pvalue
        for d in ("news", "social")
    ]
    expected = stats.combine_pvalues(by_domain, method="stouffer").pvalue
    assert ranking.p_values["B"]["A"] == pytest.approx(expected, abs=1e-12)
    backward = [
        stats.wilcoxon(SCORES["A"][d], SCORES["B"][d], alternative="greater").pvalue
        for d in ("news", "social")
    ]
    assert ranking.p_values["A"]["B"] == pytest.approx(
        stats.combine_pvalues(backward, method="stouffer").pvalue, abs=1e-12
    )

    client.force_login(manager)
    page = client.get(reverse("results-human", args=[two_domains.id])).content.decode()
    assert "Averaged over 2 domains" in page
    assert '<span dir="auto">news</span>, <span dir="auto">social</span>' in page
    api = client.get(f"/api/v1/campaigns/{two_domains.id}/results/human/spans").json()
    (task_json,) = api["tasks"]
    assert task_json["domains"] == ["news", "social"]
    assert {s["system"]: s["score"] for s in task_json["systems"]} == pytest.approx(
        {"A": 57.0, "B": 62.0}
    )
    url = reverse("results-human-judgments", args=[two_domains.id, "spans.jsonl"])
    body = b"".join(client.get(url).streaming_content).decode()
    lines = [json.loads(line) for line in io.StringIO(body)]
    assert {(line["document"], line["domain"]) for line in lines} == {
        ("news-1", "news"),
        ("social-1", "social"),
    }


def _source(campaign, manager, name: str, data: bytes):
    return upload_import(campaign=campaign, kind="source", files=[(name, data)], user=manager)


def test_tsv_and_jsonl_domain_columns(campaign, manager):
    _source(
        campaign,
        manager,
        "source.tsv",
        b"doc_id\tdomain\ttext\nd1\tnews\tOne.\nd1\tnews\tTwo.\nd2\tspeech\tThree.\n",
    )
    stored = dict(Document.objects.filter(campaign=campaign).values_list("external_id", "domain"))
    assert stored == {"d1": "news", "d2": "speech"}
    other = campaign_create(name="J", source_language="en", target_language="de", owner=manager)
    lines = [
        {"text": "One.", "doc_id": "a", "domain": "literary"},
        {"text": "Two.", "doc_id": "b", "domain": "social"},
    ]
    _source(other, manager, "s.jsonl", "\n".join(json.dumps(x) for x in lines).encode() + b"\n")
    stored = dict(Document.objects.filter(campaign=other).values_list("external_id", "domain"))
    assert stored == {"a": "literary", "b": "social"}


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"doc_id\tdomain\ttext\nd1\tnews\tOne.\nd1\tspeech\tTwo.\n", "a document has one domain"),
        (b"doc_id\tdomain\ttext\nd1\tnews\tOne.\nd2\t\tTwo.\n", "has no domain, but others"),
        (b"domain\ttext\nnews\tOne.\n", "give document ids with the domains"),
        (b"doc_id\tdomain\ttext\nd1\t" + b"x" * 101 + b"\tOne.\n", "domain is over 100"),
    ],
)
def test_inconsistent_domains_are_refused_and_nothing_is_written(campaign, manager, data, match):
    with pytest.raises(UploadError, match=match):
        _source(campaign, manager, "source.tsv", data)
    assert not Document.objects.filter(campaign=campaign).exists()
