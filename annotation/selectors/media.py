"""Reads of media sources: the file of a segment, and whether an annotator may see it."""

from __future__ import annotations

from annotation.models import Slot, SourceMedia


def source_media_of(segment_id: int) -> SourceMedia | None:
    return SourceMedia.objects.filter(segment_id=segment_id).first()


def annotator_sees_segment(*, annotator_id: int, segment_id: int) -> bool:
    """An annotator sees a segment's media only through an item of theirs (a slot they hold)."""
    return Slot.objects.filter(annotator_id=annotator_id, item__segment_id=segment_id).exists()
