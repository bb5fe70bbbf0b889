"""Appraise campaigns: a manifest and its batch JSON file become a campaign with one task.

Every item of every batch is imported, whatever the batch size; TGT, BAD, REF and CHK keep
their types for quality control. An unknown item type or a missing field stops the import
with a message naming the task, the item and the field, and nothing is written.

ContrastiveDocument batches (three outputs of each segment side by side) become a contrastive
task: contrastive DA (SQM sliders), or cESA / contrastive MQM with the ESA / MQM option. When
every item has a document id and each document the same systems throughout, it is a
contrastive document task: each document's run of items in a batch is one page (at most
``MAX_PAGE_SIZE`` segments), the outputs in the places of the document's first item, and the
document's closing score item (empty texts) becomes the page's score per output (unless
``SkipDocumentScores``); otherwise one screen per item with its targets in the batch's order,
the closing item left out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from annotation.errors import ApplicationError
from annotation.lib import json_limits
from annotation.models import (
    Campaign,
    Document,
    Item,
    ItemType,
    Segment,
    System,
    Task,
    is_reserved_system_name,
)
from annotation.protocols.settings import MAX_PAGE_SIZE
from annotation.services.campaigns import CampaignError, campaign_create
from annotation.services.page_plan import pages_mark
from annotation.services.tasks import task_create, task_launch_items
from metrics.spans import SpanError, parse_appraise_spans, span_to_dict

# Appraise task type → (our task type, scale). Appraise's pairwise task scores two outputs
# side by side on 0-100 sliders, which is our pairwise task on the 0-100 scale.
TASK_TYPES = {
    "Direct": ("adequacy", "da100"),
    "Document": ("adequacy", "da100"),
    "Pairwise": ("pairwise", "da100"),
    "PairwiseDocument": ("pairwise", "da100"),
    # Three outputs of each segment scored side by side (SQM sliders): contrastive DA, or
    # cESA / contrastive MQM with the ESA / MQM option.
    "ContrastiveDocument": ("contrastive_da", "da100"),
}
CONTRASTIVE_SPAN_TYPES = {"esa": "contrastive_esa", "mqm": "contrastive_mqm"}
# Appraise task types evalsite does not run yet, with the reason given.
NOT_YET: dict[str, str] = {}
# TASK_OPTIONS of a Document campaign that make it an error-span campaign; items with
# pre-filled spans (their ``mqm`` field) make an ESA one ESA^AI.
SPAN_OPTIONS = {"ESA": "esa", "MQM": "mqm"}
SPAN_APPRAISE_TYPES = ("Direct", "Document", "ContrastiveDocument")
ITEM_TYPES = {ItemType.TGT, ItemType.BAD, ItemType.REF, ItemType.CHK}
# Fields each item must have, by Appraise task type.
REQUIRED = {
    "Direct": ("itemID", "itemType", "sourceID", "sourceText", "targetID", "targetText"),
    "Document": (
        "itemID",
        "itemType",
        "documentID",
        "sourceID",
        "sourceText",
        "targetID",
        "targetText",
    ),
    "Pairwise": ("itemID", "itemType", "sourceID", "sourceText", "targets"),
    "PairwiseDocument": ("itemID", "itemType", "documentID", "segmentID", "segmentText", "targets"),
    "ContrastiveDocument": (
        "itemID",
        "itemType",
        "documentID",
        "segmentID",
        "segmentText",
        "targets",
    ),
}


class AppraiseError(ApplicationError):
    """A manifest or batch problem, naming the file, task, item and field."""


@dataclass
class ParsedItem:
    item_type: str
    document: str
    segment_key: tuple[str, str, str]  # (document, source id, item id)
    source: str
    targets: list[tuple[str, str]]  # (target id, text)
    meta: dict[str, Any] = field(default_factory=dict)
    prefilled: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ParsedCampaign:
    name: str
    source_language: str
    target_language: str
    appraise_type: str
    redundancy: int
    items: list[ParsedItem]
    span_protocol: str | None = None  # "esa" or "mqm" from TASK_OPTIONS
    document_scores: bool = True  # TASK_OPTIONS without SkipDocumentScores


def _options(manifest: dict[str, Any], where: str) -> list[str]:
    """The manifest's TASK_OPTIONS (a string like "ESA;..." or a list), upper case."""
    options = manifest.get("TASK_OPTIONS", "")
    if isinstance(options, str):
        options = options.replace(",", ";").split(";")
    if not isinstance(options, list):
        raise AppraiseError(f"{where}: TASK_OPTIONS must be text or a list")
    return [str(option).strip().upper() for option in options]


