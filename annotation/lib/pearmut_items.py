"""One item of a Pearmut campaign file (``annotation.lib.pearmut`` reads the file): its
keys, source media, validation (tutorials and attention checks), pre-filled spans and
instructions (HTML kept as text), checked and named on any problem; and Pearmut's spans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from metrics.spans import Span, SpanError, span_to_dict

ITEM_KEYS = {"item_id", "src", "tgt", "instructions", "validation", "error_spans", "skippable"}
VALIDATION_KEYS = {"warning", "score", "error_spans", "allow_skip", "score_greaterthan"}
SCRIPT = re.compile(r"<\s*script\b", re.IGNORECASE)
SPAN_KEYS = {"start_i", "end_i", "severity", "category"}
MEDIA = re.compile(r"<\s*(img|audio|video|iframe|source|embed|object)\b", re.IGNORECASE)
MEDIA_TAGS = {"img": "image", "audio": "audio", "video": "video"}
EMBEDDED_PAGES = ("iframe", "embed", "object")


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


def no_unknown(data: dict[str, Any], known: set[str], message: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        plural = "s" if len(unknown) > 1 else ""
        listed = ", ".join(repr(key) for key in unknown)
        raise PearmutError(f"{message}{plural} {listed}: evalsite does not know what it does")


def text_value(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise PearmutError(f"{where} must be text, not {type(value).__name__}")
    return value


def item_parse(raw: Any, where: str) -> PearmutItem:
    if not isinstance(raw, dict):
        raise PearmutError(f"{where}: expected an object")
    if "item_id" in raw:
        where = f"{where} ({raw['item_id']})"
    no_unknown(raw, ITEM_KEYS, f"{where}: unknown item key")
    for key in ("item_id", "src", "tgt"):
        if key not in raw:
            raise PearmutError(f"{where}: missing {key!r}")
    item_id = str(raw["item_id"])
    source = text_value(raw["src"], f"{where}: src")
    outputs = raw["tgt"]
    if not isinstance(outputs, dict) or not outputs:
        raise PearmutError(f"{where}: tgt must map system names to texts")
    for system, text in outputs.items():
        text_value(text, f"{where}: tgt {system!r}")
    for system, text in outputs.items():
        media = MEDIA.search(text)
        if media:
            raise PearmutError(
                f"{where}: tgt {system!r} is a media file (<{media.group(1).lower()}>);"
                " evalsite annotates translations as text"
            )
    source, media_source = _source_media(source, where)
    instructions = text_value(raw.get("instructions", ""), f"{where}: instructions")
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
        no_unknown(rule, VALIDATION_KEYS, f"{at}: unknown key")
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
            for span in list_value(listed, f"{where}: error_spans of {system!r}")
        ]
    return spans


def list_value(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise PearmutError(f"{where} must be a list")
    return value


def pearmut_span(raw: Any, target: str, where: str, prefilled: bool = False) -> Span:
    """One Pearmut span (``start_i``/``end_i`` inclusive, as on the screen) as a Span."""
    if not isinstance(raw, dict):
        raise PearmutError(f"{where}: a span must be an object")
    no_unknown(raw, SPAN_KEYS, f"{where}: unknown span key")
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
