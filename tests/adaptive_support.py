"""Real judgments for scripted annotators of an adaptive task (tests/test_adaptive_*.py and
bench/adaptive_e2e.py).

The answers come from the MQM TED zh-en campaign (tests/data/mqm-ted-zh-en, Freitag et al.
2021): the average MQM score of each (system, segment), negated in that file (0 is a
perfect output, -25 a non-translation). A campaign is made with one output
per (system, segment) whose text names both (the annotator reads it from the item the API
serves, as a person reads the output), and the scripted annotator answers the Direct
Assessment score 100 - 4 x MQM (clipped to 0-100: MQM 25, a non-translation, is 0). The
transformation is monotone, so the systems' order is the campaign's own (the human
reference ref-B first, ref-A last: the campaign's finding).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from pathlib import Path

SEGMENT_SCORES = (
    Path(__file__).resolve().parent / "data" / "mqm-ted-zh-en" / "mqm_ted_zhen.avg_seg_scores.tsv"
)
KEY = re.compile(r"\[\[(?P<system>[^|\]]+)\|(?P<segment>\d+)\]\]")
# Three outputs of the campaign far enough apart to settle on a few hundred judgments (the
# pytest version; means -0.42, -2.93, -5.52); the bench takes any number.
SEPARATED = ("ref-B", "Online-W", "ref-A")


def mqm_segment_scores(path: Path = SEGMENT_SCORES) -> dict[str, dict[int, float]]:
    """System -> segment id -> average MQM score, negated (higher is better); "None" rows
    left out."""
    scores: dict[str, dict[int, float]] = {}
    with path.open(encoding="utf-8") as handle:
        next(handle)  # "system mqm_avg_score seg_id" (the file mixes tabs and spaces)
        for line in handle:
            system, score, segment = line.split()
            if score != "None":
                scores.setdefault(system, {})[int(segment)] = float(score)
    return scores


def common_segments(scores: dict[str, dict[int, float]], systems: Sequence[str]) -> list[int]:
    """The segments every one of ``systems`` has a score for, in order."""
    shared = set.intersection(*(set(scores[name]) for name in systems))
    return sorted(shared)


def output_text(system: str, segment: int) -> str:
    return f"[[{system}|{segment}]] output of {system} for segment {segment}"


def da_answer(scores: dict[str, dict[int, float]], text: str) -> int:
    """The DA score (0-100) of the output whose text the item shows."""
    match = KEY.search(text)
    assert match is not None, text
    negated_mqm = scores[match["system"]][int(match["segment"])]
    return max(0, min(100, round(100 + 4 * negated_mqm)))


def adaptive_campaign(
    *,
    owner,
    systems: Sequence[str],
    segments: Sequence[int],
    annotators: int,
    **settings: object,
):
    """A campaign over ``segments`` with one output per system (texts from ``output_text``),
    an adequacy task on the DA scale with ``settings`` launched, and its annotators; returns
    (task, annotator users)."""
    from django.contrib.auth import get_user_model

    from annotation.services.campaigns import campaign_create, membership_set
    from annotation.services.imports import upload_import
    from annotation.services.tasks import task_create, task_launch

    tag = uuid.uuid4().hex[:6]
    campaign = campaign_create(
        name=f"adaptive {tag}", source_language="zh", target_language="en", owner=owner
    )
    source = "".join(f"source sentence {segment}\n" for segment in segments).encode()
    upload_import(campaign=campaign, kind="source", user=owner, files=[("source.zh", source)])
    for system in systems:
        text = "".join(output_text(system, segment) + "\n" for segment in segments).encode()
        upload_import(
            campaign=campaign, kind="system", name=system, user=owner, files=[("out.en", text)]
        )
    task = task_create(campaign=campaign, task_type="adequacy", scale="da100", **settings)
    task_launch(task_id=task.id)
    users = []
    for i in range(annotators):
        user = get_user_model().objects.create_user(f"adaptive-{tag}-{i}")
        membership_set(campaign=campaign, user=user, role="annotator")
        users.append(user)
    task.refresh_from_db()
    return task, users
