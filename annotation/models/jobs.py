"""Background jobs, written in the same transaction as the data that needs them (an outbox).

A job row is the truth about a job: its state and progress live here, so pages read them
without asking Celery, and a job whose message was lost (broker down) or whose worker died
(its heartbeat stopped) is queued again by the dispatcher.
"""

from __future__ import annotations

from django.db import models


class Job(models.Model):
    class Kind(models.TextChoices):
        RUN_METRICS = "run_metrics", "Automatic metrics of a system run"
        RESULTS_SNAPSHOT = "results_snapshot", "Human results of a campaign, computed ahead"
        PING = "ping", "Round trip through the worker (health checks and tests)"
        REFRESH_PRIORITIES = "refresh_priorities", "Adaptive task: priorities and stopping rule"

    class State(models.TextChoices):
        PENDING = "pending", "Pending"  # written, not yet handed to the broker
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=32, choices=Kind.choices)
    # The id of the object the job works on (a SystemRun for run_metrics, a Task for
    # refresh_priorities).
    target_id = models.BigIntegerField()
    state = models.CharField(max_length=16, choices=State.choices, default=State.PENDING)
    progress = models.PositiveSmallIntegerField(default=0)
    message = models.CharField(max_length=500, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Who runs it (host, process and attempt) and when that worker last said it was alive.
    worker = models.CharField(max_length=200, blank=True)
    heartbeat = models.DateTimeField(null=True, blank=True)
    # Asked for again while running (its data changed): it runs once more when this run ends.
    rerun_requested = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "target_id"], name="one_job_per_target"),
            models.CheckConstraint(
                condition=models.Q(progress__lte=100), name="progress_is_a_percentage"
            ),
        ]
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=models.Q(state="pending"),
                name="job_pending_idx",
            ),
            models.Index(
                fields=["heartbeat"],
                condition=models.Q(state="running"),
                name="job_running_heartbeat_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.target_id} ({self.state})"

    @property
    def is_finished(self) -> bool:
        return self.state in {self.State.DONE, self.State.FAILED}
