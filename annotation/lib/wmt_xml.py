"""Reading the WMT XML test-set format: documents, the source, references and system outputs
in one file (as in the WMT21+ releases, ``newstest2021.de-fr.all.xml``).

    <dataset id="newstest2021">
      <doc id="faz.79579" origlang="de">
        <src lang="de"><p><seg id="1">...</seg></p></src>
        <ref lang="fr" translator="A"><p><seg id="1">...</seg></p></ref>
        <hyp lang="fr" system="Online-B"><p><seg id="1">...</seg></p></hyp>
      </doc>
    </dataset>

Validation only, as in :mod:`annotation.lib.textfiles`: the whole file is checked (every document
has the source's segments in every reference and system) before anything is written.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from annotation.lib.textfiles import (
    DOCUMENT_ID_MAX_LENGTH,
    ParsedFile,
    Record,
    UploadError,
    check_controls,
    decode_utf8,
)

# A DTD is how entity-expansion bombs and external entities get in; WMT files have none.
_FORBIDDEN_DECLARATION = re.compile(r"<!(DOCTYPE|ENTITY)")


@dataclass
class WmtTestSet:
    """A parsed WMT XML file: records in reading order, every one carrying its document."""

    source_language: str | None
    target_language: str | None
    source: ParsedFile
    references: dict[str, ParsedFile] = field(default_factory=dict)
    systems: dict[str, ParsedFile] = field(default_factory=dict)


def parse_wmt_xml(filename: str, data: bytes) -> WmtTestSet:
    text = decode_utf8(filename, data)
    if _FORBIDDEN_DECLARATION.search(text):
        raise UploadError(filename, "a DOCTYPE or ENTITY declaration is not allowed in WMT XML")
    try:
        root = ET.fromstring(text)  # noqa: S314 (no DTD can reach the parser, checked above)
    except ET.ParseError as error:
        line, column = error.position
        raise UploadError(filename, f"not well-formed XML at column {column + 1}", line) from None
    if root.tag != "dataset":
        raise UploadError(filename, f"the root element is <{root.tag}>; WMT XML has <dataset>")
    docs = root.findall("doc")
    if not docs:
        raise UploadError(filename, "no <doc> elements: WMT XML has one <doc id> per document")

    reader = _Reader(filename)
    for doc in docs:
        if doc.get("testsuite") is not None:
            # Test suites ride along in some WMT files, without references: not the test set.
            reader.source_warnings.append(
                f"{filename}: document {doc.get('id')!r} is a test suite; skipped"
            )
            continue
        reader.read_document(doc)
    if not reader.doc_ids:
        raise UploadError(filename, "every <doc> is a test suite: there is no test set to import")
    return reader.result()


class _Reader:
    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.doc_ids: set[str] = set()
        self.source: list[Record] = []
        self.references: dict[str, list[Record]] | None = None
        self.systems: dict[str, list[Record]] | None = None
        self.warnings: list[str] = []
        self.source_warnings: list[str] = []
        self.languages: tuple[str | None, str | None] = (None, None)

    def fail(self, problem: str) -> UploadError:
        return UploadError(self.filename, problem)

    def read_document(self, doc: ET.Element) -> None:
        doc_id = (doc.get("id") or "").strip()
        if not doc_id:
            raise self.fail(f"document {len(self.doc_ids) + 1} has no id attribute")
        if len(doc_id) > DOCUMENT_ID_MAX_LENGTH:
            raise self.fail(
                f"document id {doc_id[:40]!r}... is over {DOCUMENT_ID_MAX_LENGTH} characters"
            )
        if doc_id in self.doc_ids:
            raise self.fail(f"document {doc_id!r} appears twice")
        self.doc_ids.add(doc_id)

        sources = doc.findall("src")
        if len(sources) != 1:
            raise self.fail(f"document {doc_id!r} has {len(sources)} <src> elements; it needs one")
        segments = self._segments(sources[0], doc_id, "the source", allow_empty=False)
        seg_ids = list(segments)
        domain = (doc.get("domain") or "").strip()  # WMT22+ files carry it
        self.source.extend(
            Record(text=text, doc_id=doc_id, domain=domain) for text in segments.values()
        )
        if len(self.doc_ids) == 1:
            target = next((e.get("lang") for e in doc if e.tag in ("ref", "hyp")), None)
            self.languages = (sources[0].get("lang"), target)

        references = self._translations(doc, doc_id, "ref", "translator", seg_ids)
        systems = self._translations(doc, doc_id, "hyp", "system", seg_ids)
        self.references = self._merge(self.references, references, doc_id, "reference")
        self.systems = self._merge(self.systems, systems, doc_id, "system")

    def _translations(
        self, doc: ET.Element, doc_id: str, tag: str, name_attribute: str, seg_ids: list[str]
    ) -> dict[str, list[str]]:
        kind = "reference" if tag == "ref" else "system"
        found: dict[str, list[str]] = {}
        for element in doc.findall(tag):
            name = (element.get(name_attribute) or "").strip()
            if not name:
                if tag == "hyp":
                    raise self.fail(f"a <hyp> in document {doc_id!r} has no system attribute")
                name = "A"  # a file with one unnamed reference, as older releases have
            if name in found:
                raise self.fail(f"two {kind}s named {name!r} in document {doc_id!r}")
            where = f"{kind} {name!r}"
            segments = self._segments(element, doc_id, where, allow_empty=tag == "hyp")
            if list(segments) != seg_ids:
                raise self.fail(_mismatch(doc_id, where, seg_ids, list(segments)))
            found[name] = list(segments.values())
        return found

    def _merge(
        self,
        seen: dict[str, list[Record]] | None,
        found: dict[str, list[str]],
        doc_id: str,
        kind: str,
    ) -> dict[str, list[Record]]:
        if seen is not None and set(found) != set(seen):
            missing = sorted(set(seen) - set(found))
            extra = sorted(set(found) - set(seen))
            problem = (
                f"{kind} {missing[0]!r} has no translation of document {doc_id!r}"
                if missing
                else f"{kind} {extra[0]!r} translates document {doc_id!r} but not the "
                "documents before it"
            )
            raise self.fail(f"{problem}; every {kind} must translate every document")
        merged = seen if seen is not None else {name: [] for name in found}
        for name, texts in found.items():
            merged[name].extend(Record(text=text, doc_id=doc_id) for text in texts)
        return merged

    def _segments(
        self, element: ET.Element, doc_id: str, where: str, *, allow_empty: bool
    ) -> dict[str, str]:
        segments: dict[str, str] = {}
        for seg in element.iter("seg"):
            seg_id = (seg.get("id") or "").strip()
            if not seg_id:
                raise self.fail(f"a <seg> of {where} in document {doc_id!r} has no id")
            if seg_id in segments:
                raise self.fail(f"segment {seg_id} appears twice in {where}, document {doc_id!r}")
            text = "".join(seg.itertext())
            if "\n" in text or "\r" in text:
                raise self.fail(
                    f"segment {seg_id} of {where} in document {doc_id!r} spans several lines"
                )
            try:
                check_controls(self.filename, text, 0)
            except UploadError as error:
                raise self.fail(
                    f"segment {seg_id} of {where} in document {doc_id!r}: {error.problem}"
                ) from None
            if not text.strip():
                if not allow_empty:
                    raise self.fail(f"segment {seg_id} of {where} in document {doc_id!r} is empty")
                self.warnings.append(
                    f"{self.filename}: segment {seg_id} of {where} in document {doc_id!r}: "
                    "empty output"
                )
            segments[seg_id] = text
        if not segments:
            raise self.fail(f"{where} of document {doc_id!r} has no <seg> elements")
        return segments

    def result(self) -> WmtTestSet:
        def parsed(label: str, records: list[Record], warnings: list[str]) -> ParsedFile:
            return ParsedFile(f"{self.filename}:{label}", records, warnings)

        def own(label: str) -> list[str]:
            return [w for w in self.warnings if f" of system {label!r} " in w]

        return WmtTestSet(
            source_language=self.languages[0],
            target_language=self.languages[1],
            source=parsed("source", self.source, self.source_warnings),
            references={
                name: parsed(f"ref.{name}", records, [])
                for name, records in (self.references or {}).items()
            },
            systems={
                name: parsed(f"hyp.{name}", records, own(name))
                for name, records in (self.systems or {}).items()
            },
        )


def _mismatch(doc_id: str, where: str, expected: list[str], got: list[str]) -> str:
    missing = [seg_id for seg_id in expected if seg_id not in set(got)]
    if missing:
        return (
            f"{where} lacks segment {missing[0]} of document {doc_id!r} "
            f"({len(got)} segments where the source has {len(expected)})"
        )
    extra = [seg_id for seg_id in got if seg_id not in set(expected)]
    if extra:
        return (
            f"{where} has segment {extra[0]} in document {doc_id!r}, which the source lacks "
            f"({len(got)} segments where the source has {len(expected)})"
        )
    return f"{where} orders the segments of document {doc_id!r} differently from the source"
