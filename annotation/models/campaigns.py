"""Campaigns, their members and invitations, and the data they evaluate: documents, segments,
references, systems, outputs."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.lib.textfiles import DOMAIN_MAX_LENGTH


class Campaign(models.Model):
    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        ACTIVE = "active", "Active"
        CLOSED = "closed", "Closed"
        ARCHIVED = "archived", "Archived"

    name = models.CharField(max_length=200, unique=True)
    source_language = models.CharField(max_length=16)
    target_language = models.CharField(max_length=16)
    description = models.TextField(blank=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    state = models.CharField(max_length=16, choices=State.choices, default=State.DRAFT)
    # Automatic metrics are computed against these references (comma-separated names);
    # blank means every reference uploaded to the campaign.
    metric_references = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    @property
    def language_pair(self) -> str:
        return f"{self.source_language}-{self.target_language}"


class Role(models.TextChoices):
    ANNOTATOR = "annotator", "Annotator"
    ORGANISER = "organiser", "Organiser"
    MANAGER = "manager", "Manager"


class Membership(models.Model):
    """A user's role in one campaign. Admins (superusers) need none."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="one_role_per_campaign")
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.role} of {self.campaign}"


class Document(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="documents")
    external_id = models.CharField(max_length=200)
    position = models.PositiveIntegerField()
    # True for the one document made up for a source without document ids: its segments are
    # not known to belong together, so no context is shown from them.
    implicit = models.BooleanField(default=False)
    # The WMT test sets' domain (news, social, speech, ...): ESA averages within domains.
    domain = models.CharField(max_length=DOMAIN_MAX_LENGTH, blank=True, default="")

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "external_id"], name="unique_document_per_campaign"
            ),
        ]

    def __str__(self) -> str:
        return self.external_id


class Segment(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="segments")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="segments")
    # 0-based line number in the source file: the order of the test set.
    index = models.PositiveIntegerField()
    source = models.TextField()

    class Meta:
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "index"], name="unique_segment_index")
        ]

    def __str__(self) -> str:
        return f"segment {self.index}"


class Reference(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="references")
    name = models.CharField(max_length=100)
    content_hash = models.CharField(max_length=64)
    filename = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="unique_reference_name"),
        ]

    def __str__(self) -> str:
        return self.name


class ReferenceSegment(models.Model):
    reference = models.ForeignKey(Reference, on_delete=models.CASCADE, related_name="segments")
    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="+")
    text = models.TextField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["reference", "segment"], name="one_reference_text")
        ]


# The name under which the human reference is judged and ranked as a system. An uploaded
# system may not take it, in any letter case, or its judgments would merge with the reference's.
HUMAN = "Human"
RESERVED_SYSTEM_NAMES = frozenset({HUMAN.casefold()})


def is_reserved_system_name(name: str) -> bool:
    return name.strip().casefold() in RESERVED_SYSTEM_NAMES


class System(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="systems")
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="unique_system_name")
        ]

    def __str__(self) -> str:
        return self.name


class SystemRun(models.Model):
    """One uploaded output file of a system; several runs are e.g. several training seeds."""

    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="runs")
    # Denormalised so that one content hash is stored once per campaign.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    number = models.PositiveSmallIntegerField()
    content_hash = models.CharField(max_length=64)
    filename = models.CharField(max_length=255, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["system__name", "number"]
        constraints = [
            models.UniqueConstraint(fields=["system", "number"], name="unique_run_number"),
            models.UniqueConstraint(fields=["campaign", "content_hash"], name="unique_run_content"),
        ]

    def __str__(self) -> str:
        return f"{self.system.name} run {self.number}"


class Output(models.Model):
    run = models.ForeignKey(SystemRun, on_delete=models.CASCADE, related_name="outputs")
    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="outputs")
    text = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "segment"], name="one_output_per_segment")
        ]


class PendingUpload(models.Model):
    """Files a manager uploaded and previewed but has not confirmed yet."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16)
    name = models.CharField(max_length=200, blank=True)
    add_run = models.BooleanField(default=False)
    # The document-id file sent with a plain-text source, if any.
    documents_filename = models.CharField(max_length=255, blank=True)
    documents = models.BinaryField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)


class PendingUploadFile(models.Model):
    upload = models.ForeignKey(PendingUpload, on_delete=models.CASCADE, related_name="files")
    filename = models.CharField(max_length=255)
    data = models.BinaryField()


class Invitation(models.Model):
    """A single-use, expiring invitation; only the token's hash is stored."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.ANNOTATOR)
    token_hash = models.CharField(max_length=64, unique=True)
    note = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
