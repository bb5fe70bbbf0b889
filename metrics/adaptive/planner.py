"""Budget planner: judgments a task needs to separate systems that differ by a given amount.

Inputs are the organiser's assumptions (or a pilot's / past campaign's figures): the SD of
one judgment's score, the smallest difference of system means worth detecting, the number of
systems, alpha and the power wanted (0.8 by default).

Two designs:

- ``"sequential"`` (what an adaptive task runs): the stopping rule of
  ``metrics.adaptive.status``, an always-valid normal-mixture confidence sequence at level
  alpha / (k (k - 1) / 2) per pair, with its mixture tuned for the planned size. Tuned that
  way, its boundary in z units is a constant c(alpha') (``boundary_z``), so the judgments per
  system for power p are 2 sd^2 (c + z_p)^2 / d^2 -- the fixed-sample formula with c in
  place of z_{1-alpha/2}. It counts a crossing at the planned size only (a crossing earlier
  also stops), so it errs on the safe side.
- ``"fixed"``: one two-sided z-test per pair at level alpha, looked at once -- the textbook
  formula 2 sd^2 (z_{1-alpha/2} + z_p)^2 / d^2 (statsmodels' ``NormalIndPower``), the
  convention of wmt-conference/ErrorSpanAnnotation's power analysis (which simulates a
  one-sided Mann-Whitney test per pair at alpha 0.05 on gamma-distributed scores: about
  1/0.955 times the z-test's size for normal scores, with z_{1-alpha} for z_{1-alpha/2}).

The per-system figure is for one pair of neighbouring systems that differ by exactly the
smallest difference; with k systems the task needs k times it (every system may have such a
neighbour). ``judgments_needed`` is the function the task form calls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from metrics.adaptive.confidence import _best_ratio
from metrics.adaptive.status import DEFAULT_ALPHA, pair_alpha

DEFAULT_POWER = 0.8
DESIGNS = ("sequential", "fixed")


def boundary_z(alpha: float) -> float:
    """The mixture boundary in z units when tuned for the size at which it is read."""
    ratio = _best_ratio(alpha)
    return math.sqrt((1.0 + ratio) * (math.log((1.0 + ratio) / ratio) - 2.0 * math.log(alpha)))


def _critical_z(design: str, alpha: float, systems: int) -> float:
    if design == "sequential":
        return boundary_z(pair_alpha(alpha, systems))
    if design == "fixed":
        return NormalDist().inv_cdf(1.0 - alpha / 2.0)
    raise ValueError(f"design must be one of {', '.join(DESIGNS)}, not {design!r}")


def _check(sd: float, systems: int, alpha: float, power: float) -> None:
    if not sd > 0:
        raise ValueError("the score SD must be positive")
    if systems < 2:
        raise ValueError("at least two systems are needed")
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError("alpha and power must lie strictly between 0 and 1")


@dataclass(frozen=True)
class TaskBudget:
    per_system: int
    total: int
    design: str
    critical_z: float  # what the z-statistic of a pair must exceed


def judgments_needed(
    *,
    sd: float,
    min_difference: float,
    systems: int,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
    design: str = "sequential",
) -> TaskBudget:
    """Judgments for ``power`` to resolve two systems whose means differ by
    ``min_difference`` (score units), each judgment's score having SD ``sd``."""
    _check(sd, systems, alpha, power)
    if not min_difference > 0:
        raise ValueError("the smallest difference must be positive")
    critical = _critical_z(design, alpha, systems)
    strength = critical + NormalDist().inv_cdf(power)
    per_system = math.ceil(2.0 * sd * sd * strength * strength / (min_difference**2))
    return TaskBudget(
        per_system=per_system, total=per_system * systems, design=design, critical_z=critical
    )


def detectable_difference(
    *,
    sd: float,
    per_system: int,
    systems: int,
    alpha: float = DEFAULT_ALPHA,
    power: float = DEFAULT_POWER,
    design: str = "sequential",
) -> float:
    """The inverse: the smallest difference resolved with ``power`` at ``per_system``
    judgments of each system."""
    _check(sd, systems, alpha, power)
    if per_system < 1:
        raise ValueError("at least one judgment per system is needed")
    strength = _critical_z(design, alpha, systems) + NormalDist().inv_cdf(power)
    return strength * sd * math.sqrt(2.0 / per_system)
