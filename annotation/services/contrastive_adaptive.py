"""Adaptive contrastive screens (issue 22 section 2, issue 23 section 1): the systems that
share a screen are chosen at claim time, by the adaptive rule, among screens planned at
launch.

Strata are sets of systems: a screen's whole set when the task has few of them (at most
``MAX_SET_STRATA``: up to 10 systems on screens of 3), else pairs of systems, each screen
of a pair filled up with the systems that met it least so far. At launch
(``contrastive.adaptive_screen_items``) every segment gets a screen for each of up to
``SCREENS_PER_SEGMENT`` strata (the strata in a rotation drawn from the seed, so every
stratum gets about as many segments), in positions balanced as in the planned
``BalancedPlan``. A batch holds the screens of one stratum, quality control planned inside
it as in a planned task; a priorities row per stratum (``SystemPriority``) is what the claim
reads (``evalsite_adaptive_batch``: one SQL round trip, SKIP LOCKED, nothing computed there).
A stratum's key is the bit mask of its systems (their places in the campaign's systems by
id), negated: below REFERENCE_STRATUM (-1), so it never reads as a system's stratum.

Why whole sets when they are few: the claim then chooses exactly the systems that share
the screen (three close systems of five get screens of the three of them). Why pairs when
they are many: C(k, N) sets (455 for 15 systems and screens of 3) would each need screens
of their own and lengthen the claim's order over the table; k (k - 1) / 2 pairs still name
the comparison a screen serves.

The statistic stays the protocol's results procedure (``selectors.human.status_scores``):
each output on a screen is one observation of its system (``OutputJudgment``), unpaired,
as the results page's ranking status counts it. The refresh job keeps running sums per
system (``selectors.contrastive_adaptive``) and the adaptive rule gives each system its
gain (``metrics.adaptive.system_priorities``: the relative drop in the variance of the open
adjacent pairs it belongs to); a stratum's priority (``strata_priorities``) is the sum of
its systems' gains, plus, per filler place of a pair's screens, the mean gain of the other
systems: the stratum whose screens most reduce the uncertainty still open comes first.

The cold start: every system judged ``cold_start`` times. One screen of each stratum shows
each system S N / k times (S strata, screens of N), so each stratum is claimed first until
it has ``strata_cold_start`` screens.

Budget and counts are in screens: a screen is one judgment (``Judgment``), one claim's slot;
its outputs are the observations.

The stopping rule is the other tasks' (``services.adaptive``), and a task stops only once
every system its screens show has been judged (``systems_unjudged``).

Document-level contrastive tasks (``Task.unit`` "document") are adaptive by the same rule,
a document in place of a segment (``page_plan``): each document gets a block for each of up
to ``SCREENS_PER_SEGMENT`` strata (``contrastive.StrataRotation``), every page of the block
showing the stratum's systems (a pair's filled up once per document, the order drawn anew
page by page); a batch holds whole documents of one stratum, so the claim, choosing the
batch, chooses the pages and the systems that share them, and serves a page whole. A set's
cold start is counted in pages (``strata_cold_start``). The refresh counts a page's outputs
as the status does: one observation per system and page, the mean of its segments'
scores (``selectors.contrastive_adaptive``); the budget stays in judgments (segments).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from django.db.models import Count

from annotation.models import (
    Assignment,
    Slot,
    System,
    SystemPriority,
    Task,
    Unit,
)
from annotation.protocols import protocol_for
from metrics.adaptive.policies import MAX_SET_STRATA  # the simulator replays the same rule

# Screens per segment at most (as a pairwise task's pairs per segment).
SCREENS_PER_SEGMENT = 10
# Systems a stratum's bit mask can name (a bigint's bits, less the sign).
MAX_SYSTEMS = 62


def is_adaptive_contrastive(*, task: Task) -> bool:
    return protocol_for(task.task_type).contrastive and task.assignment == Assignment.ADAPTIVE


def adaptive_problem(*, task: Task) -> str | None:
    """Why the task's adaptive assignment cannot be planned, if it cannot."""
    if not is_adaptive_contrastive(task=task):
        return None
    systems = System.objects.filter(campaign_id=task.campaign_id).count()
    if systems > MAX_SYSTEMS:
        return (
            f"adaptive contrastive screens choose among at most {MAX_SYSTEMS} systems, and "
            f"the campaign has {systems}; choose the planned assignment"
        )
    return None


def screen_size(*, task: Task, systems: int) -> int:
    return max(2, min(task.ranking_size, systems))


def strata_sets(*, systems: int, size: int) -> list[tuple[int, ...]]:
    """The strata as tuples of system places (0 .. systems - 1): every screen's set when
    there are at most ``MAX_SET_STRATA``, else every pair."""
    if math.comb(systems, size) <= MAX_SET_STRATA:
        return list(itertools.combinations(range(systems), size))
    return list(itertools.combinations(range(systems), 2))


