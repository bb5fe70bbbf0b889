"""Media sources: the manager's zip upload form, and each file served with HTTP range requests
(seeking in audio and video) under the item's permissions: the campaign's managers and
organisers, and annotators holding an item of its segment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST, require_safe

from annotation.lib.byte_ranges import UnsatisfiableRange, byte_range
from annotation.lib.textfiles import UploadError
from annotation.lib.uploads import read_uploaded
from annotation.models import Role, SourceMedia
from annotation.permissions import CAN_MANAGE, CAN_SEE_MEDIA, authorize
from annotation.selectors.media import annotator_sees_segment
from annotation.services.media import media_import
from annotation.views.errors import refused_to

CHUNK = 256 * 1024


def _chunks(path: Path, first: int, length: int) -> Iterator[bytes]:
    with path.open("rb") as stream:
        stream.seek(first)
        while length > 0:
            chunk = stream.read(min(CHUNK, length))
            if not chunk:
                return
            length -= len(chunk)
            yield chunk


@login_required
@require_safe
@authorize(CAN_SEE_MEDIA)
def source_media(request, campaign_id: int, media_id: int):
    media = SourceMedia.objects.filter(id=media_id, campaign_id=campaign_id).first()
    if media is None or (
        request.role == Role.ANNOTATOR
        and not annotator_sees_segment(annotator_id=request.user.id, segment_id=media.segment_id)
    ):
        raise Http404("no such media file")
    path = Path(settings.MEDIA_ROOT) / media.path
    if not path.is_file():
        raise Http404("the media file is missing from the storage")
    size = path.stat().st_size
    try:
        wanted = byte_range(request.headers.get("Range"), size)
    except UnsatisfiableRange:
        response = HttpResponse(status=416)
        response["Content-Range"] = f"bytes */{size}"
        return response
    first, last = wanted if wanted is not None else (0, size - 1)
    length = last - first + 1
    response = StreamingHttpResponse(
        _chunks(path, first, length) if request.method == "GET" else iter(()),
        status=206 if wanted is not None else 200,
        content_type=media.mime_type,
    )
    if wanted is not None:
        response["Content-Range"] = f"bytes {first}-{last}/{size}"
    response["Content-Length"] = str(length)
    response["Accept-Ranges"] = "bytes"
    response["Cache-Control"] = "private, max-age=3600"
    response["X-Content-Type-Options"] = "nosniff"
    return response


@login_required
@require_POST
@authorize(CAN_MANAGE)
@refused_to("campaign-detail", "No media were stored. {error}")
def campaign_media_upload(request, campaign_id: int):
    upload = request.FILES.get("file")
    if upload is None:
        raise UploadError("upload", "choose a zip of media files with its manifest.json")
    ((filename, content),) = read_uploaded([upload], max_bytes=settings.MEDIA_UPLOAD_MAX_BYTES)
    stored = media_import(campaign=request.campaign, filename=filename, data=content)
    messages.success(
        request, f"{filename}: {len(stored)} media file{'s' if len(stored) != 1 else ''} stored."
    )
    return redirect("campaign-detail", campaign_id)
