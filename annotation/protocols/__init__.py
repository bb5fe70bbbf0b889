"""Protocols: one module per way of asking for judgments, each declared once.

A protocol module defines ``PROTOCOL``, a ``base.Protocol``: the settings it implements
(names from ``settings.SETTINGS``, where every setting's bounds, default, label and help live
once), its own defaults, its answer check and how the item screen's form is read, its screen
template and script, its quality-control kinds, its results section and its export columns.
``PROTOCOLS`` maps each ``TaskType`` to its declaration. Built from them:

- the page form and the edit page (``annotation.forms.TaskForm``; ``static/js/task_form.js``
  shows the fields of the chosen type),
- the API serializers and so the OpenAPI schema (``annotation.api.tasks``),
- the task rules (``annotation.services.task_rules``): bounds, and a setting the protocol
  does not implement is refused unless left at its default,
- the answer: the item screen's form read by ``parse_form`` (``views/annotate.py``, the
  tutorial screen), checked by ``answer`` or, as ``spans`` and ``contrastive`` declare, by the
  span and contrastive services (``annotation.services.judgments``, which also asks
  ``needs_item``),
- the judgment exports (``annotation.selectors.exports``): a judgment fills exactly the
  columns of ``base.JUDGMENT_EXPORT_COLUMNS`` its ``export_columns`` names, a row per system
  of each output where it declares ``several_outputs`` (its JSON line then names no one
  ``system``); the span formats hold the protocols of ``one_output_spans``
  (``selectors/spans.py``), the WMT ranking CSV those of ``wmt_ranking`` (``downloads.py``),
  and the Pearmut export reads ``contrastive`` (``selectors/pearmut.py``),
- the span rules (``annotation.services.spans``): ESA's (a severity, no category) or, where
  the protocol implements the MQM typology, MQM's (``span_categories``); pre-filled spans
  where it declares ``prefilled_spans`` (ESA^AI); its ``answer`` checks the rest (ESA's score),
- the document page (``views/document.py``, ``selectors/pages.py``,
  ``services/page_judgments.py``): contrastive or not, spans, categories, a score per segment
  (``scored``) and the page score's range (``scores``: ``score_range``, else the task's
  scale),
- the tutorials (``services/tutorials.py``, ``services/tutorial_uploads.py``,
  ``views/tutorials.py``): which tasks take one (``tutorials``), what an item may expect
  (``scored``, ``spans``), which Pearmut tutorials fit (``family``: ``variant_of``),
- the results (``selectors/human``, the shared tasks' pairs, the crowd verdicts, the page
  scores, the stopping rule's tuning): ``results_section`` names its section of the results
  page (``has_span_results``: the error-span one); ``ranked_as`` how its rankings score and
  publish systems (the live status's statistic, ``lower_is_better``, the metric comparison
  and meta-evaluation, the shared-task table and its WMT procedures); ``measures`` the Likert
  questions ranked (z-scores, the human reference ranked as a system: ``ranks_reference``,
  the crowd's bad-reference test); ``span_categories`` MQM's weights; ``contrastive`` an
  observation per output of a screen (and a paired status); its ``export_columns`` whether
  the answer ranks outputs (``ranks``) or post-edits them (``hter``),
- the manager permission cases (``tests/test_permission_matrix.py``),
- the default instructions (``annotation/instructions.py`` reads ``instructions``, and
  ``monolingual_instructions`` for a monolingual task),
- the task's own rules, read where the model once held them: whether its screens show a
  reference (``reference_shown``: the settings it implements), the unit of its judgment
  budget (``budget_unit_of``: a contrastive screen), whether it asks Likert questions
  (``likert``: ``measures``); the pages read them with the ``protocol``, ``reference_shown``
  and ``budget_unit`` filters (``templatetags/evalsite.py``), the item screens from the
  ``protocol`` in their context (the Likert questions, MQM's categories, pre-filled spans,
  a contrastive screen's scores and spans), and the scripts from what the page marks,
- the plans of a launch (``services/task_items.py``, ``services/page_plan.py``): one output
  a screen, or (``several_outputs``) contrastive screens (``contrastive``), rankings of
  ``ranking_size`` where it applies, else pairs; the check pages its ``quality_control`` has,
- the attention checks' measures (``services/check_answers.py``,
  ``services/page_check_answers.py``): a score on its ``scores`` range, or the MQM penalty of
  its spans (``penalty_scored``); the same preference or ranks again (``wmt_ranking``); the
  damage marked where it has ``spans``,
- the task rules' ranking size (where ``ranking_size`` applies) and the item screen
  (``selectors/annotation.py``): the source (``source_shown``), outputs labelled A, B, …
  (``lettered``), pre-filled spans, the MQM typology,
- the imports of other tools' files: the Appraise task types each protocol takes
  (``appraise``, ``services/appraise_files.py``), Google's MQM TSV (``mqm_tsv``,
  ``services/span_imports.py``), and what an imported answer holds (``services/appraise*``,
  ``services/pearmut_*``, ``span_exports.py``: spans, scores, the MQM penalty), and the
  readings of a Pearmut campaign file each protocol takes (``pearmut``: Pearmut's protocol,
  DA's sliders, ESA's pre-filled spans), passed to the Django-free ``annotation.lib.pearmut``
  as ``PEARMUT_READINGS`` below,
- the demo (``annotation/demo.py``, ``load_demo``, ``load_demo_reliability``): how a
  simulated rater answers (``simulate``, ``protocols/simulated.py``).

A new protocol (document-level ESA, contrastive ESA: the next issue) needs:

1. a ``TaskType`` value (``annotation/models/tasks.py``) and a migration for its choices
   (and a check constraint on ``Judgment`` if its answer fills a column of its own);
2. one module here with its ``PROTOCOL``: which settings apply (a new setting is one entry
   in ``settings.SETTINGS`` plus its model field), its answer check and form, what the
   answer holds (scores and their range, spans, pre-filled spans, several outputs,
   contrastive screens), its instructions, its template and script, quality control, results
   section, how it is ranked and its Likert questions, export columns, the Pearmut files it
   takes and how the demo's raters answer it (``base.Protocol`` lists each);
3. its line in ``PROTOCOLS`` below (``tests/test_protocols.py`` checks every ``TaskType``
   has one; ``tests/browser/test_task_form.py`` looks at its form and edit page;
   ``tests/test_protocol_declaration.py`` that its exports fill what it declares);
4. the template and script it names.

The form, the edit page, the API, the schema, the refusals, the answer (form and check), the
span rules, the document page, the tutorials, the exports, the results and the permission
cases follow with no other edit (``tests/test_protocol_declaration.py`` checks that the
modules above name no task type). The item screen includes ``template`` and loads
``scripts`` (``views/annotate.py``, ``templates/annotate/item.html``, the tutorial screen);
the results page puts a task in the section its ``results_section`` names
(``has_span_results`` below, read by ``selectors/human``). The checks planned at launch are
read from ``quality_control`` (``services/assignment.py``, ``services/checks.py``). Nothing
else branches on the type (``tests/test_protocol_declaration.py`` greps the modules above, the
model, the Pearmut reader, the instructions, the demo, every template and script): the model
keeps ``TaskType`` (its values and labels, the database's choices; a model cannot import the
protocols, which import it) and the database's own rules on ``Judgment``, its check
constraints (``models/slots.py``: the column an answer of a type must fill, as step 1 says);
each protocol module names its own type, and the demo's commands name the types of the tasks
they make (data, as a user would choose them).
"""

