"""Adaptive collection in the loop (issue 23): refreshing the priorities the claim reads,
stopping a task when its ranking is settled or its budget spent, and continuing it.

Which tasks: every protocol whose results have a ranking status
(``selectors.human.status_scores``): Likert/DA (z-scores), ESA and ESA^AI (the 0-100
score), MQM (the MQM score, lower is better), on segments or on document pages (a batch
then holds one system's documents; a page is one observation); and the contrastive ones
(cESA, contrastive MQM and DA) on segments or document pages, whose strata are sets of
systems and whose screens' systems are thus chosen at claim time
(``services/contrastive_adaptive.py``).
Their declarations name ``ADAPTIVE_SETTINGS`` (annotation/protocols/); any other protocol
refuses ``assignment=adaptive`` (``Protocol.unimplemented``): pairwise, n-way ranking and
post-editing have no score to rank by.

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
  every ``batch_size`` judgments on average; queued after commit (``jobs.job_request``), and
  bounded by Celery's time limit. A job already queued absorbs later requests; a running one
  runs once more.

The refresh is incremental: it costs the judgments recorded since the last one, not the
task. Running sums of the ranking status's statistic per (measure, system, annotator)
(``ScoreSums``) and a cursor (``SumsCursor``) hold what was counted:

- Which judgments are new: those with ids above ``counted_to``, up to a bound read from the
  judgment sequence. Ids are drawn before their transaction commits, so a lower id may
  still commit after a higher one was seen; the bound is therefore taken with the
  transactions in flight just then (``selectors.adaptive.judgments_horizon``), and ids up
  to it are counted only once those have ended: at once when they end within a quarter of
  a second (judging is one short transaction), else at the next refresh (the bound waits
  in the cursor as its ``candidate``, and the job asks to run once more). Exact, never
  counted twice: each id range is counted once, in the transaction that moves
  ``counted_to``, under the cursor's lock.
- A document page is one observation: a page whose judgments straddle the bound is counted
  whole, its ids above the bound kept in ``carried`` and passed over next time.
- Edits: recorded judgments are only inserted by the annotator loop; a statement that
  updates or deletes judgments or spans (a crowd participant's restart excludes their
  earlier judgments) marks the task's cursor stale through a trigger
  (sql/0042_adapt_sums_stale.sql), as does a change of the MQM weights (``fingerprint``),
  and the next refresh counts from the start: a full recompute, once.
- Annotators left out of the task or campaign are left out when the figures are read (the
  sums are per annotator), so an exclusion needs no recount; DA's z-scores follow exactly
  from each annotator's sums (``selectors.adaptive.system_moments``).
- Each system's ``judged`` (all its judgments, quality control included) grows with the
  same ranges; ``pending`` is read from the task's leased batches (what is left of them).

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

from django.db import connection, transaction
from django.db.models import F, Sum
from django.utils import timezone

from annotation.models import (
    REFERENCE_STRATUM,
    Assignment,
    Batch,
    Campaign,
    Job,
    ScoreSums,
    SettledReason,
    SumsCursor,
    SystemPriority,
    Task,
    TaskNotice,
)
from annotation.protocols import budget_unit_of
from annotation.selectors.adaptive import (
    AdaptiveFigures,
    Horizon,
    NewObservations,
    figures_from_sums,
    judgments_horizon,
    new_observations,
    scores_fingerprint,
    xids_running,
)
from annotation.selectors.contrastive_adaptive import new_screen_observations
from annotation.services.contrastive_adaptive import (
    is_adaptive_contrastive,
    strata_priorities,
    systems_unjudged,
)
from annotation.services.task_rules import TaskError
from annotation.services.tasks import task_locked

logger = logging.getLogger(__name__)


def task_priorities_refresh(*, target_id: int, report_progress: Callable[[int], None]) -> None:
    """The refresh job: the judgments recorded since the last refresh added to the task's
    sums, its priorities and per-system counts rewritten from them, then the stopping rule.
    A task gone, planned or not running is left alone."""
    task = Task.objects.filter(id=target_id).first()
    if task is None or task.assignment != Assignment.ADAPTIVE:
        return
    if task.state != Task.State.LAUNCHED:
        return
    horizon = judgments_horizon()
    cursor = task_sums_count(task=task, horizon=horizon)
    figures = figures_from_sums(task, judgments=cursor.judgments)
    report_progress(60)
    priorities_store(task=task, figures=figures)
    complete = _every_system_judged(task=task, figures=figures)
    task_settle_if_done(task_id=task.id, figures=figures, complete=complete)
    if cursor.counted_to < horizon.bound:
        # Judgments up to the bound were still being written: this job runs once more when
        # it ends (as when it is asked for while running), so that a task's last batch is
        # counted even if no batch closes after it.
        Job.objects.filter(
            kind=Job.Kind.REFRESH_PRIORITIES, target_id=task.id, state=Job.State.RUNNING
        ).update(rerun_requested=True)


def _every_system_judged(*, task: Task, figures: AdaptiveFigures) -> bool:
    """Every system the task shows has been judged (its stratum's ``judged``; a contrastive
    set's systems in the figures): the status knows only the systems judged so far, so two
    systems far apart would otherwise settle a task whose other systems still wait for
    their cold start (one annotator, or concurrent first batches, reach that state)."""
    if is_adaptive_contrastive(task=task):
        judged = [s.system for status in figures.statuses for s in status.systems]
        return not systems_unjudged(task=task, judged=judged)
    # The human reference's batches (if shown) are no system of the ranking: not waited for.
    unjudged = SystemPriority.objects.filter(task=task, judged=0)
    return not unjudged.exclude(stratum=REFERENCE_STRATUM).exists()


@transaction.atomic
def task_sums_count(*, task: Task, horizon: Horizon) -> SumsCursor:
    """Adds the judgments that are final since the last refresh to the task's sums (from the
    start when they are stale); returns the cursor (how far, how many judgments)."""
    cursor, _ = SumsCursor.objects.select_for_update().get_or_create(task=task)
    fingerprint = scores_fingerprint(task)
    if cursor.stale or cursor.fingerprint != fingerprint:
        ScoreSums.objects.filter(task=task).delete()
        SystemPriority.objects.filter(task=task).update(judged=0)
        cursor.counted_to, cursor.carried, cursor.judgments = 0, [], 0
        cursor.stale, cursor.fingerprint = False, fingerprint
    target = None
    if horizon.settled:
        target = horizon.bound
        cursor.candidate, cursor.candidate_xids = None, []
    elif cursor.candidate is not None and not xids_running(cursor.candidate_xids):
        target = cursor.candidate
        cursor.candidate, cursor.candidate_xids = horizon.bound, horizon.xids
    elif cursor.candidate is None:
        cursor.candidate, cursor.candidate_xids = horizon.bound, horizon.xids
    if target is not None and target > cursor.counted_to:
        read = new_screen_observations if is_adaptive_contrastive(task=task) else new_observations
        found = read(task, after=cursor.counted_to, upto=target, carried=cursor.carried)
        _sums_add(task=task, found=found)
        cursor.carried = [i for i in cursor.carried if i > target] + found.carried
        cursor.counted_to = target
        cursor.judgments += found.judgments
    cursor.save()
    return cursor


_SUMS_ADD_SQL = """
INSERT INTO annotation_scoresums
    (task_id, measure, label, annotator_id, stratum, count, total, squares)
