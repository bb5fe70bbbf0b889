"""Reading uploaded segment files: plain text, TSV with a header, JSON Lines and archives.

Everything here is validation before any write: a file is read whole, every problem is
reported with the file name and line, and nothing touches the database. Errors stop an
import; warnings are shown to the manager and kept in the report.
"""

from __future__ import annotations

import csv
import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from annotation.errors import ApplicationError
from annotation.lib import json_limits

TEXT_FIELDS = ("text",)
# Tab is allowed inside plain text segments; every other C0/C1 control character is not
# (they are invisible to annotators and break exports).
ALLOWED_CONTROLS = {"\t"}


class UploadError(ApplicationError):
    """A problem that stops an import. ``str()`` names the file, the line and the problem."""

    def __init__(self, filename: str, problem: str, line: int | None = None) -> None:
        self.filename = filename
        self.line = line
        self.problem = problem
        where = f"{filename}, line {line}" if line is not None else filename
        super().__init__(f"{where}: {problem}")


@dataclass
class Record:
    text: str
    doc_id: str | None = None
    domain: str | None = None  # the document's domain (news, speech, ...), when given


@dataclass
class ParsedFile:
    filename: str
    records: list[Record]
    warnings: list[str] = field(default_factory=list)

    @property
    def texts(self) -> list[str]:
        return [record.text for record in self.records]


def detect_format(filename: str) -> str:
    name = filename.lower()
    if name.endswith((".tsv", ".tab")):
        return "tsv"
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    return "text"


# The first bytes of binary files managers upload by mistake, and what to call them.
BINARY_SIGNATURES = (
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a zip file (a Word or Excel document is one)"),
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\xd0\xcf\x11\xe0", "an old Word or Excel document"),
)
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
BINARY_SNIFF_BYTES = 8192  # a NUL byte this early means a binary file, not text


def check_not_binary(filename: str, data: bytes) -> None:
    if data.startswith(UTF16_BOMS):
        raise UploadError(filename, "the file is UTF-16 text; save it as UTF-8")
    for signature, what in BINARY_SIGNATURES:
        if data.startswith(signature):
            raise UploadError(
                filename, f"this is a binary file ({what}), not text; upload UTF-8 text"
            )
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise UploadError(
            filename, "this is a binary file (it holds NUL bytes), not text; upload UTF-8 text"
        )


def decode_utf8(filename: str, data: bytes) -> str:
    if not data.strip():
        raise UploadError(filename, "the file is empty")
    check_not_binary(filename, data)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        line_start = data.rfind(b"\n", 0, error.start) + 1
        raise UploadError(
            filename,
            f"invalid UTF-8 at byte {error.start} of the file (byte {error.start - line_start} "
            f"of the line): {error.reason}; save the file as UTF-8",
            line,
        ) from None
    return text