from __future__ import annotations

from collections.abc import Callable

from annotation.models import Task, TaskType, Unit
from annotation.protocols import (
    adequacy,
    adequacy_fluency,
    contrastive_da,
    contrastive_esa,
    contrastive_mqm,
    esa,
    esa_prefilled,
    fluency,
    mqm,
    pairwise,
    postedit,
    ranking,
    spans,
)
from annotation.protocols.base import JUDGMENT_EXPORT_COLUMNS, AnswerError, Protocol
from annotation.protocols.settings import QUALITY_CONTROL, SETTINGS, Setting

__all__ = [
    "JUDGMENT_EXPORT_COLUMNS",
    "PEARMUT_READINGS",
    "PROTOCOLS",
    "QUALITY_CONTROL",
    "SETTINGS",
    "AnswerError",
    "Protocol",
    "Setting",
    "budget_unit_of",
    "has_span_results",
    "protocol_for",
    "protocols_applying",
    "reference_shown",
    "task_types_where",
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
        contrastive_esa,
        contrastive_mqm,
        contrastive_da,
    )
}

# The task type each reading of a Pearmut campaign file is imported as (given to the
# Django-free ``annotation.lib.pearmut``), as the protocols declare (``Protocol.pearmut``).
PEARMUT_READINGS: dict[str, str] = {
    reading: str(task_type)
    for task_type, protocol in PROTOCOLS.items()
    for reading in protocol.pearmut
}


def has_span_results(protocol: Protocol) -> bool:
    """Whether its results page section is the error-span one (MQM or ESA rankings, errors,
    span agreement); the others' is the scored tasks' one."""
    return protocol.results_section == spans.SPAN_RESULTS


class UnknownProtocolError(AnswerError):
    pass


def protocol_for(task_type: str) -> Protocol:
    try:
        return PROTOCOLS[task_type]
    except KeyError:
        raise UnknownProtocolError(
            f"unknown task type {task_type!r}; use one of {', '.join(TaskType.values)}"
        ) from None


def task_types_where(declares: Callable[[Protocol], bool]) -> list[str]:
    """The task types whose protocol ``declares`` holds of, in TaskType order (for a query's
    ``task_type IN``)."""
    return [str(task_type) for task_type, protocol in PROTOCOLS.items() if declares(protocol)]


def protocols_applying(name: str) -> list[Protocol]:
    """The protocols that implement setting ``name``, in TaskType order."""
    return [protocol for protocol in PROTOCOLS.values() if protocol.applies(name)]


def reference_shown(task: Task) -> bool:
    """Whether the task's item screens show a human reference: asked for
    (``show_reference``), or read instead of the source (``monolingual``), where its
    protocol implements the setting (fluency shows the output alone)."""
    protocol = protocol_for(task.task_type)
    return any(
        protocol.applies(name) and getattr(task, name) for name in ("show_reference", "monolingual")
    )


def budget_unit_of(task: Task) -> str:
    """What one judgment is, in the organiser's words: the unit of the judgment budget and of
    every task-wide figure shown beside it (``annotation.selectors.budget``); a contrastive
    task's segment screens are judged whole."""
    if protocol_for(task.task_type).contrastive and task.unit != Unit.DOCUMENT:
        return "screen"
    return "judgment"
