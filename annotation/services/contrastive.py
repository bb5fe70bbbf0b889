"""Contrastive screens (cESA, contrastive MQM, contrastive DA): the balanced plan at launch
(an adaptive task's: screens of sets of systems, ``adaptive_screen_items``), the whole screen's
answer checked, and one judgment row per output and system.

The annotator loop knows nothing of this: an item is a screen, its slot the screen's one
claim, and the loop records the screen's ``Judgment`` (with ``candidate_scores`` in screen
order) as for any task; ``judgments.py`` calls the two functions below around it, in one
transaction.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from django.db import connection

from annotation.db_prepared import prepared_cursor
from annotation.errors import ApplicationError
from annotation.models import Item, ItemType, Judgment, OutputJudgment, System
from annotation.models.tasks import Task
from annotation.protocols import AnswerError, protocol_for
from annotation.protocols.contrastive import candidate_answers
from annotation.services.contrastive_adaptive import (
    SCREENS_PER_SEGMENT,
    is_adaptive_contrastive,
    set_stratum,
    strata_sets,
)
from annotation.services.spans import (
    SPANS_INSERT_SQL,
    CheckedSpan,
    SpanAnswerError,
    spans_checked,
    spans_insert_parameters,
)

# Up to this many outputs a screen's order is the best of all permutations; beyond, greedy.
EXACT_ORDER_UP_TO = 5


class BalancedPlan:
    """Which systems share a screen, and in which order, segment after segment.

    Each screen is filled with the systems that met the screen's others least so far
    (ties: the seed's order), and ordered so that each system takes the positions it held
    least: over a task every pair of systems meets about equally often and every system
    stands about equally often in every position. Every system is shown once per segment;
    the last screen of a segment is filled up with systems already shown in it.
    """

    def __init__(self, systems: int, size: int, rng: random.Random) -> None:
        self.systems = systems
        self.size = min(size, systems)
        self.rng = rng
        self.met = [[0] * systems for _ in range(systems)]
        self.placed = [[0] * self.size for _ in range(systems)]

    def segment(self) -> list[list[int]]:
        """The screens of the next segment: system indices in screen order."""
        order = self.rng.sample(range(self.systems), self.systems)
        left = list(order)
        screens = []
        while left:
            group = [left.pop(0)]
            while len(group) < self.size and left:
                group.append(self._least_met(group, left))
                left.remove(group[-1])
            while len(group) < self.size:  # the segment's last screen, filled up
                group.append(self._least_met(group, [s for s in order if s not in group]))
            screens.append(self.ordered(group))
            for a, b in itertools.combinations(group, 2):
                self.met[a][b] += 1
                self.met[b][a] += 1
        return screens

    def around(self, chosen: Sequence[int]) -> list[int]:
        """A screen of the ``chosen`` systems (an adaptive task's stratum), filled up with
        those that met them least so far (ties: drawn from the seed), in balanced
        positions."""
        group = list(chosen)
        while len(group) < self.size:
            others = [s for s in range(self.systems) if s not in group]
            group.append(self._least_met(group, self.rng.sample(others, len(others))))
        for a, b in itertools.combinations(group, 2):
            self.met[a][b] += 1
            self.met[b][a] += 1
        return self.ordered(group)

    def _least_met(self, group: Sequence[int], choices: Sequence[int]) -> int:
        return min(choices, key=lambda s: sum(self.met[s][g] for g in group))

    def ordered(self, group: list[int]) -> list[int]:
        """``group`` in the order that gives each system the positions it held least."""
        if len(group) <= EXACT_ORDER_UP_TO:
            orders = list(itertools.permutations(group))
            self.rng.shuffle(orders)  # ties: the seed's choice
            best = list(min(orders, key=lambda o: sum(self.placed[s][p] for p, s in enumerate(o))))
        else:
            best, free = [], list(group)
            self.rng.shuffle(free)
            for position in range(len(group)):
                chosen = min(free, key=lambda s: self.placed[s][position])
                best.append(chosen)
                free.remove(chosen)
        for position, system in enumerate(best):
            self.placed[system][position] += 1
        return best


def contrastive_items(
    *, task: Task, segments: Sequence[Any], systems: Sequence[System], outputs, rng
) -> list[Item]:
    """One item (screen) per group of the balanced plan: ``outputs[system id][i]`` is the
    system's text for segment ``i``. Identical outputs become one candidate naming all
    their systems (at the first one's position). An adaptive task's screens serve sets of
    systems (``adaptive_screen_items``)."""
    if is_adaptive_contrastive(task=task):
        return adaptive_screen_items(
            task=task, segments=segments, systems=systems, outputs=outputs, rng=rng
        )
    plan = BalancedPlan(len(systems), task.ranking_size, rng)
    items = []
    for i, segment in enumerate(segments):
        for screen in plan.segment():
            shown = [(systems[s].name, outputs[systems[s].id][i]) for s in screen]
            items.append(
                Item(
                    task=task,
                    campaign=task.campaign,
                    segment=segment,
                    candidates=screen_candidates(outputs=shown),
                )
            )
    return items


def adaptive_screen_items(
    *, task: Task, segments: Sequence[Any], systems: Sequence[System], outputs, rng
) -> list[Item]:
    """An adaptive task's screens (services/contrastive_adaptive.py): per segment, the
    screens ``StrataRotation`` gives it; the item keeps its stratum
    (``source_meta["stratum"]``, read by ``assignment.item_stratum``)."""
    rotation = StrataRotation(systems=systems, size=task.ranking_size, rng=rng)
    items = []
    for i, segment in enumerate(segments):
        for screen, stratum in rotation.next_screens():
            shown = [(systems[s].name, outputs[systems[s].id][i]) for s in screen]
            items.append(
                Item(
                    task=task,
                    campaign=task.campaign,
                    segment=segment,
                    candidates=screen_candidates(outputs=shown),
                    source_meta={"stratum": stratum},
                )
            )
    return items


class StrataRotation:
    """An adaptive task's screens of sets of systems, unit after unit (a segment, or a
    document whose pages all show the unit's systems): each unit gets one screen for each
    of up to ``SCREENS_PER_SEGMENT`` strata, the strata taken in a rotation drawn from the
    seed (so every stratum gets about as many units), a pair's screens filled up by
    ``BalancedPlan.around``, positions balanced (``plan``)."""

    def __init__(self, *, systems: Sequence[System], size: int, rng: random.Random) -> None:
        if len(systems) < 2:
            raise ApplicationError("adaptive contrastive screens need at least two systems")
        self.plan = BalancedPlan(len(systems), size, rng)
        by_id = sorted(range(len(systems)), key=lambda s: systems[s].id)
        self._place = {system: rank for rank, system in enumerate(by_id)}
        self._strata = strata_sets(systems=len(systems), size=self.plan.size)
        rng.shuffle(self._strata)
        self._per_unit = min(len(self._strata), SCREENS_PER_SEGMENT)
        self._turn = 0

    def next_screens(self) -> list[tuple[list[int], int]]:
        """The next unit's screens: system indices in screen order, and the stratum."""
        screens = []
        for turn in range(self._turn, self._turn + self._per_unit):
            chosen = self._strata[turn % len(self._strata)]
            stratum = set_stratum(places=(self._place[s] for s in chosen))
            screens.append((self.plan.around(chosen), stratum))
        self._turn += self._per_unit
        return screens


def screen_candidates(*, outputs: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """(system name, text) in screen order → candidates, identical texts one candidate
    naming all their systems (at the first one's place)."""
    candidates: dict[str, dict[str, Any]] = {}
    for name, text in outputs:
        if text in candidates:
            candidates[text]["systems"].append(name)
        else:
            candidates[text] = {"text": text, "systems": [name], "type": "TGT"}
    return list(candidates.values())


def shuffle_check_items(*, task: Task, group: Sequence[Item], rng: random.Random) -> list[Item]:
    """WMT26's attention checks of a group of screens (``shuffle_rate``): a screen of the
    group shown again (a ``CHK`` item, ``original`` the screen, so the batch places it well
    after it) with one output's words shuffled (``lib.perturb.shuffled``) among the clean
    others, in a new order. No candidate of a check names a system, so no system's scores
    count it; the shuffled one is of type ``CHK``, for ``checks.slot_check``. Fewer checks
    when outputs are too short (WMT26: more than twice the shuffled tokens)."""
    from annotation.lib.perturb import PerturbationError, fits_shuffle_check, shuffled
    from annotation.services.assignment import checks_wanted

    wanted = checks_wanted(task=task, originals=len(group), kind="shuffle")
    if not wanted:
        return []  # before any draw: a task without these checks keeps its plan for its seed
    language = task.campaign.target_language
    checks: list[Item] = []
    screens = [item for item in group if item.item_type == ItemType.TGT]
    for item in rng.sample(screens, len(screens)):
        if len(checks) == wanted:
            break
        texts = [candidate["text"] for candidate in item.candidates]
        fit = [i for i, text in enumerate(texts) if fits_shuffle_check(text, language)]
        if len(texts) < 2 or not fit:
            continue
        bad = rng.choice(fit)
        try:
            made = shuffled(texts[bad], language=language, rng=rng)
        except PerturbationError:
            continue
        candidates = [{"text": text, "systems": [], "type": ItemType.TGT} for text in texts]
        candidates[bad] = {"text": made.text, "systems": [], "type": ItemType.CHK}
        rng.shuffle(candidates)
        checks.append(
            Item(
                task=task,
                campaign=task.campaign,
                item_type=ItemType.CHK,
                segment=item.segment,
                original=item,
                candidates=candidates,
            )
        )
    return checks


def check_candidate_add(*, item: Item, text: str, rng: random.Random) -> int:
    """Puts an attention-check candidate (``type`` CHK, no system) on the screen at a place
    drawn from ``rng``; returns its position. The place for the checks planned at launch:
    its judgment row has no system, so no system's results count it."""
    position = rng.randrange(len(item.candidates) + 1)
    item.candidates.insert(position, {"text": text, "systems": [], "type": ItemType.CHK})
    return position


def contrastive_answer_validated(
    *, task: Task, item: Item, answer: dict[str, Any]
) -> tuple[dict[str, Any], list[CheckedSpan]]:
    """The screen judgment's columns and every candidate's spans (each naming its
    candidate), checked whole: every candidate answered and scored, every span inside its
    translation. ``AnswerError`` or ``SpanAnswerError`` say which translation is wrong."""
    protocol = protocol_for(task.task_type)
    values = protocol.answer(task.scale, item.candidates, answer)
    marks_spans = protocol.spans
    checked: list[CheckedSpan] = []
    for position, (candidate, entry) in enumerate(
        zip(item.candidates, candidate_answers(item.candidates, answer), strict=True)
    ):
        raw = entry.get("spans") or []
        if raw and not marks_spans:
            raise AnswerError("contrastive DA has no error spans")
        try:
            spans = spans_checked(
                task=task, raw=raw, target=candidate["text"], source=item.segment.source
            )
        except SpanAnswerError as error:
            raise SpanAnswerError(f"translation {position + 1}: {error}") from None
        checked += [replace(span, candidate=position) for span in spans]
    return values, checked


# One row per candidate and system of the screen, from the screen's judgment and item: the
# candidate's score is its entry of candidate_scores (1-based), a candidate no system
# produced (reference, check) gets one row without a system.
_OUTPUTS_SQL = f"""
INSERT INTO {OutputJudgment._meta.db_table} (
    judgment_id, slot_id, task_id, item_id, annotator_id, system_id, position,
    candidate_type, score, is_repeat)
SELECT j.id, j.slot_id, j.task_id, j.item_id, j.annotator_id, sy.id, c.pos - 1,
       COALESCE(c.value->>'type', 'TGT'), j.candidate_scores[c.pos::int], j.is_repeat
  FROM {Judgment._meta.db_table} j
  JOIN {Item._meta.db_table} i ON i.id = j.item_id
 CROSS JOIN LATERAL jsonb_array_elements(i.candidates) WITH ORDINALITY AS c(value, pos)
 CROSS JOIN LATERAL (
     SELECT n.name FROM jsonb_array_elements_text(c.value->'systems') AS n(name)
     UNION ALL SELECT NULL WHERE jsonb_array_length(c.value->'systems') = 0
 ) AS names
  LEFT JOIN {System._meta.db_table} sy ON sy.campaign_id = i.campaign_id AND sy.name = names.name
 WHERE j.id = %s
"""  # noqa: S608 (table names only; the value is a parameter)


def output_judgments_create(*, judgment_id: int) -> int:
    """Writes the screen's per-output rows (inside the judgment's transaction); returns how
    many."""
    with connection.cursor() as cursor:
        cursor.execute(_OUTPUTS_SQL, [judgment_id])
        return cursor.rowcount


# The annotator's screen: its spans and its rows per output in one statement (the spans'
# insert a data-modifying CTE, run whether or not anything reads it), prepared once per
# session. Parameters: the spans insert's, then the judgment again.
_SCREEN_ROWS_SQL = f"WITH spans AS ({SPANS_INSERT_SQL}) {_OUTPUTS_SQL}"


def screen_rows_create(*, judgment_id: int, spans: Sequence[CheckedSpan]) -> int:
    """Writes a screen's spans (none for contrastive DA) and its per-output rows, in one
    statement inside the judgment's transaction; returns the rows per output."""
    with prepared_cursor() as cursor:
        cursor.execute(
            _SCREEN_ROWS_SQL,
            [*spans_insert_parameters(judgment_id=judgment_id, spans=spans), judgment_id],
        )
        return cursor.rowcount
