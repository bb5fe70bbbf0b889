"""What an upload will do, and the checks shared by every way of uploading: the plans of
:mod:`annotation.services.imports`, the name rules, and sources with their documents (document
ids in a TSV/JSONL column, in a separate one-id-a-line file, or in a WMT XML test set)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from django.conf import settings

from annotation.lib.textfiles import ParsedFile, UploadError, check_documents, parse_document_ids
from annotation.lib.uploads import is_archive, size_over_limit
from annotation.lib.wmt_xml import parse_wmt_xml
from annotation.models import Campaign, Reference, Segment, System, is_reserved_system_name


@dataclass
class PlannedFile:
    """One file that passed validation and what importing it will do."""

    kind: str
    name: str
    parsed: ParsedFile
    content_hash: str
    action: str  # "create", "new_run" or "unchanged"
    existing_id: int | None = None

    @property
    def segments(self) -> int:
        return len(self.parsed.records)

    @property
    def documents(self) -> int:
        """Documents of a source with document ids; 0 without (and for other kinds)."""
        if self.kind != "source":
            return 0
        return len({record.doc_id for record in self.parsed.records if record.doc_id})


@dataclass
class UploadPlan:
    campaign_id: int
    files: list[PlannedFile]

    @property
    def warnings(self) -> list[str]:
        return [warning for planned in self.files for warning in planned.parsed.warnings]


@dataclass
class ImportedFile:
    kind: str
    name: str
    status: str  # "created", "new_run" or "unchanged"
    segments: int
    object_id: int
    run_number: int | None = None
    warnings: list[str] = field(default_factory=list)
    documents: int = 0  # of a source with document ids


def content_hash(*, texts: list[str]) -> str:
    """Hash of the segments themselves, so CRLF or a BOM does not make a new system."""
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


# A translation line this many times longer than its source line (and than a short line's
# floor) is most likely a broken file; the preview warns about it.
LONG_LINE_RATIO = 4
LONG_LINE_FLOOR = 50  # characters: short sources have long enough translations
LONG_LINE_WARNINGS = 5  # named one by one; the rest are counted


def long_line_warnings(*, filename: str, texts: list[str], source_lengths: list[int]) -> list[str]:
    """Lines far longer than their source line, which validation alone lets through."""
    pairs = zip(texts, source_lengths, strict=True)
    long_lines = [
        (number, len(text), source_length)
        for number, (text, source_length) in enumerate(pairs, start=1)
        if len(text) > LONG_LINE_RATIO * max(source_length, LONG_LINE_FLOOR)
    ]
    warnings = [
        f"{filename}, line {number}: {length:,} characters where its source line has "
        f"{source:,}; is this the right file?"
        for number, length, source in long_lines[:LONG_LINE_WARNINGS]
    ]
    if len(long_lines) > LONG_LINE_WARNINGS:
        warnings.append(
            f"{filename}: {len(long_lines) - LONG_LINE_WARNINGS} more lines over "
            f"{LONG_LINE_RATIO} times as long as their source line"
        )
    return warnings


def line_count_error(*, filename: str, texts: list[str], segment_count: int) -> UploadError:
    """A file whose lines do not match the source's, naming trailing blank lines as the cause."""
    extra = len(texts) - segment_count
    if extra > 0 and not any(text.strip() for text in texts[segment_count:]):
        blank = "a blank line" if extra == 1 else f"{extra} blank lines"
        return UploadError(
            filename,
            f"{len(texts)} lines, but the source has {segment_count}: the file ends with "
            f"{blank}; remove the trailing blank line{'s' if extra > 1 else ''}",
        )
    return UploadError(
        filename,
        f"{len(texts)} lines, but the source has {segment_count}; "
        "every line must translate the source line with the same number",
    )


def check_name(*, filename: str, kind: str, label: str) -> None:
    """The rules for a reference or system name, whichever way it was uploaded."""
    longest = (Reference if kind == "reference" else System)._meta.get_field("name").max_length
    if longest is not None and len(label) > longest:
        raise UploadError(
            filename, f"the {kind} name is {len(label)} characters long; at most {longest}"
        )
    if "\x00" in label:
        raise UploadError(filename, f"the {kind} name contains a NUL character")
    if kind == "system" and is_reserved_system_name(label):
        raise UploadError(
            filename, f"{label!r} names the human reference in the results; rename the system"
        )


def plan_source(
    *,
    parsed: ParsedFile,
    digest: str,
    segment_count: int,
    documents: tuple[str, bytes] | None,
) -> PlannedFile:
    if segment_count:
        raise UploadError(
            parsed.filename,
            f"the campaign has its source already ({segment_count} segments); "
            "create a new campaign for another test set",
        )
    if documents is not None:
        doc_filename, doc_data = documents
        if any(record.doc_id for record in parsed.records):
            raise UploadError(
                doc_filename, f"{parsed.filename} has document ids already; send one or the other"
            )
        doc_ids = parse_document_ids(doc_filename, doc_data)
        if len(doc_ids) != len(parsed.records):
            raise UploadError(
                doc_filename,
                f"{len(doc_ids)} document ids, but the source has {len(parsed.records)} "
                "segments; give one id a line, for the source line with the same number",
            )
        for record, doc_id in zip(parsed.records, doc_ids, strict=True):
            record.doc_id = doc_id
        check_documents(doc_filename, parsed.records)
    else:
        check_documents(parsed.filename, parsed.records)
    return PlannedFile("source", "source", parsed, digest, "create")


def plan_wmt_xml(*, campaign: Campaign, files: list[tuple[str, bytes]]) -> UploadPlan:
    """A WMT XML file fills an empty campaign: source with documents, references, systems."""
    if len(files) != 1:
        raise UploadError("upload", f"a WMT XML test set is one file; {len(files)} were sent")
    filename, data = files[0]
    if is_archive(filename):
        raise UploadError(filename, "send the WMT XML file itself, not an archive")
    limit = settings.UPLOAD_MAX_BYTES
    if len(data) > limit:
        raise size_over_limit(filename, len(data), limit)
    test_set = parse_wmt_xml(filename, data)
    languages = (test_set.source_language or "", test_set.target_language or "")
    expected = (campaign.source_language, campaign.target_language)
    if all(languages) and [c.lower() for c in languages] != [c.lower() for c in expected]:
        raise UploadError(
            filename,
            f"the file translates {languages[0]}-{languages[1]}, "
            f"the campaign {expected[0]}-{expected[1]}",
        )
    source = test_set.source
    existing = Segment.objects.filter(campaign=campaign).count()
    planned = [
        plan_source(
            parsed=source,
            digest=content_hash(texts=source.texts),
            segment_count=existing,
            documents=None,
        )
    ]
    seen_hashes: dict[str, str] = {}
    for kind, named in (("reference", test_set.references), ("system", test_set.systems)):
        for label, parsed in named.items():
            check_name(filename=parsed.filename, kind=kind, label=label)
            digest = content_hash(texts=parsed.texts)
            if kind == "system" and digest in seen_hashes:
                raise UploadError(
                    filename, f"system {label!r} has the same outputs as {seen_hashes[digest]!r}"
                )
            seen_hashes[digest] = label
            planned.append(PlannedFile(kind, label, parsed, digest, "create"))
    return UploadPlan(campaign_id=campaign.id, files=planned)
