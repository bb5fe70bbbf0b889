"""Pearmut campaign files, read and checked whole before anything is written.

A campaign is ``{"info", "campaign_id", "data", "data_welcome"?}``. ``info.protocol`` is the
protocol, ``info.assignment`` how documents reach annotators: ``task-based`` (``data`` is tasks,
each a list of documents for one annotator), ``single-stream`` or ``dynamic`` (``data`` is one
list of documents). A document is a list of items ``{"item_id", "src", "tgt": {system: text},
"instructions"?, "validation"?, "error_spans"?, "skippable"?}``. Pearmut's own task cache
(``data/tasks/<campaign>.json``: ``data`` keyed by user id, plus its ``token``) reads as
task-based, one task per user. One item is read and checked by ``pearmut_items``.

How it maps onto evalsite (each an explicit rule; anything else is refused by name):

- The file reads as one of ``READINGS``: Pearmut's protocol name, for DA with its
  ``sliders`` (one slider: adequacy, or fluency if so named; two named adequacy and fluency:
  both; the task's scale is the one the sliders match, else 0-100), for ESA with items that
  carry pre-filled ``error_spans``. Which task type each reading is imported as, the caller
  says (``task_types``: every protocol declares its readings, ``Protocol.pearmut``; this
  module names no task type): DA is adequacy, ESA with pre-filled spans ESA^AI, and so on.
  A reading no protocol takes is refused; pre-filled spans read as plain spans where no
  protocol takes the pre-filled reading (MQM).
- MQM: the file's ``mqm_categories`` (``{category: [subcategories]}``, "" meaning the
  category itself).
- cESA: one screen per item with its outputs in the file's order (identical outputs shown
  once, which must have been judged alike); pre-filled spans are refused.
- Media sources: a ``src`` holding one ``<img>``, ``<audio>`` or ``<video>`` (its ``src``, or
  that of a ``<source>`` inside) becomes the segment's media file (``PearmutItem.media``),
  the text around it the segment's source. Where the file comes from is the importer's
  business (annotation/services/pearmut_media.py: a data: URL or a file beside the
  campaign file; a web URL is refused, naming it). Refused here: an embedded page
  (``<iframe>``, ``<embed>``, ``<object>``), two media in one source, and a translation that
  is a media file (evalsite annotates translations as text).
- Documents (lists of items) of ESA, ESA^AI, MQM and DA campaigns become document pages
  (``unit`` "document", one page per document and system) when a document has more than
  one item and no document holds a tutorial or attention check; otherwise, and for cESA,
  each item is its own screen.
- Otherwise an item showing several outputs becomes one evalsite item per output, in order.
- task-based: each Pearmut task is one batch, in the file's order. single-stream: one pool
  of items cut into batches. dynamic: also one pool (every system's output of every item);
  Pearmut's choice of the systems to show by their running scores is not applied, and its
  settings are kept in the campaign's description.
- Items with a ``validation`` (tutorials: ``allow_skip``; attention checks: loud with a
  ``warning``, silent without) are check items (``CHK``, outside the rankings) with their
  expected answers in ``source_meta``; ``data_welcome`` documents (tutorials shown first)
  are kept as check items of a batch of their own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from annotation.lib.pearmut_items import (
    PearmutError,
    PearmutItem,
    html_text,
    item_parse,
    list_value,
    no_unknown,
    text_value,
)

# How a campaign file reads: Pearmut's protocol, and what changes the task it is imported as
# (DA's sliders, ESA's pre-filled spans). A protocol declares the readings it takes
# (``Protocol.pearmut``); ``pearmut_parse`` is given them as ``task_types``.
READINGS = (
    "DA",
    "DA fluency",
    "DA adequacy+fluency",
    "ESA",
    "ESA prefilled",
    "MQM",
    "cESA",
)
PREFILLED = " prefilled"  # a reading whose items come with spans marked by a system
# Protocols Pearmut has that evalsite does not run yet, with the reason given.
NOT_YET: dict[str, str] = {}
ASSIGNMENTS = ("task-based", "single-stream", "dynamic")
TOP_KEYS = {"info", "campaign_id", "data", "data_welcome", "token"}
INFO_KEYS = {
    "protocol",
    "assignment",
    "users",
    "show_model_names",
    "textfield",
    "shuffle",
    "instructions",
    "instructions_goodbye",
    "mqm_categories",
    "sliders",
    "dynamic_models",
    "dynamic_coldstart",
    "dynamic_coldstart_pool",
}
DYNAMIC_KEYS = ("dynamic_models", "dynamic_coldstart", "dynamic_coldstart_pool")
SLIDER_KEYS = {"name", "min", "max", "step"}
# Likert scales by a slider's (min, max); sliders step by 1.
SLIDER_SCALES = {(1, 5): "likert5", (1, 4): "taus4", (1, 7): "nist7", (0, 100): "da100"}
# DA's sliders by their names (lower-cased, sorted) -> the reading; one slider otherwise named
# asks for adequacy, two must be these.
SLIDER_READINGS = {("fluency",): "DA fluency", ("adequacy", "fluency"): "DA adequacy+fluency"}
LANGUAGE_PREFIX = re.compile(r"^([a-z]{2,3})-([a-z]{2,3})(?=[_\-#]|$)")
DOCUMENT_SEPARATOR = "_#_"


@dataclass
class PearmutDocument:
    task: int | None  # the Pearmut task (task-based), else None
    index: int  # position in its task, or in the stream
    name: str
    items: list[PearmutItem]
    welcome: bool = False
    user: str | None = None  # the task cache's user id


@dataclass
class PearmutCampaign:
    campaign_id: str
    protocol: str  # the Pearmut name
    task_type: str  # as ``task_types`` maps its reading
    scale: str | None
    assignment: str
    documents: list[PearmutDocument]
    instructions: str = ""
    mqm_categories: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    languages: tuple[str, str] | None = None
    info: dict[str, Any] = field(default_factory=dict)


def pearmut_parse(
    data: Any, *, task_types: Mapping[str, str], name: str = "campaign"
) -> PearmutCampaign:
    """Checks the whole campaign file and returns what to import; writes nothing.
    ``task_types``: the task type each reading (``READINGS``) is imported as, those that
    evalsite runs."""
    if not isinstance(data, dict):
        raise PearmutError(f"{name}: expected a JSON object")
    no_unknown(data, TOP_KEYS, f"{name}: unknown top-level key")
    for key in ("info", "campaign_id", "data"):
        if key not in data:
            raise PearmutError(f"{name}: missing {key!r}")
    info = data["info"]
    if not isinstance(info, dict):
        raise PearmutError(f"{name}: 'info' must be an object")
    no_unknown(info, INFO_KEYS, f"{name}: unknown info option")
    protocol = info.get("protocol")
    if protocol in NOT_YET:
        raise PearmutError(f"{name}: protocol {protocol!r}: {NOT_YET[protocol]}")
    protocols = pearmut_protocols(task_types)
    if protocol not in protocols:
        known = ", ".join([*protocols, *NOT_YET])
        raise PearmutError(f"{name}: unknown protocol {protocol!r}; Pearmut's are {known}")
    assignment = info.get("assignment", "task-based")
    if assignment not in ASSIGNMENTS:
        raise PearmutError(
            f"{name}: unknown assignment {assignment!r}; known: {', '.join(ASSIGNMENTS)}"
        )
    notes: list[str] = []
    reading, scale = _protocol(info, protocol, name)
    _options(info, protocol, assignment, name, notes)
    if "token" in data:
        if not isinstance(data["data"], dict):
            raise PearmutError(f"{name}: 'token' belongs to Pearmut's task cache (data by user)")
        notes.append("token: Pearmut's own access token, not used by evalsite")
    documents = _documents(data["data"], assignment, name)
    if "data_welcome" in data:
        welcome = _document_list(data["data_welcome"], f"{name}: data_welcome")
        for document in welcome:
            document.welcome = True
        documents = welcome + documents
    items = [item for document in documents for item in document.items]
    for document in documents:
        where = f"{name}: document {document.name!r}"
        for item in document.items:
            _item_rules(item, protocol, f"{where}, item {item.item_id!r}")
    # A tutorial may show a span to remove; that does not make the campaign ESA^AI.
    if reading + PREFILLED in task_types and any(
        item.prefilled and not item.check for item in items
    ):
        reading += PREFILLED
    if reading not in task_types:
        raise PearmutError(f"{name}: evalsite has no task for a Pearmut {reading} campaign")
    notes += [
        f"item {item.item_id!r}: instructions: a <script> was dropped (evalsite never runs one)"
        for item in items
        if item.script_dropped
    ]
    several = sum(1 for item in items if len(item.outputs) > 1)
    if several and protocol != "cESA":
        notes.append(
            f"{several} items show several outputs on one screen; evalsite shows each output"
            " on its own screen"
        )
    return PearmutCampaign(
        campaign_id=text_value(data["campaign_id"], f"{name}: campaign_id"),
        protocol=protocol,
        task_type=task_types[reading],
        scale=scale,
        assignment=assignment,
        documents=documents,
        instructions=html_text(info.get("instructions", "")),
        mqm_categories=_mqm_categories(info.get("mqm_categories"), name),
        notes=notes,
        languages=_languages(items),
        info=info,
    )


def pearmut_protocols(task_types: Mapping[str, str]) -> list[str]:
    """Pearmut's protocols that some reading of ``task_types`` takes, in their order."""
    return list(dict.fromkeys(reading.split(" ")[0] for reading in task_types))


