"""Pearmut campaigns (and their annotations) imported as an evalsite campaign with one task.

The file is read and checked whole by ``annotation.lib.pearmut`` (which says how each protocol,
assignment mode and option maps); the annotations file is checked whole against it here,
before anything is written. Annotations become judgments of accounts that cannot log in (named
by Pearmut's user ids), in finished batches of their own: the task's planned batches still ask
for fresh judgments.

Documents of several items become document pages (``unit`` "document": one page per document
and system, ``annotation.services.page_plan``) when the protocol has document pages and no
document holds a tutorial or an attention check (a page is submitted whole). Media sources
become the segment's ``SourceMedia``: a data: URL, or (``manage.py import_pearmut``) a file
beside the campaign file; a web URL is refused, naming it, since evalsite fetches nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotation.lib import json_limits
from annotation.lib.pearmut import (
    SLIDER_SCALES,
    PearmutCampaign,
    PearmutError,
    PearmutItem,
    html_text,
    pearmut_parse,
    pearmut_span,
)
from annotation.models import (
    CONTRASTIVE_TYPES,
    Batch,
    Document,
    ErrorSpan,
    Item,
    ItemType,
    Judgment,
    Segment,
    Slot,
    System,
    Task,
    Unit,
    is_reserved_system_name,
)
from annotation.protocols import protocol_for
from annotation.protocols.base import MAX_PAGE_SIZE
from annotation.services.campaigns import CampaignError, campaign_create
from annotation.services.contrastive import output_judgments_create
from annotation.services.pearmut_media import (
    PearmutImportError,
    pearmut_media_read,
    pearmut_media_store,
)
from annotation.services.results_snapshots import results_snapshots_prepare
from annotation.services.span_imports import SpanImportError, rater_accounts
from annotation.services.spans import error_span_row
from annotation.services.tasks import task_create, task_launch_items, task_launch_pages
from metrics.spans import Span

LINE_KEYS = {"annotation", "actions", "item", "user_id", "item_i"}
VALUE_KEYS = {"score", "error_spans", "textfield"}
SPAN_PROTOCOLS = ("esa", "esa_prefilled", "mqm", "contrastive_esa", "contrastive_mqm")


@dataclass
class _Answer:
    user: str
    item: Item
    score: int | None
    spans: list[Span]
    served_at: datetime
    submitted_at: datetime
    duration_ms: int
    system: str = ""
    # Contrastive screens: every candidate's score in screen order, spans by candidate.
    candidate_scores: list[int] | None = None
    candidate_spans: list[tuple[int, Span]] | None = None


def pearmut_load(*, text: str, name: str) -> PearmutCampaign:
    """Parses and checks a campaign file's text, naming the file on any problem."""
    try:
        data = json_limits.loads(text)
    except json.JSONDecodeError as error:
        raise PearmutImportError(
            f"{name}, line {error.lineno}: invalid JSON: {error.msg}"
        ) from None
    try:
        return pearmut_parse(data, name=name)
    except PearmutError as error:
        raise PearmutImportError(str(error)) from None


def pearmut_annotation_lines(*, text: str, name: str) -> list[dict[str, Any]]:
    """The JSON objects of an annotations file (Pearmut's ``data/outputs/<campaign>.jsonl``)."""
    lines = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json_limits.loads(line)
        except json.JSONDecodeError as error:
            raise PearmutImportError(f"{name}, line {number}: invalid JSON: {error.msg}") from None
        if not isinstance(value, dict):
            raise PearmutImportError(f"{name}, line {number}: expected a JSON object")
        value["_line"] = number
        lines.append(value)
    return lines


