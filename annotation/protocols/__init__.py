"""Protocols: one module per way of asking for judgments, each declared once.

A protocol module defines ``PROTOCOL``, a ``base.Protocol``: the settings it implements
(names from ``base.SETTINGS``, where every setting's bounds, default, label and help live
once), its own defaults, its answer check, its screen template and script, its
quality-control kinds, its results section and its export columns. ``PROTOCOLS`` maps each
``TaskType`` to its declaration. Built from them:

- the page form and the edit page (``annotation.forms.TaskForm``; ``static/js/task_form.js``
  shows the fields of the chosen type),
- the API serializers and so the OpenAPI schema (``annotation.api.tasks``),
- the task rules (``annotation.services.task_rules``): bounds, and a setting the protocol
  does not implement is refused unless left at its default,
- the answer check (``annotation.services.judgments.answer_columns`` delegates here),
- the annotator permission cases (``tests/test_permission_matrix.py``).

A new protocol (document-level ESA, contrastive ESA) needs:

1. a ``TaskType`` value (``annotation/models/tasks.py``) and a migration for its choices;
2. one module here with its ``PROTOCOL``: which settings apply (a new setting is one entry
   in ``base.SETTINGS`` plus its model field), its answer check, its template and script,
   quality control, results section and export columns;
3. its line in ``PROTOCOLS`` below (a test checks every ``TaskType`` has one);
4. the template and script it names, and default instructions
   (``annotation/instructions.py``) if it has its own wording.

The form, the edit page, the API, the schema and the refusals follow without other edits.
"""

from __future__ import annotations

from annotation.models import TaskType
from annotation.protocols import (
    adequacy,
    adequacy_fluency,
    esa,
    esa_prefilled,
    fluency,
    mqm,
    pairwise,
    postedit,
    ranking,
)
from annotation.protocols.base import (
    QUALITY_CONTROL,
    SETTINGS,
    AnswerError,
    Protocol,
    Setting,
)

__all__ = [
    "PROTOCOLS",
    "QUALITY_CONTROL",
    "SETTINGS",
    "AnswerError",
    "Protocol",
    "Setting",
    "protocol_for",
    "protocols_applying",
]

PROTOCOLS: dict[str, Protocol] = {
    module.PROTOCOL.task_type: module.PROTOCOL
    for module in (
        adequacy,
        fluency,
        adequacy_fluency,
        pairwise,
        ranking,
        postedit,
        esa,
        esa_prefilled,
        mqm,
    )
}


class UnknownProtocolError(AnswerError):
    pass


def protocol_for(task_type: str) -> Protocol:
    try:
        return PROTOCOLS[task_type]
    except KeyError:
        raise UnknownProtocolError(
            f"unknown task type {task_type!r}; use one of {', '.join(TaskType.values)}"
        ) from None


def protocols_applying(name: str) -> list[Protocol]:
    """The protocols that implement setting ``name``, in TaskType order."""
    return [protocol for protocol in PROTOCOLS.values() if protocol.applies(name)]
