"""The budget planner on the task page (issue 23, section 2): judgments needed for power 0.8
from the organiser's stated assumptions, by ``metrics.adaptive.judgments_needed``.

Read from a GET form beside the task's settings: ``plan_sd`` (SD of one judgment's score),
``plan_difference`` (the smallest difference of system means worth detecting) and
``plan_systems`` (default: the campaign's systems). Units are the ranking's: z-scores for
Likert tasks, whose SD is about 1 by construction.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from annotation.models import Campaign
from metrics.adaptive import TaskBudget, judgments_needed
from metrics.adaptive.planner import DEFAULT_POWER, DESIGNS
from metrics.adaptive.status import DEFAULT_ALPHA

DEFAULT_SD = 1.0
DEFAULT_DIFFERENCE = 0.2
MAX_SYSTEMS = 1000


@dataclass(frozen=True)
class BudgetPlan:
    sd: str  # as typed, so that the form shows it back
    difference: str
    systems: str
    alpha: float = DEFAULT_ALPHA
    power: float = DEFAULT_POWER
    budgets: list[TaskBudget] = field(default_factory=list)  # one per design; empty on error
    error: str = ""


def _positive(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{what} must be a number, not {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{what} must be a positive number, not {text!r}")
    return value


def budget_plan(campaign: Campaign, query: Mapping[str, str]) -> BudgetPlan:
    """The planner's figures for the assumptions in ``query`` (the defaults when absent);
    a message instead of figures when an assumption cannot be read."""
    sd = (query.get("plan_sd") or "").strip() or str(DEFAULT_SD)
    difference = (query.get("plan_difference") or "").strip() or str(DEFAULT_DIFFERENCE)
    systems = (query.get("plan_systems") or "").strip() or str(campaign.systems.count())
    plan = BudgetPlan(sd=sd, difference=difference, systems=systems)
    try:
        sd_value = _positive(sd, "the score SD")
        difference_value = _positive(difference, "the smallest difference")
        if not (systems.isascii() and systems.isdigit()) or not 2 <= int(systems) <= MAX_SYSTEMS:
            raise ValueError(
                f"the number of systems must be a whole number from 2 to {MAX_SYSTEMS}, "
                f"not {systems!r}"
            )
        budgets = [
            judgments_needed(
                sd=sd_value,
                min_difference=difference_value,
                systems=int(systems),
                alpha=plan.alpha,
                power=plan.power,
                design=design,
            )
            for design in DESIGNS
        ]
    except ValueError as error:
        return BudgetPlan(sd=sd, difference=difference, systems=systems, error=str(error))
    return BudgetPlan(sd=sd, difference=difference, systems=systems, budgets=budgets)
