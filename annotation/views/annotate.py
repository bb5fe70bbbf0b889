"""Annotator pages: the task list, one item at a time, and the done page."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.http_errors import error_json, error_status
from annotation.instructions import task_instructions
from annotation.lib.ids import database_id
from annotation.models import SkipReason, Task, Unit
from annotation.permissions import CAN_ANNOTATE, authorize
from annotation.protocols import protocol_for
from annotation.selectors.annotation import (
    annotator_has_begun,
    annotator_progress,
    item_display,
    progress_from_row,
    tasks_for_annotator,
)
from annotation.selectors.crowd import crowd_end
from annotation.selectors.tutorials import tutorial_state
from annotation.services.assignment import slot_available, slot_claim_with_progress
from annotation.services.judging import Skipped
from annotation.services.judgments import (
    CLAIM_IN_BATCH,
    CLAIM_NONE,
    CheckWarning,
    JudgmentError,
    judgment_record_and_claim_next,
    skip_record,
)
from annotation.services.page_judgments import page_skip
from annotation.services.spans import ESA_WARN_BELOW, task_mqm_weights
from annotation.views.document import document_page
from annotation.views.errors import refused_to
from metrics.spans.mqm import NON_TRANSLATION


@login_required
def task_list(request):
    tasks = tasks_for_annotator(request.user)
    rows = [(task, annotator_progress(task=task, annotator_id=request.user.id)) for task in tasks]
    return render(request, "annotate/tasks.html", {"rows": rows})


@login_required
@authorize(CAN_ANNOTATE)
def annotate(request, task_id: int):
    task = request.task
    if task.state != Task.State.LAUNCHED:
        return render(request, "annotate/stopped.html", {"task": task}, status=409)
    # Before the first item the instructions are open above it; then one key ("?") away.
    first_item = not annotator_has_begun(task=task, user_id=request.user.id)
    if request.GET.get("after") == "batch":
        # Between batches: the annotator chooses to go on (the page's link, without "after"),
        # if there is more for them; else the done page below.
        progress = annotator_progress(task=task, annotator_id=request.user.id)
        between = progress.total and progress.answered >= progress.total and not progress.finished
        if between and slot_available(task=task, annotator_id=request.user.id):
            return render(request, "annotate/batch_done.html", {"task": task, "progress": progress})
    slot, progress_row = slot_claim_with_progress(task=task, annotator_id=request.user.id)
    if slot is None and tutorial_state(task=task, annotator_id=request.user.id).blocks:
        return redirect("tutorial", task.id)  # the loop's tutorial gate held the claim
    progress = progress_from_row(progress_row)
    if slot is None:
        participant = getattr(request.user, "crowd_participant", None)
        if participant is not None and participant.task_id != task.id:
            participant = None
        # A crowd participant's code is earned by finishing the batch, judging (not
        # skipping) it; the attention checks decide between the pass and the fail code.
        end = (
            None
            if participant is None
            else crowd_end(task=task, participant=participant, progress=progress)
        )
        if end is not None and end.done:
            url = task.completion_url if end.passed else task.failure_url
            if url:
                return redirect(url)
        return render(
            request,
            "annotate/done.html",
            {"task": task, "progress": progress, "crowd": participant is not None, "end": end},
        )
    shown = {"instructions": task_instructions(task), "instructions_open": first_item}
    if task.unit == Unit.DOCUMENT:
        return document_page(request, task, slot, progress, shown)
    context = _item_context(task, slot, progress)
    context.update(shown)
    return render(request, "annotate/item.html", context)


def _item_context(task: Task, slot, progress) -> dict[str, object]:
    protocol = protocol_for(task.task_type)
    return {
        "task": task,
        "slot": slot,
        "item": slot.item,
        "progress": progress,
        # The protocol's declaration names the answer template and script of the screen.
        "protocol": protocol,
        "esa_warn_below": ESA_WARN_BELOW,
        "non_translation": NON_TRANSLATION,
        # The weights metrics/spans/mqm.py scores with, for the live score (spans.js).
        "mqm_weights": json.dumps(task_mqm_weights(task=task).as_dict())
        if protocol.applies("mqm_weights")
        else "",
        "skip_reasons": SkipReason.choices,
        **item_display(slot),
    }


def _next_item_html(request, task: Task, slot, progress_row) -> str | None:
    """The next item's form and progress (``slot``, claimed with the judgment), for the
    page's script to swap in: one round trip per judgment. None when the page must load
    instead: nothing left (the done page, a crowd participant's completion link), the batch
    closed (the "batch done" stop), or no slot was claimed (a span task: its editor sets
    itself up on page load)."""
    if task.state != Task.State.LAUNCHED or slot is None:
        return None
    return render_to_string(
        "annotate/_next_item.html",
        _item_context(task, slot, progress_from_row(progress_row)),
        request=request,
    )


MAX_CANDIDATES = 50  # read at most this many rank-i / cscore-i fields


def answer_from_post(task: Task, post) -> dict[str, object]:
    """The answer as the judgment service takes it, read from the form as the task's protocol
    declares (``parse_form``); ValueError for a form no page sends."""
    count = min(int(post.get("candidates", "0") or 0), MAX_CANDIDATES)
    if count < 0:
        raise ValueError("a negative number of candidates")
    return protocol_for(task.task_type).parse_form(post, count, task.scale)


def _sent_by_script(request) -> bool:
    # The annotate page's script sends answers with fetch and this header; it shows errors
    # itself and retries lost connections, so it gets JSON instead of a redirect.
    return request.headers.get("X-Requested-With") == "fetch"


INCOMPLETE = "The form was incomplete; please answer again."


@login_required
@require_POST
@authorize(CAN_ANNOTATE)
@refused_to("annotate", "Not saved: {error}.", url_kwargs=("task_id",))
def submit(request, task_id: int):
    task = request.task
    by_script = _sent_by_script(request)
    # A screen with scripts of its own (span editors) loads again and sets itself up then,
    # claiming then, so only the other screens claim the next item with the judgment.
    swaps_in_next = by_script and not protocol_for(task.task_type).scripts
    next_url = reverse("annotate", args=[task.id])
    batch_done_url = f"{next_url}?after=batch"
    try:
        slot_id = database_id(request.POST.get("slot"))
        answer = answer_from_post(task, request.POST)
    except ValueError:
        if by_script:
            return error_json(INCOMPLETE, status=400)
        messages.error(request, INCOMPLETE)
        return redirect("annotate", task.id)
    try:
        # The next item of the batch is claimed with the judgment, as the API does; a
        # closed batch stops at the "batch done" screen.
        recorded, next_slot, progress_row = judgment_record_and_claim_next(
            task=task,
            slot_id=slot_id,
            annotator_id=request.user.id,
            answer=answer,
            claim=CLAIM_IN_BATCH if swaps_in_next else CLAIM_NONE,
        )
    except JudgmentError as error:
        if not by_script:
            raise  # the page goes back to the item with the reason (refused_to)
        # The script shows the reason itself, and the way on to the next item; a loud
        # attention check's warning asks to answer again.
        said = f"{error}." if isinstance(error, CheckWarning) else f"Not saved: {error}."
        return error_json(said, status=error_status(error), next_url=next_url)
    # A closed batch stops at the "batch done" screen, unless nothing is left for them.
    stop = recorded.batch_closed and not progress_from_row(progress_row).finished
    if by_script:
        # A retry of an answer that did reach the database is a success too. The next
        # item comes along ("html"), so the page shows it without loading again.
        status = "recorded" if recorded.created else "already_recorded"
        return JsonResponse(
            {
                "status": status,
                "judgment": recorded.judgment_id,
                "batch_closed": recorded.batch_closed,
                "next": batch_done_url if stop else next_url,
                "html": _next_item_html(request, task, next_slot, progress_row),
            }
        )
    if not recorded.created:
        messages.info(request, "That answer was already saved; nothing changed.")
    return redirect(batch_done_url if stop else next_url)


def _skip_one(*, task: Task, **skip: str | int) -> Skipped:
    return skip_record(task_id=task.id, **skip)  # type: ignore[arg-type]


@login_required
@require_POST
@authorize(CAN_ANNOTATE)
@refused_to("annotate", "Not skipped: {error}.", url_kwargs=("task_id",))
def skip(request, task_id: int):
    """Skips or flags the item with a reason; the next item follows."""
    task = request.task
    try:
        # Not "slot": the page's judgment form holds that one.
        slot_id = database_id(request.POST.get("skipped_slot"))
    except ValueError:
        messages.error(request, INCOMPLETE)
        return redirect("annotate", task.id)
    # A document page is skipped whole.
    skip_page_or_item = page_skip if task.unit == Unit.DOCUMENT else _skip_one
    skipped = skip_page_or_item(
        task=task,
        slot_id=slot_id,
        annotator_id=request.user.id,
        reason=request.POST.get("reason", ""),
        note=request.POST.get("note", ""),
    )
    messages.info(request, "Skipped; the item goes to someone else. Thank you for flagging it.")
    next_url = reverse("annotate", args=[task.id])
    return redirect(f"{next_url}?after=batch" if skipped.batch_closed else next_url)
