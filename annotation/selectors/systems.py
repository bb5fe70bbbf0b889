from __future__ import annotations

from dataclasses import dataclass

from annotation.models import Campaign, Job, SystemRun


@dataclass
class RunRow:
    run: SystemRun
    job: Job | None
    scores: dict[str, float]


def system_runs_with_jobs(campaign: Campaign) -> list[RunRow]:
    """Every run of the campaign with its metrics job and scores, in three queries."""
    runs = list(
        SystemRun.objects.filter(campaign=campaign)
        .select_related("system")
        .prefetch_related("scores")
        .annotate()
    )
    jobs = {
        job.target_id: job
        for job in Job.objects.filter(
            kind=Job.Kind.RUN_METRICS, target_id__in=[run.id for run in runs]
        )
    }
    return [
        RunRow(run, jobs.get(run.id), {score.metric: score.score for score in run.scores.all()})
        for run in runs
    ]
