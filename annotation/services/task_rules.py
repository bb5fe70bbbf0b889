"""The rules a task's settings obey, each refusal with its own message: checked when a task
is created, edited (``task_changes``) and launched, by the form and the API alike."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from annotation.errors import ApplicationError
from annotation.models import Campaign, System, Task, Unit
from annotation.models.tasks import task_name_free
from annotation.protocols import SETTINGS as SETTING_DECLARATIONS
from annotation.protocols import protocol_for
from annotation.selectors.annotation import campaign_has_documents
from annotation.services.contrastive_adaptive import adaptive_problem
from annotation.services.spans import mqm_settings_problem

# Every setting, with its bounds: declared once in annotation/protocols/base.py.
SETTINGS = tuple(SETTING_DECLARATIONS)
# Settings a launched task keeps changing: its items and batches were planned from the others.
EDITABLE_AFTER_LAUNCH = tuple(name for name, s in SETTING_DECLARATIONS.items() if s.after_launch)
# The quality-control rates, each a share of a batch's items in [0, 1), and why 1 is too many.
QUALITY_CONTROL_RATES = {
    "repeat_rate": "every item would be judged twice",
    "bad_reference_rate": "a batch needs real outputs too",
    "reference_rate": "every candidate would be the human reference",
    "hotw_rate": "a batch needs real outputs too",
    "shuffle_rate": "a batch needs real screens too",
}
# Together they stay below the whole batch (WMT: about 10% each).
MAX_QUALITY_CONTROL_SHARE = 1.0


class TaskError(ApplicationError):
    """A task that cannot be created, changed or launched as asked, with the reason."""


def task_validate(*, task: Task, chosen: Sequence[str] = ()) -> None:
    """Every rule a task's settings obey, each with its own message (creation and edits).
    ``chosen``: the settings the manager set now; a ranking size left at its default shows
    every system when there are fewer (older scripts rely on it), a chosen one must fit."""
    protocol = protocol_for(task.task_type)
    values = {name: getattr(task, name) for name in SETTINGS}
    for name, value in values.items():
        if problem := SETTING_DECLARATIONS[name].problem(value):
            raise TaskError(problem)
    # Never ignored: a setting the protocol does not implement would plan another task.
    if problem := protocol.unimplemented(values):
        raise TaskError(problem)
    quality_control_check(
        repeat_rate=task.repeat_rate,
        bad_reference_rate=task.bad_reference_rate,
        reference_rate=task.reference_rate,
        hotw_rate=task.hotw_rate,
        shuffle_rate=task.shuffle_rate,
    )
    if task.ranking_size < 2 or task.judgments_per_item < 1:
        raise TaskError("a ranking shows at least 2 outputs and every item needs a judgment")
    if protocol.applies("ranking_size") and "ranking_size" in chosen:
        outputs = System.objects.filter(campaign_id=task.campaign_id).count()
        if outputs and task.reference_rate > 0 and task.campaign.references.exists():
            outputs += 1  # the human reference is ranked too
        if outputs and task.ranking_size > outputs:
            raise TaskError(
                f"a ranking of {task.ranking_size} outputs needs at least {task.ranking_size} "
                f"systems, and the campaign has {outputs} outputs to rank; set N to "
                f"{outputs} or fewer"
            )
    if task.batch_size < 1:
        raise TaskError("a batch holds at least one item")
    if problem := adaptive_problem(task=task):
        raise TaskError(problem)
    problem = mqm_settings_problem(categories=task.mqm_categories, weights=task.mqm_weights)
    if problem:
        raise TaskError(problem)
    if task.unit == Unit.DOCUMENT and not campaign_has_documents(task.campaign):
        raise TaskError(
            "a document unit needs document ids, and this campaign has none (a source "
            "without them is one implicit document); choose the segment unit, or upload a "
            "source with document ids to a new campaign"
        )
    if task.unit == Unit.DOCUMENT and task.context_size:
        raise TaskError(
            "a document page shows its document in reading order: set context to 0 (context "
            "is for tasks that show one segment per screen)"
        )
    if task.context_size and not campaign_has_documents(task.campaign):
        raise TaskError(
            "context needs document ids, and this campaign has none (a source without them is "
            "one implicit document, so context would cross unrelated texts); set context "
            "to 0, or upload a source with document ids (a doc_id column, a document file, "
            "or WMT XML) to a new campaign"
        )


def task_name_set(*, task: Task, name: str | None) -> None:
    """Names the task ``name``, refused when another task of the campaign has it (in any
    case); blank: the protocol's name, numbered if taken. The campaign is locked, so that
    two tasks named at once cannot both take a name."""
    list(Campaign.objects.select_for_update().filter(id=task.campaign_id).values_list("id"))
    name = (name or "").strip()
    if not name:
        label = protocol_for(task.task_type).label
        task.name = task_name_free(task.campaign_id, label, exclude_id=task.pk)
        return
    others = Task.objects.filter(campaign_id=task.campaign_id, name__iexact=name)
    if task.pk is not None:
        others = others.exclude(pk=task.pk)
    if others.exists():
        raise TaskError(
            f"the campaign has a task named {name!r} already: annotators tell tasks apart "
            "by their names, so choose another"
        )
    task.name = name


def quality_control_check(
    *,
    repeat_rate: float,
    bad_reference_rate: float,
    reference_rate: float,
    hotw_rate: float = 0.0,
    shuffle_rate: float = 0.0,
) -> None:
    """Each quality-control rate is a share in [0, 1), and together they stay below 1."""
    rates = {
        "repeat_rate": repeat_rate,
        "bad_reference_rate": bad_reference_rate,
        "reference_rate": reference_rate,
        "hotw_rate": hotw_rate,
        "shuffle_rate": shuffle_rate,
    }
    for name, value in rates.items():
        if not math.isfinite(value) or value < 0:
            raise TaskError(f"{name} is a share between 0 and 1 (0.1 is 10%), not {value:g}")
        if value >= 1:
            raise TaskError(
                f"{name} must be below 1 (a share between 0 and 1: 0.1 is 10%); at {value:g} "
                f"{QUALITY_CONTROL_RATES[name]}"
            )
    total = sum(rates.values())
    if total >= MAX_QUALITY_CONTROL_SHARE:
        parts = [f"repeats ({repeat_rate:.0%})", f"bad references ({bad_reference_rate:.0%})"]
        if hotw_rate:
            parts.append(f"HOTW errors ({hotw_rate:.0%})")
        if shuffle_rate:
            parts.append(f"shuffled-translation checks ({shuffle_rate:.0%})")
        raise TaskError(
            f"{', '.join(parts)} and human references ({reference_rate:.0%}) add up to "
            f"{total:.0%} of the items; keep quality control below "
            f"{MAX_QUALITY_CONTROL_SHARE:.0%} together (WMT: about 10% each)"
        )


def task_settings_check(*, settings: dict[str, Any]) -> None:
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        raise TaskError(f"unknown task settings: {', '.join(sorted(unknown))}")
