"""Meta-evaluation of the metrics on the demo campaign judged by simulated raters: the human
results page and API show it, with the numbers metrics.meta gives on the same matrices."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from django.core.cache import cache
from django.core.management import call_command

from annotation.models import Campaign, Judgment, Output, ReferenceSegment, SystemRun
from annotation.selectors.human.loading import excluded_annotators
from annotation.selectors.human.meta import (
    kendall_threshold,
    meta_evaluation,
    meta_evaluation_key,
    meta_evaluation_uncached,
)
from annotation.services.scoring import JOB_METRICS, run_metrics_compute
from metrics.automatic import extract_statistics, sentence_scores
from metrics.meta.report import meta_evaluate

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged():
    call_command("load_demo")
    campaign = Campaign.objects.get(name__contains="simulated raters")
    for run_id in SystemRun.objects.filter(campaign=campaign).values_list("id", flat=True):
        run_metrics_compute(target_id=run_id, report_progress=lambda percent: None)
    return campaign


def test_rows_equal_meta_evaluate_on_matrices_built_from_the_text(judged):
    rows = meta_evaluation(judged, excluded_annotators(judged.id), n_resamples=100)
    task = judged.tasks.get(task_type="adequacy")
    assert {row.metric for row in rows} == set(JOB_METRICS)
    assert kendall_threshold(task.scale) == 1.0  # 25 of 0-100 is 1 point of 1-5

    # Human side by hand: the mean score of each (system, segment) over first judgments of
    # system outputs.
    sums = defaultdict(list)
    for judgment in Judgment.objects.filter(
        task=task, is_repeat=False, excluded=False, item__item_type="TGT"
    ).select_related("item__system", "item__segment"):
        sums[(judgment.item.system.name, judgment.item.segment.index)].append(judgment.score)
    systems = sorted({system for system, _ in sums})
    n = judged.segments.count()
    human = np.full((len(systems), n), np.nan)
    for (system, segment), scores in sums.items():
        human[systems.index(system), segment] = np.mean(scores)
    reference = list(
        ReferenceSegment.objects.filter(reference__campaign=judged)
        .order_by("segment__index")
        .values_list("text", flat=True)
    )
    for metric, sign in (("chrf", 1), ("ter", -1)):
        metric_matrix = np.array(
            [
                sign
                * sentence_scores(
                    metric,
                    extract_statistics(
                        metric,
                        list(
                            Output.objects.filter(run__system__name=s, run__campaign=judged)
                            .order_by("segment__index")
                            .values_list("text", flat=True)
                        ),
                        [reference],
                    ),
                )
                for s in systems
            ]
        )
        metric_matrix[np.isnan(human)] = np.nan
        expected = meta_evaluate(human, metric_matrix, threshold=1.0, n_resamples=100, seed=12345)
        row = next(r for r in rows if r.metric == metric and r.human.startswith("Adequacy"))
        found = row.evaluation
        assert found.systems == 5
        assert found.system_accuracy.accuracy == expected.system_accuracy.accuracy
        assert found.segment.kendall_like == expected.segment.kendall_like
        assert found.segment.acc23 == expected.segment.acc23
        assert found.segment.acc23_tie_optimised == expected.segment.acc23_tie_optimised
        assert found.segment.pairs > 100 and not np.isnan(found.segment.kendall_like.value)


def test_page_and_api_show_the_meta_evaluation(client, judged, django_user_model):
    admin = django_user_model.objects.create_superuser("meta-admin", password="x-long-pass-1!")
    client.force_login(admin)
    page = client.get(f"/campaigns/{judged.id}/results/human/").content.decode()
    assert "Meta-evaluation of the metrics" in page
    for label in ("Pairwise accuracy", "Kendall-like τ", "acc23, tie-optimised", "METEOR"):
        assert label in page
    body = client.get(f"/api/v1/campaigns/{judged.id}/results/human").json()
    rows = body["meta_evaluation"]
    assert {row["metric"] for row in rows} == set(JOB_METRICS)
    bleu = next(row for row in rows if row["metric"] == "bleu")
    # Two system-level Pearson r of BLEU, each saying which metric score it correlates.
    assert "Pearson r, corpus-level metric score" in page
    assert "Pearson r, mean of sentence scores" in page
    assert {row["metric_score"] for row in rows} == {"sentence_mean"}
    assert body["correlations"]
    assert {row["metric_score"] for row in body["correlations"]} == {"corpus"}
    accuracy = bleu["system"]["pairwise_accuracy"]
    assert accuracy["low"] <= accuracy["value"] <= accuracy["high"]
    assert bleu["segment"]["kendall_like"]["value"] is not None


def test_cached_until_the_judgments_change(judged):
    excluded = excluded_annotators(judged.id)
    first = meta_evaluation(judged, excluded, n_resamples=50)
    key = meta_evaluation_key(judged, excluded, 50)
    assert repr(cache.get(key)) == repr(first)  # stored in Redis
    assert repr(meta_evaluation(judged, excluded, n_resamples=50)) == repr(first)

    # Half the adequacy judgments of system outputs now give the lowest score (a new judgment
    # needs its own assignment slot; a new row also changes the key's count and last id): the
    # human side changes, so the key does, and the rows are those computed afresh.
    task = judged.tasks.get(task_type="adequacy")
    ids = list(
        Judgment.objects.filter(task=task, is_repeat=False, item__item_type="TGT")
        .order_by("id")
        .values_list("id", flat=True)
    )
    Judgment.objects.filter(id__in=ids[::2]).update(score=1)
    assert meta_evaluation_key(judged, excluded, 50) != key
    second = meta_evaluation(judged, excluded, n_resamples=50)
    assert repr(second) != repr(first)
    assert repr(second) == repr(meta_evaluation_uncached(judged, excluded, 50))
