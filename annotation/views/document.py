"""The document page: a page of a document's segments on one screen, and its one submit."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.http_errors import error_json, error_status
from annotation.lib import json_limits
from annotation.lib.ids import database_id
from annotation.lib.scales import scale_points
from annotation.models import SkipReason, Task
from annotation.permissions import CAN_ANNOTATE, authorize
from annotation.protocols import protocol_for
from annotation.selectors.annotation import progress_from_row
from annotation.selectors.pages import page_display, page_slots
from annotation.services.judgments import CLAIM_NONE, CheckWarning, JudgmentError
from annotation.services.page_judgments import (
    IDLE_CAP_MS,
    page_record_and_claim_next,
    page_score_range,
)
from annotation.services.spans import ESA_WARN_BELOW, task_mqm_categories, task_mqm_weights
from annotation.templatetags.evalsite import text_attrs
from metrics.spans.mqm import NON_TRANSLATION


def document_page(request, task: Task, slot, progress, extra: dict) -> object:
    """The page ``slot`` begins (claimed by the annotate view), rendered whole."""
    slots = page_slots(slot=slot)
    if slots and not Task.campaign.is_cached(task):
        task.campaign = slots[0].item.campaign  # read with the page: one query less
    shown = page_display(task=task, slots=slots)
    low, high = page_score_range(task=task)
    protocol = protocol_for(task.task_type)
    contrastive, spans, is_mqm = protocol.contrastive, protocol.spans, protocol.span_categories
    return render(
        request,
        "annotate/contrastive_document.html" if contrastive else "annotate/document.html",
        {
            "task": task,
            "progress": progress,
            "spans": spans,
            "is_mqm": is_mqm,
            "scored": protocol.scored,
            # A segment's score and the page's: 0-100 (ESA, contrastive), or the task's scale.
            "score_low": low,
            "score_high": high,
            "adequacy_points": [] if spans or contrastive else scale_points(task.scale, "adequacy"),
            "idle_cap_ms": IDLE_CAP_MS,
            "esa_warn_below": ESA_WARN_BELOW,
            "non_translation": NON_TRANSLATION,
            "skip_reasons": SkipReason.choices,
            "prefilled": protocol.prefilled_spans,
            # lang and dir once for the page's many segments.
            "source_attrs": text_attrs(task.campaign.source_language),
            "target_attrs": text_attrs(task.campaign.target_language),
            "mqm_categories": task_mqm_categories(task=task) if is_mqm else (),
            # Contrastive MQM: each translation's live score, as metrics/spans/mqm.py weighs.
            "mqm_weights": json.dumps(task_mqm_weights(task=task).as_dict()) if is_mqm else "",
            **shown,
            **extra,
        },
    )


@login_required
@require_POST
@authorize(CAN_ANNOTATE)
def page_submit(request, task_id: int):
    """A page's answers (the page's script sends them as JSON in one field, and reads JSON
    back): recorded whole or not at all; the next page loads after."""
    task = request.task
    next_url = reverse("annotate", args=[task.id])
    try:
        slot_id = database_id(request.POST.get("page"))
        answers = json_limits.loads(request.POST.get("answers") or "[]")
        # A contrastive page's score per output, in the page's order.
        each = json_limits.loads(request.POST.get("document_scores") or "null")
    except ValueError:
        return error_json("The form was incomplete; please answer again.", status=400)
    try:
        recorded, _, progress_row = page_record_and_claim_next(
            task=task,
            slot_id=slot_id,
            annotator_id=request.user.id,
            answers=answers,
            document_score=request.POST.get("document_score") or None,
            document_scores=each,
            claim=CLAIM_NONE,
        )
    except JudgmentError as error:
        # A loud attention check's warning asks to answer the page again.
        said = f"{error}." if isinstance(error, CheckWarning) else f"Not saved: {error}."
        return error_json(said, status=error_status(error), next_url=next_url)
    stop = recorded.batch_closed and not progress_from_row(progress_row).finished
    return JsonResponse(
        {
            "status": "recorded" if recorded.created else "already_recorded",
            "judgments": recorded.judgment_ids,
            "batch_closed": recorded.batch_closed,
            "next": f"{next_url}?after=batch" if stop else next_url,
        }
    )