def _span_protocol(manifest: dict[str, Any], appraise_type: str, where: str) -> str | None:
    """ESA or MQM from the manifest's TASK_OPTIONS."""
    chosen = {SPAN_OPTIONS[o] for o in _options(manifest, where) if o in SPAN_OPTIONS}
    if len(chosen) > 1:
        raise AppraiseError(f"{where}: TASK_OPTIONS asks for both ESA and MQM; choose one")
    if chosen and appraise_type not in SPAN_APPRAISE_TYPES:
        raise AppraiseError(f"{where}: ESA and MQM need TASK_TYPE Document (or Direct)")
    return chosen.pop() if chosen else None


def _text(value: Any, where: str, name: str) -> str:
    if not isinstance(value, str):
        raise AppraiseError(f"{where}: field {name!r} must be text, not {type(value).__name__}")
    return value


def appraise_parse(
    *, manifest: Any, batches: Any, manifest_name: str = "manifest", batches_name: str = "batches"
) -> ParsedCampaign:
    """Checks everything and returns what to import; writes nothing."""
    if not isinstance(manifest, dict):
        raise AppraiseError(f"{manifest_name}: expected a JSON object")
    for key in ("CAMPAIGN_NAME", "TASKS_TO_ANNOTATORS"):
        if key not in manifest:
            raise AppraiseError(f"{manifest_name}: missing field {key!r}")
    rows = manifest["TASKS_TO_ANNOTATORS"]
    if (
        not isinstance(rows, list)
        or not rows
        or not all(isinstance(row, list) and len(row) == 5 for row in rows)
    ):
        raise AppraiseError(
            f"{manifest_name}: TASKS_TO_ANNOTATORS needs rows of [source "
            "language, target language, mode, annotators, tasks]"
        )
    appraise_type = manifest.get("TASK_TYPE", "Direct")
    if appraise_type in NOT_YET:
        raise AppraiseError(
            f"{manifest_name}: TASK_TYPE {appraise_type!r}: {NOT_YET[appraise_type]}"
        )
    if appraise_type not in TASK_TYPES:
        raise AppraiseError(
            f"{manifest_name}: unknown TASK_TYPE {appraise_type!r}; known: {', '.join(TASK_TYPES)}"
        )
    redundancy = manifest.get("REDUNDANCY", 1)
    if not isinstance(redundancy, int) or redundancy < 1:
        raise AppraiseError(f"{manifest_name}: REDUNDANCY must be a whole number from 1")
    span_protocol = _span_protocol(manifest, appraise_type, manifest_name)
    if not isinstance(batches, list) or not batches:
        raise AppraiseError(f"{batches_name}: expected a non-empty list of tasks")
    items: list[ParsedItem] = []
    for number, batch in enumerate(batches, start=1):
        where_task = f"{batches_name}: task {number}"
        if not isinstance(batch, dict) or "items" not in batch or "task" not in batch:
            raise AppraiseError(f"{where_task}: expected an object with 'items' and 'task'")
        if not isinstance(batch["items"], list) or not batch["items"]:
            raise AppraiseError(f"{where_task}: 'items' must be a non-empty list")
        for position, raw in enumerate(batch["items"], start=1):
            items.append(_parse_item(raw, appraise_type, number, f"{where_task}, item {position}"))
    source_language, target_language = str(rows[0][0]), str(rows[0][1])
    return ParsedCampaign(
        str(manifest["CAMPAIGN_NAME"]),
        source_language,
        target_language,
        appraise_type,
        redundancy,
        items,
        span_protocol,
        "SKIPDOCUMENTSCORES" not in _options(manifest, manifest_name),
    )


