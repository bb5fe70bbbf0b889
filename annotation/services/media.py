"""Media sources: a zip of images, audio or video files with a manifest, one file per source
segment; validated whole before anything is written, then stored under ``settings.MEDIA_ROOT``.

The manifest is ``manifest.json`` at the zip's top level, a list of entries::

    [{"line": 1, "file": "clips/talk-1.mp3", "transcript": "optional text"}, ...]

``line`` is the source segment's line (from 1), ``file`` a path inside the zip. A file's type
comes from its suffix, must be in ``MEDIA_SUFFIXES`` and its first bytes must be of that type;
every file in the zip must be named once.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import posixpath
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction

from annotation.lib.textfiles import UploadError
from annotation.lib.uploads import extract_archive, format_size, size_over_limit
from annotation.models import Campaign, MediaKind, Segment, SourceMedia

MANIFEST = "manifest.json"
MANIFEST_KEYS = frozenset({"line", "file", "transcript"})
# Suffix -> (kind, MIME type) of the files a browser plays natively. No SVG: it can script.
MEDIA_SUFFIXES: dict[str, tuple[str, str]] = {
    ".png": (MediaKind.IMAGE, "image/png"),
    ".jpg": (MediaKind.IMAGE, "image/jpeg"),
    ".jpeg": (MediaKind.IMAGE, "image/jpeg"),
    ".gif": (MediaKind.IMAGE, "image/gif"),
    ".webp": (MediaKind.IMAGE, "image/webp"),
    ".mp3": (MediaKind.AUDIO, "audio/mpeg"),
    ".wav": (MediaKind.AUDIO, "audio/wav"),
    ".ogg": (MediaKind.AUDIO, "audio/ogg"),
    ".oga": (MediaKind.AUDIO, "audio/ogg"),
    ".m4a": (MediaKind.AUDIO, "audio/mp4"),
    ".flac": (MediaKind.AUDIO, "audio/flac"),
    ".mp4": (MediaKind.VIDEO, "video/mp4"),
    ".webm": (MediaKind.VIDEO, "video/webm"),
    ".ogv": (MediaKind.VIDEO, "video/ogg"),
}


def _riff(form: bytes):
    return lambda data: data[:4] == b"RIFF" and data[8:12] == form


def _mp3(data: bytes) -> bool:
    return data[:3] == b"ID3" or (len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0)


# What the first bytes of each type are: a file whose content is not its suffix's type (a page
# renamed .png) is refused, whatever the browser would make of it.
SIGNATURES = {
    "image/png": lambda data: data[:8] == b"\x89PNG\r\n\x1a\n",
    "image/jpeg": lambda data: data[:3] == b"\xff\xd8\xff",
    "image/gif": lambda data: data[:6] in (b"GIF87a", b"GIF89a"),
    "image/webp": _riff(b"WEBP"),
    "audio/mpeg": _mp3,
    "audio/wav": _riff(b"WAVE"),
    "audio/ogg": lambda data: data[:4] == b"OggS",
    "audio/mp4": lambda data: data[4:8] == b"ftyp",
    "audio/flac": lambda data: data[:4] == b"fLaC",
    "video/mp4": lambda data: data[4:8] == b"ftyp",
    "video/webm": lambda data: data[:4] == b"\x1a\x45\xdf\xa3",
    "video/ogg": lambda data: data[:4] == b"OggS",
}


@dataclass(frozen=True)
class PlannedMedia:
    line: int
    filename: str
    kind: str
    mime_type: str
    data: bytes
    transcript: str

    @property
    def stored_name(self) -> str:
        return hashlib.sha256(self.data).hexdigest() + Path(self.filename).suffix.lower()


def _is_unsafe(path: str) -> bool:
    """A path that could leave the zip's tree: absolute, a drive, a backslash or a ``..``."""
    return (
        path.startswith("/")
        or "\\" in path
        or ":" in path
        or ".." in posixpath.normpath(path).split("/")
        or ".." in path.split("/")
    )


def _member_names(filename: str, data: bytes) -> list[str]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return archive.namelist()
    except zipfile.BadZipFile as error:
        raise UploadError(filename, f"not a readable zip: {error}") from None


