"""Error analysis of two systems on the automatic results page (compare-mt style)."""

from __future__ import annotations

import pytest
from django.utils.html import escape

from annotation.models import System, SystemRun
from annotation.services.imports import upload_import
from annotation.services.scoring import run_metrics_compute
from metrics.analysis import compare_systems, tokenise

pytestmark = pytest.mark.django_db

SOURCE = [f"source {i} <i>x</i>" for i in range(6)]
REFERENCE = [
    "the cat sat on the mat",
    "a dog barked at the postman",
    "it rained all day long",
    "we ate bread & cheese",
    "the <b>bold</b> claim was wrong",
    "nobody came to the party",
]
FIRST = [
    "the cat sat on the mat",
    "a dog barked at a postman",
    "it rained all the day",
    "we ate bread & cheese",
    "the <b>bold</b> claim was wrong",
    "nobody came to party",
]
SECOND = [
    "cat is on mat",
    "dog barks postman",
    "it rained all day long",
    "we eat cheese",
    "a <script>alert(1)</script> claim",
    "no one came",
]


def lines(texts):
    return ("\n".join(texts) + "\n").encode()


@pytest.fixture
def two_systems(campaign, manager):
    upload_import(campaign=campaign, kind="source", user=manager, files=[("s", lines(SOURCE))])
    upload_import(
        campaign=campaign, kind="reference", name="A", user=manager, files=[("r", lines(REFERENCE))]
    )
    for name, texts in (("first", FIRST), ("second <b>", SECOND)):
        upload_import(
            campaign=campaign, kind="system", name=name, user=manager, files=[("h", lines(texts))]
        )
    for run_id in SystemRun.objects.values_list("id", flat=True):
        run_metrics_compute(target_id=run_id, report_progress=lambda percent: None)
    return campaign


def test_two_systems_compared_as_metrics_analysis_does_and_escaped(client, manager, two_systems):
    first = System.objects.get(name="first").id
    second = System.objects.get(name="second <b>").id
    client.force_login(manager)
    page = client.get(
        f"/campaigns/{two_systems.id}/results/automatic/?a={first}&b={second}"
    ).content.decode()
    expected = compare_systems(
        *(tokenise(t, tokenize="13a") for t in (REFERENCE, FIRST, SECOND)),
        ngram_top=15,
        sentence_top=5,
    )
    assert f"BLEU: first {expected.bleu_1:.2f}, second &lt;b&gt; {expected.bleu_2:.2f}" in page
    for bucket in expected.length_buckets:
        if bucket.sentences:
            assert f"{bucket.bleu_1:.2f}" in page
    for first_bucket, second_bucket in zip(
        expected.word_buckets_1, expected.word_buckets_2, strict=True
    ):
        assert f"{first_bucket.f_measure:.4f}" in page and f"{second_bucket.f_measure:.4f}" in page
    for item in expected.ngrams_better_1[:3]:
        assert escape(" ".join(item.ngram)) in page
    # Segments and names are HTML-escaped, never markup.
    assert "<script>alert(1)</script>" not in page and "<b>bold</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "source 4 &lt;i&gt;x&lt;/i&gt;" in page


@pytest.mark.parametrize("query", ["a=1&b=1", "a=abc&b=2", "a=999999&b=999998", "a=1"])
def test_bad_choices_answer_a_page_not_an_error(client, manager, two_systems, query):
    client.force_login(manager)
    response = client.get(f"/campaigns/{two_systems.id}/results/automatic/?{query}")
    assert response.status_code == 200
