"""The live ranking status of a scored task (issue 23, section 2): where the stopping rule of
``metrics.adaptive`` stands on the judgments so far, for every protocol with a score
(``Protocol.ranked_as``: Likert/DA, ESA, ESA^AI, MQM, contrastive ESA/MQM/DA, and
their document tasks).

``task_ranking_status(task)`` is the public entry point (a job deciding whether a task is
settled calls it): one query for the task's judgments, no bootstrap. The results pages call
``statuses_of`` on what they loaded (``likert_status_scores``) or on ``status_scores``.

The order here is by the mean of the statistic over the judgments (the stopping rule's);
the ranking tables above it may average segments or domains first, so two close systems may
swap between the two.

Tuning: every interval here (the pairs', the systems', the rolling ones) and an adaptive
task's priorities use the task's ``tuned_for``, fixed at launch from its judgment budget
(selectors/tuning.py), or the rule's default; never the count of the moment.

Paired only where the design pairs (``Task.paired_status``, decided at launch:
selectors/tuning.py): planned contrastive screens that each show every system, where one
annotator scores every system's output of a segment side by side. There a pair's interval
is the one-sample sequence on its per-screen differences, free of the segment's difficulty
and the annotator's leniency. Unpaired, on purpose, for the protocols whose screen shows one
output (Likert/DA, ESA, MQM): the paired sequence (the simulator's ``--pairing paired``)
needs two systems judged on the same segments in one order shared by both, so that a
pair's differences form one sequence whatever the allocation. These tasks do not give that:
a planned launch shuffles (system, segment) items together and an adaptive one cuts each
system's shuffled outputs into its own batches, so the segments two systems share come at
unrelated times, from different annotators (whose leniency pairing would not remove: DA's
z-scores of one annotator against another's), and an allocation favouring one side of a
pair leaves it paired on a shrinking share of its judgments. What pairing on the segment
alone buys is also modest: in the simulator it cuts every policy's judgments on MQM TED by
about a fifth but leaves adaptive/uniform where it was, and on the WMT16 win shares it
costs judgments (bench/simulate.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from annotation.models import Judgment, Task, Unit
from annotation.protocols import budget_unit_of
from annotation.selectors.budget import judgments_per_observation
from annotation.selectors.human.likert import LikertData
from annotation.selectors.human.status_scores import (
    StatusScores,
    likert_status_scores,
    status_scores,
)
from metrics.adaptive import PairStatus, ranking_status
from metrics.adaptive.confidence import DEFAULT_TUNED_FOR
from metrics.adaptive.intervals import SystemInterval, system_intervals
from metrics.adaptive.rolling import RollingIntervals, rolling_intervals
from metrics.adaptive.status import DEFAULT_ALPHA, DEFAULT_MIN_JUDGMENTS


@dataclass(frozen=True)
class RankingStatus:
    """One measure of one task: systems best first with their own intervals, each adjacent
    pair's status, the observations the rule estimates are still needed, and (on the
    results page) the intervals as the observations came in."""

    measure: str
    statistic: str  # "mean z", "ESA score", "MQM score"
    lower_is_better: bool
    unit: str  # what one observation is: "judgment", or "page" in a document task
    delta: float
    alpha: float
    min_judgments: int
    # The task's tuning (Task.tuned_for: observations per system, fixed at launch from its
    # budget); None: the rule's default, ``tuning`` either way.
    tuned_for: float | None
    paired: bool  # the pairs' intervals paired on the screens (Task.paired_status)
    systems: list[SystemInterval]
    pairs: list[PairStatus]
    still_needed: float  # math.inf when a pair cannot settle (equal means, delta 0)
    rolling: RollingIntervals | None = None
    # The judgment budget's unit (selectors/budget.py: "screen" on contrastive screens) and
    # how many of it one observation takes (the task's own ratio so far where counted).
    budget_unit: str = "judgment"
    per_observation: float = 1.0

    @property
    def rows(self) -> list[tuple[SystemInterval, PairStatus | None, str]]:
        """Each system with its pair against the next one down (None for the last) and what
        that pair still needs, in words ("" when not open or unknown)."""
        needs = [_need_words(p, self.unit) for p in self.pairs]
        return list(zip(self.systems, [*self.pairs, None], [*needs, ""], strict=True))

    @property
    def settled(self) -> bool:
        return all(pair.status != "open" for pair in self.pairs)

    @property
    def tuning(self) -> float:
        return DEFAULT_TUNED_FOR if self.tuned_for is None else self.tuned_for

    def count(self, status: str) -> int:
        return sum(pair.status == status for pair in self.pairs)

    @property
    def resolved(self) -> int:
        return self.count("resolved")

    @property
    def equivalent(self) -> int:
        return self.count("equivalent")

    @property
    def open(self) -> int:
        return self.count("open")

    @property
    def needed_known(self) -> bool:
        return math.isfinite(self.still_needed)

    @property
    def needed_rounded(self) -> int | None:
        return math.ceil(self.still_needed) if self.needed_known else None

    @property
    def observations(self) -> int:
        return sum(s.judgments for s in self.systems)

    @property
    def needed_judgments(self) -> int | None:
        """``still_needed`` in the judgment budget's unit (None: cannot settle)."""
        if not self.needed_known:
            return None
        return math.ceil(self.still_needed * self.per_observation - 1e-9)


