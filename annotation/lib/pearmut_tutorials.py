"""Pearmut files as tutorials: every item's ``validation`` read as its expected answer
(annotation/lib/tutorials.py), each rule's ``warning`` as the explanation; an item with
``allow_skip`` may be skipped without failing the tutorial."""

from __future__ import annotations

from typing import Any

from annotation.lib.pearmut import PearmutCampaign
from annotation.lib.pearmut_items import PearmutItem, html_text
from annotation.lib.tutorials import (
    TutorialDraft,
    TutorialFile,
    TutorialFormatError,
    check_size,
    expected_rules,
)


def _pearmut_offset(value: Any, where: str, shift: int) -> int | list[int]:
    if isinstance(value, list):
        if len(value) != 2 or not all(type(v) is int for v in value):
            raise TutorialFormatError(f"{where} must be an offset or [low, high]")
        return [value[0] + shift, value[1] + shift]
    if type(value) is not int:
        raise TutorialFormatError(f"{where} must be an offset or [low, high]")
    return value + shift


def _pearmut_rule(rule: dict[str, Any], target: str, where: str) -> dict[str, Any]:
    """Pearmut's validation of one system as an expected answer: its inclusive ``end_i``
    made exclusive; ``start_i = end_i = len(target)`` (or "missing") is the missing marker;
    single offsets are exact, as Pearmut compares them."""
    expected: dict[str, Any] = {}
    if rule.get("score") is not None:
        expected["score"] = rule["score"]
    spans = []
    for i, span in enumerate(rule.get("error_spans") or []):
        at = f"{where}: error_spans {i + 1}"
        if not isinstance(span, dict):
            raise TutorialFormatError(f"{at} must be an object")
        kept = {key: span[key] for key in ("severity", "category") if span.get(key)}
        start, end = span.get("start_i"), span.get("end_i")
        if (start == end == len(target)) or (start == end == "missing"):
            spans.append({"missing": True, **kept})
            continue
        spans.append(
            {
                "start": _pearmut_offset(start, f"{at}: start_i", 0),
                "end": _pearmut_offset(end, f"{at}: end_i", 1),
                "tolerance": 0,
                **kept,
            }
        )
    if spans:
        expected["spans"] = spans
    if rule.get("score_greaterthan") is not None:
        expected["above"] = rule["score_greaterthan"]
    return expected


def tutorial_from_pearmut(
    campaign: PearmutCampaign, *, language: str = "", single: bool
) -> TutorialFile:
    """Every item of a Pearmut file (tutorial, welcome and check items alike, in the file's
    order) as a tutorial item: its ``validation`` is the expected answer and each rule's
    ``warning`` the explanation. Instructions are shown as text: their HTML is read as
    text, and a ``<script>`` is never run (its code is dropped, and a note says so).
    ``single``: the task shows one translation per screen, so items must have one."""
    parsed = TutorialFile(notes=list(campaign.notes))
    items: list[PearmutItem] = [item for doc in campaign.documents for item in doc.items]
    for item in items:
        where = f"item {item.item_id}"
        if single and len(item.outputs) != 1:
            raise TutorialFormatError(
                f"{where} shows {len(item.outputs)} translations; this task shows one per screen"
            )
        candidates: list[dict[str, Any]] = [
            {"name": name, "text": text} for name, text in item.outputs.items()
        ]
        if item.prefilled and len(candidates) == 1:
            candidates[0]["prefilled"] = next(iter(item.prefilled.values()))
        rules = {
            system: _pearmut_rule(rule, item.outputs[system], f"{where}: validation of {system!r}")
            for system, rule in item.validation.items()
        }
        # (A <script> dropped from the instructions is among the campaign's notes.)
        warnings = [rule["warning"] for rule in item.validation.values() if rule.get("warning")]
        parsed.items.append(
            TutorialDraft(
                language=language,
                external_id=item.item_id[:200],
                instructions=html_text(item.instructions),
                source=item.source,
                reference="",
                candidates=candidates,
                expected=expected_rules(
                    {k: v for k, v in rules.items() if v}, candidates, f"{where}: validation"
                ),
                explanation=html_text(" ".join(warnings)),
                skippable=item.allow_skip,
            )
        )
    if campaign.instructions:
        parsed.instructions[language] = campaign.instructions
    check_size(parsed, campaign.campaign_id or "Pearmut file")
    return parsed
