"""Annotation tasks and the items they show (their batches, slots and judgments:
``annotation.models.slots``)."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from annotation.models.campaigns import Campaign, Segment, System


class TaskType(models.TextChoices):
    ADEQUACY = "adequacy", "Adequacy"
    FLUENCY = "fluency", "Fluency"
    ADEQUACY_FLUENCY = "adequacy_fluency", "Adequacy and fluency"
    PAIRWISE = "pairwise", "Pairwise preference"
    RANKING = "ranking", "N-way ranking"
    POSTEDIT = "postedit", "Post-editing (HTER)"
    ESA = "esa", "Error span annotation (ESA)"
    ESA_PREFILLED = "esa_prefilled", "ESA with pre-filled spans (ESA^AI)"
    MQM = "mqm", "MQM error annotation"
    CONTRASTIVE_ESA = "contrastive_esa", "Contrastive ESA (cESA)"
    CONTRASTIVE_MQM = "contrastive_mqm", "Contrastive MQM"
    CONTRASTIVE_DA = "contrastive_da", "Contrastive DA"


class Scale(models.TextChoices):
    LIKERT5 = "likert5", "1–5 (WMT/LDC)"
    TAUS4 = "taus4", "1–4 (TAUS)"
    NIST7 = "nist7", "1–7 (NIST)"
    DA100 = "da100", "0–100 (Direct Assessment)"


# Seeds drawn for new tasks stay below 2^31, so that they read well and fit any tool.
SEED_DRAWN_BELOW = 2**31


def task_seed_new() -> int:
    """A fresh seed per task: two tasks of a campaign shuffle their items differently."""
    return secrets.randbelow(SEED_DRAWN_BELOW)


class Unit(models.TextChoices):
    """What one screen of a task shows: one segment, or a page of a document (its segments
    in reading order, at most ``Task.page_size``)."""

    SEGMENT = "segment", "Segment"
    DOCUMENT = "document", "Document (paged)"


class Assignment(models.TextChoices):
    """How a task hands out its items: batches in the order planned at launch, or batches of
    one system each, claimed by the priority a job refreshes (annotation/services/adaptive.py)."""

    PLANNED = "planned", "Planned (batches in launch order)"
    ADAPTIVE = "adaptive", "Adaptive (judge where the ranking is still open)"


class SettledReason(models.TextChoices):
    RESOLVED = "resolved", "the ranking is settled"
    BUDGET = "budget", "the judgment budget is spent"


class CheckFeedback(models.TextChoices):
    SILENT = "silent", "Silent: recorded only"
    LOUD = "loud", "Loud: the annotator is warned and answers again"


class Task(models.Model):
    """One kind of judgment asked in a campaign, with its settings."""

    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        LAUNCHED = "launched", "Launched"
        PAUSED = "paused", "Paused"
        CLOSED = "closed", "Closed"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="tasks")
    task_type = models.CharField(max_length=20, choices=TaskType.choices)
    # What annotators and managers call the task; unique in its campaign (any case), so that
    # two tasks of one type can be told apart (annotation/services/tasks.py names them).
    name = models.CharField(max_length=100)
    state = models.CharField(max_length=16, choices=State.choices, default=State.DRAFT)
    scale = models.CharField(max_length=10, choices=Scale.choices, default=Scale.LIKERT5)
    # Adequacy for monolingual raters: the reference instead of the source.
    monolingual = models.BooleanField(default=False)
    show_reference = models.BooleanField(default=False)
    ranking_size = models.PositiveSmallIntegerField(default=5)
    judgments_per_item = models.PositiveSmallIntegerField(default=1)
    context_size = models.PositiveSmallIntegerField(default=0)
    repeat_rate = models.FloatField(default=0.0)
    bad_reference_rate = models.FloatField(default=0.0)
    reference_rate = models.FloatField(default=0.0)
    lease_seconds = models.PositiveIntegerField(default=900)
    # The organiser's margin delta for the ranking status (metrics.adaptive.status): an
    # adjacent pair whose difference is surely within it is "equivalent"; 0: resolve only.
    equivalence_margin = models.FloatField(default=0.0)
    # Adaptive collection (annotation/services/adaptive.py): the assignment, the cold start
    # (judgments per system before priorities count), the judgments budget (0: none), and
    # when the stopping rule settled the task and why; once settled the claim hands out no
    # more work until the organiser chooses to continue (continued_at).
    assignment = models.CharField(
        max_length=10, choices=Assignment.choices, default=Assignment.PLANNED
    )
    cold_start = models.PositiveIntegerField(default=10)
    judgment_budget = models.PositiveIntegerField(default=0)
    # Observations per system the stopping rule's confidence sequences are tuned for, fixed
    # at launch from the budget (selectors.tuning.launch_tuning); null: no budget at
    # launch, the rule's default. Never changed after: a tuning that followed the budget
    # (or the data) would void the guarantee across looks (metrics/adaptive/confidence.py).
    tuned_for = models.FloatField(null=True, blank=True, editable=False)
    # Whether the ranking status pairs systems on the screens that show them together, fixed
    # at launch from the plan (selectors.tuning.launch_pairing: planned contrastive screens
    # that each show every system).
    paired_status = models.BooleanField(default=False, editable=False)
    settled_at = models.DateTimeField(null=True, blank=True)
    settled_reason = models.CharField(
        max_length=10, choices=SettledReason.choices, blank=True, default=""
    )
    continued_at = models.DateTimeField(null=True, blank=True)
    # How many items one annotator judges at most (planned repeats come on top), rounded up
    # to whole batches (see annotation/services/assignment.py); 0: as many as they can get.
    items_per_annotator = models.PositiveIntegerField(default=0)
    # Items per batch, the unit an annotator claims (WMT HITs: 100); repeats come on top.
    batch_size = models.PositiveIntegerField(default=100)
    seed = models.BigIntegerField(default=task_seed_new)
    # MQM: the campaign's typology (a list of category names) and error weights
    # (``metrics.spans.MqmWeights.as_dict``); empty means Google's defaults.
    mqm_categories = models.JSONField(default=list, blank=True)
    mqm_weights = models.JSONField(default=dict, blank=True)
    # Document-level annotation (annotation/services/pages.py): the screen's unit, the
    # segments of a page at most, and whether a page asks for a score of the whole page.
    unit = models.CharField(max_length=10, choices=Unit.choices, default=Unit.SEGMENT)
    page_size = models.PositiveSmallIntegerField(default=20)
    document_score = models.BooleanField(default=False)
    # Shown before the first item and behind "?" on every item; blank: the task type's
    # default (annotation/instructions.py).
    instructions = models.TextField(blank=True)
    # Crowd studies (annotation/services/crowd.py): the secret in the task's participant
    # link, and what a participant gets at the end of their batch.
    crowd_secret = models.CharField(max_length=64, blank=True)
    completion_code = models.CharField(max_length=64, blank=True)
    completion_url = models.URLField(max_length=500, blank=True)
    # Attention checks (annotation/services/checks.py): loud (the annotator is warned and
    # answers again) or silent (recorded only); MQM's HOTW errors, a share of the items;
    # what a crowd participant who failed the checks gets instead of the completion code.
    check_feedback = models.CharField(
        max_length=8, choices=CheckFeedback.choices, default=CheckFeedback.SILENT
    )
    hotw_rate = models.FloatField(default=0.0)
    # Contrastive tasks: a share of the screens comes again with one output's words shuffled
    # (WMT26's attention check), to be scored below the clean ones.
    shuffle_rate = models.FloatField(default=0.0)
    failure_code = models.CharField(max_length=64, blank=True)
    failure_url = models.URLField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(ranking_size__gte=2) & Q(judgments_per_item__gte=1),
                name="task_sizes_positive",
            ),
            models.CheckConstraint(condition=Q(batch_size__gte=1), name="task_batch_positive"),
            models.UniqueConstraint("campaign", Lower("name"), name="task_name_unique_in_campaign"),
            models.CheckConstraint(
                condition=Q(repeat_rate__gte=0, repeat_rate__lte=1)
                & Q(bad_reference_rate__gte=0, bad_reference_rate__lte=1)
                & Q(reference_rate__gte=0, reference_rate__lte=1),
                name="task_rates_are_shares",
            ),
            models.CheckConstraint(
                condition=Q(hotw_rate__gte=0, hotw_rate__lte=1), name="task_hotw_rate_is_share"
            ),
            models.CheckConstraint(
                condition=Q(shuffle_rate__gte=0, shuffle_rate__lte=1),
                name="task_shuffle_rate_is_share",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name or self.get_task_type_display()} in {self.campaign}"

    def save(self, *args, **kwargs) -> None:
        # Every path that makes a task (the services, imports, fixtures) gets a name.
        if not self.name:
            self.name = task_name_free(self.campaign_id, self.get_task_type_display())
        super().save(*args, **kwargs)


def task_name_free(campaign_id: int, wanted: str, exclude_id: int | None = None) -> str:
    """``wanted``, or ``wanted 2``, ``wanted 3``…: the first not taken in the campaign (by
    another task than ``exclude_id``)."""
    tasks = Task.objects.filter(campaign_id=campaign_id, name__istartswith=wanted)
    if exclude_id is not None:
        tasks = tasks.exclude(id=exclude_id)
    taken = {name.lower() for name in tasks.values_list("name", flat=True)}
    number = 1
    name = wanted
    while name.lower() in taken:
        number += 1
        name = f"{wanted} {number}"
    return name


class ItemType(models.TextChoices):
    TGT = "TGT", "System output"
    BAD = "BAD", "Bad reference"
    REF = "REF", "Human reference"
    CHK = "CHK", "Check"


class Item(models.Model):
    """What one screen shows: one output (Likert, post-editing), two (pairwise) or N (ranking).

    ``candidates`` lists the outputs in display order: ``{"text", "systems": [names],
    "type": TGT|BAD|REF}``; identical outputs of several systems are one candidate.
    """

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="items")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    external_id = models.PositiveIntegerField()
    item_type = models.CharField(max_length=3, choices=ItemType.choices, default=ItemType.TGT)
    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="+")
    # The one system of a single-output item (null for the human reference and for pairs).
    system = models.ForeignKey(System, on_delete=models.CASCADE, null=True, related_name="+")
    candidates = models.JSONField()
    # A bad reference points at the item whose output it degrades (the WMT pairing).
    original = models.ForeignKey("self", on_delete=models.CASCADE, null=True, related_name="+")
    has_repeat = models.BooleanField(default=False)
    # Appraise fields kept on import (task number, item ids) for round trips.
    source_meta = models.JSONField(default=dict, blank=True)
    # ESA^AI: spans shown pre-filled (``metrics.spans.span_to_dict`` form, end exclusive).
    prefilled_spans = models.JSONField(default=list, blank=True)
    # An attention check's damage (a bad reference's replaced phrase, a HOTW error): its
    # character span [start, end) in the candidate's text, where an error must be marked.
    check_span = models.JSONField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "external_id"], name="unique_item_id_per_campaign"
            )
        ]


class CrowdParticipant(models.Model):
    """A crowd worker signed in by a task's participant link: an account that may do
    this task only."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="participants")
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="crowd_participant"
    )
    platform = models.CharField(max_length=16)
    participant_id = models.CharField(max_length=64)
    study_id = models.CharField(max_length=64, blank=True)
    session_id = models.CharField(max_length=64, blank=True)
    # Batches they may take: 1, plus one each time a manager lets them start again
    # (annotation/services/checks_crowd.py); their earlier answers stay, marked.
    attempts = models.PositiveSmallIntegerField(default=1, db_default=1)
    restarted_at = models.DateTimeField(null=True, blank=True)  # the last restart
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["task", "platform", "participant_id"], name="one_account_per_participant"
            )
        ]
