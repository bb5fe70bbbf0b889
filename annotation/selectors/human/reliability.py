"""Per-annotator reliability of one task, and who fails it (the figures: ``metrics.reliability``).

Each task analysis hands over its judgments as ``ReliabilityInput`` (one entry per judgment)
and, where candidates are scored side by side, contrastive screens; the bad-reference test
comes from the quality control already computed (``metrics.quality``); ``task_input`` adds
what the task recorded beside its judgments (attention checks, tutorial answers, restarts).

Every figure of an annotator follows their current attempt: a manager who lets them start
again (``services.restarts``) sets their judgments so far aside (``Judgment.excluded``: kept,
marked in the exports, read by no figure here), and their check outcomes and tutorial
answers of earlier attempts are left out where they are read (``selectors.checks``,
``selectors.tutorials``).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from annotation.models import Task
from annotation.selectors.checks import current_attempts, reliability_checks
from annotation.selectors.human.comparisons import Judged
from annotation.selectors.human.likert import LikertData
from annotation.selectors.human.loading import ITEM_TYPES, Usernames
from annotation.selectors.human.postedit import PosteditData
from annotation.selectors.tutorials import tutorial_outcomes
from metrics.quality import AnnotatorQuality
from metrics.reliability import (
    CONSENSUS_THRESHOLD,
    TOO_FAST_SECONDS,
    Consensus,
    Differences,
    ItemTime,
    PassRate,
    StraightLining,
    attention_failed,
    bad_reference_checks,
    consensus_likelihood,
    duplicate_differences,
    pass_rates,
    repeat_differences,
    straight_lining,
    time_per_item,
    too_fast,
)

# Kinds whose judgments are the annotator's own view of an output (straight-lining, repeats).
SCORED_KINDS = frozenset({"TGT", "BAD", "REF", "REPEAT"})
# The attention checks' kinds (``CheckKind``) as a failure reason names them, one and many.
CHECK_NAMES = {
    "bad_reference": ("bad reference", "bad references"),
    "repeat": ("repeat", "repeats"),
    "hotw": ("HOTW error", "HOTW errors"),
    "contrastive": ("shuffled translation", "shuffled translations"),
}


@dataclass(frozen=True)
class ReliabilityInput:
    """One entry per judgment in each array. ``item`` codes what was judged (a repeat shares
    its original's); ``original`` codes the output a bad reference damages (of any other
    judgment: its own output); ``score`` is None for protocols without one score per
    judgment. ``screens`` are (annotator, screen, system, score) rows of candidates scored
    side by side; ``tutorial`` (annotator, passed) per tutorial item answered; ``checks``
    (annotator, passed, kind) per attention check the loop recorded (``selectors.checks``):
    when a task has any, they are its attention checks, else its bad references are.
    ``repeat_scores`` (annotator, output code, score), one per output of every screen judged,
    repeats included: where a judgment scores several outputs (``score`` None), the repeats'
    differences are read from them. ``lines``: whether identical scores flag straight-lining
    (not for MQM, where many good translations rightly score 0). ``attempts``: the attempt
    each annotator a manager let start again is on (``selectors.checks.current_attempts``):
    they have a row even before judging anything in it."""

    annotator: NDArray[np.int64]
    kind: NDArray[np.str_]
    item: NDArray[np.int64]
    original: NDArray[np.int64]
    score: NDArray[np.float64] | None
    seconds: NDArray[np.float64]
    screens: Sequence[tuple[int, Hashable, Hashable, float]] = ()
    tutorial: Sequence[tuple[int, bool]] = ()
    checks: Sequence[tuple[int, bool, str]] = ()
    repeat_scores: Sequence[tuple[int, int, float]] = ()
    lines: bool = True
    attempts: Mapping[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ReliabilityRow:
    annotator_id: int
    username: str
    excluded: bool
    bad_reference_verdict: str | None  # None: the task has no bad references
    bad_reference_p: float | None
    attention: PassRate | None  # None: no attention check taken
    tutorial: PassRate | None
    repeats: Differences
    others: Differences  # WMT26's MAE(dup): against other annotators' scores of one item
    consensus: Consensus | None  # None: no candidates scored side by side
    time: ItemTime
    too_fast: bool
    straight_lining: StraightLining | None  # None: no score to compare
    attempt: int = 1  # 1 + the times a manager let them start again
    # The attention checks failed, by kind (``CHECK_NAMES``), most first.
    missed: tuple[tuple[str, int], ...] = field(default=())
    reasons: tuple[str, ...] = field(default=())

    @property
    def passes(self) -> bool:
        return not self.reasons

    @property
    def missed_words(self) -> str:
        """The attention checks failed, in words ("" if none), for the table."""
        return missed_said(self.missed)


class ReliabilityTable(list[ReliabilityRow]):
    """A task's rows, and which of the columns that only some protocols fill have a figure
    in some row (the page leaves an empty one out)."""

    @property
    def bad_reference(self) -> bool:
        return any(row.bad_reference_verdict for row in self)

    @property
    def tutorial(self) -> bool:
        return any(row.tutorial for row in self)

    @property
    def others(self) -> bool:
        return any(row.others.pairs for row in self)

    @property
    def identical(self) -> bool:
        return any(row.straight_lining is not None for row in self)

    @property
    def restarted(self) -> bool:
        return any(row.attempt > 1 for row in self)


def reliability_rows(
    data: ReliabilityInput,
    *,
    quality: dict[int, AnnotatorQuality],
    bad_references: bool,
    usernames: Usernames,
    excluded: set[int],
) -> list[ReliabilityRow]:
    """The reliability table of a task, every annotator (excluded ones too), by username:
    those who judged, or answered an attention check without a judgment (an imported
    rating made of HOTW rows only), or were let start again and have not judged since."""
    scored = np.isin(data.kind, list(SCORED_KINDS))
    if data.score is not None:
        scored &= np.isfinite(data.score)
        score = data.score[scored]
    else:
        score = np.zeros(int(scored.sum()))  # no score: no check, repeat or line to read
    annotator, kind = data.annotator[scored], data.kind[scored]
    missed: dict[int, Counter[str]] = {}
    if data.checks:
        checks = pass_rates([c[0] for c in data.checks], [c[1] for c in data.checks])
        for annotator_id, passed, check_kind in data.checks:
            if not passed:
                missed.setdefault(annotator_id, Counter())[check_kind] += 1
    elif data.score is not None:
        checks = pass_rates(*bad_reference_checks(annotator, data.original[scored], kind, score))
    else:
        checks = {}
    tutorial = pass_rates([a for a, _ in data.tutorial], [ok for _, ok in data.tutorial])
    kept = np.isin(kind, ["TGT", "REPEAT"]) if data.score is not None else kind == ""
    repeats = repeat_differences(annotator[kept], data.item[scored][kept], score[kept])
    if data.score is None and data.repeat_scores:
        repeats = repeat_differences(*zip(*data.repeat_scores, strict=True))
    first = np.isin(kind, ["TGT", "REF"]) if data.score is not None else kind == ""
    _, others = duplicate_differences(annotator[first], data.item[scored][first], score[first])
    lines = data.score is not None and data.lines
    lining = straight_lining(annotator, score) if lines else {}
    times = time_per_item(data.annotator, data.seconds)
    consensus = consensus_likelihood(data.screens) if data.screens else {}
    unjudged = {c[0] for c in data.checks} | {a for a, n in data.attempts.items() if n > 1}
    for annotator_id in unjudged - set(times):
        times[annotator_id] = ItemTime(0, None, None)
    rows = []
    for annotator_id, time in times.items():
        q = quality.get(annotator_id)
        row = ReliabilityRow(
            annotator_id=annotator_id,
            username=usernames[annotator_id],
            excluded=annotator_id in excluded,
            bad_reference_verdict=q.verdict if q is not None and bad_references else None,
            bad_reference_p=q.bad_reference_p if q is not None and bad_references else None,
            attention=checks.get(annotator_id),
            tutorial=tutorial.get(annotator_id),
            repeats=repeats.get(annotator_id, Differences(0, None)),
            others=others.get(annotator_id, Differences(0, None)),
            consensus=consensus.get(annotator_id) if data.screens else None,
            time=time,
            too_fast=too_fast(time.median_seconds, time.items),
            straight_lining=lining.get(annotator_id, StraightLining(0, None, False))
            if lines
            else None,
            attempt=data.attempts.get(annotator_id, 1),
            missed=tuple(missed.get(annotator_id, Counter()).most_common()),
        )
        rows.append(_with_reasons(row))
    return ReliabilityTable(sorted(rows, key=lambda r: r.username.lower()))


def task_input(task: Task, data: ReliabilityInput) -> ReliabilityInput:
    """``data`` (a task's judgments of the current attempts) with what the task recorded
    beside them: the attention checks the loop recorded (first answers), the tutorial
    answers and each annotator's attempt, all of the current attempts."""
    return dataclasses.replace(
        data,
        checks=reliability_checks(task),
        tutorial=tutorial_outcomes(task),
        attempts=current_attempts(task),
    )


def _with_reasons(row: ReliabilityRow) -> ReliabilityRow:
    """Why an annotator fails, one reason per failed check (none: they pass)."""
    reasons = []
    if row.bad_reference_verdict == "failed":
        p = f" (p = {row.bad_reference_p:.2f})" if row.bad_reference_p is not None else ""
        reasons.append(f"failed the bad-reference test{p}")
    if attention_failed(row.attention):
        assert row.attention is not None
        reasons.append(
            f"passed {row.attention.passed} of {row.attention.total} attention checks"
            + (f" (missed {missed_said(row.missed)})" if row.missed else "")
        )
    if row.consensus is not None and not row.consensus.kept:
        reasons.append(
            f"consensus likelihood {row.consensus.likelihood:.2f} < {CONSENSUS_THRESHOLD}"
        )
    if row.too_fast:
        reasons.append(
            f"too fast: median {row.time.median_seconds:.1f} s per item (< {TOO_FAST_SECONDS:g} s)"
        )
    if row.straight_lining is not None and row.straight_lining.flagged:
        share = row.straight_lining.identical_share or 0.0
        reasons.append(f"straight-lining: {share:.0%} of scores identical")
    return ReliabilityRow(**{**row.__dict__, "reasons": tuple(reasons)})


def missed_said(missed: Sequence[tuple[str, int]]) -> str:
    """The checks failed in words, e.g. "4 bad references, 1 HOTW error"."""
    words = []
    for kind, count in missed:
        one, many = CHECK_NAMES.get(kind, (kind, kind))
        words.append(f"{count} {one if count == 1 else many}")
    return ", ".join(words)


def failing(rows: Sequence[ReliabilityRow]) -> set[int]:
    """The annotators who fail some check."""
    return {row.annotator_id for row in rows if not row.passes}


def _codes(first: NDArray[np.integer], second: NDArray[np.integer]) -> NDArray[np.int64]:
    """One integer per (first, second) pair, e.g. (system, segment)."""
    return first.astype(np.int64) * (int(second.max(initial=0)) + 1) + second


def likert_input(data: LikertData) -> ReliabilityInput:
    """A Likert or DA task: scores of the first measure (adequacy in a combined task)."""
    return ReliabilityInput(
        annotator=data.annotator.astype(np.int64),
        kind=ITEM_TYPES[data.kind],
        item=data.item.astype(np.int64),
        original=_codes(data.system, data.segment),
        score=next(iter(data.scores.values())),
        seconds=data.seconds,
    )


def postedit_input(data: PosteditData) -> ReliabilityInput:
    """A post-editing task: HTER is the score (a post-editor who never edits straight-lines
    at 0); an output and its repeat are one item."""
    output = _codes(data.system, data.segment)
    return ReliabilityInput(
        annotator=data.annotator.astype(np.int64),
        kind=ITEM_TYPES[data.kind],
        item=output,
        original=output,
        score=np.asarray(data.hter, dtype=np.float64),
        seconds=data.seconds,
    )


def comparison_input(judged: Sequence[Judged]) -> ReliabilityInput:
    """A pairwise or ranking task: no single score; candidates scored side by side (pairwise
    on a continuous scale) are contrastive screens, first judgments only."""
    codes: dict[tuple[Hashable, frozenset[tuple[str, ...]]], int] = {}
    items = [
        codes.setdefault(
            (j.ranking.segment, frozenset(tuple(o) for o in j.ranking.outputs)), len(codes)
        )
        for j in judged
    ]
    screens = [
        (j.annotator_id, screen, "+".join(output), float(score))
        for screen, j in enumerate(judged)
        if j.scores is not None and not j.is_repeat
        for output, score in zip(j.ranking.outputs, j.scores, strict=True)
    ]
    # Each output of a screen (the screen, its systems), for the repeats' differences.
    outputs: dict[tuple[int, tuple[str, ...]], int] = {}
    repeat_scores = [
        (j.annotator_id, outputs.setdefault((items[k], tuple(output)), len(outputs)), float(score))
        for k, j in enumerate(judged)
        if j.scores is not None
        for output, score in zip(j.ranking.outputs, j.scores, strict=True)
    ]
    return ReliabilityInput(
        annotator=np.array([j.annotator_id for j in judged], dtype=np.int64),
        kind=np.array(["REPEAT" if j.is_repeat else "TGT" for j in judged]),
        item=np.array(items, dtype=np.int64),
        original=np.array(items, dtype=np.int64),
        score=None,
        seconds=np.array([j.seconds for j in judged], dtype=np.float64),
        screens=screens,
        repeat_scores=repeat_scores,
    )


def reliability_record(row: ReliabilityRow) -> dict[str, object]:
    """One annotator's row as the API and the downloads carry it (None: not measured)."""
    attention, tutorial, consensus = row.attention, row.tutorial, row.consensus
    lining = row.straight_lining
    return {
        "annotator_id": row.annotator_id,
        "annotator": row.username,
        "excluded": row.excluded,
        "attempt": row.attempt,
        "passes": row.passes,
        "reasons": list(row.reasons),
        "bad_reference_verdict": row.bad_reference_verdict,
        "bad_reference_p": row.bad_reference_p,
        "attention_passed": attention.passed if attention else None,
        "attention_total": attention.total if attention else 0,
        "attention_rate": attention.rate if attention else None,
        "tutorial_passed": tutorial.passed if tutorial else None,
        "tutorial_total": tutorial.total if tutorial else 0,
        "tutorial_rate": tutorial.rate if tutorial else None,
        "repeat_pairs": row.repeats.pairs,
        "repeat_mean_abs_difference": row.repeats.mean,
        "others_pairs": row.others.pairs,
        "others_mean_abs_difference": row.others.mean,
        "consensus_screens": consensus.screens if consensus else None,
        "consensus_pairs": consensus.pairs if consensus else None,
        "consensus_likelihood": consensus.likelihood if consensus else None,
        "consensus_kept": consensus.kept if consensus else None,
        "items": row.time.items,
        "seconds_per_item": row.time.mean_seconds,
        "median_seconds_per_item": row.time.median_seconds,
        "too_fast": row.too_fast,
        "identical_share": lining.identical_share if lining else None,
        "straight_lining": lining.flagged if lining else None,
    }
