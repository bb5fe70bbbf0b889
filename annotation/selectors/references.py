"""The reference set automatic metrics use now: the key every stored score is filed under.

Scores, statistics and tests computed against another set are superseded: every page, API
and download reads only rows of the current key.
"""

from __future__ import annotations

from django.db.models import QuerySet

from annotation.models import Campaign, Reference

REFERENCE_SET_SEPARATOR = "+"
# Uploaded metric scores were computed elsewhere, against no set known here: they are filed
# under the empty key, which no reference set has (metrics jobs never run without one).
UPLOADED_SCORES_KEY = ""


def references_shown(campaign_id: int) -> QuerySet[Reference]:
    """The campaign's references in the order items show them: a task that shows a reference
    shows the first; a bad-reference item (services/task_items.py) judges the second. The one
    definition of "the reference shown"."""
    return Reference.objects.filter(campaign_id=campaign_id).order_by("name")


def metric_reference_names(campaign: Campaign) -> list[str]:
    """The references automatic metrics use: the campaign's choice, or all of them."""
    available = list(campaign.references.order_by("name").values_list("name", flat=True))
    chosen = [name.strip() for name in campaign.metric_references.split(",") if name.strip()]
    return [name for name in chosen if name in available] if chosen else available


def reference_set_key(names: list[str]) -> str:
    return REFERENCE_SET_SEPARATOR.join(names)


def current_reference_set(campaign: Campaign) -> str:
    """The key of the set scores are computed against now ("A+C"); "" without references."""
    return reference_set_key(metric_reference_names(campaign))
