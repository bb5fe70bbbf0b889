"""Tutorial pages: the annotator's tutorial (one item at a time, in the task's own item form),
the feedback after each answer and the attempt's result; the manager's tutorial page
(upload, rules, overview). The gate is the loop's (services/tutorials.py)."""

from __future__ import annotations

import json

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.instructions import task_instructions
from annotation.lib.scales import scale_points
from annotation.lib.tutorials import answer_said, expected_said
from annotation.lib.uploads import read_uploaded
from annotation.models import Task, TutorialAnswer, TutorialItem
from annotation.models.tutorials import DEFAULT_ATTEMPTS, DEFAULT_PASS_SHARE, SKIPPED
from annotation.permissions import CAN_ANNOTATE, CAN_MANAGE, authorize
from annotation.protocols import protocol_for
from annotation.selectors.tutorials import tutorial_overview, tutorial_state
from annotation.services.spans import ESA_WARN_BELOW, task_mqm_weights
from annotation.services.tutorial_uploads import (
    MAX_ATTEMPTS,
    tutorial_clear,
    tutorial_rules_set,
    tutorial_upload,
)
from annotation.services.tutorials import (
    TutorialError,
    tutorial_answer_record,
    tutorial_retry,
)
from annotation.views.annotate import answer_from_post
from annotation.views.errors import refused_to
from metrics.spans.mqm import GOOGLE_MQM_CATEGORIES, NON_TRANSLATION


def tutorial_item_context(task: Task, item: TutorialItem) -> dict[str, object]:
    """What the task's item form (annotate/_item_form.html) needs to show a tutorial item."""
    protocol = protocol_for(task.task_type)
    letters = protocol.contrastive
    candidates = [
        {"label": chr(ord("A") + i) if letters else str(i + 1), "text": c["text"], "index": i}
        for i, c in enumerate(item.candidates)
    ]
    mqm = protocol.span_categories
    return {
        "task": task,
        "tutorial_item": item,
        # The protocol's declaration names the answer template and scripts of the screen.
        "protocol": protocol,
        "esa_warn_below": ESA_WARN_BELOW,
        "non_translation": NON_TRANSLATION,
        "mqm_weights": json.dumps(task_mqm_weights(task=task).as_dict()) if mqm else "",
        "source": item.source or None,
        "reference": item.reference or None,
        "context_before": [],
        "context_after": [],
        "candidates": candidates,
        "prefilled_spans": item.candidates[0].get("prefilled", []) if len(candidates) == 1 else [],
        "mqm_categories": list(task.mqm_categories or GOOGLE_MQM_CATEGORIES) if mqm else [],
        "adequacy_points": scale_points(task.scale, "adequacy"),
        "fluency_points": scale_points(task.scale, "fluency"),
    }


@login_required
@authorize(CAN_ANNOTATE)
def tutorial_page(request, task_id: int):
    """The item to answer now, or the attempt's result (passed: on to the real work)."""
    task = request.task
    if task.state != Task.State.LAUNCHED:
        return render(request, "annotate/stopped.html", {"task": task}, status=409)
    state = tutorial_state(task=task, annotator_id=request.user.id)
    if not state.blocks:
        return redirect("annotate", task.id)
    if state.next_item is None:
        return render(
            request, "annotate/tutorial_result.html", _result_context(request, task, state)
        )
    context = tutorial_item_context(task, state.next_item)
    context.update(
        {
            "state": state,
            "number": state.answered + 1,
            "instructions": task_instructions(task),
            "instructions_open": state.answered == 0 and state.attempt is None,
        }
    )
    return render(request, "annotate/tutorial.html", context)


def _result_context(request, task: Task, state) -> dict[str, object]:
    # A crowd participant who failed every attempt is sent to the study's failure link.
    participant = getattr(request.user, "crowd_participant", None)
    crowd = participant is not None and participant.task_id == task.id
    return {"task": task, "state": state, "failure_url": task.failure_url if crowd else ""}


@login_required
@require_POST
@authorize(CAN_ANNOTATE)
@refused_to("tutorial", "Not saved: {error}.", url_kwargs=("task_id",))
def tutorial_answer(request, task_id: int):
    task = request.task
    skip = request.POST.get("skip") == "1"  # a skippable item's Skip button
    try:
        item_id = int(request.POST.get("tutorial_item", ""))
        answer = {} if skip else answer_from_post(task, request.POST)
    except ValueError:
        raise TutorialError("The form was incomplete; please answer again.") from None
    feedback = tutorial_answer_record(
        task=task, annotator_id=request.user.id, item_id=item_id, answer=answer, skip=skip
    )
    url = reverse("tutorial-feedback", args=[task.id, feedback.answer_id])
    if request.headers.get("X-Requested-With") == "fetch":
        return JsonResponse({"next": url})
    return redirect(url)


