"""Pearmut campaign files, read and checked whole before anything is written.

A campaign is ``{"info", "campaign_id", "data", "data_welcome"?}``. ``info.protocol`` is the
protocol, ``info.assignment`` how documents reach annotators: ``task-based`` (``data`` is tasks,
each a list of documents for one annotator), ``single-stream`` or ``dynamic`` (``data`` is one
list of documents). A document is a list of items ``{"item_id", "src", "tgt": {system: text},
"instructions"?, "validation"?, "error_spans"?, "skippable"?}``. Pearmut's own task cache
(``data/tasks/<campaign>.json``: ``data`` keyed by user id, plus its ``token``) reads as
task-based, one task per user.

How it maps onto evalsite (each an explicit rule; anything else is refused by name):

- DA: 0-100 adequacy; DA with ``sliders``: the Likert task whose scale the sliders match
  (one slider: adequacy, or fluency if so named; two named adequacy and fluency: both).
- ESA: ESA, or ESA^AI when items carry pre-filled ``error_spans``. MQM: MQM with the file's
  ``mqm_categories`` (``{category: [subcategories]}``, "" meaning the category itself).
- cESA: contrastive ESA, one screen per item with its outputs in the file's order (identical
  outputs shown once, which must have been judged alike); pre-filled spans are refused.
- Media sources: a ``src`` holding one ``<img>``, ``<audio>`` or ``<video>`` (its ``src``, or
  that of a ``<source>`` inside) becomes the segment's media file (``PearmutItem.media``),
  the text around it the segment's source. Where the file comes from is the importer's
  business (annotation/services/pearmut_imports.py: a data: URL or a file beside the
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
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from metrics.spans import Span, SpanError, span_to_dict

PROTOCOLS = {"DA": "adequacy", "ESA": "esa", "MQM": "mqm", "cESA": "contrastive_esa"}
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
ITEM_KEYS = {"item_id", "src", "tgt", "instructions", "validation", "error_spans", "skippable"}
VALIDATION_KEYS = {"warning", "score", "error_spans", "allow_skip", "score_greaterthan"}
SCRIPT = re.compile(r"<\s*script\b", re.IGNORECASE)
SPAN_KEYS = {"start_i", "end_i", "severity", "category"}
SLIDER_KEYS = {"name", "min", "max", "step"}
# Likert scales by a slider's (min, max); sliders step by 1.
SLIDER_SCALES = {(1, 5): "likert5", (1, 4): "taus4", (1, 7): "nist7", (0, 100): "da100"}
MEDIA = re.compile(r"<\s*(img|audio|video|iframe|source|embed|object)\b", re.IGNORECASE)
MEDIA_TAGS = {"img": "image", "audio": "audio", "video": "video"}
EMBEDDED_PAGES = ("iframe", "embed", "object")
LANGUAGE_PREFIX = re.compile(r"^([a-z]{2,3})-([a-z]{2,3})(?=[_\-#]|$)")
DOCUMENT_SEPARATOR = "_#_"


class PearmutError(ValueError):
    """A campaign or annotation file evalsite cannot import, with the reason."""


@dataclass(frozen=True)
class PearmutMedia:
    """A media file a Pearmut source shows: where it is (a URL, a data: URL or a path, as
    written) and what the tag says it is (image, audio or video)."""

    reference: str
    kind: str


@dataclass
class PearmutItem:
    item_id: str
    source: str
    outputs: dict[str, str]
    instructions: str = ""
    validation: dict[str, Any] = field(default_factory=dict)
    prefilled: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    skippable: bool = False
    script_dropped: bool = False  # its instructions held a <script> (never run)
    media: PearmutMedia | None = None  # the source's image, audio or video

    @property
    def check(self) -> str | None:
        """tutorial, attention (loud) or silent; None for an ordinary item."""
        if not self.validation:
            return None
        rules = self.validation.values()
        if any(rule.get("allow_skip") for rule in rules):
            return "tutorial"
        return "attention" if any("warning" in rule for rule in rules) else "silent"

    @property
    def allow_skip(self) -> bool:
        """A tutorial item the annotator may skip without failing the tutorial: ``allow_skip``
        in its validation (or Pearmut's later item-level ``skippable``)."""
        return self.check == "tutorial" or (self.skippable and self.check is not None)


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
    task_type: str
    scale: str | None
    assignment: str
    documents: list[PearmutDocument]
    instructions: str = ""
    mqm_categories: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    languages: tuple[str, str] | None = None
    info: dict[str, Any] = field(default_factory=dict)


def pearmut_parse(data: Any, *, name: str = "campaign") -> PearmutCampaign:
    """Checks the whole campaign file and returns what to import; writes nothing."""
    if not isinstance(data, dict):
        raise PearmutError(f"{name}: expected a JSON object")
    _no_unknown(data, TOP_KEYS, f"{name}: unknown top-level key")
    for key in ("info", "campaign_id", "data"):
        if key not in data:
            raise PearmutError(f"{name}: missing {key!r}")
    info = data["info"]
    if not isinstance(info, dict):
        raise PearmutError(f"{name}: 'info' must be an object")
    _no_unknown(info, INFO_KEYS, f"{name}: unknown info option")
    protocol = info.get("protocol")
    if protocol in NOT_YET:
        raise PearmutError(f"{name}: protocol {protocol!r}: {NOT_YET[protocol]}")
    if protocol not in PROTOCOLS:
        known = ", ".join([*PROTOCOLS, *NOT_YET])
        raise PearmutError(f"{name}: unknown protocol {protocol!r}; Pearmut's are {known}")
    assignment = info.get("assignment", "task-based")
    if assignment not in ASSIGNMENTS:
        raise PearmutError(
            f"{name}: unknown assignment {assignment!r}; known: {', '.join(ASSIGNMENTS)}"
        )
    notes: list[str] = []
    task_type, scale = _protocol(info, protocol, name, notes)
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
    if task_type == "esa" and any(item.prefilled and not item.check for item in items):
        task_type = "esa_prefilled"
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
        campaign_id=_text(data["campaign_id"], f"{name}: campaign_id"),
        protocol=protocol,
        task_type=task_type,
        scale=scale,
        assignment=assignment,
        documents=documents,
        instructions=html_text(info.get("instructions", "")),
        mqm_categories=_mqm_categories(info.get("mqm_categories"), name),
        notes=notes,
        languages=_languages(items),
        info=info,
    )


