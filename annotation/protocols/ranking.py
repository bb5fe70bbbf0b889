"""N-way ranking: N outputs of one segment ranked from 1 (best); ties allowed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.models import TaskType
from annotation.protocols.base import AnswerError, Protocol, whole_number
from annotation.protocols.simulated import ranks_simulated


def answer(scale: str, candidates: list[dict[str, Any]], given: Mapping[str, Any]) -> dict:
    ranks = given.get("ranks")
    if not isinstance(ranks, list) or len(ranks) != len(candidates):
        raise AnswerError(f"ranks must list one rank for each of the {len(candidates)} outputs")
    ranked = [whole_number({"rank": rank}, "rank") for rank in ranks]
    if any(not 1 <= rank <= len(candidates) for rank in ranked):
        raise AnswerError(f"ranks go from 1 (best) to {len(candidates)}")
    return {"ranks": ranked}


def parse_form(post: Mapping[str, Any], candidates: int, scale: str) -> dict[str, Any]:
    """Each candidate's rank box ``rank-i``."""
    return {"ranks": [post.get(f"rank-{i}", "") for i in range(candidates)]}


INSTRUCTIONS = (
    "You are shown a source sentence followed by several candidate translations. Your "
    "task is to rank the translations from best to worst (ties are allowed)."
)

PROTOCOL = Protocol(
    task_type=TaskType.RANKING,
    instructions=INSTRUCTIONS,
    answer=answer,
    parse_form=parse_form,
    template="annotate/_answer_ranking.html",
    settings=frozenset({"ranking_size", "context_size", "show_reference"}),
    quality_control=frozenset({"repeat", "reference"}),
    export_columns=("ranks",),
    several_outputs=True,
    wmt_ranking=True,
    simulate=ranks_simulated,
)