@login_required
@authorize(CAN_ANNOTATE)
def tutorial_feedback(request, task_id: int, answer_id: int):
    """After an answer: as expected or not, what was expected and why; then on."""
    task = request.task
    answer = (
        TutorialAnswer.objects.select_related("attempt", "item")
        .filter(id=answer_id, attempt__task=task, attempt__annotator=request.user)
        .first()
    )
    if answer is None or answer.item is None:
        raise Http404("no such tutorial answer")
    state = tutorial_state(task=task, annotator_id=request.user.id)
    item = answer.item
    attempt = answer.attempt
    return render(
        request,
        "annotate/tutorial_feedback.html",
        {
            "task": task,
            "item": item,
            "answer": answer,
            "expected": expected_said(expected=item.expected, candidates=item.candidates),
            "skipped": answer.answer == SKIPPED,
            "given": answer_said(answer=answer.answer, candidates=item.candidates),
            "attempt": attempt,
            "state": state,
            "latest": state.attempt is not None and state.attempt.id == attempt.id,
            "candidates": tutorial_item_context(task, item)["candidates"],
            "failure_url": _result_context(request, task, state)["failure_url"],
        },
    )


@login_required
@require_POST
@authorize(CAN_ANNOTATE)
@refused_to("tutorial", "{error}", url_kwargs=("task_id",))
def tutorial_retry_view(request, task_id: int):
    tutorial_retry(task=request.task, annotator_id=request.user.id)
    return redirect("tutorial", task_id)


class TutorialUploadForm(forms.Form):
    file = forms.FileField(
        help_text="evalsite's JSON Lines (one item per line) or a Pearmut tutorial or campaign"
        " JSON (its validation items)"
    )
    language = forms.CharField(
        max_length=16,
        required=False,
        help_text="Blank: the default tutorial; a language code (e.g. de): shown only when"
        " the campaign's target language is that one",
    )


class TutorialRulesForm(forms.Form):
    pass_share = forms.FloatField(
        min_value=0.01,
        max_value=1,
        initial=DEFAULT_PASS_SHARE,
        help_text="Share of the graded items to answer as expected (0.8: 4 of 5)",
    )
    attempts = forms.IntegerField(
        min_value=0, max_value=MAX_ATTEMPTS, initial=DEFAULT_ATTEMPTS, help_text="0: no limit"
    )


def _task(request, task_id: int) -> Task:
    return get_object_or_404(Task, id=task_id, campaign=request.campaign)


@login_required
@authorize(CAN_MANAGE)
def tutorial_manage(request, campaign_id: int, task_id: int):
    task = _task(request, task_id)
    overview = tutorial_overview(task=task)
    rules = TutorialRulesForm(
        initial={"pass_share": overview.rules.pass_share, "attempts": overview.rules.attempts}
    )
    return render(
        request,
        "campaigns/tutorial.html",
        {
            "campaign": request.campaign,
            "task": task,
            "overview": overview,
            "upload_form": TutorialUploadForm(),
            "rules_form": rules,
        },
    )


@login_required
@require_POST
@authorize(CAN_MANAGE)
@refused_to("tutorial-manage", "Nothing changed: {error}.", url_kwargs=("campaign_id", "task_id"))
def tutorial_upload_view(request, campaign_id: int, task_id: int):
    task = _task(request, task_id)
    form = TutorialUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        raise TutorialError("choose a tutorial file (JSON Lines or Pearmut JSON)")
    ((name, data),) = read_uploaded(
        [form.cleaned_data["file"]], max_bytes=settings.UPLOAD_MAX_BYTES
    )
    stored = tutorial_upload(
        task=task, name=name, data=data, language=form.cleaned_data["language"]
    )
    languages = ", ".join(language or "default" for language in stored.languages) or "none"
    messages.success(request, f"Stored {stored.items} tutorial items (languages: {languages}).")
    for note in stored.notes:
        messages.info(request, note)
    return redirect("tutorial-manage", campaign_id, task_id)


@login_required
@require_POST
@authorize(CAN_MANAGE)
@refused_to("tutorial-manage", "Nothing changed: {error}.", url_kwargs=("campaign_id", "task_id"))
def tutorial_rules_view(request, campaign_id: int, task_id: int):
    task = _task(request, task_id)
    form = TutorialRulesForm(request.POST)
    if not form.is_valid():
        raise TutorialError(" ".join(str(e) for errors in form.errors.values() for e in errors))
    tutorial_rules_set(task=task, **form.cleaned_data)
    messages.success(request, "Tutorial rules saved.")
    return redirect("tutorial-manage", campaign_id, task_id)


@login_required
@require_POST
@authorize(CAN_MANAGE)
@refused_to("tutorial-manage", "Nothing changed: {error}.", url_kwargs=("campaign_id", "task_id"))
def tutorial_clear_view(request, campaign_id: int, task_id: int):
    removed = tutorial_clear(task=_task(request, task_id))
    messages.success(request, f"Removed {removed} tutorial items; the answers given are kept.")
    return redirect("tutorial-manage", campaign_id, task_id)
