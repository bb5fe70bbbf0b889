from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Prefetch, QuerySet

from annotation.models import Campaign, Job, RunScore, SystemRun
from annotation.selectors.references import current_reference_set


def first_runs(campaign: Campaign) -> QuerySet[SystemRun]:
    """Each system's first run, its lowest number: the run annotators judge, whose scores
    the correlation and meta-evaluation pages use and the analysis page compares. The one
    definition; other runs (other seeds) count in the automatic results only."""
    earlier = SystemRun.objects.filter(
        system_id=OuterRef("system_id"), number__lt=OuterRef("number")
    )
    return SystemRun.objects.filter(campaign=campaign).exclude(Exists(earlier))


@dataclass
class RunRow:
    run: SystemRun
    job: Job | None
    scores: dict[str, float]
    references: str  # the reference set ``scores`` are against, e.g. "A+C"


def system_runs_with_jobs(campaign: Campaign) -> list[RunRow]:
    """Every run of the campaign with its metrics job and its scores against the current
    reference set, in four queries."""
    references = current_reference_set(campaign)
    current = RunScore.objects.filter(references=references)
    runs = list(
        SystemRun.objects.filter(campaign=campaign)
        .select_related("system")
        .prefetch_related(Prefetch("scores", queryset=current))
    )
    jobs = {
        job.target_id: job
        for job in Job.objects.filter(
            kind=Job.Kind.RUN_METRICS, target_id__in=[run.id for run in runs]
        )
    }
    return [
        RunRow(
            run,
            jobs.get(run.id),
            {score.metric: score.score for score in run.scores.all()},
            references,
        )
        for run in runs
    ]
