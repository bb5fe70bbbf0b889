"""Automatic metrics of uploaded systems: statistics once, then scores and significance.

The metrics job of a run extracts its per-segment statistics for every metric of the registry
(the only step that tokenises) and the sentence scores of the configured neural scorers,
stores them, computes the corpus scores with bootstrap intervals, and recomputes the
campaign's pairwise significance matrix from the stored statistics of all systems (uploaded
metric scores included).
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import transaction

from annotation.models import (
    Campaign,
    Output,
    PairSignificance,
    ReferenceSegment,
    RunScore,
    RunStatistics,
    SystemRun,
)
from annotation.selectors.references import (
    UPLOADED_SCORES_KEY,
    current_reference_set,
    metric_reference_names,
    reference_set_key,
)
from metrics import external, ulc
from metrics.automatic import (
    SACREBLEU_METRICS,
    extract_statistics,
    stats_from_bytes,
    stats_to_bytes,
)
from metrics.classic import CLASSIC_METRICS
from metrics.neural import checked_scores, configured_scorers
from metrics.resampling import (
    BOOTSTRAP_SAMPLES,
    SACREBLEU_SEED,
    bootstrap_ci,
    paired_approximate_randomization,
    paired_bootstrap,
)
from metrics.signatures import signature

logger = logging.getLogger(__name__)

# Every metric of the registry; ULC is assembled from its components' stored statistics.
EXTRACTED_METRICS = (*SACREBLEU_METRICS, *CLASSIC_METRICS)
JOB_METRICS = (*EXTRACTED_METRICS, ulc.ULC)
# A job starts again this many times when the references change while it computes.
REFERENCE_CHANGES_FOLLOWED = 3


def _texts(
    run: SystemRun, reference_names: list[str]
) -> tuple[list[str], list[str], list[list[str]]]:
    outputs = list(
        Output.objects.filter(run=run)
        .order_by("segment__index")
        .values_list("segment__source", "text")
    )
    sources = [source for source, _ in outputs]
    hypotheses = [hypothesis for _, hypothesis in outputs]
    references = [
        list(
            ReferenceSegment.objects.filter(
                reference__campaign_id=run.campaign_id, reference__name=name
            )
            .order_by("segment__index")
            .values_list("text", flat=True)
        )
        for name in reference_names
    ]
    return sources, hypotheses, references


def progress_after(*, done: int, steps: int) -> int:
    """Percent shown after ``done`` of the job's ``steps`` metrics; 100 only once the paired
    tests are updated too."""
    return 100 * done // (steps + 1)


def meteor_language(*, target_language: str) -> str:
    """METEOR's stemmer for the campaign's target language ("de-CH" → german); exact matching
    only for a language without a Snowball stemmer."""
    from metrics.classic.meteor import NO_STEMMER, check_language

    try:
        return check_language(target_language.split("-")[0].split("_")[0])
    except ValueError:
        return NO_STEMMER


@contextmanager
def _test_step(campaign_id: int, metric: str) -> Iterator[None]:
    """Test-only (no-op unless settings.METRICS_JOB_TEST_* are set): a test that wrote the
    hold file ``<campaign>.<metric>.hold`` finds ``.reached`` beside it once the job is there,
    and the job waits until the test removes the hold; a pace p > 1 makes the metric take p
    times as long."""
    if settings.METRICS_JOB_TEST_HOLDS:
        hold = Path(settings.METRICS_JOB_TEST_HOLDS) / f"{campaign_id}.{metric}.hold"
        if hold.exists():
            hold.with_suffix(".reached").touch()
            while hold.exists():
                time.sleep(0.05)
    started = time.monotonic()
    yield
    if settings.METRICS_JOB_TEST_PACE > 1:
        time.sleep((settings.METRICS_JOB_TEST_PACE - 1) * (time.monotonic() - started))


class ReferencesKeepChanging(RuntimeError):
    pass


def run_metrics_compute(*, target_id: int, report_progress: Callable[[int], None]) -> None:
    """The metrics job of one run. Idempotent: the same data gives the same rows.

    Rows are filed under the reference set they were computed from; a set that changes while
    the job computes is noticed when storing, and the job starts again on the new set.
    """
    for _ in range(REFERENCE_CHANGES_FOLLOWED):
        run = SystemRun.objects.select_related("campaign").filter(id=target_id).first()
        if run is None:
            return  # deleted since the job was written
        reference_names = metric_reference_names(run.campaign)
        if not reference_names:
            logger.info("run %s: no reference yet; scored after the first reference upload", run.id)
            return
        if _run_metrics_against(run, reference_names, report_progress):
            campaign_significance_update(campaign_id=run.campaign_id)
            report_progress(100)
            return
        logger.info("run %s: references changed while scoring; starting again", run.id)
    raise ReferencesKeepChanging(f"the references of run {target_id} kept changing; rerun it")


def _run_metrics_against(
    run: SystemRun, reference_names: list[str], report_progress: Callable[[int], None]
) -> bool:
    """Stores every metric against these references; False if they stopped being current."""
    key = reference_set_key(reference_names)
    sources, hypotheses, references = _texts(run, reference_names)
    scorers = configured_scorers(settings.NEURAL_SCORERS)
    steps = len(JOB_METRICS) + len(scorers)
    computed: dict[str, np.ndarray] = {}

    def store(metric: str, stats: np.ndarray, metric_signature: str) -> bool:
        computed[metric] = stats
        estimate = bootstrap_ci(metric, stats, n_samples=BOOTSTRAP_SAMPLES, seed=SACREBLEU_SEED)
        stored = _store_run_metric(
            run=run,
            metric=metric,
            references=key,
            stats=stats,
            score=estimate.score,
            ci_low=estimate.low,
            ci_high=estimate.high,
            metric_signature=metric_signature,
        )
        if stored:
            report_progress(progress_after(done=len(computed), steps=steps))
        return stored

    language = meteor_language(target_language=run.campaign.target_language)

    def built_in_signature(metric: str) -> str:
        return signature(
            metric,
            n_refs=len(references),
            bs=BOOTSTRAP_SAMPLES,
            seed=SACREBLEU_SEED,
            language=language if metric in ("meteor", ulc.ULC) else None,
        )

    for metric in EXTRACTED_METRICS:
        with _test_step(run.campaign_id, metric):
            stats = extract_statistics(
                metric, hypotheses, references, language=language if metric == "meteor" else None
            )
        if not store(metric, stats, built_in_signature(metric)):
            return False
    ulc_stats = np.hstack([computed[metric] for metric in ulc.components(ulc.ULC)])
    if not store(ulc.ULC, ulc_stats, built_in_signature(ulc.ULC)):
        return False
    for scorer in scorers:
        metric = external.key_for(scorer.name, higher_is_better=scorer.higher_is_better)
        scores = scorer.score(sources, hypotheses, references)
        stats = external.as_statistics(checked_scores(scorer, scores, len(hypotheses)))
        origin = f"scorer:{scorer.version}|nrefs:{len(references)}"
        if not store(metric, stats, external.signature(metric, origin=origin)):
            return False
    return True


@transaction.atomic
def _store_run_metric(
    *,
    run: SystemRun,
    metric: str,
    references: str,
    stats: np.ndarray,
    score: float,
    ci_low: float,
    ci_high: float,
    metric_signature: str,
) -> bool:
    """Stores one metric of the run and removes its rows of superseded reference sets, in one
    transaction; False (nothing written) if ``references`` is no longer the current set."""
    # The run's row lock orders two stores of the same run (a job taken over from a worker
    # that stopped beating while it still ran).
    locked = SystemRun.objects.select_for_update().select_related("campaign").get(id=run.id)
    if current_reference_set(locked.campaign) != references:
        return False
    kept = [references, UPLOADED_SCORES_KEY]
    RunStatistics.objects.filter(run=run).exclude(references__in=kept).delete()
    RunScore.objects.filter(run=run).exclude(references__in=kept).delete()
    RunStatistics.objects.update_or_create(
        run=run,
        metric=metric,
        references=references,
        defaults={"rows": stats.shape[0], "columns": stats.shape[1], "data": stats_to_bytes(stats)},
    )
    RunScore.objects.update_or_create(
        run=run,
        metric=metric,
        references=references,
        defaults={
            "score": score,
            "ci_low": ci_low,
            "ci_high": ci_high,
            "signature": metric_signature,
            "samples": BOOTSTRAP_SAMPLES,
            "seed": SACREBLEU_SEED,
        },
    )
    return True


@transaction.atomic
def campaign_significance_update(*, campaign_id: int, metrics: list[str] | None = None) -> int:
    """Recomputes every pair's paired tests from the statistics of the current reference set
    (and the uploaded metric scores) and replaces the campaign's tests with them, or only
    those of ``metrics``; returns the pair count.

    The campaign row is locked, so jobs of several systems finishing together update the
    matrix one after the other, and the last one sees every system's statistics. A system not
    yet scored against the current set has no tests until its job is done.
    """
    campaign = Campaign.objects.select_for_update().get(id=campaign_id)
    references = current_reference_set(campaign)
    tests: list[PairSignificance] = []
    stored = RunStatistics.objects.filter(
        run__campaign_id=campaign_id, references__in=[references, UPLOADED_SCORES_KEY]
    )
    replaced = PairSignificance.objects.filter(campaign_id=campaign_id)
    if metrics is not None:
        stored = stored.filter(metric__in=metrics)
        replaced = replaced.filter(metric__in=metrics)
    rows = stored.order_by("metric", "run__system_id", "run__number").values_list(
        "metric", "run__system_id", "data"
    )
    by_metric: dict[str, dict[int, list[np.ndarray]]] = defaultdict(lambda: defaultdict(list))
    for metric, system_id, data in rows.iterator():
        by_metric[metric][system_id].append(stats_from_bytes(metric, bytes(data)))
    for metric, runs_by_system in sorted(by_metric.items()):
        if len(runs_by_system) < 2:
            continue
        # Runs of one system are stacked (n_runs, n_segments, n_stats) and pooled by the tests.
        systems = {
            str(system_id): np.stack(runs) if len(runs) > 1 else runs[0]
            for system_id, runs in sorted(runs_by_system.items())
        }
        for method, result in (
            ("bs", paired_bootstrap(metric, systems)),
            ("ar", paired_approximate_randomization(metric, systems)),
        ):
            # Systems are in id order, so every pair already has a.id < b.id.
            tests.extend(
                PairSignificance(
                    campaign_id=campaign_id,
                    metric=metric,
                    method=method,
                    system_a_id=int(pair.a),
                    system_b_id=int(pair.b),
                    p_value=pair.p_value,
                    win_a=pair.win_a,
                    win_b=pair.win_b,
                    tie=pair.tie,
                )
                for pair in result.pairs
            )
    replaced.delete()
    PairSignificance.objects.bulk_create(tests)
    return len(tests)
