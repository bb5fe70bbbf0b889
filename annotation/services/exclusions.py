"""Leaving an annotator out of a campaign's human results, and bringing them back."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from annotation.models import AnnotatorExclusion, Campaign, Judgment


class ExclusionError(ValueError):
    """An exclusion that cannot be made, with the reason."""


@transaction.atomic
def annotator_exclude(
    *, campaign: Campaign, annotator_id: int, excluded: bool, by: User | None
) -> bool:
    """Excludes (or includes again) an annotator's judgments from the campaign's rankings and
    agreement; returns whether they are excluded now. Idempotent; no judgment is changed, so
    including them again restores every number."""
    if not excluded:
        AnnotatorExclusion.objects.filter(campaign=campaign, annotator_id=annotator_id).delete()
        return False
    if not Judgment.objects.filter(task__campaign=campaign, annotator_id=annotator_id).exists():
        raise ExclusionError("this user has no judgments in the campaign")
    AnnotatorExclusion.objects.get_or_create(
        campaign=campaign, annotator_id=annotator_id, defaults={"created_by": by}
    )
    return True