def _parse_item(raw: Any, appraise_type: str, batch: int, where: str) -> ParsedItem:
    if not isinstance(raw, dict):
        raise AppraiseError(f"{where}: expected a JSON object")
    if "itemID" in raw:
        where = f"{where} (itemID {raw['itemID']})"
    for name in REQUIRED[appraise_type]:
        if name not in raw:
            raise AppraiseError(f"{where}: missing field {name!r}")
    item_type = raw["itemType"]
    if item_type not in ITEM_TYPES:
        raise AppraiseError(f"{where}: unknown item type {item_type!r}; known: TGT, BAD, REF, CHK")
    document = str(raw.get("documentID", ""))
    if appraise_type in ("PairwiseDocument", "ContrastiveDocument"):
        source_id, source = str(raw["segmentID"]), _text(raw["segmentText"], where, "segmentText")
    else:
        source_id, source = str(raw["sourceID"]), _text(raw["sourceText"], where, "sourceText")
    if "targets" in REQUIRED[appraise_type]:
        targets_raw = raw["targets"]
        contrastive = appraise_type == "ContrastiveDocument"
        low, high = (2, 10) if contrastive else (1, 2)
        if not isinstance(targets_raw, list) or not low <= len(targets_raw) <= high:
            raise AppraiseError(f"{where}: field 'targets' must list {low} to {high} outputs")
        targets = []
        for index, target in enumerate(targets_raw, start=1):
            for name in ("targetID", "targetText"):
                if not isinstance(target, dict) or name not in target:
                    raise AppraiseError(f"{where}, target {index}: missing field {name!r}")
            targets.append(
                (str(target["targetID"]), _text(target["targetText"], where, "targetText"))
            )
    else:
        targets = [(str(raw["targetID"]), _text(raw["targetText"], where, "targetText"))]
    reserved = [tid for tid, _ in targets if is_reserved_system_name(tid)]
    if reserved and item_type != "REF":
        raise AppraiseError(
            f"{where}: system {reserved[0]!r} would merge with the human reference in the "
            "results; rename it"
        )
    meta = {
        key: raw[key] for key in ("itemID", "_block", "_item", "isCompleteDocument") if key in raw
    }
    meta["batch"] = batch
    spans = raw.get("mqm")
    if isinstance(spans, dict):
        # A tutorial item (WMT24 ESA campaigns): {"tutorial": {instruction, expected answer},
        # "payload": the spans shown pre-filled}. The instruction is kept with the item.
        if "tutorial" in spans:
            meta["tutorial"] = spans["tutorial"]
        spans = spans.get("payload", [])
    return ParsedItem(
        item_type,
        document,
        (document, source_id, str(raw["itemID"])),
        source,
        targets,
        meta,
        _prefilled(spans, targets[0][1], where),
    )


def _prefilled(raw: Any, target: str, where: str) -> list[dict[str, Any]]:
    """An item's pre-filled spans (Appraise's ``mqm`` field, inclusive ends), checked
    against its translation and stored end-exclusive."""
    if raw is None or raw == []:
        return []
    try:
        spans = parse_appraise_spans(raw, prefilled=True)
        for span in spans:
            span.check_within(target)
    except (SpanError, ValueError) as error:
        raise AppraiseError(f"{where}: field 'mqm': {error}") from None
    return [span_to_dict(span) for span in spans]


@transaction.atomic
def appraise_import(*, parsed: ParsedCampaign, owner: User) -> Task:
    """Creates the campaign, its segments, systems and items, and launches the task."""
    try:
        campaign = campaign_create(
            name=parsed.name,
            source_language=parsed.source_language,
            target_language=parsed.target_language,
            owner=owner,
            description=f"Imported from Appraise ({parsed.appraise_type}).",
        )
    except CampaignError as error:
        raise AppraiseError(str(error)) from None
    has_scores = any(_document_score_only(i, parsed.appraise_type) for i in parsed.items)
    parsed.items = [i for i in parsed.items if not _document_score_only(i, parsed.appraise_type)]
    segments = _segments(campaign, parsed)
    systems = _systems(campaign, parsed)
    task_type, scale = TASK_TYPES[parsed.appraise_type]
    if parsed.span_protocol == "mqm":
        task_type = "mqm"
    elif parsed.span_protocol == "esa":
        # Tutorial items may show a span to remove; that does not make the campaign ESA^AI.
        prefilled = any(item.prefilled and "tutorial" not in item.meta for item in parsed.items)
        task_type = "esa_prefilled" if prefilled else "esa"
    # Error-span protocols have no scale (ESA's score is 0-100 by definition).
    scaled: dict[str, Any] = {} if parsed.span_protocol else {"scale": scale}
    places: dict[str, list[str]] | None = None
    if parsed.appraise_type == "ContrastiveDocument":
        task_type = CONTRASTIVE_SPAN_TYPES.get(parsed.span_protocol or "", "contrastive_da")
        scaled = {"ranking_size": max(len(item.targets) for item in parsed.items)}
        places = _document_places(parsed.items)
        if places is not None:
            scaled |= {
                "unit": "document",
                "page_size": min(MAX_PAGE_SIZE, _longest_run(parsed.items)),
                "document_score": has_scores and parsed.document_scores,
            }
    task = task_create(
        campaign=campaign, task_type=task_type, judgments_per_item=parsed.redundancy, **scaled
    )
    items = []
    for parsed_item in parsed.items:
        single = len(parsed_item.targets) == 1
        target_id = parsed_item.targets[0][0]
        system = systems[target_id] if single and parsed_item.item_type != ItemType.REF else None
        items.append(
            Item(
                task=task,
                campaign=campaign,
                item_type=parsed_item.item_type,
                segment=segments[parsed_item.segment_key],
                system=system,
                candidates=_candidates(parsed_item, places),
                source_meta=parsed_item.meta,
                prefilled_spans=parsed_item.prefilled,
            )
        )
    task_launch_items(task=task, items=items)
    if places is not None:
        pages_mark(task=task)
    _link_bad_references(task)
    return task


