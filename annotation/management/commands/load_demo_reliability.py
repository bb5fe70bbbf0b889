"""Adds to the demo a campaign whose ESA and MQM tasks were judged by simulated raters, some of
them careless, each kind caught by a different reliability check (issue 24): the reliability
table of its human results page shows who to trust. Idempotent; ``load_demo`` runs it.

- ``careful`` (three raters): errors marked as the output's quality has them, the damage of
  bad references and HOTW errors marked, 8-40 s an item;
- ``unmarked``: scores like the careful ones but never marks an error (fails the bad
  references, and in MQM the HOTW errors: attention checks);
- ``drifting``: careful, but answers a repeated item far from the first time (repeats);
- ``hasty``: careful-looking answers in about a second each (too fast);
- ``constant`` (ESA): 80 for every translation, the bad references' damage marked
  (straight-lining);
- ``reformed``: hasty at first, let start again by the manager ("Let start again"), then
  careful: the table shows their second attempt, which passes (the hasty judgments are
  kept, excluded).

The ESA task starts with a two-item tutorial (``TUTORIAL``): every rater passes it before
the real work (the loop's gate), ``hasty`` at the second attempt (it scored the flawed
translation as perfect the first time), so the table has its tutorial column.

They judge through the same services as people (claim, then record), at simulated times,
up to ``items_per_annotator`` each, so that part of each task is still open, as during a
campaign.
"""

from __future__ import annotations

import json
import random
import re
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from annotation.demo import QUALITY, raters_take_turns, simulated_answer
from annotation.models import Campaign, ItemType, Role, Slot, Task, TutorialItem
from annotation.protocols import protocol_for
from annotation.protocols.simulated import SimulatedRater
from annotation.services.campaigns import campaign_create, membership_set
from annotation.services.imports import WMT_XML, upload_import
from annotation.services.restarts import annotator_restart
from annotation.services.tasks import task_create, task_launch
from annotation.services.tutorial_uploads import tutorial_upload
from annotation.services.tutorials import tutorial_answer_record, tutorial_retry

CAMPAIGN = "WMT21 de-fr demo, careless raters caught"
# One rater of each careless kind among three careful ones; ``constant`` only where raters
# give scores, ESA (MQM has no straight-lining flag: many good translations rightly have no
# error).
RATERS = {
    "qc-careful-1": "careful",
    "qc-careful-2": "careful",
    "qc-careful-3": "careful",
    "qc-unmarked": "unmarked",
    "qc-drifting": "drifting",
    "qc-hasty": "hasty",
    "qc-constant": "constant",
    "qc-reformed": "reformed",
}
CHECKS = {"bad_reference_rate": 0.1, "repeat_rate": 0.15, "batch_size": 20}
# By task type: the settings of its task.
TASKS: dict[str, dict[str, Any]] = {
    "mqm": {**CHECKS, "hotw_rate": 0.1, "items_per_annotator": 40, "seed": 41},
    "esa": {**CHECKS, "items_per_annotator": 40, "seed": 42},
}

# The tutorial of the task whose raters give scores (ESA): a clean translation, and one whose
# wrong verb must be marked.
WRONG_VERB = "a marché"
TUTORIAL = [
    {
        "source": "Der Hund ist rausgerannt.",
        "target": "Le chien est sorti en courant.",
        "expected": {"score": [80, 100]},
        "explanation": "Nothing is wrong: the score is near 100.",
    },
    {
        "source": "Der Hund ist rausgerannt.",
        "target": f"Le chien {WRONG_VERB} dehors.",
        "expected": {"score": [30, 80], "spans": [{"text": WRONG_VERB, "severity": "major"}]},
        "explanation": "rausgerannt means ran out: « a marché » (walked) is a major error.",
    },
]
# Tutorial answers: (score, marks the wrong verb) per item, per attempt of a rater.
TUTORIAL_ANSWERS = [(95, False), (55, True)]
TUTORIAL_FIRST_TRY = {"hasty": [(95, False), (100, False)]}


def _words(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in re.finditer(r"\S+", text)]


def _damage(slot: Slot) -> list[dict[str, Any]]:
    """A check's damage (bad reference, HOTW error) marked as a major error, and for a bad
    reference another major one beside it, so that its MQM penalty is above any original's."""
    item = slot.item
    if item.item_type not in (ItemType.BAD, ItemType.CHK) or not item.check_span:
        return []
    start, end = (int(offset) for offset in item.check_span)
    spans = [{"start": start, "end": end, "severity": "major"}]
    if item.item_type == ItemType.BAD:
        beside = [w for w in _words(item.candidates[0]["text"]) if w[1] <= start or w[0] >= end]
        spans += [{"start": s, "end": e, "severity": "major"} for s, e in beside[:1]]
    return spans


def _errors(slot: Slot, quality: float) -> list[dict[str, Any]]:
    """Errors a careful rater marks on an output of this quality (1-5): a major one more
    often the worse the output, a minor one now and then, on separate words; the same
    each time the item is shown (a careful rater's repeat agrees)."""
    rng = random.Random(slot.item_id)
    words = _words(slot.item.candidates[0]["text"])
    spans = []
    if len(words) > 1 and rng.random() < max(0.0, (4.4 - quality) / 2.5):
        start, end = words[1]
        spans.append({"start": start, "end": end, "severity": "major"})
    if len(words) > 3 and rng.random() < 0.3:
        start, end = words[3]
        spans.append({"start": start, "end": end, "severity": "minor"})
    return spans