def _protocol(info: dict[str, Any], protocol: str, name: str) -> tuple[str, str | None]:
    """The file's reading (before its items' pre-filled spans are seen) and its scale."""
    if "mqm_categories" in info and protocol != "MQM":
        raise PearmutError(f"{name}: mqm_categories needs protocol MQM, not {protocol}")
    if "sliders" in info and protocol != "DA":
        raise PearmutError(f"{name}: sliders need protocol DA, not {protocol}")
    if protocol != "DA":
        return protocol, None
    sliders = info.get("sliders")
    if sliders is None:
        return "DA", "da100"
    if not isinstance(sliders, list) or not 1 <= len(sliders) <= 2:
        raise PearmutError(f"{name}: sliders must list one or two sliders")
    scales, names = [], []
    for slider in sliders:
        if not isinstance(slider, dict):
            raise PearmutError(f"{name}: a slider must be an object")
        no_unknown(slider, SLIDER_KEYS, f"{name}: unknown slider key")
        label = str(slider.get("name", ""))
        low, high, step = slider.get("min"), slider.get("max"), slider.get("step", 1)
        limits = (low, high)
        scale = SLIDER_SCALES.get(limits) if step == 1 else None  # type: ignore[arg-type]
        if scale is None:
            ranges = ", ".join(f"{lo}-{hi}" for lo, hi in SLIDER_SCALES)
            raise PearmutError(
                f"{name}: slider {label!r} runs {low}-{high} by {step}; evalsite's scales run"
                f" {ranges} by 1"
            )
        scales.append(scale)
        names.append(label.lower())
    if len(sliders) == 1:
        return SLIDER_READINGS.get((names[0],), "DA"), scales[0]
    reading = SLIDER_READINGS.get(tuple(sorted(names)))
    if reading is None or scales[0] != scales[1]:
        raise PearmutError(
            f"{name}: two sliders must be Adequacy and Fluency on the same scale (evalsite's"
            " adequacy and fluency task)"
        )
    return reading, scales[0]


