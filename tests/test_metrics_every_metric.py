"""The metrics job computes every metric of the registry and the configured neural scorers;
the results page, the API and the downloads carry them all."""

from __future__ import annotations

import statistics

import pytest
from django.test import override_settings
from nltk.translate.nist_score import corpus_nist
from nltk.translate.ribes_score import corpus_ribes

from annotation.models import PairSignificance, RunScore, RunStatistics, SystemRun
from annotation.services.imports import upload_import
from annotation.services.scoring import JOB_METRICS, run_metrics_compute
from metrics.automatic import corpus_score, extract_statistics, n_statistics
from metrics.classic._text import by_segment, tokenize_all
from tests.metrics.classic_data import references, system
from tests.neural_stub import overlap, write_model

N = 40
SYSTEMS = ("Online-W", "UEdin", "happypoet")
SOURCE = "\n".join(f"source sentence {i}" for i in range(N)) + "\n"


def load(campaign, manager, n_refs: int) -> None:
    upload_import(
        campaign=campaign, kind="source", user=manager, files=[("src.en", SOURCE.encode())]
    )
    for name, stream in zip("ACD", references(N)[:n_refs], strict=False):
        text = "\n".join(stream) + "\n"
        upload_import(
            campaign=campaign,
            kind="reference",
            name=name,
            user=manager,
            files=[(f"ref.{name}", text.encode())],
        )
    for name in SYSTEMS:
        text = "\n".join(system(name, N)) + "\n"
        upload_import(
            campaign=campaign, kind="system", name=name, user=manager, files=[("h", text.encode())]
        )


def run_all_jobs() -> None:
    for run_id in SystemRun.objects.order_by("id").values_list("id", flat=True):
        run_metrics_compute(target_id=run_id, report_progress=lambda percent: None)


@pytest.mark.django_db
def test_every_metric_stored_for_every_system_with_its_statistics(campaign, manager):
    load(campaign, manager, n_refs=3)
    run_all_jobs()
    refs = references(N)
    for name in SYSTEMS:
        scores = {s.metric: s for s in RunScore.objects.filter(run__system__name=name)}
        assert set(scores) == set(JOB_METRICS)
        hyps = system(name, N)
        for metric in JOB_METRICS:
            # Wiring: the job's score is the metrics package's on the same text (each metric
            # is checked against independent implementations in tests/metrics/).
            language = {"language": "german"} if metric in ("meteor", "ulc") else {}
            expected = corpus_score(metric, extract_statistics(metric, hyps, refs, **language))
            assert scores[metric].score == pytest.approx(expected, rel=1e-9), metric
            assert scores[metric].ci_low <= scores[metric].score <= scores[metric].ci_high
            assert scores[metric].signature.startswith("nrefs:3|")
            stored = RunStatistics.objects.get(run__system__name=name, metric=metric)
            assert (stored.rows, stored.columns) == (N, n_statistics(metric))
        assert "lang:german" in scores["meteor"].signature
        assert "lang:german" in scores["ulc"].signature
        assert "stats:sentence" in scores["ribes"].signature
        assert "stats:sufficient" in scores["nist"].signature
    # Every pair of the 3 systems, on every metric, by both tests.
    assert PairSignificance.objects.count() == 3 * len(JOB_METRICS) * 2


@pytest.mark.django_db
def test_job_scores_equal_nltk_end_to_end(campaign, manager):
    """Straight from the stored rows to nltk's NIST (checked by nltk against mteval-v13a) and
    RIBES (a port of RIBES.py), one reference."""
    load(campaign, manager, n_refs=1)
    run_all_jobs()
    ref_tokens_lc = by_segment(references(N)[:1], tokenizer="13a", lowercase=True)
    ref_tokens = by_segment(references(N)[:1], tokenizer="13a", lowercase=False)
    for name in SYSTEMS:
        scores = {s.metric: s.score for s in RunScore.objects.filter(run__system__name=name)}
        hyps = system(name, N)
        nist = corpus_nist(ref_tokens_lc, tokenize_all(hyps, tokenizer="13a", lowercase=True), n=5)
        ribes = corpus_ribes(ref_tokens, tokenize_all(hyps, tokenizer="13a", lowercase=False))
        assert scores["nist"] == pytest.approx(nist, rel=1e-9)
        assert scores["ribes"] == pytest.approx(100 * ribes, rel=1e-9)


@pytest.mark.django_db
def test_configured_neural_scorer_runs_in_the_job(campaign, manager, tmp_path):
    model = write_model(tmp_path / "shared-words-v1", bias=0.5, per_shared_word=0.25)
    config = f"tests.neural_stub:SharedWordsScorer={model},comet={tmp_path / 'absent'}"
    load(campaign, manager, n_refs=2)
    with override_settings(NEURAL_SCORERS=config):
        run_all_jobs()
    key = "ext:SharedWords"
    refs = references(N)[:2]
    for name in SYSTEMS:
        hyps = system(name, N)
        by_hand = [
            0.5 + 0.25 * max(overlap(h, refs[0][i]), overlap(h, refs[1][i]))
            for i, h in enumerate(hyps)
        ]
        row = RunScore.objects.get(run__system__name=name, metric=key)
        assert row.score == pytest.approx(statistics.fmean(by_hand), rel=1e-12)
        assert row.ci_low < row.score < row.ci_high
        assert "origin:scorer:stub:shared-words-v1" in row.signature
        assert row.references == "A+C"
    # The COMET entry has no model on this machine: skipped, nothing downloaded or stored.
    assert not RunScore.objects.filter(metric__icontains="comet").exists()
    assert PairSignificance.objects.filter(metric=key).count() == 3 * 2


def test_a_scorer_that_is_not_one_is_refused(tmp_path):
    from metrics.neural import ScorerEntry, load_scorer, parse_config

    with pytest.raises(ValueError, match="FACTORY=MODEL_PATH"):
        parse_config("comet")
    with pytest.raises(TypeError, match="SentenceScorer"):
        load_scorer(ScorerEntry("pathlib:PurePath", str(tmp_path)))
    assert load_scorer(ScorerEntry("comet", str(tmp_path / "nothing-here"))) is None


@pytest.mark.django_db
def test_page_api_and_downloads_carry_every_metric(client, campaign, manager):
    load(campaign, manager, n_refs=1)
    run_all_jobs()
    client.force_login(manager)
    page = client.get(f"/campaigns/{campaign.id}/results/automatic/?metric=wer").content.decode()
    for label in ("METEOR", "NIST", "WER", "PER", "RIBES", "LEPOR", "hLEPOR", "ROUGE-L", "GTM"):
        assert f">{label}<" in page
    assert "Paired bootstrap resampling: WER" in page
    assert "stored sentence scores" in page and "per-segment sufficient statistics" in page
    assert page.count("<svg") >= len(JOB_METRICS)
    body = client.get(f"/api/v1/campaigns/{campaign.id}/results/automatic").json()
    rows = {(row["system"], row["metric"]): row for row in body["systems"]}
    assert len(rows) == len(SYSTEMS) * len(JOB_METRICS)
    assert rows[("UEdin", "wer")]["better"] == "lower"
    assert rows[("UEdin", "rougel")]["statistics"] == "sentence"
    assert {pair["metric"] for pair in body["pairs"]} == set(JOB_METRICS)
    csv_text = client.get(f"/campaigns/{campaign.id}/results/automatic.csv").content.decode()
    assert csv_text.splitlines()[0].split(",")[:4] == ["system", "metric", "better", "statistics"]
    assert len(csv_text.strip().splitlines()) == 1 + len(SYSTEMS) * len(JOB_METRICS)