SELECT %s, * FROM unnest(%s::varchar[], %s::varchar[], %s::bigint[], %s::bigint[],
                         %s::bigint[], %s::float8[], %s::float8[])
ON CONFLICT (task_id, measure, label, annotator_id) DO UPDATE SET
    count = annotation_scoresums.count + EXCLUDED.count,
    total = annotation_scoresums.total + EXCLUDED.total,
    squares = annotation_scoresums.squares + EXCLUDED.squares
"""
_JUDGED_ADD_SQL = """
UPDATE annotation_systempriority p SET judged = p.judged + added.judged
  FROM unnest(%s::bigint[], %s::bigint[]) AS added (stratum, judged)
 WHERE p.task_id = %s AND p.stratum = added.stratum
"""


def _sums_add(*, task: Task, found: NewObservations) -> None:
    keys = sorted(found.sums)
    with connection.cursor() as cursor:
        if keys:
            cursor.execute(
                _SUMS_ADD_SQL,
                [
                    task.id,
                    [key[0] for key in keys],
                    [key[1] for key in keys],
                    [key[2] for key in keys],
                    [found.stratum[key[1]] for key in keys],
                    [found.sums[key][0] for key in keys],
                    [found.sums[key][1] for key in keys],
                    [found.sums[key][2] for key in keys],
                ],
            )
        strata = sorted(found.judged)
        if strata:
            cursor.execute(
                _JUDGED_ADD_SQL, [strata, [found.judged[key] for key in strata], task.id]
            )


@transaction.atomic
def priorities_store(*, task: Task, figures: AdaptiveFigures) -> None:
    """Each system's priority and the slots claimed but not judged (what is left of the
    task's leased batches), in one transaction. The rows are locked first, in stratum order
    (claims lock one row each, so no deadlock), so that a claim's pending count is either
    read here or added after."""
    stored = list(SystemPriority.objects.select_for_update().filter(task=task).order_by("stratum"))
    pending = dict(
        Batch.objects.filter(task=task, state=Batch.State.LEASED)
        .values("stratum")
        .annotate(left=Sum(F("size") - F("judged") - F("skipped")))
        .values_list("stratum", "left")
    )
    now = timezone.now()
    # A contrastive set's priority is made from its systems' (contrastive_adaptive.py).
    priorities = strata_priorities(
        task=task, strata=[row.stratum for row in stored], gains=figures.priorities
    )
    for row in stored:
        row.pending = max(0, pending.get(row.stratum) or 0)
        # A system with no counted judgment yet is in the cold start (judged + pending).
        row.priority = priorities[row.stratum]
        row.updated_at = now
    SystemPriority.objects.bulk_update(stored, ["priority", "pending", "updated_at"])


@transaction.atomic
def task_settle_if_done(*, task_id: int, figures: AdaptiveFigures, complete: bool = True) -> bool:
    """Marks the task settled (and records the notice) when its ranking is settled (and
    ``complete``: every system it shows judged) or its budget spent; True if it settled now.
    Idempotent: a settled or continued task stays.
    The task's row is locked only to settle it: every judgment's insert takes a key-share
    lock on it, which a lock at each refresh would make wait."""
    budget, settled_at, continued_at = (
        Task.objects.filter(id=task_id)
        .values_list("judgment_budget", "settled_at", "continued_at")
        .get()
    )
    stays = settled_at is not None or continued_at is not None
    resolved = figures.settled and complete
    if stays or not (resolved or (budget and figures.judgments >= budget)):
        return False
    task = Task.objects.select_for_update().get(id=task_id)
    if task.settled_at is not None or task.continued_at is not None:
        return False
    if resolved:
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
    unit = budget_unit_of(task)  # what the budget counts: judgments, or contrastive screens
    message = (
        f"{task.name} stopped after {figures.judgments} {unit}s: {reason.label}"
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
            "unit": unit,
            # In the budget's unit, as the budget and the judgments above.
            "still_needed": status.needed_judgments if status else None,
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
