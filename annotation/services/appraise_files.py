"""Appraise files read and checked whole (``annotation.services.appraise`` imports them): the
manifest (campaign, languages, task type and options) and the batches (every item of every
batch, its type, texts and pre-filled spans). An unknown item type or a missing field stops
with a message naming the task, the item and the field; nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from annotation.errors import ApplicationError
from annotation.models import (
    ItemType,
    is_reserved_system_name,
)
from annotation.protocols import PROTOCOLS, Protocol
from metrics.spans import SpanError, parse_appraise_spans, span_to_dict

# (Appraise TASK_TYPE, the span protocol its TASK_OPTIONS name or None) → the protocol its
# campaigns are imported as, as each declares (``Protocol.appraise``): Direct and Document
# are adequacy on 0-100 (DA), or ESA / MQM with the option; Pairwise scores two outputs side
# by side on 0-100 sliders, our pairwise task on the 0-100 scale; ContrastiveDocument three
# outputs of each segment side by side (SQM sliders): contrastive DA, or cESA / contrastive
# MQM with the option.
APPRAISE_PROTOCOLS: dict[tuple[str, str | None], Protocol] = {
    name: protocol for protocol in PROTOCOLS.values() for name in protocol.appraise
}
APPRAISE_SCALE = "da100"  # Appraise's sliders score 0-100, where the protocol has a scale
# The Appraise task types read.
APPRAISE_TASKS = tuple(dict.fromkeys(name for name, _ in APPRAISE_PROTOCOLS))
# Appraise task types evalsite does not run yet, with the reason given.
NOT_YET: dict[str, str] = {}
# TASK_OPTIONS that make a campaign an error-span one (ESA → "esa"); items with pre-filled
# spans (their ``mqm`` field) make an ESA one ESA^AI.
SPAN_OPTIONS = {span.upper(): span for _, span in APPRAISE_PROTOCOLS if span}
ITEM_KINDS = {ItemType.TGT, ItemType.BAD, ItemType.REF, ItemType.CHK}
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
    span = chosen.pop() if chosen else None
    if span and (appraise_type, span) not in APPRAISE_PROTOCOLS:
        raise AppraiseError(f"{where}: ESA and MQM need TASK_TYPE Document (or Direct)")
    return span


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
    if appraise_type not in APPRAISE_TASKS:
        raise AppraiseError(
            f"{manifest_name}: unknown TASK_TYPE {appraise_type!r}; known: "
            f"{', '.join(APPRAISE_TASKS)}"
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
    if item_type not in ITEM_KINDS:
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