def statuses_of(
    scores: StatusScores,
    *,
    delta: float,
    tuned_for: float | None,
    paired: bool = False,
    rolling: bool = False,
    budget_unit: str = "judgment",
    per_observation: float = 1.0,
) -> list[RankingStatus]:
    """Per measure, the ranking status at margin ``delta`` (the statistic's units); none with
    fewer than two systems judged. ``tuned_for``: the task's (``Task.tuned_for``, fixed at
    launch; None: ``DEFAULT_TUNED_FOR``), for the pairs, the systems' intervals and the
    rolling ones alike; ``paired`` (the task's ``paired_status``): the pairs' intervals on
    the screens that show both systems (``scores.screen``). ``rolling`` adds the intervals
    at each look (the page's figure; a few dozen passes over the judgments).
    ``budget_unit`` and ``per_observation``: the judgment budget's unit and how many of it
    an observation takes, for the estimate of what is still needed in that unit."""
    if np.unique(scores.system).size < 2:
        return []
    tuning = DEFAULT_TUNED_FOR if tuned_for is None else tuned_for
    pairing = paired and scores.screen is not None
    screens = scores.screens_by_system() if pairing else None
    result = []
    for measure in scores.scores:
        by_system = scores.by_system(measure)
        status = ranking_status(
            by_system,
            lower_is_better=scores.lower_is_better,
            delta=delta,
            alpha=DEFAULT_ALPHA,
            tuned_for=tuning,
            screens=screens,
        )
        intervals = system_intervals(by_system, alpha=DEFAULT_ALPHA, tuned_for=tuning)
        result.append(
            RankingStatus(
                measure=measure,
                statistic=scores.statistic,
                lower_is_better=scores.lower_is_better,
                unit=scores.unit,
                delta=delta,
                alpha=DEFAULT_ALPHA,
                min_judgments=DEFAULT_MIN_JUDGMENTS,
                tuned_for=tuned_for,
                paired=pairing,
                systems=[intervals[name] for name in status.order],
                pairs=status.pairs,
                still_needed=status.still_needed,
                rolling=_rolling(scores, measure, tuning) if rolling else None,
                budget_unit=budget_unit,
                per_observation=per_observation,
            )
        )
    return result


def _need_words(pair: PairStatus, unit: str) -> str:
    """An open pair's estimate of what it still needs, in words ("" otherwise)."""
    need = pair.still_needed
    if pair.status != "open" or math.isnan(need):
        return ""
    if math.isinf(need):
        return "cannot settle at this margin"
    count = max(math.ceil(need), 1)
    return f"about {count} more {unit}{'' if count == 1 else 's'} of the two"


def _rolling(scores: StatusScores, measure: str, tuned_for: float) -> RollingIntervals:
    return rolling_intervals(
        scores.system,
        scores.scores[measure],
        scores.systems,
        annotator=scores.annotator if scores.standardise else None,
        alpha=DEFAULT_ALPHA,
        tuned_for=tuned_for,
    )


def likert_ranking_status(
    task: Task, data: LikertData, included: NDArray[np.bool_], *, rolling: bool = True
) -> list[RankingStatus]:
    """Per measure of a Likert task (z units), from the arrays its results loaded; a
    document task's pages are not in them, so its status reads them (one more query)."""
    if task.unit == Unit.DOCUMENT:
        return task_statuses(task, rolling=rolling)
    return _task_statuses_of(task, likert_status_scores(data, included), rolling=rolling)


def task_statuses(task: Task, *, rolling: bool = False) -> list[RankingStatus]:
    """Every measure's status of one task (empty: no scored protocol, or fewer than two
    systems judged), from one query for its judgments."""
    scores = status_scores(task)
    if scores is None:
        return []
    return _task_statuses_of(task, scores, rolling=rolling)


def _task_statuses_of(task: Task, scores: StatusScores, *, rolling: bool) -> list[RankingStatus]:
    """The statuses under the task's own fixed rule: its margin, its tuning and whether its
    design pairs (all set at launch). The page's figures (``rolling``) count the task's
    judgments (one query) for the estimate in the budget's unit: its own ratio, quality
    control included; otherwise the settings' ratio."""
    observations = int(scores.system.size)
    per_observation = judgments_per_observation(task, len(scores.systems))
    if rolling and observations:
        per_observation = Judgment.objects.filter(task=task).count() / observations
    return statuses_of(
        scores,
        delta=task.equivalence_margin,
        tuned_for=task.tuned_for,
        paired=task.paired_status,
        rolling=rolling,
        budget_unit=budget_unit_of(task),
        per_observation=per_observation,
    )


def task_ranking_status(task: Task) -> RankingStatus | None:
    """THE live status of a task, for deciding whether it is settled: the first measure's
    (adequacy in an adequacy-and-fluency task; the only one elsewhere) at the task's
    equivalence margin. None when the protocol has no score to rank by (pairwise, n-way
    ranking, post-editing) or fewer than two systems have judgments.

    ``status.settled``: no adjacent pair is open; ``status.still_needed``: observations
    (judgments, or pages of a document task) estimated until settled, ``math.inf`` when a
    pair cannot settle at margin 0. Cost: one query for the judgments (plus the campaign's
    exclusions), then NumPy over them; no rolling intervals."""
    statuses = task_statuses(task)
    return statuses[0] if statuses else None