def split_lines(filename: str, text: str) -> list[str]:
    """Splits on newlines only (as the WMT text release is read), accepting CRLF endings."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    for number, line in enumerate(lines, start=1):
        check_controls(filename, line, number)
    return lines


def check_controls(filename: str, text: str, line: int) -> None:
    for column, char in enumerate(text, start=1):
        if char not in ALLOWED_CONTROLS and unicodedata.category(char) == "Cc":
            raise UploadError(
                filename, f"control character U+{ord(char):04X} at column {column}", line
            )


def _check_text(filename: str, text: str, line: int, *, allow_empty: bool, warnings: list[str]):
    if text.strip():
        return
    if not allow_empty:
        raise UploadError(filename, "empty segment; every line needs a segment", line)
    warnings.append(f"{filename}, line {line}: empty output")


def parse_records(
    filename: str, data: bytes, *, allow_empty: bool = False, fmt: str | None = None
) -> ParsedFile:
    """Parses one file into records, in order. ``allow_empty`` is for system outputs."""
    fmt = fmt or detect_format(filename)
    text = decode_utf8(filename, data)
    warnings: list[str] = []
    records: list[Record] = []
    if fmt == "text":
        lines = split_lines(filename, text)
        if not allow_empty and len(lines) > 1 and not lines[-1].strip():
            raise UploadError(
                filename,
                "the file ends with a blank line, which would be an empty segment; "
                "remove the trailing blank line",
                len(lines),
            )
        for number, line in enumerate(lines, start=1):
            _check_text(filename, line, number, allow_empty=allow_empty, warnings=warnings)
            records.append(Record(text=line))
    elif fmt == "tsv":
        records = _parse_tsv(filename, text, allow_empty=allow_empty, warnings=warnings)
    elif fmt == "jsonl":
        records = _parse_jsonl(filename, text, allow_empty=allow_empty, warnings=warnings)
    else:
        raise UploadError(filename, f"unknown format {fmt!r}; use text, tsv or jsonl")
    if not records:
        raise UploadError(filename, "the file has no segments")
    return ParsedFile(filename=filename, records=records, warnings=warnings)


def _parse_tsv(filename: str, text: str, *, allow_empty: bool, warnings: list[str]):
    lines = split_lines(filename, text)
    reader = csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
    header = [name.strip() for name in next(reader)]
    if "text" not in header:
        raise UploadError(filename, f"the header has no 'text' column (it has {header})", 1)
    text_at = header.index("text")
    doc_at = header.index("doc_id") if "doc_id" in header else None
    domain_at = header.index("domain") if "domain" in header else None
    records = []
    for number, row in enumerate(reader, start=2):
        if len(row) != len(header):
            raise UploadError(
                filename, f"{len(row)} fields where the header has {len(header)}", number
            )
        _check_text(filename, row[text_at], number, allow_empty=allow_empty, warnings=warnings)
        records.append(
            Record(
                text=row[text_at],
                doc_id=row[doc_at] if doc_at is not None else None,
                domain=row[domain_at] if domain_at is not None else None,
            )
        )
    return records


def _parse_jsonl(filename: str, text: str, *, allow_empty: bool, warnings: list[str]):
    records = []
    for number, line in enumerate(split_lines(filename, text), start=1):
        if not line.strip():
            raise UploadError(filename, "empty line; JSON Lines needs one object a line", number)
        try:
            value = json_limits.loads(line)
        except json.JSONDecodeError as error:
            raise UploadError(filename, f"invalid JSON: {error.msg}", number) from None
        if not isinstance(value, dict):
            raise UploadError(filename, "each line must be a JSON object", number)
        if "text" not in value:
            raise UploadError(filename, "missing field 'text'", number)
        if not isinstance(value["text"], str):
            raise UploadError(filename, "field 'text' must be a string", number)
        check_controls(filename, value["text"], number)
        _check_text(filename, value["text"], number, allow_empty=allow_empty, warnings=warnings)
        doc_id, domain = value.get("doc_id"), value.get("domain")
        if domain is not None and not isinstance(domain, str):
            raise UploadError(filename, "field 'domain' must be a string", number)
        records.append(
            Record(
                text=value["text"],
                doc_id=None if doc_id is None else str(doc_id),
                domain=domain,
            )
        )
    return records


# -- documents -------------------------------------------------------------------------------

DOCUMENT_ID_MAX_LENGTH = 200  # Document.external_id
DOMAIN_MAX_LENGTH = 100  # Document.domain


def parse_document_ids(filename: str, data: bytes) -> list[str]:
    """A document file: one document id a line, the line of the source segment it holds."""
    ids = split_lines(filename, decode_utf8(filename, data))
    for number, doc_id in enumerate(ids, start=1):
        if not doc_id.strip():
            raise UploadError(filename, "empty document id; every line needs one", number)
    return [doc_id.strip() for doc_id in ids]


def check_documents(filename: str, records: list[Record]) -> None:
    """Document ids are all there or all absent, short enough, and each document's segments
    are consecutive (context is read in file order, so a document cannot resume later)."""
    with_id = [record.doc_id is not None and record.doc_id.strip() != "" for record in records]
    if not any(with_id):
        if any((record.domain or "").strip() for record in records):
            raise UploadError(
                filename, "a domain belongs to a document: give document ids with the domains"
            )
        return
    if not all(with_id):
        line = with_id.index(False) + 1
        raise UploadError(
            filename, "no document id here, but other segments have one; give every one", line
        )
    finished: set[str] = set()
    previous = None
    for number, record in enumerate(records, start=1):
        doc_id = (record.doc_id or "").strip()
        record.doc_id = doc_id
        if len(doc_id) > DOCUMENT_ID_MAX_LENGTH:
            raise UploadError(
                filename, f"document id is over {DOCUMENT_ID_MAX_LENGTH} characters", number
            )
        if doc_id != previous:
            if doc_id in finished:
                raise UploadError(
                    filename,
                    f"document {doc_id!r} resumes after other documents; "
                    "a document's segments must be consecutive",
                    number,
                )
            if previous is not None:
                finished.add(previous)
            previous = doc_id
    check_domains(filename, records)


def check_domains(filename: str, records: list[Record]) -> None:
    """Domains are given for every document or for none, one per document, short enough."""
    domain_of: dict[str, str] = {}
    for number, record in enumerate(records, start=1):
        domain = (record.domain or "").strip()
        record.domain = domain
        if len(domain) > DOMAIN_MAX_LENGTH:
            raise UploadError(filename, f"domain is over {DOMAIN_MAX_LENGTH} characters", number)
        first = domain_of.setdefault(record.doc_id or "", domain)
        if first != domain:
            raise UploadError(
                filename,
                f"document {record.doc_id!r} is in domain {first!r} and {domain!r}; "
                "a document has one domain",
                number,
            )
    given = [domain for domain in domain_of.values() if domain]
    if given and len(given) != len(domain_of):
        blank = next(doc_id for doc_id, domain in domain_of.items() if not domain)
        raise UploadError(
            filename, f"document {blank!r} has no domain, but others have one; give every one"
        )


FORMAT_SUFFIXES = ("txt", "tsv", "tab", "jsonl", "ndjson", "out", "sgm")
# A language code or pair as WMT puts it in file names: de, en-de, en_de, zh-Hant.
_LANGUAGE_PART = re.compile(r"^[a-z]{2}([-_][a-z]{2}|-[A-Za-z]{4})?$|^[a-z]{2,3}[-_][a-z]{2,3}$")


# The word before the name in WMT's file names, per kind: <test set>.<pair>.hyp.<system>.<lang>
# and <test set>.<pair>.ref.<reference>.<lang>.
_NAME_MARKERS = {"system": ("hyp",), "reference": ("ref", "reference")}


def name_from_filename(filename: str, kind: str, languages: tuple[str, ...] = ()) -> str:
    """The system or reference a file is named after, one rule for every upload:

    the file's own name (inside an archive too), without its format suffix, without trailing
    language codes (two letters, a pair such as ``en-de``, or one of ``languages``), and,
    in WMT's ``<test set>.<pair>.hyp.<system>.<lang>``, what follows ``hyp`` (``ref`` or
    ``reference`` for a reference):
    ``newstest2021.en-de.hyp.Online-B.de`` → ``Online-B``, ``uedin-primary.de`` →
    ``uedin-primary``, ``x.hyp.de`` → ``x``, ``GPT-4.txt`` → ``GPT-4``,
    ``newstest2021.en-de.ref.A.de`` → ``A``, ``reference.B.de`` → ``B``.
    """
    name = PurePosixPath(filename.rsplit(":", 1)[-1]).name
    parts = name.split(".")
    known = {language.lower() for language in languages}

    def droppable(part: str) -> bool:
        return (
            part.lower() in FORMAT_SUFFIXES
            or part.lower() in known
            or bool(_LANGUAGE_PART.match(part))
        )

    while len(parts) > 1 and droppable(parts[-1]):
        parts.pop()
    markers = [at for at, part in enumerate(parts) if part.lower() in _NAME_MARKERS[kind]]
    if markers:
        at = markers[0]
        after, before = parts[at + 1 :], parts[:at]
        parts = after or before or parts
    return ".".join(parts)


def system_name_from_filename(filename: str, languages: tuple[str, ...] = ()) -> str:
    return name_from_filename(filename, "system", languages)