def _options(
    info: dict[str, Any], protocol: str, assignment: str, name: str, notes: list[str]
) -> None:
    dynamic = [key for key in DYNAMIC_KEYS if key in info]
    if dynamic and assignment != "dynamic":
        raise PearmutError(f"{name}: {', '.join(dynamic)} need assignment 'dynamic'")
    if assignment == "dynamic":
        notes.append(
            "dynamic assignment is imported as one pool of every system's outputs (evalsite"
            " does not choose the systems by their running scores)"
        )
    textfield = info.get("textfield", "hidden")
    if textfield != "hidden":
        raise PearmutError(
            f"{name}: textfield {textfield!r}: evalsite asks for no free text beside a judgment"
        )
    if info.get("show_model_names"):
        notes.append("show_model_names: evalsite keeps system names hidden from annotators")
    if info.get("shuffle"):
        notes.append("shuffle: evalsite keeps the file's order inside each task")
    if "users" in info:
        if not isinstance(info["users"], int | list):
            raise PearmutError(f"{name}: users must be a number or a list")
        notes.append("users: any number of evalsite annotators may claim batches")
    if "instructions_goodbye" in info:
        text_value(info["instructions_goodbye"], f"{name}: instructions_goodbye")
        notes.append(
            "instructions_goodbye is not shown: evalsite ends a batch with its own page"
            " (a crowd task with its completion code)"
        )