def _candidates(item: ParsedItem, places: dict[str, list[str]] | None) -> list[dict[str, Any]]:
    """The item's targets as candidates in the batch's order; on a document page each
    with its place (``columns``, the page's order: its document's first item's)."""
    candidates = []
    for tid, text in item.targets:
        candidate: dict[str, Any] = {"text": text, "systems": [tid], "type": item.item_type}
        if places is not None:
            candidate["columns"] = [places[item.document].index(tid)]
        candidates.append(candidate)
    return candidates


def _document_places(items: list[ParsedItem]) -> dict[str, list[str]] | None:
    """Each document's systems in the order of its first item (their places on its pages),
    when every item has a document and shows that document's systems; else None."""
    places: dict[str, list[str]] = {}
    for item in items:
        systems = [tid for tid, _ in item.targets]
        if not item.document or len(set(systems)) != len(systems):
            return None
        first = places.setdefault(item.document, systems)
        if sorted(first) != sorted(systems):
            return None
    return places


def _longest_run(items: list[ParsedItem]) -> int:
    """The most consecutive items of one document in one batch (a page of the import)."""
    longest, run, previous = 0, 0, None
    for item in items:
        key = (item.meta.get("batch"), item.document)
        run = run + 1 if key == previous else 1
        previous = key
        longest = max(longest, run)
    return longest


def _document_score_only(item: ParsedItem, appraise_type: str) -> bool:
    """A contrastive batch ends its document with an item of empty texts (Appraise asks for
    the document's score there): not a screen (a document task scores its pages)."""
    return (
        appraise_type == "ContrastiveDocument"
        and bool(item.meta.get("isCompleteDocument"))
        and not item.source.strip()
        and not any(text.strip() for _, text in item.targets)
    )


def _segments(campaign: Campaign, parsed: ParsedCampaign) -> dict[tuple[str, str, str], Segment]:
    texts: dict[tuple[str, str, str], str] = {}
    for item in parsed.items:
        texts.setdefault(item.segment_key, item.source)
    documents: dict[str, Document] = {}
    for document, _, _ in texts:
        documents.setdefault(
            document,
            Document(
                campaign=campaign,
                external_id=document or "appraise",
                position=len(documents),
                implicit=not document,  # items without a documentID: no context from them
            ),
        )
    Document.objects.bulk_create(documents.values())
    segments = {
        key: Segment(campaign=campaign, document=documents[key[0]], index=index, source=text)
        for index, (key, text) in enumerate(texts.items())
    }
    Segment.objects.bulk_create(segments.values())
    return segments


def _systems(campaign: Campaign, parsed: ParsedCampaign) -> dict[str, System]:
    names = sorted(
        {tid for item in parsed.items if item.item_type != ItemType.REF for tid, _ in item.targets}
    )
    systems = {name: System(campaign=campaign, name=name[:200]) for name in names}
    System.objects.bulk_create(systems.values())
    return systems


def _link_bad_references(task: Task) -> None:
    """A BAD item's original is the TGT item of the same segment and system, when present."""
    originals = {
        (item.segment_id, item.system_id): item
        for item in Item.objects.filter(task=task, item_type=ItemType.TGT, system__isnull=False)
    }
    bad = list(Item.objects.filter(task=task, item_type=ItemType.BAD, system__isnull=False))
    for item in bad:
        original = originals.get((item.segment_id, item.system_id))
        item.original_id = original.id if original else None
    Item.objects.bulk_update(bad, ["original"])


def appraise_load(
    *, manifest_text: str, batches_text: str, manifest_name: str, batches_name: str
) -> ParsedCampaign:
    """Parses the two JSON files' text, naming the file on a syntax error."""
    documents = []
    for name, text in ((manifest_name, manifest_text), (batches_name, batches_text)):
        try:
            documents.append(json_limits.loads(text))
        except json.JSONDecodeError as error:
            raise AppraiseError(f"{name}, line {error.lineno}: invalid JSON: {error.msg}") from None
    return appraise_parse(
        manifest=documents[0],
        batches=documents[1],
        manifest_name=manifest_name,
        batches_name=batches_name,
    )