def _read_manifest(zip_name: str, members: dict[str, bytes]) -> list[object]:
    if MANIFEST not in members:
        raise UploadError(zip_name, f"no {MANIFEST} at the top of the zip")
    try:
        manifest = json.loads(members[MANIFEST].decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UploadError(MANIFEST, f"not valid JSON: {error}") from None
    if not isinstance(manifest, list) or not manifest:
        raise UploadError(MANIFEST, "must be a non-empty list of {line, file, transcript}")
    return manifest


def _plan_entry(entry: object, position: int, members: dict[str, bytes], lines: int):
    where = f"{MANIFEST}, entry {position}"
    if not isinstance(entry, dict):
        raise UploadError(where, "must be an object with line and file")
    unknown = sorted(set(entry) - MANIFEST_KEYS)
    if unknown:
        raise UploadError(where, f"unknown keys {', '.join(unknown)}; use line, file, transcript")
    line, filename, transcript = entry.get("line"), entry.get("file"), entry.get("transcript", "")
    if not isinstance(line, int) or isinstance(line, bool) or not 1 <= line <= lines:
        raise UploadError(where, f"line must be a source line from 1 to {lines}, not {line!r}")
    if not isinstance(filename, str) or not filename:
        raise UploadError(where, "file must be a path inside the zip")
    if not isinstance(transcript, str):
        raise UploadError(where, "transcript must be text")
    if _is_unsafe(filename):
        raise UploadError(filename, "a path leaving the zip (absolute or with ..) is refused")
    if filename not in members:
        raise UploadError(filename, f"named in {MANIFEST} (line {line}) but not in the zip")
    data = members[filename]
    kind, mime_type = media_file_checked(filename=filename, data=data)
    return PlannedMedia(line, filename, kind, mime_type, data, transcript)


def media_file_checked(*, filename: str, data: bytes) -> tuple[str, str]:
    """(kind, MIME type) of one media file: its suffix's type allowed, within the size limit,
    and its first bytes of that type; else ``UploadError`` naming the file."""
    suffix = Path(filename).suffix.lower()
    if suffix not in MEDIA_SUFFIXES:
        allowed = " ".join(sorted(MEDIA_SUFFIXES))
        raise UploadError(filename, f"unknown media type {suffix or '(none)'!r}; use {allowed}")
    if len(data) > settings.MEDIA_FILE_MAX_BYTES:
        raise UploadError(
            filename,
            f"{format_size(len(data))} is over the limit of "
            f"{format_size(settings.MEDIA_FILE_MAX_BYTES)} a media file",
        )
    if not data:
        raise UploadError(filename, "the file is empty")
    kind, mime_type = MEDIA_SUFFIXES[suffix]
    if not SIGNATURES[mime_type](data):
        raise UploadError(filename, f"the content is not {mime_type}; is the suffix right?")
    return kind, mime_type


def media_plan(*, campaign: Campaign, filename: str, data: bytes) -> list[PlannedMedia]:
    """Reads and checks the whole zip against the campaign's source; writes nothing."""
    limit = settings.MEDIA_UPLOAD_MAX_BYTES
    if len(data) > limit:
        raise size_over_limit(filename, len(data), limit)
    if not filename.lower().endswith(".zip"):
        raise UploadError(filename, f"media come as a .zip with a {MANIFEST}")
    # Named before extracting: extract_archive skips hidden names, "../x" among them.
    for name in _member_names(filename, data):
        if _is_unsafe(name):
            raise UploadError(name, "a path leaving the zip (absolute or with ..) is refused")
    members = dict(extract_archive(filename, data, max_bytes=limit))
    lines = Segment.objects.filter(campaign=campaign).count()
    if not lines:
        raise UploadError(filename, "upload the source first: media belong to its lines")
    planned = [
        _plan_entry(entry, position, members, lines)
        for position, entry in enumerate(_read_manifest(filename, members), start=1)
    ]
    seen_lines: dict[int, str] = {}
    for media in planned:
        if media.line in seen_lines:
            raise UploadError(
                media.filename, f"line {media.line} has a file already: {seen_lines[media.line]}"
            )
        seen_lines[media.line] = media.filename
    unnamed = sorted(set(members) - {MANIFEST} - {media.filename for media in planned})
    if unnamed:
        raise UploadError(unnamed[0], f"in the zip but not named in {MANIFEST}")
    return planned


def _store(directory: Path, media: PlannedMedia) -> None:
    """Writes the file whole or not at all (a temporary file renamed into place)."""
    target = directory / media.stored_name
    if target.exists():
        return
    directory.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".upload-")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(media.data)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@transaction.atomic
def media_import(*, campaign: Campaign, filename: str, data: bytes) -> list[SourceMedia]:
    """Checks the zip, stores its files and links each to its source line, replacing a line's
    earlier file. Files are named by content, so a rolled-back import leaves only files that
    a retry reuses."""
    Campaign.objects.select_for_update().get(id=campaign.id)
    planned = media_plan(campaign=campaign, filename=filename, data=data)
    segments = {
        segment.index: segment
        for segment in Segment.objects.filter(
            campaign=campaign, index__in=[media.line - 1 for media in planned]
        ).only("id", "index")
    }
    directory = Path(settings.MEDIA_ROOT) / str(campaign.id)
    for media in planned:
        _store(directory, media)
    SourceMedia.objects.filter(segment__in=segments.values()).delete()
    return SourceMedia.objects.bulk_create(
        SourceMedia(
            campaign=campaign,
            segment=segments[media.line - 1],
            kind=media.kind,
            mime_type=media.mime_type,
            path=f"{campaign.id}/{media.stored_name}",
            size=len(media.data),
            filename=media.filename[:255],
            transcript=media.transcript,
        )
        for media in planned
    )


def source_media_store(
    *, campaign: Campaign, segment: Segment, filename: str, data: bytes
) -> SourceMedia:
    """Stores one checked media file (``media_file_checked``) as ``segment``'s (another
    importer's: a Pearmut campaign's sources); the caller holds the transaction."""
    kind, mime_type = media_file_checked(filename=filename, data=data)
    media = PlannedMedia(segment.index + 1, filename, kind, mime_type, data, "")
    _store(Path(settings.MEDIA_ROOT) / str(campaign.id), media)
    return SourceMedia.objects.create(
        campaign=campaign,
        segment=segment,
        kind=kind,
        mime_type=mime_type,
        path=f"{campaign.id}/{media.stored_name}",
        size=len(data),
        filename=filename[:255],
    )