def set_stratum(*, places: Iterable[int]) -> int:
    """The stratum of a set of systems, by their places in the campaign's systems by id."""
    chosen = set(places)
    mask = sum(1 << place for place in chosen)
    if mask < 3 or mask >= 1 << MAX_SYSTEMS:
        raise ValueError(f"systems {sorted(chosen)} do not make a stratum")
    return -mask


def stratum_places(*, stratum: int) -> tuple[int, ...] | None:
    """The places of a set stratum's systems; None for a system's stratum."""
    if stratum > -3:
        return None
    mask = -stratum
    return tuple(place for place in range(MAX_SYSTEMS) if mask >> place & 1)


def campaign_systems(*, campaign_id: int) -> list[int]:
    """The campaign's system ids in the order the strata's places count them."""
    return list(
        System.objects.filter(campaign_id=campaign_id).order_by("id").values_list("id", flat=True)
    )


def strata_cold_start(*, task: Task, strata: Iterable[int]) -> dict[int, int | None]:
    """Each stratum's own cold start in screens (a set's); None: the task's, per system.

    A document task's screens are pages: a set's cold start is counted in pages, and stored
    in slots (the claim's ``judged`` and ``pending`` count slots) as that many of the set's
    pages at their mean length in its batches (read from the slots the plan just saved)."""
    chosen = list(strata)
    sets = [places for s in chosen if (places := stratum_places(stratum=s))]
    systems = len({place for places in sets for place in places})
    cold = 0
    if sets and task.cold_start > 0:
        per_round = len(sets) * screen_size(task=task, systems=systems) / systems
        cold = math.ceil(task.cold_start / per_round)
    per_page = _slots_per_page(task=task) if task.unit == Unit.DOCUMENT and cold else {}
    return {
        s: (math.ceil(cold * per_page.get(s, 1.0)) if stratum_places(stratum=s) else None)
        for s in chosen
    }


def _slots_per_page(*, task: Task) -> dict[int, float]:
    """Each batch stratum's mean slots per page (quality-control pages included, as the
    claim's counts include them)."""
    slots = Counter(
        dict(
            Slot.objects.filter(task=task)
            .order_by()
            .values("batch__stratum")
            .annotate(count=Count("id"))
            .values_list("batch__stratum", "count")
        )
    )
    pages = Counter(
        stratum
        for stratum, _, _ in Slot.objects.filter(task=task)
        .order_by()
        .values_list("batch__stratum", "batch_id", "page")
        .distinct()
    )
    return {stratum: slots[stratum] / pages[stratum] for stratum in pages if pages[stratum]}


def strata_priorities(
    *, task: Task, strata: Sequence[int], gains: Mapping[int, float]
) -> dict[int, float]:
    """Each stratum's priority from the adaptive rule's gain per system (``gains``: a
    system's stratum, or for a contrastive task its id, -> gain): a system's stratum its own
    gain; a set's, its systems' gains plus, per filler place of its screens, the mean gain
    of the other systems. A system not counted yet is in the cold start (infinite gain)."""
    places = {s: stratum_places(stratum=s) for s in strata}
    if not any(places.values()):
        return {s: gains.get(s, 0.0) for s in strata}
    ids = campaign_systems(campaign_id=task.campaign_id)
    used = sorted({place for chosen in places.values() if chosen for place in chosen})
    gain = {place: gains.get(ids[place], math.inf) if place < len(ids) else 0.0 for place in used}
    size = screen_size(task=task, systems=len(used))
    result = {}
    for stratum, chosen in places.items():
        if chosen is None:
            result[stratum] = gains.get(stratum, 0.0)
            continue
        others = [gain[p] for p in used if p not in chosen and math.isfinite(gain[p])]
        filler = (size - len(chosen)) * sum(others) / len(others) if others else 0.0
        result[stratum] = sum(gain[p] for p in chosen) + filler
    return result


def systems_unjudged(*, task: Task, judged: Iterable[str]) -> list[str]:
    """The systems the task's screens show that have no observation among ``judged``
    (names) yet: while any is left, the ranking cannot be settled (the status knows only
    the systems judged, and concurrent first screens may leave one out for a while)."""
    strata = SystemPriority.objects.filter(task=task).values_list("stratum", flat=True)
    places = {place for stratum in strata for place in stratum_places(stratum=stratum) or ()}
    ids = campaign_systems(campaign_id=task.campaign_id)
    shown = [ids[place] for place in places if place < len(ids)]
    names = System.objects.filter(id__in=shown).values_list("name", flat=True)
    return sorted(set(names) - set(judged))
