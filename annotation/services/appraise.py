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
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from annotation.lib import json_limits
from annotation.models import (
    Campaign,
    Document,
    Item,
    ItemType,
    Segment,
    System,
    Task,
)
from annotation.protocols import PROTOCOLS, Protocol
from annotation.protocols.settings import MAX_PAGE_SIZE
from annotation.services.appraise_files import (
    APPRAISE_PROTOCOLS,
    APPRAISE_SCALE,
    AppraiseError,
    ParsedCampaign,
    ParsedItem,
    appraise_parse,
)
from annotation.services.campaigns import CampaignError, campaign_create
from annotation.services.page_plan import pages_mark
from annotation.services.tasks import task_create, task_launch_items


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
    protocol = APPRAISE_PROTOCOLS[(parsed.appraise_type, parsed.span_protocol)]
    # Tutorial items may show a span to remove; that does not make the campaign ESA^AI.
    if any(item.prefilled and "tutorial" not in item.meta for item in parsed.items):
        protocol = _prefilled_variant(protocol)
    # Error-span protocols have no scale (ESA's score is 0-100 by definition).
    scaled: dict[str, Any] = {"scale": APPRAISE_SCALE} if protocol.applies("scale") else {}
    places: dict[str, list[str]] | None = None
    if protocol.contrastive:
        scaled |= {"ranking_size": max(len(item.targets) for item in parsed.items)}
        places = _document_places(parsed.items)
        if places is not None:
            scaled |= {
                "unit": "document",
                "page_size": min(MAX_PAGE_SIZE, _longest_run(parsed.items)),
                "document_score": has_scores and parsed.document_scores,
            }
    task = task_create(
        campaign=campaign,
        task_type=protocol.task_type,
        judgments_per_item=parsed.redundancy,
        **scaled,
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


def _prefilled_variant(protocol: Protocol) -> Protocol:
    """The protocol varying ``protocol`` with pre-filled spans (ESA: ESA^AI), or itself."""
    return next(
        (
            variant
            for variant in PROTOCOLS.values()
            if variant.prefilled_spans and variant.variant_of == protocol.task_type
        ),
        protocol,
    )


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
