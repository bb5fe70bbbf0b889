"""Reads of media sources: the file of a segment, and whether an annotator may see it."""

from __future__ import annotations

from annotation.models import Segment, Slot, SourceMedia


def source_media_of(segment: Segment) -> SourceMedia | None:
    """The segment's media file, or None (no query when the annotator's slot read brought it:
    annotation/services/slot_rows.py)."""
    try:
        return segment.media
    except SourceMedia.DoesNotExist:
        return None


def annotator_sees_segment(*, annotator_id: int, segment_id: int) -> bool:
    """An annotator sees a segment's media only through an item of theirs (a slot they hold)."""
    return Slot.objects.filter(annotator_id=annotator_id, item__segment_id=segment_id).exists()
