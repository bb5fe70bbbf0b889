"""A task's work: batches of slots planned at launch, and what an annotator does with a
slot: a judgment, a document page's score, or a skip."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from annotation.models.campaigns import Document, System
from annotation.models.tasks import Item, ItemType, Task, TaskType

# The stratum of an adaptive task's batches of the human reference (no system id).
REFERENCE_STRATUM = -1


class Batch(models.Model):
    """The unit an annotator claims: items planned together at launch with their bad
    references and repeats, judged in ``Slot.position`` order by one annotator.

    The batches of one ``group`` hold the same items (one batch per replica); an annotator
    gets at most one batch of a group, so never an item twice.
    """

    class State(models.TextChoices):
        OPEN = "open", "Open"
        LEASED = "leased", "Leased"
        DONE = "done", "Done"

    # No index of its own: one_batch_per_number (task, number) serves lookups by task.
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="batches", db_index=False)
    number = models.PositiveIntegerField()  # claim order: replica 0 first
    group = models.PositiveIntegerField()
    size = models.PositiveIntegerField()  # slots, quality control included; fixed at launch
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    leased_until = models.DateTimeField(null=True)
    # Kept by the loop (migrations/sql, evalsite_batch_after_slot) so that a judgment reads
    # no other slot of its batch: its slots judged and skipped (by whoever held it; the
    # batch is pending while judged + skipped < size), and a position no slot left to do
    # precedes (where the next slot is looked for). Not indexed: the update that renews
    # the lease stays in place (HOT).
    judged = models.PositiveIntegerField(default=0, db_default=0)
    skipped = models.PositiveIntegerField(default=0, db_default=0)
    next_position = models.PositiveIntegerField(default=0, db_default=0)
    # Claimed once while another annotator held it: their done slots keep it among the
    # batches they had (the quota), found through batch_taken_over_idx.
    taken_over = models.BooleanField(default=False, db_default=False)
    # An adaptive task's batch holds the outputs of one system: its id (REFERENCE_STRATUM:
    # the human reference); 0 in a planned task. The claim takes a stratum's batches by
    # its priority (annotation.models.SystemPriority).
    stratum = models.BigIntegerField(default=0, db_default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["task", "number"], name="one_batch_per_number"),
        ]
        indexes = [
            models.Index(
                fields=["task", "stratum", "number"],
                condition=Q(state="open") & ~Q(stratum=0),
                name="batch_open_stratum_idx",
            ),
            models.Index(
                fields=["task", "number"], condition=Q(state="open"), name="batch_open_idx"
            ),
            # Not on leased_until: a judgment renews the lease, and with no indexed column
            # changed the row is updated in place (HOT), touching no index.
            models.Index(
                fields=["task", "number"], condition=Q(state="leased"), name="batch_leased_idx"
            ),
            models.Index(fields=["task", "annotator", "state"], name="batch_annotator_idx"),
            models.Index(
                fields=["task"], condition=Q(taken_over=True), name="batch_taken_over_idx"
            ),
        ]


class Slot(models.Model):
    """One judgment to collect: an item × a replica, or the planned repeat of one; always in
    a batch, whose annotator it belongs to once claimed."""

    class State(models.TextChoices):
        OPEN = "open", "Open"
        LEASED = "leased", "Leased"
        DONE = "done", "Done"

    # task and batch have no index of their own: slot_task_annotator_idx (task, …) and
    # one_slot_per_position (batch, …) serve them, and every index is written on each claim.
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="slots", db_index=False)
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="slots")
    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="slots", db_index=False)
    position = models.PositiveIntegerField()  # order inside the batch
    replica = models.PositiveSmallIntegerField()
    is_repeat = models.BooleanField(default=False)
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    served_at = models.DateTimeField(null=True)
    # A document task's page: the position of the page's first slot in the batch (its slots
    # are consecutive, served and judged together); null: a screen of one segment.
    page = models.PositiveIntegerField(null=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["item", "replica"],
                condition=Q(is_repeat=False),
                name="one_slot_per_replica",
            ),
            models.UniqueConstraint(
                fields=["item", "annotator"], condition=Q(is_repeat=True), name="one_repeat_each"
            ),
            models.UniqueConstraint(fields=["batch", "position"], name="one_slot_per_position"),
        ]
        indexes = [
            # Not on state: recording a judgment marks its slot done, and with no indexed
            # column changed that update is in place (HOT), touching none of the indexes.
            models.Index(fields=["task", "annotator"], name="slot_task_annotator_idx"),
        ]


class PageScore(models.Model):
    """The score of a whole document page (a document task with ``document_score``), kept
    apart from the judgments: rankings, agreement and exports read one judgment per segment
    and never see it. Keyed by the page's first slot and ``position`` (a contrastive page
    scores each of its outputs: the output's place on the page, A = 0; else 0), so a
    resubmit records it once."""

    slot = models.ForeignKey(Slot, on_delete=models.PROTECT, related_name="page_scores")
    position = models.PositiveSmallIntegerField(default=0)
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="page_scores")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="page_scores"
    )
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    system = models.ForeignKey(System, on_delete=models.CASCADE, null=True, related_name="+")
    item_type = models.CharField(max_length=3, choices=ItemType.choices, default=ItemType.TGT)
    is_repeat = models.BooleanField(default=False)
    segments = models.PositiveSmallIntegerField()
    score = models.SmallIntegerField()
    submitted_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["slot", "position"], name="page_score_once_per_output")
        ]


class SkipReason(models.TextChoices):
    GARBLED = "garbled", "Source garbled"
    LANGUAGE = "language", "Not my language"
    OFFENSIVE = "offensive", "Offensive content"
    OTHER = "other", "Other"


class Skip(models.Model):
    """An item an annotator skipped or flagged: not a judgment; the item goes to someone
    else (``evalsite_skip``, annotation/migrations/sql)."""

    slot = models.OneToOneField(Slot, on_delete=models.CASCADE, related_name="skip")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="skips")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="skips")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    reason = models.CharField(max_length=16, choices=SkipReason.choices)
    note = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)


class Judgment(models.Model):
    """One annotator's answer on one slot. One table for every task type; typed columns."""

    class Preference(models.TextChoices):
        A = "A", "A is better"
        B = "B", "B is better"
        TIE = "T", "Tie"

    slot = models.OneToOneField(Slot, on_delete=models.PROTECT, related_name="judgment")
    # No index of its own: judgment_annotator_idx (task, annotator) serves lookups by task.
    task = models.ForeignKey(
        Task, on_delete=models.CASCADE, related_name="judgments", db_index=False
    )
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="judgments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="judgments"
    )
    task_type = models.CharField(max_length=20, choices=TaskType.choices)
    is_repeat = models.BooleanField(default=False)
    score = models.SmallIntegerField(null=True)  # adequacy, or the Likert score
    fluency = models.SmallIntegerField(null=True)
    # NULL, not "", marks a column that does not belong to the task type (see the checks).
    preference = models.CharField(max_length=1, choices=Preference.choices, null=True)  # noqa: DJ001
    ranks = ArrayField(models.SmallIntegerField(), null=True)  # one per candidate
    # Side-by-side 0-100 scores of a pairwise item (Appraise's pairwise DA), one per candidate;
    # the preference is derived from them.
    candidate_scores = ArrayField(models.SmallIntegerField(), null=True)
    post_edit = models.TextField(null=True)  # noqa: DJ001
    hter = models.FloatField(null=True)  # percent, as sacrebleu reports TER
    edits = models.FloatField(null=True)
    post_edit_length = models.FloatField(null=True)
    served_at = models.DateTimeField()
    submitted_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField()
    excluded = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["annotator", "item"],
                condition=Q(is_repeat=False),
                name="one_judgment_per_item",
            ),
            models.UniqueConstraint(
                fields=["annotator", "item"],
                condition=Q(is_repeat=True),
                name="one_repeat_judgment_per_item",
            ),
            models.CheckConstraint(
                condition=~Q(task_type__in=["adequacy", "fluency", "adequacy_fluency"])
                | Q(score__isnull=False),
                name="likert_has_score",
            ),
            models.CheckConstraint(
                condition=~Q(task_type="adequacy_fluency") | Q(fluency__isnull=False),
                name="combined_has_fluency",
            ),
            models.CheckConstraint(
                condition=~Q(task_type="pairwise") | Q(preference__isnull=False),
                name="pairwise_has_preference",
            ),
            models.CheckConstraint(
                condition=~Q(task_type="ranking") | Q(ranks__isnull=False),
                name="ranking_has_ranks",
            ),
            models.CheckConstraint(
                condition=~Q(task_type="postedit")
                | (Q(post_edit__isnull=False) & Q(hter__isnull=False)),
                name="postedit_has_hter",
            ),
            models.CheckConstraint(
                condition=~Q(task_type__in=["esa", "esa_prefilled"])
                | Q(score__isnull=False, score__gte=0, score__lte=100),
                name="esa_has_score",
            ),
            models.CheckConstraint(
                condition=~Q(task_type__in=["contrastive_esa", "contrastive_da"])
                | Q(candidate_scores__isnull=False),
                name="contrastive_has_scores",
            ),
        ]
        indexes = [models.Index(fields=["task", "annotator"], name="judgment_annotator_idx")]
