"""Pearmut campaigns (and their annotations) imported as an evalsite campaign with one task.

The file is read and checked whole by ``annotation.lib.pearmut`` (which says how each protocol,
assignment mode and option maps); the annotations file is checked whole against it
(``pearmut_answers``) before anything is written. Annotations become judgments of accounts
that cannot log in (named by Pearmut's user ids), in finished batches of their own: the
task's planned batches still ask for fresh judgments.

Documents of several items become document pages (``unit`` "document": one page per document
and system, ``annotation.services.page_plan``) when the protocol has document pages and no
document holds a tutorial or an attention check (a page is submitted whole). Media sources
become the segment's ``SourceMedia``: a data: URL, or (``manage.py import_pearmut``) a file
beside the campaign file; a web URL is refused, naming it, since evalsite fetches nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from annotation.lib import json_limits
from annotation.lib.pearmut import PearmutCampaign, pearmut_parse
from annotation.lib.pearmut_items import PearmutError, PearmutItem, html_text
from annotation.models import (
    Document,
    Item,
    ItemType,
    Segment,
    System,
    Task,
    Unit,
    is_reserved_system_name,
)
from annotation.protocols import PEARMUT_READINGS, protocol_for
from annotation.protocols.settings import MAX_PAGE_SIZE
from annotation.services.campaigns import CampaignError, campaign_create
from annotation.services.pearmut_answers import pearmut_annotation_lines, pearmut_answers_store
from annotation.services.pearmut_media import (
    PearmutImportError,
    pearmut_media_read,
    pearmut_media_store,
)
from annotation.services.results_snapshots import results_snapshots_prepare
from annotation.services.tasks import task_create, task_launch_items, task_launch_pages


def pearmut_load(*, text: str, name: str) -> PearmutCampaign:
    """Parses and checks a campaign file's text, naming the file on any problem."""
    try:
        data = json_limits.loads(text)
    except json.JSONDecodeError as error:
        raise PearmutImportError(
            f"{name}, line {error.lineno}: invalid JSON: {error.msg}"
        ) from None
    try:
        return pearmut_parse(data, name=name, task_types=PEARMUT_READINGS)
    except PearmutError as error:
        raise PearmutImportError(str(error)) from None


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
    if protocol_for(parsed.task_type).contrastive:
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
    pearmut_answers_store(
        task=task, parsed=parsed, items=items, lines=annotations, name=annotations_name
    )
    results_snapshots_prepare(campaign_id=task.campaign_id)  # its results computed ahead
    return task


def _items(task: Task, parsed: PearmutCampaign) -> list[dict[str, Item]]:
    """One dict per Pearmut item (system → evalsite item), documents in the file's order."""
    campaign = task.campaign
    contrastive = protocol_for(task.task_type).contrastive
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
            if contrastive:
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
    protocol = protocol_for(parsed.task_type)
    if not protocol.applies("unit"):
        parsed.notes.append(
            f"documents of several items are shown item by item: evalsite's {parsed.task_type}"
            " screens have no document pages"
        )
        return False
    if protocol.contrastive:
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
