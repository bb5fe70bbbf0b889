"""The judgment budget's unit, and the budget planner on the task page (issue 23, section 2):
judgments needed for power 0.8 from the organiser's stated assumptions, by
``metrics.adaptive.judgments_needed``.

One unit for every task-wide figure the organiser sets or reads (the judgment budget, the
planner's total, the live estimate of what is still needed, the stop's notice): the
**judgment as recorded**, one per item an annotator submits -- an output in DA, ESA and MQM,
a whole screen of side-by-side outputs in a contrastive task (``protocols.budget_unit_of``:
"screen"), one segment of a document page. Quality control counts too. Why this unit and
not the outputs judged: it is what an annotator does and is paid for (a screen, however
many outputs it shows), what every other count of a task is in (progress, quotas,
judgments per item, batch sizes), and what the claim itself holds the budget to, a batch
at most past it (``evalsite_adaptive_batch`` counts claimed slots): a budget in outputs
checked against that count would let three-output screens run to three times it. The
statistics count observations (an output, or a document page), so their task-wide figures
are converted: by the settings before launch (``judgments_per_observation``), by the
task's own ratio once judged (``RankingStatus.needed_judgments``). A system's own counts
are the same in both units (a system's outputs judged are the screens that showed it).

Read from a GET form beside the task's settings: ``plan_sd`` (SD of one observation's
score: one judgment's, a page mean's in a document task), ``plan_difference`` (the smallest
difference of system means worth detecting) and ``plan_systems`` (default: the campaign's
systems). Units are the ranking's: z-scores for Likert tasks, whose SD is about 1 by
construction.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from annotation.models import Campaign, Task, Unit
from annotation.protocols import budget_unit_of, protocol_for
from metrics.adaptive import TaskBudget, judgments_needed
from metrics.adaptive.planner import DEFAULT_POWER, DESIGNS
from metrics.adaptive.status import DEFAULT_ALPHA

DEFAULT_SD = 1.0
DEFAULT_DIFFERENCE = 0.2
MAX_SYSTEMS = 1000


def observation_unit(task: Task) -> str:
    """What the ranking status counts per system: a page (document tasks; on a contrastive
    page, a system's outputs on it), an output (one of a contrastive screen's), else a
    judgment."""
    if task.unit == Unit.DOCUMENT:
        return "page"
    return "output" if protocol_for(task.task_type).contrastive else "judgment"


def judgments_per_observation(task: Task, systems: int) -> float:
    """Judgments (the budget's unit) that give one observation, from the settings (before
    launch; quality control on top): a contrastive judgment gives one output of each system
    shown (``ranking_size``, at most the systems), a document page takes its segments (a
    contrastive page's observation is one system's outputs on it)."""
    per_page = float(task.page_size) if task.unit == Unit.DOCUMENT else 1.0
    if protocol_for(task.task_type).contrastive:
        return per_page / max(min(task.ranking_size, systems), 1)
    return per_page


@dataclass(frozen=True)
class PlannedBudget:
    """One design's figures: observations per system and in all, and the judgments (the
    budget's unit) they take."""

    design: str
    per_system: int
    observations: int
    judgments: int
    critical_z: float


@dataclass(frozen=True)
class BudgetPlan:
    sd: str  # as typed, so that the form shows it back
    difference: str
    systems: str
    alpha: float = DEFAULT_ALPHA
    power: float = DEFAULT_POWER
    budgets: list[PlannedBudget] = field(default_factory=list)  # one per design; none on error
    error: str = ""
    unit: str = "judgment"  # the budget's (protocols.budget_unit_of)
    observation: str = "judgment"  # the status's (observation_unit)


def _positive(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{what} must be a number, not {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{what} must be a positive number, not {text!r}")
    return value


def _planned(budget: TaskBudget, per_observation: float) -> PlannedBudget:
    return PlannedBudget(
        design=budget.design,
        per_system=budget.per_system,
        observations=budget.total,
        judgments=math.ceil(budget.total * per_observation - 1e-9),
        critical_z=budget.critical_z,
    )


def budget_plan(campaign: Campaign, query: Mapping[str, str], *, task: Task) -> BudgetPlan:
    """The planner's figures for the assumptions in ``query`` (the defaults when absent),
    in ``task``'s units; a message instead of figures when an assumption cannot be read."""
    sd = (query.get("plan_sd") or "").strip() or str(DEFAULT_SD)
    difference = (query.get("plan_difference") or "").strip() or str(DEFAULT_DIFFERENCE)
    systems = (query.get("plan_systems") or "").strip() or str(campaign.systems.count())
    plan = BudgetPlan(
        sd=sd,
        difference=difference,
        systems=systems,
        unit=budget_unit_of(task),
        observation=observation_unit(task),
    )
    try:
        sd_value = _positive(sd, "the score SD")
        difference_value = _positive(difference, "the smallest difference")
        if not (systems.isascii() and systems.isdigit()) or not 2 <= int(systems) <= MAX_SYSTEMS:
            raise ValueError(
                f"the number of systems must be a whole number from 2 to {MAX_SYSTEMS}, "
                f"not {systems!r}"
            )
        per_observation = judgments_per_observation(task, int(systems))
        budgets = [
            _planned(
                judgments_needed(
                    sd=sd_value,
                    min_difference=difference_value,
                    systems=int(systems),
                    alpha=plan.alpha,
                    power=plan.power,
                    design=design,
                ),
                per_observation,
            )
            for design in DESIGNS
        ]
    except ValueError as error:
        return dataclasses.replace(plan, error=str(error))
    return dataclasses.replace(plan, budgets=budgets)