def _decoded(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PearmutImportError(f"{name}: not UTF-8 text") from None


def languages_parse(*, text: str) -> tuple[str, str] | None:
    """``en-de`` as (source, target); blank: None (the item ids may say)."""
    if not text.strip():
        return None
    source, _, target = text.strip().partition("-")
    if not source or not target:
        raise PearmutImportError("languages are source-target, e.g. en-de")
    return source, target


@transaction.atomic
def pearmut_upload(
    *,
    owner: User,
    campaign_file: tuple[str, bytes],
    annotations_file: tuple[str, bytes] | None = None,
    name: str = "",
    languages: str = "",
) -> tuple[Task, PearmutCampaign]:
    """The page's and the API's import: uploaded bytes, checked whole, then imported."""
    parsed = pearmut_load(text=_decoded(campaign_file[1], campaign_file[0]), name=campaign_file[0])
    lines: list[dict[str, Any]] = []
    if annotations_file is not None:
        lines = pearmut_annotation_lines(
            text=_decoded(annotations_file[1], annotations_file[0]), name=annotations_file[0]
        )
    task = pearmut_import(
        parsed=parsed,
        owner=owner,
        name=name,
        languages=languages_parse(text=languages),
        annotations=lines,
        annotations_name=annotations_file[0] if annotations_file else "annotations",
    )
    return task, parsed


@transaction.atomic
def pearmut_import(
    *,
    parsed: PearmutCampaign,
    owner: User,
    name: str = "",
    languages: tuple[str, str] | None = None,
    annotations: Sequence[dict[str, Any]] = (),
    annotations_name: str = "annotations",
    media_directory: Path | None = None,
) -> Task:
    """Creates the campaign, its documents, segments, systems and items, launches the task,
    and stores the annotations given (all checked before the first write). Media files named
    by a path are read from ``media_directory`` (the campaign file's; None: refused)."""
    languages = languages or parsed.languages
    if languages is None:
        raise PearmutImportError(
            "the file does not say its languages (its item ids do not start with one pair):"
            " give them (source-target, e.g. en-de)"
        )
    systems_named = {s for d in parsed.documents for i in d.items for s in i.outputs}
    reserved = sorted(s for s in systems_named if is_reserved_system_name(s))
    if reserved:
        raise PearmutImportError(
            f"system {reserved[0]!r} would merge with the human reference in the results; rename it"
        )
    media = pearmut_media_read(parsed=parsed, directory=media_directory)
    pages = _document_pages(parsed)
    description = [f"Imported from Pearmut ({parsed.protocol}, {parsed.assignment})."]
    dynamic = {k: v for k, v in parsed.info.items() if k.startswith("dynamic_")}
    if dynamic:
        description.append(f"Pearmut's dynamic settings: {json.dumps(dynamic)}.")
    description += parsed.notes
    try:
        campaign = campaign_create(
            name=name or parsed.campaign_id,
            source_language=languages[0],
            target_language=languages[1],
            owner=owner,
            description="\n".join(description),
        )
    except CampaignError as error:
        raise PearmutImportError(str(error)) from None
    settings: dict[str, Any] = {"instructions": parsed.instructions or None}
    if parsed.scale:
        settings["scale"] = parsed.scale
    if parsed.mqm_categories:
        settings["mqm_categories"] = parsed.mqm_categories
    contrastive = parsed.task_type in CONTRASTIVE_TYPES
    if contrastive:
        widest = max(len(i.outputs) for d in parsed.documents for i in d.items)
        settings["ranking_size"] = max(2, widest)
    task = task_create(campaign=campaign, task_type=parsed.task_type, **settings)
    items = _items(task, parsed)
    pearmut_media_store(task=task, parsed=parsed, rows=items, files=media)
    if pages:
        # Set once the documents exist (task_create refuses a document unit without them).
        task.unit = Unit.DOCUMENT
        task.page_size = min(MAX_PAGE_SIZE, max(len(d.items) for d in parsed.documents))
        task.save(update_fields=["unit", "page_size"])
        task_launch_pages(task=task, pages=_pages(parsed, items))
    else:
        unique = {id(item): item for row in items for item in row.values()}
        task_launch_items(task=task, items=list(unique.values()))
    answers = _answers(task, parsed, items, annotations, annotations_name)
    _store_answers(task, answers, annotations_name)
    results_snapshots_prepare(campaign_id=task.campaign_id)  # its results computed ahead
    return task


def _items(task: Task, parsed: PearmutCampaign) -> list[dict[str, Item]]:
    """One dict per Pearmut item (system → evalsite item), documents in the file's order."""
    campaign = task.campaign
    documents: dict[str, Document] = {}
    segments: dict[tuple[str, str, str, str], Segment] = {}
    for document in parsed.documents:
        documents.setdefault(
            document.name,
            Document(campaign=campaign, external_id=document.name[:200], position=len(documents)),
        )
        for item in document.items:
            segments.setdefault(
                _segment_key(document.name, item),
                Segment(
                    campaign=campaign,
                    document=documents[document.name],
                    index=len(segments),
                    source=item.source,
                ),
            )
    Document.objects.bulk_create(documents.values())
    Segment.objects.bulk_create(segments.values())
    names = sorted({s for d in parsed.documents for i in d.items for s in i.outputs})
    systems = {name: System(campaign=campaign, name=name[:200]) for name in names}
    System.objects.bulk_create(systems.values())
    rows = []
    for number, document in enumerate(parsed.documents):
        for position, item in enumerate(document.items):
            check = item.check or ("tutorial" if document.welcome else None)
            kind = ItemType.CHK if check else ItemType.TGT
            meta: dict[str, Any] = {
                "pearmut": {
                    "item_id": item.item_id,
                    "document": number,
                    "document_index": document.index,
                    "position": position,
                    "task": document.task,
                    "user": document.user,
                }
            }
            if document.welcome:
                meta["batch"] = "welcome"
            elif document.task is not None:
                meta["batch"] = document.task
            if item.instructions:
                meta["instructions"] = html_text(item.instructions)
            if check:
                meta["check"] = check
            if item.skippable:
                meta["skippable"] = True
            row = {}
            if task.task_type in CONTRASTIVE_TYPES:
                # One screen with every output; identical outputs are one candidate.
                candidates: dict[str, dict[str, Any]] = {}
                for system, text in item.outputs.items():
                    entry = candidates.setdefault(text, {"text": text, "systems": [], "type": kind})
                    entry["systems"].append(system)
                screen = Item(
                    task=task,
                    campaign=campaign,
                    item_type=kind,
                    segment=segments[_segment_key(document.name, item)],
                    candidates=list(candidates.values()),
                    source_meta=meta | ({"validation": item.validation} if item.validation else {}),
                )
                rows.append(dict.fromkeys(item.outputs, screen))
                continue
            for system, text in item.outputs.items():
                row[system] = Item(
                    task=task,
                    campaign=campaign,
                    item_type=kind,
                    segment=segments[_segment_key(document.name, item)],
                    system=systems[system],
                    candidates=[{"text": text, "systems": [system], "type": kind}],
                    source_meta=meta
                    | (
                        {"validation": item.validation[system]} if system in item.validation else {}
                    ),
                    prefilled_spans=item.prefilled.get(system, []),
                )
            rows.append(row)
    return rows


def _segment_key(document: str, item: PearmutItem) -> tuple[str, str, str, str]:
    """What makes a Pearmut item one segment: its document, id, source text and media."""
    return (document, item.item_id, item.source, item.media.reference if item.media else "")


def _document_pages(parsed: PearmutCampaign) -> bool:
    """Whether the documents become document pages (the module's rule), with a note why
    not when they might have."""
    if max(len(document.items) for document in parsed.documents) < 2:
        return False  # one item per document: nothing to page
    if not protocol_for(parsed.task_type).applies("unit"):
        parsed.notes.append(
            f"documents of several items are shown item by item: evalsite's {parsed.task_type}"
            " screens have no document pages"
        )
        return False
    if parsed.task_type in CONTRASTIVE_TYPES:
        # A contrastive document page (services/page_plan.py) is planned from the systems'
        # documents, not from one screen per item as a Pearmut file gives them.
        parsed.notes.append(
            "documents of several items are shown screen by screen: a Pearmut contrastive "
            "file is imported as screens, not as contrastive document pages"
        )
        return False
    if any(d.welcome or any(item.check for item in d.items) for d in parsed.documents):
        parsed.notes.append(
            "documents are shown item by item: tutorials and attention checks are judged one"
            " at a time, and a document page is submitted whole"
        )
        return False
    parsed.notes.append("each document is one page per system (document-level annotation)")
    return True


def _pages(parsed: PearmutCampaign, rows: list[dict[str, Item]]) -> list[list[Item]]:
    """Each document's items of one system in reading order, a page per document and system
    (systems in the order the document first names them)."""
    pages = []
    start = 0
    for document in parsed.documents:
        document_rows = rows[start : start + len(document.items)]
        start += len(document.items)
        systems = list(dict.fromkeys(s for item in document.items for s in item.outputs))
        for system in systems:
            pages.append([row[system] for row in document_rows if system in row])
    return pages


def _validation_of(validation: dict[str, Any], system: str) -> dict[str, Any]:
    return {"validation": validation[system]} if system in validation else {}


def _answers(
    task: Task,
    parsed: PearmutCampaign,
    items: list[dict[str, Item]],
    lines: Sequence[dict[str, Any]],
    name: str,
) -> list[_Answer]:
    """Every annotation of every line, checked; a line's document is found by its items."""
    # A document is known by its items' ids, sources and outputs: Pearmut gives the same
    # document to several tasks, each with other systems.
    by_items: dict[tuple[tuple[str, str, str], ...], list[int]] = {}
    first_row = []
    row = 0
    for number, parsed_document in enumerate(parsed.documents):
        signature = tuple(
            (item.item_id, item.source, _outputs_key(item.outputs))
            for item in parsed_document.items
        )
        by_items.setdefault(signature, []).append(number)
        first_row.append(row)
        row += len(parsed_document.items)
    answers: list[_Answer] = []
    seen: set[tuple[str, int, str]] = set()
    for line in lines:
        where = f"{name}, line {line['_line']}"
        unknown = sorted(set(line) - LINE_KEYS - {"_line"})
        if unknown:
            raise PearmutImportError(f"{where}: unknown key {', '.join(map(repr, unknown))}")
        for key in ("annotation", "item", "user_id"):
            if key not in line:
                raise PearmutImportError(f"{where}: missing {key!r}")
        document_items = line["item"]
        if not isinstance(document_items, list) or not all(
            isinstance(i, dict) for i in document_items
        ):
            raise PearmutImportError(f"{where}: 'item' must list the document's items")
        signature = tuple(
            (str(i.get("item_id")), i.get("src"), _outputs_key(i.get("tgt")))
            for i in document_items
        )
        matches = by_items.get(signature)
        if not matches:
            raise PearmutImportError(f"{where}: its document is not in the campaign file")
        user = str(line["user_id"])
        users = [m for m in matches if parsed.documents[m].user == user]
        document = (users or matches)[0]
        annotation = line["annotation"]
        if not isinstance(annotation, list) or len(annotation) != len(document_items):
            raise PearmutImportError(f"{where}: 'annotation' needs one entry per item")
        served, submitted = _times(line.get("actions"), where)
        judged = []
        for position, given in enumerate(annotation):
            if not isinstance(given, dict):
                raise PearmutImportError(f"{where}, item {position + 1}: expected an object")
            row_items = items[first_row[document] + position]
            for system, value in given.items():
                at = f"{where}, item {position + 1}, system {system!r}"
                if system not in row_items:
                    raise PearmutImportError(f"{at}: no such output in the campaign")
                answer = _answer(
                    task, user, row_items[system], system, value, at, served, submitted
                )
                if answer is None:
                    continue
                judged_key = (user, answer.item.external_id, system)
                if judged_key in seen:
                    raise PearmutImportError(f"{at}: {user!r} annotates this output twice")
                seen.add(judged_key)
                judged.append(answer)
        for answer in judged:
            answer.duration_ms = int((submitted - served).total_seconds() * 1000 / len(judged))
        answers += judged
    return answers


def _outputs_key(outputs: Any) -> str:
    return json.dumps(outputs, sort_keys=True, ensure_ascii=False)


def _times(actions: Any, where: str) -> tuple[datetime, datetime]:
    """The first and the last action's time (Unix seconds), or now when none is given."""
    if not actions:
        now = timezone.now()
        return now, now
    if not isinstance(actions, list):
        raise PearmutImportError(f"{where}: 'actions' must be a list")
    try:
        times = [float(action["time"]) for action in actions]
    except (KeyError, TypeError, ValueError):
        raise PearmutImportError(f"{where}: every action needs a time (Unix seconds)") from None
    return (
        datetime.fromtimestamp(min(times), tz=UTC),
        datetime.fromtimestamp(max(times), tz=UTC),
    )


def _answer(
    task: Task,
    user: str,
    item: Item,
    system: str,
    value: Any,
    where: str,
    served: datetime,
    submitted: datetime,
) -> _Answer | None:
    if not isinstance(value, dict):
        raise PearmutImportError(f"{where}: expected an object")
    unknown = sorted(set(value) - VALUE_KEYS)
    if unknown:
        raise PearmutImportError(f"{where}: unknown key {', '.join(map(repr, unknown))}")
    if value.get("textfield"):
        raise PearmutImportError(f"{where}: evalsite keeps no free text beside a judgment")
    score, raw_spans = value.get("score"), value.get("error_spans") or []
    if score is None and not raw_spans:
        return None  # not annotated
    target = next(c["text"] for c in item.candidates if system in c["systems"])
    if not isinstance(raw_spans, list):
        raise PearmutImportError(f"{where}: error_spans must be a list")
    if raw_spans and task.task_type not in SPAN_PROTOCOLS:
        raise PearmutImportError(f"{where}: error spans on a {task.task_type} task")
    try:
        spans = [pearmut_span(span, target, where) for span in raw_spans]
    except PearmutError as error:
        raise PearmutImportError(str(error)) from None
    low, high = _score_range(task)
    if task.task_type in ("mqm", "contrastive_mqm"):
        score = None  # computed from the spans
    elif task.task_type == "adequacy_fluency":
        raise PearmutImportError(f"{where}: annotations of two sliders are not read yet")
    elif not isinstance(score, int | float) or not low <= score <= high:
        raise PearmutImportError(f"{where}: score must be a number from {low} to {high}")
    else:
        score = round(score)
    return _Answer(user, item, score, spans, served, submitted, 0, system)


def _score_range(task: Task) -> tuple[int, int]:
    """0-100 (DA, ESA), or the Likert scale the task's slider matched."""
    if task.is_likert:
        for limits, scale in SLIDER_SCALES.items():
            if scale == task.scale:
                return limits
    return 0, 100


def _screens(answers: list[_Answer], where: str) -> list[_Answer]:
    """Contrastive: the answers of one annotator on one screen joined into one, with every
    candidate's score and spans (a candidate of several identical outputs must have been
    given the same score and spans for each)."""
    joined: dict[tuple[str, int], list[_Answer]] = {}
    for answer in answers:
        joined.setdefault((answer.user, answer.item.external_id), []).append(answer)
    screens = []
    for (user, number), parts in joined.items():
        by_system = {part.system: part for part in parts}
        scores: list[int] = []
        spans: list[tuple[int, Span]] = []
        for position, candidate in enumerate(parts[0].item.candidates):
            given = [by_system.get(system) for system in candidate["systems"]]
            if any(part is None for part in given):
                raise PearmutImportError(
                    f"{where}: {user!r} leaves a translation of screen {number} unjudged"
                )
            first = given[0]
            assert first is not None
            if any(
                part is not None and (part.score, part.spans) != (first.score, first.spans)
                for part in given
            ):
                raise PearmutImportError(
                    f"{where}: {user!r} judges identical outputs of screen {number} differently"
                )
            scores.append(first.score if first.score is not None else 0)
            spans += [(position, span) for span in first.spans]
        screen = parts[0]
        screen.score, screen.spans = None, []
        screen.candidate_scores, screen.candidate_spans = scores, spans
        screen.duration_ms = sum(part.duration_ms for part in parts)
        screens.append(screen)
    return screens


def _store_answers(task: Task, answers: list[_Answer], where: str = "annotations") -> None:
    if not answers:
        return
    contrastive = task.task_type in CONTRASTIVE_TYPES
    if contrastive:
        answers = _screens(answers, where)
    try:
        accounts = rater_accounts(usernames=sorted({answer.user for answer in answers}))
    except SpanImportError as error:
        raise PearmutImportError(str(error)) from None
    top = Batch.objects.filter(task=task).aggregate(number=Max("number"), group=Max("group"))
    replicas = dict(
        Slot.objects.filter(task=task, is_repeat=False)
        .values("item_id")
        .annotate(top=Max("replica"))
        .values_list("item_id", "top")
    )
    batches: dict[str, Batch] = {}
    for offset, user in enumerate(accounts):
        size = sum(1 for answer in answers if answer.user == user)
        batches[user] = Batch(
            task=task,
            number=(top["number"] or 0) + 1 + offset,
            group=(top["group"] or 0) + 1 + offset,
            size=size,
            judged=size,
            next_position=size,
            state=Batch.State.DONE,
            annotator=accounts[user],
        )
    Batch.objects.bulk_create(batches.values())
    positions: dict[str, int] = {}
    slots, judgments = [], []
    for answer in answers:
        replica = replicas[answer.item.id] = replicas.get(answer.item.id, -1) + 1
        position = positions[answer.user] = positions.get(answer.user, -1) + 1
        slot = Slot(
            task=task,
            item=answer.item,
            batch=batches[answer.user],
            position=position,
            replica=replica,
            state=Slot.State.DONE,
            annotator=accounts[answer.user],
            served_at=answer.served_at,
        )
        slots.append(slot)
        judgments.append(
            Judgment(
                slot=slot,
                task=task,
                item=answer.item,
                annotator=accounts[answer.user],
                task_type=task.task_type,
                score=answer.score,
                candidate_scores=(
                    answer.candidate_scores if task.task_type != "contrastive_mqm" else None
                ),
                served_at=answer.served_at,
                submitted_at=answer.submitted_at,
                duration_ms=answer.duration_ms,
            )
        )
    Slot.objects.bulk_create(slots)
    Judgment.objects.bulk_create(judgments)
    ErrorSpan.objects.bulk_create(
        error_span_row(judgment=judgment, span=span)
        for judgment, answer in zip(judgments, answers, strict=True)
        for span in answer.spans
    )
    if contrastive:
        ErrorSpan.objects.bulk_create(
            error_span_row(judgment=judgment, span=span, candidate=position)
            for judgment, answer in zip(judgments, answers, strict=True)
            for position, span in answer.candidate_spans or []
        )
        for judgment in judgments:
            output_judgments_create(judgment_id=judgment.id)
