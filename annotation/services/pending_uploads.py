"""Previewed uploads kept until the manager confirms them: the files are stored as sent and
validated again, through :func:`annotation.services.imports.upload_import`, on confirmation."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from annotation.lib.textfiles import UploadError
from annotation.models import Campaign, PendingUpload, PendingUploadFile
from annotation.services.imports import upload_import, upload_plan
from annotation.services.upload_plans import ImportedFile, UploadPlan

NAMED_KINDS = ("reference", "system")  # the kinds whose names the preview lets one edit


@transaction.atomic
def pending_upload_create(
    *,
    campaign: Campaign,
    user: User,
    kind: str,
    files: list[tuple[str, bytes]],
    name: str = "",
    add_run: bool = False,
    documents: tuple[str, bytes] | None = None,
) -> PendingUpload:
    """Keeps previewed files until the manager confirms (or uploads something else)."""
    PendingUpload.objects.filter(campaign=campaign, user=user).delete()
    pending = PendingUpload.objects.create(
        campaign=campaign,
        user=user,
        kind=kind,
        name=name,
        add_run=add_run,
        documents_filename=documents[0][:255] if documents else "",
        documents=documents[1] if documents else None,
    )
    PendingUploadFile.objects.bulk_create(
        PendingUploadFile(upload=pending, filename=filename[:255], data=data)
        for filename, data in files
    )
    return pending


@transaction.atomic
def pending_upload_confirm(
    *, campaign: Campaign, user: User, pending_id: int, names: list[str] | None = None
) -> list[ImportedFile]:
    """Imports previewed files, validating them again, under the ``names`` edited in the
    preview (one a planned file). The preview is gone after an import, and kept (the whole
    transaction rolls back) when validation refuses it, so the manager can correct a name."""
    pending = _pending(campaign=campaign, user=user, pending_id=pending_id)
    arguments = _pending_arguments(pending)
    pending.delete()
    if arguments["kind"] in NAMED_KINDS:
        arguments["names"] = names
    return upload_import(campaign=campaign, user=user, **arguments)


def pending_upload_plan(
    *, campaign: Campaign, user: User, pending_id: int
) -> tuple[PendingUpload, UploadPlan]:
    """A kept preview and its plan, to show it again (after a refused name, say)."""
    pending = _pending(campaign=campaign, user=user, pending_id=pending_id)
    return pending, upload_plan(campaign=campaign, **_pending_arguments(pending))


def _pending(*, campaign: Campaign, user: User, pending_id: int) -> PendingUpload:
    pending = PendingUpload.objects.filter(id=pending_id, campaign=campaign, user=user).first()
    if pending is None:
        raise UploadError("upload", "this preview has expired or was confirmed already")
    return pending


def _pending_arguments(pending: PendingUpload) -> dict:
    documents = None
    if pending.documents is not None:
        documents = (pending.documents_filename, bytes(pending.documents))
    return {
        "kind": pending.kind,
        "files": [(f.filename, bytes(f.data)) for f in pending.files.order_by("id")],
        "name": pending.name or None,
        "add_run": pending.add_run,
        "documents": documents,
    }


@transaction.atomic
def pending_upload_discard(*, campaign: Campaign, user: User, pending_id: int) -> None:
    PendingUpload.objects.filter(id=pending_id, campaign=campaign, user=user).delete()