def _documents(data: Any, assignment: str, name: str) -> list[PearmutDocument]:
    if isinstance(data, dict):
        if assignment != "task-based":
            raise PearmutError(f"{name}: data keyed by user needs assignment 'task-based'")
        documents = []
        for number, (user, task) in enumerate(data.items()):
            for document in _document_list(task, f"{name}: user {user!r}", task=number):
                document.user = str(user)
                documents.append(document)
        return documents
    if assignment == "task-based":
        if not isinstance(data, list) or not data:
            raise PearmutError(f"{name}: task-based data must be a non-empty list of tasks")
        return [
            document
            for number, task in enumerate(data)
            for document in _document_list(task, f"{name}: task {number + 1}", task=number)
        ]
    return _document_list(data, f"{name}: data")


def _document_list(data: Any, where: str, task: int | None = None) -> list[PearmutDocument]:
    if not isinstance(data, list) or not data:
        raise PearmutError(f"{where}: expected a non-empty list of documents")
    documents = []
    for index, raw in enumerate(data):
        if not isinstance(raw, list) or not raw:
            raise PearmutError(
                f"{where}, document {index + 1}: a document is a non-empty list of items"
            )
        items = [
            item_parse(item, f"{where}, document {index + 1}, item {position + 1}")
            for position, item in enumerate(raw)
        ]
        first = items[0].item_id
        name = (
            first.rsplit(DOCUMENT_SEPARATOR, 1)[0]
            if DOCUMENT_SEPARATOR in first
            else f"{'' if task is None else f'task{task + 1}-'}doc{index + 1}"
        )
        documents.append(PearmutDocument(task, index, name, items))
    return documents


def _item_rules(item: PearmutItem, protocol: str, where: str) -> None:
    if item.prefilled and protocol in ("DA", "cESA"):
        raise PearmutError(f"{where}: pre-filled error_spans are read for ESA and MQM only")


def _mqm_categories(raw: Any, name: str) -> list[str]:
    if raw is None:
        return []
    if not isinstance(raw, dict) or not raw:
        raise PearmutError(f"{name}: mqm_categories must map categories to subcategories")
    categories: list[str] = []
    for category, subcategories in raw.items():
        subs = list_value(subcategories, f"{name}: mqm_categories of {category!r}")
        if not subs:
            categories.append(category)
        for sub in subs:
            label = category if sub == "" else f"{category}/{text_value(sub, name)}"
            if label not in categories:
                categories.append(label)
    return categories


def _languages(items: list[PearmutItem]) -> tuple[str, str] | None:
    """The language pair the item ids start with (``en-cs_CZ_#_…``), when they all agree."""
    pairs = {
        (match.group(1), match.group(2))
        for item in items
        if (match := LANGUAGE_PREFIX.match(item.item_id))
    }
    return pairs.pop() if len(pairs) == 1 else None
