"""Adaptive collection in the loop (issue 23): refreshing the priorities the claim reads,
stopping a task when its ranking is settled or its budget spent, and continuing it.

How it fits the loop (annotation/services/assignment.py plans, the SQL claims):

- At launch an adaptive task's items are cut into batches of one system each (its
  ``stratum``), quality control planned inside them as in a planned task, so a bad
  reference or repeat still reaches whoever judged its original; a priorities row per
  system (``SystemPriority``) starts in the cold start.
- The claim (``evalsite_adaptive_batch``) takes the first open batch of the system that
  comes first: systems judged fewer than ``cold_start`` times (judged + claimed) first, then
  by the priority the job wrote, discounted by what was claimed since. It reads the table in
  the claim's own statement, with ``SKIP LOCKED`` on the batch; nothing is computed there.
- The priorities are refreshed by a job (``Job.Kind.REFRESH_PRIORITIES``, target the task),
  requested (``jobs.task_priorities_request``) each time a batch of the task closes, i.e.
  every ``batch_size`` judgments on average; it is idempotent (it recomputes from the
  judgments), queued after commit (``jobs.job_request``), and bounded by Celery's time
  limit. A job already queued absorbs later requests; a running one runs once more.

The rule (``metrics.adaptive.policies.adaptive``): the system whose next judgment most
reduces the variance of the adjacent pairs still open, relative to each pair's variance.
Chosen over Pearmut's 1/rank rule, which in the simulator always needed more judgments than
uniform, and over racing, because it spends nothing on settled pairs (as racing does) while
balancing the two sides of a pair by their variances and preferring a system that serves two
open pairs; over Thompson sampling, because its priority is a deterministic number per
system that a table can hold between refreshes (bench/simulate.md has the comparison).

The stop: the job evaluates the results page's ranking status (an always-valid confidence
sequence, so looking after every refresh does not inflate errors). When every adjacent pair
is resolved or equivalent within the task's ``equivalence_margin``, or the judgments reach
``judgment_budget``, the task is marked settled, a ``TaskNotice`` records why with the
figures, and the claim hands out nothing more until the organiser continues it
(``task_continue``); a continued task is not stopped again. The job runs behind the
judgments, so the claim itself takes no new batch once the slots judged and claimed reach
the budget (the judgments in flight then are the overshoot, at most a batch per annotator).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from annotation.models import (
    Assignment,
    Campaign,
    SettledReason,
    Slot,
    SystemPriority,
    Task,
    TaskNotice,
)
from annotation.selectors.adaptive import AdaptiveFigures, adaptive_figures
from annotation.services.task_rules import TaskError
from annotation.services.tasks import task_locked

logger = logging.getLogger(__name__)


def task_priorities_refresh(*, target_id: int, report_progress: Callable[[int], None]) -> None:
    """The refresh job: the task's priorities and per-system counts rewritten from its
    judgments, then the stopping rule. A task gone, planned or not running is left alone."""
    task = Task.objects.filter(id=target_id).first()
    if task is None or task.assignment != Assignment.ADAPTIVE:
        return
    if task.state != Task.State.LAUNCHED:
        return
    figures = adaptive_figures(task)
    report_progress(60)
    priorities_store(task=task, figures=figures)
    task_settle_if_done(task_id=task.id, figures=figures)


@transaction.atomic
def priorities_store(*, task: Task, figures: AdaptiveFigures) -> None:
    """Each system's priority, judged slots and slots claimed but not done, in one
    transaction (rows in stratum order: claims lock one row each, so no deadlock)."""
    counts = {
        row["batch__stratum"]: (row["done"], row["leased"])
        for row in Slot.objects.filter(task=task)
        .values("batch__stratum")
        .annotate(
            done=Count("id", filter=Q(state=Slot.State.DONE)),
            leased=Count("id", filter=Q(state=Slot.State.LEASED)),
        )
    }
    now = timezone.now()
    stored = list(SystemPriority.objects.select_for_update().filter(task=task).order_by("stratum"))
    for row in stored:
        row.judged, row.pending = counts.get(row.stratum, (0, 0))
        # A system with no counted judgment yet is in the cold start (judged + pending).
        row.priority = figures.priorities.get(row.stratum, 0.0)
        row.updated_at = now
    SystemPriority.objects.bulk_update(stored, ["priority", "judged", "pending", "updated_at"])


@transaction.atomic
def task_settle_if_done(*, task_id: int, figures: AdaptiveFigures) -> bool:
    """Marks the task settled (and records the notice) when its ranking is settled or its
    budget spent; True if it settled now. Idempotent: a settled or continued task stays."""
    task = Task.objects.select_for_update().get(id=task_id)
    if task.settled_at is not None or task.continued_at is not None:
        return False
    if figures.settled:
        reason = SettledReason.RESOLVED
    elif task.judgment_budget and figures.judgments >= task.judgment_budget:
        reason = SettledReason.BUDGET
    else:
        return False
    task.settled_at = timezone.now()
    task.settled_reason = reason
    task.save(update_fields=["settled_at", "settled_reason"])
    status = figures.statuses[0] if figures.statuses else None
    pairs = (
        {"resolved": status.resolved, "equivalent": status.equivalent, "open": status.open}
        if status
        else {}
    )
    message = (
        f"{task.name} stopped after {figures.judgments} judgments: {reason.label}"
        + (
            f" ({pairs['resolved']} pairs resolved, {pairs['equivalent']} equivalent, "
            f"{pairs['open']} open)"
            if pairs
            else ""
        )
        + ". No more items are handed out unless you continue the task."
    )
    TaskNotice.objects.create(
        task=task,
        reason=reason,
        message=message,
        figures={
            "judgments": figures.judgments,
            "budget": task.judgment_budget,
            "pairs": pairs,
            "order": [system.system for system in status.systems] if status else [],
            "still_needed": status.needed_rounded if status else None,
        },
    )
    logger.info("task %s settled: %s", task.id, message)
    return True


@transaction.atomic
def task_continue(*, task_id: int, campaign: Campaign | None = None) -> Task:
    """The organiser's choice after a task settled: hand out work again (the task is not
    stopped again by the rule or the budget)."""
    task = task_locked(task_id=task_id, campaign=campaign)
    if task.settled_at is None:
        raise TaskError("only a task that stopped by itself can continue")
    if task.continued_at is not None:
        raise TaskError("the task was continued already")
    task.continued_at = timezone.now()
    task.save(update_fields=["continued_at"])
    return task