def _answer(rng: random.Random, task: Task, slot: Slot, behaviour: str) -> dict[str, Any]:
    """The rater's answer, as the task's protocol has simulated raters answer (MQM: spans
    with a category; ESA: a score with its spans)."""
    item = slot.item
    damage = _damage(slot)
    if damage:
        quality, spans = 1.6, damage
    else:
        quality = QUALITY.get(item.system.name if item.system else "Human", 3.4)
        spans = _errors(slot, quality)
    if behaviour == "unmarked":
        spans = []
    if behaviour == "drifting" and slot.is_repeat:
        words = _words(item.candidates[0]["text"])
        quality, spans = 1.0, [{"start": s, "end": e, "severity": "major"} for s, e in words[:3]]
    straight_line = None
    if behaviour == "constant":
        straight_line, spans = (30 if damage else 80), damage
    rater = SimulatedRater(
        rng=rng,
        scale=task.scale,
        qualities=[quality],
        errors=[spans],
        texts=[item.candidates[0]["text"]],
        straight_line=straight_line,
    )
    return simulated_answer(task, rater)


def raters_pass_tutorial(*, task: Task, raters: dict[Any, str]) -> None:
    """Each rater answers the tutorial as expected; those in ``TUTORIAL_FIRST_TRY`` fail a
    first attempt, then start it again."""
    items = list(TutorialItem.objects.filter(task=task).order_by("position"))
    for user, behaviour in raters.items():
        failed = TUTORIAL_FIRST_TRY.get(behaviour)
        for attempt in [failed, TUTORIAL_ANSWERS] if failed else [TUTORIAL_ANSWERS]:
            for item, (score, marks) in zip(items, attempt, strict=True):
                start = item.candidates[0]["text"].find(WRONG_VERB)
                spans = [{"start": start, "end": start + len(WRONG_VERB), "severity": "major"}]
                tutorial_answer_record(
                    task=task,
                    annotator_id=user.id,
                    item_id=item.id,
                    answer={"score": score, "spans": spans if marks else []},
                )
            if attempt is failed:
                tutorial_retry(task=task, annotator_id=user.id)


def raters_judge(*, task: Task, raters: dict[Any, str], start: datetime, seed: int) -> int:
    """The raters (user -> behaviour) take turns until none gets a slot; returns the
    judgments recorded."""
    rng = random.Random(seed)

    def respond(user: Any, slot: Slot) -> tuple[dict[str, Any], float]:
        behaviour = raters[user]
        hasty = behaviour in ("hasty", "reformed")  # reformed: careful once let start again
        seconds = rng.uniform(0.4, 1.5) if hasty else rng.uniform(8, 40)
        return _answer(rng, task, slot, behaviour), seconds

    turns = raters_take_turns(
        task=task, raters=list(raters), start=start, rng=rng, gap=(2, 10), respond=respond
    )
    return sum(turns.values())


def reformed_start_again(
    *, task: Task, raters: dict[Any, str], by: Any, start: datetime, seed: int
) -> int:
    """The manager lets the ``reformed`` raters start again, and they judge carefully (half
    a day after ``start``); returns the judgments recorded."""
    reformed = [user for user, behaviour in raters.items() if behaviour == "reformed"]
    for user in reformed:
        annotator_restart(task=task, annotator_id=user.id, by=by)
    later = start + timedelta(hours=12)
    careful = dict.fromkeys(reformed, "careful")
    return raters_judge(task=task, raters=careful, start=later, seed=seed) if careful else 0


class Command(BaseCommand):
    help = __doc__

    @transaction.atomic
    def handle(self, *args, **options):
        from annotation.management.commands.load_demo import DEMO_XML, demo_password

        if Campaign.objects.filter(name=CAMPAIGN).exists():
            self.stdout.write(f"demo campaign {CAMPAIGN!r} ready")
            return
        User = get_user_model()
        manager, _ = User.objects.get_or_create(username="manager")
        organiser, created = User.objects.get_or_create(username="organiser")
        if created:
            organiser.set_password(demo_password("organiser"))
            organiser.save()
        campaign = campaign_create(
            name=CAMPAIGN,
            source_language="de",
            target_language="fr",
            owner=manager,
            description="ESA and MQM with attention checks (bad references, HOTW errors, "
            "repeats), judged by three careful simulated raters and careless ones, each "
            "caught by a different check: see the reliability table of the human results.",
        )
        upload_import(
            campaign=campaign,
            kind=WMT_XML,
            files=[(DEMO_XML.name, DEMO_XML.read_bytes())],
            user=manager,
        )
        membership_set(campaign=campaign, user=organiser, role=Role.ORGANISER)
        users = {}
        for username, behaviour in RATERS.items():
            user, created = User.objects.get_or_create(username=username)
            if created:
                user.set_unusable_password()
                user.save()
            membership_set(campaign=campaign, user=user, role=Role.ANNOTATOR)
            users[user] = behaviour
        start = timezone.now() - timedelta(days=1)
        for task_type, settings in TASKS.items():
            task = task_create(campaign=campaign, task_type=task_type, **settings)
            task_launch(task_id=task.id)
            task.refresh_from_db()
            scored = protocol_for(task_type).scored
            raters = {
                user: behaviour
                for user, behaviour in users.items()
                if behaviour != "constant" or scored
            }
            if scored:
                lines = "\n".join(json.dumps(line, ensure_ascii=False) for line in TUTORIAL)
                tutorial_upload(task=task, name="tutorial.jsonl", data=lines.encode(), pass_share=1)
                raters_pass_tutorial(task=task, raters=raters)
            done = raters_judge(task=task, raters=raters, start=start, seed=settings["seed"])
            done += reformed_start_again(
                task=task, raters=raters, by=manager, start=start, seed=settings["seed"] + 1
            )
            self.stdout.write(f"{task.name}: {done} judgments by {len(raters)} simulated raters")
        self.stdout.write(f"demo campaign {CAMPAIGN!r} ready")
