"""Tutorials, the manager's side: an uploaded tutorial read (evalsite's JSON Lines or a Pearmut
file) and stored whole, per target language; the pass share and attempts; removal. The
annotator's side is ``annotation.services.tutorials``."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from django.db import transaction

from annotation.lib import json_limits
from annotation.lib.pearmut import pearmut_parse
from annotation.lib.pearmut_items import PearmutError
from annotation.lib.pearmut_tutorials import tutorial_from_pearmut
from annotation.lib.textfiles import decode_utf8, split_lines
from annotation.lib.tutorials import TutorialFile, TutorialFormatError, tutorial_lines_parse
from annotation.models import Task, Tutorial, TutorialInstructions, TutorialItem
from annotation.protocols import PEARMUT_READINGS, protocol_for
from annotation.services.tutorials import TutorialError
from metrics.spans import SpanError
from metrics.spans.jsonl import span_from_dict

MAX_ATTEMPTS = 100


@dataclass(frozen=True)
class TutorialStored:
    items: int
    languages: tuple[str, ...]
    instructions: tuple[str, ...]
    notes: list[str] = field(default_factory=list)


def tutorial_supported(*, task: Task) -> bool:
    """Whether a tutorial can expect the task's answers (its protocol says), scored on a
    range its protocol fixes or on the task's scale."""
    protocol = protocol_for(task.task_type)
    return protocol.tutorials and (protocol.score_range is not None or task.scale is not None)


def _check_items(task: Task, parsed: TutorialFile) -> None:
    protocol = protocol_for(task.task_type)
    several = protocol.contrastive
    for number, draft in enumerate(parsed.items, start=1):
        where = f"tutorial item {number}" + (f" ({draft.external_id})" if draft.external_id else "")
        if not several and len(draft.candidates) != 1:
            raise TutorialError(f"{where}: this task shows one translation per screen")
        for name, rule in draft.expected.items():
            if ("score" in rule or "above" in rule) and not protocol.scored:
                raise TutorialError(
                    f"{where}: {name}: {protocol.label} has no score to expect (spans only)"
                )
            if "spans" in rule and not protocol.spans:
                raise TutorialError(f"{where}: {name}: this task marks no spans")
        for candidate in draft.candidates:
            for entry in candidate.get("prefilled", []):
                try:
                    span_from_dict({**entry, "prefilled": True}).check_within(candidate["text"])
                except (SpanError, ValueError, TypeError) as error:
                    raise TutorialError(f"{where}: prefilled span: {error}") from None


@transaction.atomic
def tutorial_store(
    *,
    task: Task,
    parsed: TutorialFile,
    pass_share: float | None = None,
    attempts: int | None = None,
) -> TutorialStored:
    """Stores an uploaded tutorial whole: the items of each language in the file replace
    that language's items (answers already given are kept, counted, and no longer tied to
    an item); instructions per language; the pass rule and attempts, if given."""
    if not tutorial_supported(task=task):
        raise TutorialError(
            f"{task.get_task_type_display()} tasks have no tutorial: tutorials expect scores"
            " or spans (Likert, DA, ESA, MQM and contrastive tasks)"
        )
    _check_items(task, parsed)
    languages = sorted({draft.language for draft in parsed.items})
    TutorialItem.objects.filter(task=task, language__in=languages).delete()
    positions: dict[str, int] = {}
    rows = []
    for draft in parsed.items:
        position = positions.get(draft.language, 0)
        positions[draft.language] = position + 1
        rows.append(
            TutorialItem(
                task=task,
                language=draft.language,
                position=position,
                external_id=draft.external_id,
                instructions=draft.instructions,
                source=draft.source,
                reference=draft.reference,
                candidates=draft.candidates,
                expected=draft.expected,
                explanation=draft.explanation,
                skippable=draft.skippable,
            )
        )
    TutorialItem.objects.bulk_create(rows)
    for language, text in parsed.instructions.items():
        if language:
            TutorialInstructions.objects.update_or_create(
                task=task, language=language, defaults={"text": text}
            )
        else:
            Task.objects.filter(id=task.id).update(instructions=text)
    tutorial_rules_set(task=task, pass_share=pass_share, attempts=attempts)
    return TutorialStored(
        items=len(rows),
        languages=tuple(languages),
        instructions=tuple(sorted(parsed.instructions)),
        notes=list(parsed.notes),
    )


def tutorial_file_read(*, task: Task, name: str, data: bytes, language: str = "") -> TutorialFile:
    """An uploaded tutorial: Pearmut's campaign or tutorial JSON (its ``validation`` items),
    or evalsite's JSON Lines; checked whole, nothing written."""
    text = decode_utf8(name, data)
    language = language.strip().lower()
    try:
        stripped = text.lstrip()
        whole = json_limits.loads(text) if stripped.startswith("{") else None
        if isinstance(whole, dict) and "info" in whole and "data" in whole:
            campaign = pearmut_parse(whole, name=name, task_types=PEARMUT_READINGS)
            # A task takes the tutorial of its protocol, or of the one it varies (ESA^AI: ESA).
            wanted = protocol_for(task.task_type).family
            given = protocol_for(PEARMUT_READINGS.get(campaign.protocol, campaign.task_type)).family
            if given != wanted:
                raise TutorialError(
                    f"{name} is a Pearmut {campaign.protocol} tutorial; this task is"
                    f" {task.get_task_type_display()}"
                )
            return tutorial_from_pearmut(
                campaign, language=language, single=not protocol_for(task.task_type).contrastive
            )
        parsed = tutorial_lines_parse(split_lines(name, text), name=name)
    except (PearmutError, TutorialFormatError) as error:
        raise TutorialError(str(error)) from None
    except ValueError:
        # One JSON object that is not a Pearmut file, or a JSON Lines file: read as lines.
        try:
            parsed = tutorial_lines_parse(split_lines(name, text), name=name)
        except TutorialFormatError as error:
            raise TutorialError(str(error)) from None
    if language:
        for draft in parsed.items:
            draft.language = draft.language or language
    return parsed


def tutorial_upload(
    *,
    task: Task,
    name: str,
    data: bytes,
    language: str = "",
    pass_share: float | None = None,
    attempts: int | None = None,
) -> TutorialStored:
    """Reads an uploaded tutorial file and stores it whole (``tutorial_store``)."""
    parsed = tutorial_file_read(task=task, name=name, data=data, language=language)
    return tutorial_store(task=task, parsed=parsed, pass_share=pass_share, attempts=attempts)


@transaction.atomic
def tutorial_rules_set(
    *, task: Task, pass_share: float | None = None, attempts: int | None = None
) -> Tutorial:
    """The share of graded items to answer as expected (0 < share <= 1) and the attempts
    allowed (0: no limit); what is not given stays."""
    tutorial, _ = Tutorial.objects.get_or_create(task=task)
    if pass_share is not None:
        if isinstance(pass_share, bool) or not (math.isfinite(pass_share) and 0 < pass_share <= 1):
            raise TutorialError("the pass share must be above 0 and at most 1 (e.g. 0.8)")
        tutorial.pass_share = pass_share
    if attempts is not None:
        if isinstance(attempts, bool) or not 0 <= attempts <= MAX_ATTEMPTS:
            raise TutorialError(f"attempts must be 0 (no limit) to {MAX_ATTEMPTS}")
        tutorial.attempts = attempts
    tutorial.save()
    return tutorial


@transaction.atomic
def tutorial_clear(*, task: Task) -> int:
    """Removes the task's tutorial items (the gate opens); answers given are kept."""
    deleted, _ = TutorialItem.objects.filter(task=task).delete()
    return deleted
