"""Media sources of Pearmut campaigns: each ``<img>``, ``<audio>`` or ``<video>`` source
(``annotation.lib.pearmut.PearmutMedia``) read and checked before anything is written, then
stored as its segment's ``SourceMedia`` (``annotation.services.media``).

Where a file may come from: a data: URL (base64), or a path beside the campaign file (the
command reads that directory; an upload carries no other file). A web URL is refused, naming
it: evalsite fetches nothing from the network.
"""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path
from urllib.parse import unquote

from django.conf import settings

from annotation.errors import ApplicationError
from annotation.lib.pearmut import PearmutCampaign
from annotation.lib.pearmut_items import PearmutMedia
from annotation.lib.textfiles import UploadError
from annotation.models import Item, Task
from annotation.services.media import MEDIA_SUFFIXES, media_file_checked, source_media_store

# A reference with a scheme (https:, ftp:, ...) or a network path (//host/...): on the web.
WEB_REFERENCE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)
DATA_URL = re.compile(
    r"^data:([a-z0-9.+/-]+)((?:;[^,;]*)*?)(;base64)?,(.*)$", re.IGNORECASE | re.DOTALL
)
# The suffix a data: URL's MIME type is stored under (the first of MEDIA_SUFFIXES naming it).
SUFFIX_OF_MIME = {mime: suffix for suffix, (_, mime) in reversed(MEDIA_SUFFIXES.items())}


class PearmutImportError(ApplicationError):
    """A Pearmut file that cannot be imported, with the reason."""


def pearmut_media_read(
    *, parsed: PearmutCampaign, directory: Path | None
) -> dict[tuple[int, int], tuple[str, bytes]]:
    """(document number, item position) → (file name, bytes) of every media source, read
    and checked before anything is written."""
    found = {}
    for number, document in enumerate(parsed.documents):
        for position, item in enumerate(document.items):
            if item.media is None:
                continue
            where = f"document {document.name!r}, item {item.item_id!r}"
            filename, data = _media_file(item.media, directory, where)
            try:
                media_file_checked(filename=filename, data=data)
            except UploadError as error:
                raise PearmutImportError(f"{where}: {error}") from None
            found[(number, position)] = (filename, data)
    return found


def _media_file(media: PearmutMedia, directory: Path | None, where: str) -> tuple[str, bytes]:
    reference = media.reference
    if reference.lower().startswith("data:"):
        return _data_url(reference, media.kind, where)
    if WEB_REFERENCE.match(reference):
        raise PearmutImportError(
            f"{where}: its source {media.kind} is on the web ({reference}) and evalsite"
            " fetches nothing from the network: put the file beside the campaign file and"
            " name it by its path (manage.py import_pearmut), or give it as a data: URL"
        )
    if directory is None:
        raise PearmutImportError(
            f"{where}: its source {media.kind} is the file {reference!r}, which an upload does"
            " not carry: import with manage.py import_pearmut (it reads the files beside the"
            " campaign file), or give the file as a data: URL"
        )
    root = directory.resolve()
    path = (root / unquote(reference.split("?", 1)[0])).resolve()
    if not path.is_relative_to(root):
        raise PearmutImportError(
            f"{where}: the media file {reference!r} is outside the campaign file's directory"
        )
    if not path.is_file():
        raise PearmutImportError(
            f"{where}: no media file {reference!r} beside the campaign file ({root})"
        )
    if path.stat().st_size > settings.MEDIA_FILE_MAX_BYTES:
        raise PearmutImportError(f"{where}: the media file {reference!r} is over the size limit")
    return path.name, path.read_bytes()


def _data_url(reference: str, kind: str, where: str) -> tuple[str, bytes]:
    match = DATA_URL.match(reference)
    if match is None or match.group(3) is None:
        raise PearmutImportError(f"{where}: its source {kind} is a data: URL that is not base64")
    mime = match.group(1).lower()
    if mime not in SUFFIX_OF_MIME:
        allowed = ", ".join(sorted(SUFFIX_OF_MIME))
        raise PearmutImportError(f"{where}: a data: URL of type {mime!r}; use one of {allowed}")
    try:
        data = base64.b64decode(unquote(match.group(4)), validate=True)
    except (binascii.Error, ValueError):
        raise PearmutImportError(f"{where}: its data: URL is not valid base64") from None
    return f"{kind}{SUFFIX_OF_MIME[mime]}", data


def pearmut_media_store(
    *,
    task: Task,
    parsed: PearmutCampaign,
    rows: list[dict[str, Item]],
    files: dict[tuple[int, int], tuple[str, bytes]],
) -> None:
    """Each media source stored as its segment's (once: documents repeat across tasks)."""
    if not files:
        return
    stored: set[int] = set()
    row = 0
    for number, document in enumerate(parsed.documents):
        for position in range(len(document.items)):
            found = files.get((number, position))
            segment = next(iter(rows[row].values())).segment
            row += 1
            if found is None or segment.id in stored:
                continue
            stored.add(segment.id)
            filename, data = found
            source_media_store(
                campaign=task.campaign, segment=segment, filename=filename, data=data
            )