def _no_unknown(data: dict[str, Any], known: set[str], message: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        plural = "s" if len(unknown) > 1 else ""
        listed = ", ".join(repr(key) for key in unknown)
        raise PearmutError(f"{message}{plural} {listed}: evalsite does not know what it does")


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise PearmutError(f"{where} must be text, not {type(value).__name__}")
    return value


def _protocol(
    info: dict[str, Any], protocol: str, name: str, notes: list[str]
) -> tuple[str, str | None]:
    if "mqm_categories" in info and protocol != "MQM":
        raise PearmutError(f"{name}: mqm_categories needs protocol MQM, not {protocol}")
    if "sliders" in info and protocol != "DA":
        raise PearmutError(f"{name}: sliders need protocol DA, not {protocol}")
    if protocol != "DA":
        return PROTOCOLS[protocol], None
    sliders = info.get("sliders")
    if sliders is None:
        return "adequacy", "da100"
    if not isinstance(sliders, list) or not 1 <= len(sliders) <= 2:
        raise PearmutError(f"{name}: sliders must list one or two sliders")
    scales, names = [], []
    for slider in sliders:
        if not isinstance(slider, dict):
            raise PearmutError(f"{name}: a slider must be an object")
        _no_unknown(slider, SLIDER_KEYS, f"{name}: unknown slider key")
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
        return ("fluency" if names[0] == "fluency" else "adequacy"), scales[0]
    if sorted(names) != ["adequacy", "fluency"] or scales[0] != scales[1]:
        raise PearmutError(
            f"{name}: two sliders must be Adequacy and Fluency on the same scale (evalsite's"
            " adequacy and fluency task)"
        )
    return "adequacy_fluency", scales[0]


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
        _text(info["instructions_goodbye"], f"{name}: instructions_goodbye")
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
            _item(item, f"{where}, document {index + 1}, item {position + 1}")
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


def _item(raw: Any, where: str) -> PearmutItem:
    if not isinstance(raw, dict):
        raise PearmutError(f"{where}: expected an object")
    if "item_id" in raw:
        where = f"{where} ({raw['item_id']})"
    _no_unknown(raw, ITEM_KEYS, f"{where}: unknown item key")
    for key in ("item_id", "src", "tgt"):
        if key not in raw:
            raise PearmutError(f"{where}: missing {key!r}")
    item_id = str(raw["item_id"])
    source = _text(raw["src"], f"{where}: src")
    outputs = raw["tgt"]
    if not isinstance(outputs, dict) or not outputs:
        raise PearmutError(f"{where}: tgt must map system names to texts")
    for system, text in outputs.items():
        _text(text, f"{where}: tgt {system!r}")
    for system, text in outputs.items():
        media = MEDIA.search(text)
        if media:
            raise PearmutError(
                f"{where}: tgt {system!r} is a media file (<{media.group(1).lower()}>);"
                " evalsite annotates translations as text"
            )
    source, media_source = _source_media(source, where)
    instructions = _text(raw.get("instructions", ""), f"{where}: instructions")
    # Instructions are HTML in Pearmut; evalsite keeps them as text (html_text) and never
    # runs a script: its code is dropped and the import says so.
    script_dropped = SCRIPT.search(instructions) is not None
    skippable = raw.get("skippable", False)
    if not isinstance(skippable, bool):
        raise PearmutError(f"{where}: skippable must be true or false")
    validation = _validation(raw.get("validation"), outputs, where)
    prefilled = _prefilled(raw.get("error_spans"), outputs, where)
    return PearmutItem(
        item_id,
        source,
        dict(outputs),
        instructions,
        validation,
        prefilled,
        skippable,
        script_dropped,
        media_source,
    )


class _MediaTags(HTMLParser):
    """The media tags of a source and its text outside them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, str | None]] = []  # (tag, its src or a <source>'s)
        self.text: list[str] = []
        self.open = 0  # inside an <audio> or <video>: its <source> gives the file

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        src = dict(attrs).get("src")
        if tag in MEDIA_TAGS or tag in EMBEDDED_PAGES:
            self.tags.append((tag, src))
            self.open += tag in ("audio", "video")
        elif tag == "source" and self.tags and self.tags[-1][1] is None and src:
            self.tags[-1] = (self.tags[-1][0], src)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("audio", "video"):
            self.open = max(0, self.open - 1)

    def handle_data(self, data: str) -> None:
        if not self.open:
            self.text.append(data)


def _source_media(source: str, where: str) -> tuple[str, PearmutMedia | None]:
    """(the source's text, its media file) of a ``src`` (no media: as it is)."""
    if not MEDIA.search(source):
        return source, None
    parser = _MediaTags()
    parser.feed(source)
    parser.close()
    for tag, src in parser.tags:
        if tag in EMBEDDED_PAGES:
            shown = f" {src}" if src else ""
            raise PearmutError(
                f"{where}: src embeds a page (<{tag}>{shown}), not a media file evalsite can"
                " store; give the image, audio or video file itself"
            )
    if len(parser.tags) != 1:
        raise PearmutError(
            f"{where}: src shows {len(parser.tags)} media files; evalsite shows one per segment"
        )
    tag, src = parser.tags[0]
    if not src:
        raise PearmutError(f"{where}: src has an <{tag}> without a file (no src)")
    text = " ".join("".join(parser.text).split())
    return text, PearmutMedia(src.strip(), MEDIA_TAGS[tag])


def _validation(raw: Any, outputs: dict[str, str], where: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise PearmutError(f"{where}: validation must map systems to rules")
    for system, rule in raw.items():
        at = f"{where}: validation of {system!r}"
        if system not in outputs:
            raise PearmutError(f"{at}: no such system in tgt")
        if not isinstance(rule, dict):
            raise PearmutError(f"{at}: expected an object")
        _no_unknown(rule, VALIDATION_KEYS, f"{at}: unknown key")
        score = rule.get("score")
        if score is not None and not (
            isinstance(score, list)
            and len(score) == 2
            and all(isinstance(v, int | float) for v in score)
            and score[0] <= score[1]
        ):
            raise PearmutError(f"{at}: score must be [low, high]")
        if not isinstance(rule.get("error_spans", []), list):
            raise PearmutError(f"{at}: error_spans must be a list")
        above = rule.get("score_greaterthan")
        if above is not None and (above not in outputs or above == system):
            raise PearmutError(f"{at}: score_greaterthan must name another system in tgt")
    return raw


def _prefilled(raw: Any, outputs: dict[str, str], where: str) -> dict[str, list[dict[str, Any]]]:
    """Pre-filled spans, Pearmut's inclusive ends made exclusive and checked on the text."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise PearmutError(f"{where}: error_spans must map systems to spans")
    spans: dict[str, list[dict[str, Any]]] = {}
    for system, listed in raw.items():
        if system not in outputs:
            raise PearmutError(f"{where}: error_spans of {system!r}: no such system in tgt")
        spans[system] = [
            span_to_dict(pearmut_span(span, outputs[system], f"{where}: error_spans", True))
            for span in _list(listed, f"{where}: error_spans of {system!r}")
        ]
    return spans


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise PearmutError(f"{where} must be a list")
    return value


def pearmut_span(raw: Any, target: str, where: str, prefilled: bool = False) -> Span:
    """One Pearmut span (``start_i``/``end_i`` inclusive, as on the screen) as a Span."""
    if not isinstance(raw, dict):
        raise PearmutError(f"{where}: a span must be an object")
    _no_unknown(raw, SPAN_KEYS, f"{where}: unknown span key")
    severity, category = str(raw.get("severity") or ""), raw.get("category")
    try:
        if raw.get("start_i") == raw.get("end_i") == len(target):
            # Pearmut's [missing] marker sits just after the text.
            return Span.missing(severity, category, prefilled=prefilled)
        start, end = raw.get("start_i"), raw.get("end_i")
        if not isinstance(start, int) or not isinstance(end, int):
            raise SpanError(f"start_i and end_i must be whole numbers, not {start!r}, {end!r}")
        span = Span.from_inclusive(
            start,
            end,
            severity,
            category,
            prefilled=prefilled,
        )
        span.check_within(target)
    except (SpanError, ValueError, TypeError) as error:
        raise PearmutError(f"{where}: {error}") from None
    return span


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
        subs = _list(subcategories, f"{name}: mqm_categories of {category!r}")
        if not subs:
            categories.append(category)
        for sub in subs:
            label = category if sub == "" else f"{category}/{_text(sub, name)}"
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


class _Text(HTMLParser):
    BREAKS = {"br", "p", "li", "div", "ul", "ol", "h1", "h2", "h3", "tr"}

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.skipping += 1
        elif tag in self.BREAKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skipping = max(0, self.skipping - 1)

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def html_text(html: str) -> str:
    """Pearmut writes instructions in HTML; evalsite shows text (escaped), so tags go and
    line breaks stay."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).splitlines()]
    return "\n".join(line for line in lines if line)
