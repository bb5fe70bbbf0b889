"""Pairwise preference: which of two outputs is better (A, B or a tie); on the 0-100 scale
both are scored side by side (Appraise's pairwise DA) and the preference follows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.lib.scales import CONTINUOUS, scale_range
from annotation.models import TaskType
from annotation.protocols.base import AnswerError, Protocol, posted, whole_number
from annotation.protocols.simulated import SimulatedRater, score_0_100

PREFERENCES = ("A", "B", "T")


def answer(scale: str, candidates: list[dict[str, Any]], given: Mapping[str, Any]) -> dict:
    if side_by_side(scale):
        return _side_by_side(scale, candidates, given)
    preference = str(given.get("preference", "")).upper()
    if preference not in PREFERENCES:
        raise AnswerError("preference must be A, B or T (tie)")
    return {"preference": preference}


def _side_by_side(
    scale: str, candidates: list[dict[str, Any]], given: Mapping[str, Any]
) -> dict[str, Any]:
    scores = given.get("candidate_scores")
    if not isinstance(scores, list) or len(scores) != len(candidates):
        raise AnswerError(
            f"candidate_scores must give one score for each of the {len(candidates)} outputs"
        )
    low, high = scale_range(scale)
    scored = [whole_number({"candidate score": score}, "candidate score") for score in scores]
    if any(not low <= score <= high for score in scored):
        raise AnswerError(f"candidate scores must be from {low} to {high}")
    first, second = (scored + scored)[:2]  # one candidate: a tie with itself
    preference = "A" if first > second else "B" if second > first else "T"
    return {"candidate_scores": scored, "preference": preference}


def side_by_side(scale: str) -> bool:
    """Whether the task scores both outputs (a 0-100 scale) rather than choosing one."""
    return scale in CONTINUOUS


_preference_form = posted("preference")


def parse_form(post: Mapping[str, Any], candidates: int, scale: str) -> dict[str, Any]:
    """A preference (A, B or T), or side by side each candidate's score box ``cscore-i``."""
    if side_by_side(scale):
        return {"candidate_scores": [post.get(f"cscore-{i}", "") for i in range(candidates)]}
    return _preference_form(post, candidates, scale)


def simulate(rater: SimulatedRater) -> dict[str, Any]:
    """A demo rater: side by side each output's 0-100 score; else the better of the two by
    their qualities with some noise (a tie when they are close)."""
    if side_by_side(rater.scale):
        outputs = range(len(rater.qualities))
        return {"candidate_scores": [score_0_100(rater.of_output(i)) for i in outputs]}
    first, second = (
        rater.rng.uniform(1, 5) if rater.careless else q + rater.rng.gauss(0, 0.4)
        for q in (list(rater.qualities) * 2)[:2]
    )
    preference = "A" if first > second + 0.25 else "B" if second > first + 0.25 else "T"
    return {"preference": preference}


INSTRUCTIONS = (
    "You are shown a source sentence followed by two candidate translations. Which of "
    "the two translations is better? Choose a tie only when they are equally good."
)

PROTOCOL = Protocol(
    task_type=TaskType.PAIRWISE,
    instructions=INSTRUCTIONS,
    answer=answer,
    parse_form=parse_form,
    needs_item=side_by_side,  # the A/B/T choice is checked alone
    template="annotate/_answer_pairwise.html",
    settings=frozenset({"scale", "context_size", "show_reference"}),
    # No human-reference items (a pair of outputs per segment) and no bad references.
    quality_control=frozenset({"repeat"}),
    export_columns=("preference", "candidate_scores"),
    several_outputs=True,
    wmt_ranking=True,
    lettered=True,
    appraise=(("Pairwise", None), ("PairwiseDocument", None)),
    simulate=simulate,
)
