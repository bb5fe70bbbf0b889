"""Uploaded files before they are read as text (``annotation.lib.textfiles``): their sizes
against the limits, said in MB, and archives unpacked with their expanded size bounded.
Validation only: nothing here touches the database."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import PurePosixPath

from annotation.lib.textfiles import UploadError

MEGABYTE = 1024 * 1024  # as UPLOAD_MAX_BYTES is written


def format_size(size: int) -> str:
    """A file size for managers: in MB, or in bytes when that would read 0.0 MB."""
    if size < MEGABYTE // 10:
        return f"{size:,} bytes"
    return f"{size / MEGABYTE:.1f} MB"


def size_over_limit(filename: str, size: int, limit: int) -> UploadError:
    return UploadError(
        filename, f"{format_size(size)} is over the upload limit of {format_size(limit)}"
    )


ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")


def is_archive(filename: str) -> bool:
    return filename.lower().endswith(ARCHIVE_SUFFIXES)


def extract_archive(filename: str, data: bytes, *, max_bytes: int) -> list[tuple[str, bytes]]:
    """The regular files inside an archive, in name order.

    The expanded size is bounded while reading (not trusted from headers), so a zip bomb
    stops at ``max_bytes``; an archive inside an archive is refused.
    """
    members: list[tuple[str, bytes]] = []
    total = 0

    def take(name: str, stream) -> None:
        nonlocal total
        if is_archive(name):
            raise UploadError(filename, f"{name} is an archive inside the archive; nest none")
        chunks = []
        while chunk := stream.read(1 << 20):
            total += len(chunk)
            if total > max_bytes:
                raise UploadError(
                    filename, f"the archive expands past the limit of {format_size(max_bytes)}"
                )
            chunks.append(chunk)
        members.append((name, b"".join(chunks)))

    try:
        if filename.lower().endswith(".zip"):
            with zipfile.ZipFile(io.BytesIO(data)) as zipped:
                for info in zipped.infolist():
                    if not info.is_dir() and not _hidden(info.filename):
                        with zipped.open(info) as stream:
                            take(info.filename, stream)
        else:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tarred:
                for member in tarred:
                    if member.isfile() and not _hidden(member.name):
                        extracted = tarred.extractfile(member)
                        if extracted is not None:
                            take(member.name, extracted)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as error:
        raise UploadError(filename, f"not a readable archive: {error}") from None
    if not members:
        raise UploadError(filename, "the archive holds no files")
    return sorted(members)


def _hidden(name: str) -> bool:
    return any(part.startswith((".", "__MACOSX")) for part in PurePosixPath(name).parts)


def read_uploaded(files, *, max_bytes: int) -> list[tuple[str, bytes]]:
    """(name, bytes) of uploaded files, refusing an oversized one before reading it."""
    read = []
    for upload in files:
        if upload.size > max_bytes:
            raise size_over_limit(upload.name, upload.size, max_bytes)
        read.append((upload.name, upload.read()))
    return read
