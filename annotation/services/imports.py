"""One validation and import path for sources, references and system outputs.

Web pages, the REST API and the management commands all call :func:`upload_plan` (reads and
checks everything, writes nothing: the preview) and :func:`upload_import` (checks again and
writes, atomically).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models.functions import Length

from annotation.lib.textfiles import ParsedFile, UploadError, name_from_filename, parse_records
from annotation.lib.uploads import extract_archive, is_archive, size_over_limit
from annotation.models import (
    Campaign,
    Document,
    Job,
    Output,
    Reference,
    ReferenceSegment,
    Segment,
    System,
    SystemRun,
)
from annotation.services.jobs import job_request
from annotation.services.results_snapshots import results_snapshots_prepare
from annotation.services.upload_plans import (
    ImportedFile,
    PlannedFile,
    UploadPlan,
    check_name,
    content_hash,
    line_count_error,
    long_line_warnings,
    plan_source,
    plan_wmt_xml,
)

WMT_XML = "wmt_xml"  # one file holding documents, the source, references and systems
KINDS = ("source", "reference", "system", WMT_XML)
DEFAULT_DOCUMENT = "document-1"  # the one implicit document of a source without ids


def _expand(filename: str, data: bytes, *, kind: str) -> list[tuple[str, bytes]]:
    limit = settings.UPLOAD_MAX_BYTES
    if len(data) > limit:
        raise size_over_limit(filename, len(data), limit)
    if not is_archive(filename):
        return [(filename, data)]
    if kind != "system":
        raise UploadError(filename, "archives are for system outputs; upload this file alone")
    return [
        (f"{filename}:{name}", member)
        for name, member in extract_archive(filename, data, max_bytes=limit)
    ]


def upload_plan(
    *,
    campaign: Campaign,
    kind: str,
    files: list[tuple[str, bytes]],
    name: str | None = None,
    add_run: bool = False,
    documents: tuple[str, bytes] | None = None,
    names: list[str] | None = None,
) -> UploadPlan:
    """Validates whole files against the campaign and returns what importing them will do.

    ``name`` names a reference or a system; with several system files (or an archive) each
    system is named after its file (:func:`name_from_filename`, as is a reference without
    ``name``), unless ``names``
    gives one a file, in order (the names edited in the preview; an empty one is derived).
    ``add_run`` adds the file as another run of an existing system (several training seeds)
    instead of refusing the name. ``documents`` is a file of document ids (one a line) for a
    source that has none of its own.
    """
    if kind not in KINDS:
        raise UploadError("upload", f"unknown kind {kind!r}; use one of {', '.join(KINDS)}")
    if not files:
        raise UploadError("upload", "no file was sent")
    if documents is not None and kind != "source":
        raise UploadError(documents[0], "a document-id file goes with a source upload only")
    if kind == WMT_XML:
        return plan_wmt_xml(campaign=campaign, files=files)
    expanded = [member for filename, data in files for member in _expand(filename, data, kind=kind)]
    if kind != "system" and len(expanded) != 1:
        raise UploadError("upload", f"a {kind} is one file; {len(expanded)} were sent")

    if names is not None and len(names) != len(expanded):
        raise UploadError("upload", f"{len(names)} names for {len(expanded)} files")
    source_lengths = list(
        Segment.objects.filter(campaign=campaign)
        .order_by("index")
        .annotate(length=Length("source"))
        .values_list("length", flat=True)
    )
    segment_count = len(source_lengths)
    languages = (campaign.target_language, campaign.source_language)
    planned: list[PlannedFile] = []
    seen_names: dict[str, str] = {}
    seen_hashes: dict[str, str] = {}
    for position, (filename, data) in enumerate(expanded):
        parsed = parse_records(filename, data, allow_empty=kind == "system")
        texts = parsed.texts
        digest = content_hash(texts=texts)
        if kind == "source":
            planned.append(
                plan_source(
                    parsed=parsed, digest=digest, segment_count=segment_count, documents=documents
                )
            )
            continue
        if not segment_count:
            raise UploadError(filename, "upload the source first: nothing to align this file to")
        if len(texts) != segment_count:
            raise line_count_error(filename=filename, texts=texts, segment_count=segment_count)
        parsed.warnings.extend(
            long_line_warnings(filename=filename, texts=texts, source_lengths=source_lengths)
        )
        label = (
            (names[position].strip() if names is not None else None)
            or (name if len(expanded) == 1 and name else None)
            or name_from_filename(filename, kind, languages)
        )
        if not label or not label.strip():
            raise UploadError(filename, f"a {kind} needs a name")
        label = label.strip()
        check_name(filename=filename, kind=kind, label=label)
        if label in seen_names and not add_run:
            raise UploadError(filename, f"the name {label!r} is also that of {seen_names[label]}")
        if digest in seen_hashes:
            raise UploadError(filename, f"the same outputs as {seen_hashes[digest]}")
        seen_names[label], seen_hashes[digest] = filename, filename
        planned.append(_plan_named(campaign, kind, label, parsed, digest, add_run=add_run))
    return UploadPlan(campaign_id=campaign.id, files=planned)


def _plan_named(
    campaign: Campaign, kind: str, label: str, parsed: ParsedFile, digest: str, *, add_run: bool
) -> PlannedFile:
    filename = parsed.filename
    if kind == "reference":
        existing = Reference.objects.filter(campaign=campaign, name=label).first()
        if existing is None:
            return PlannedFile(kind, label, parsed, digest, "create")
        if existing.content_hash == digest:
            return PlannedFile(kind, label, parsed, digest, "unchanged", existing.id)
        raise UploadError(filename, f"the campaign has a different reference named {label!r}")

    same = SystemRun.objects.filter(campaign=campaign, content_hash=digest).select_related("system")
    run = same.first()
    if run is not None:
        if run.system.name != label:
            raise UploadError(
                filename,
                f"these outputs are uploaded already, as system {run.system.name!r} "
                f"run {run.number}",
            )
        return PlannedFile(kind, label, parsed, digest, "unchanged", run.id)
    system = System.objects.filter(campaign=campaign, name=label).first()
    if system is None:
        return PlannedFile(kind, label, parsed, digest, "create")
    if not add_run:
        raise UploadError(
            filename,
            f"the system name {label!r} is already used in this campaign; choose another "
            "name, or add the file as another run of that system",
        )
    return PlannedFile(kind, label, parsed, digest, "new_run", system.id)


def _apply(campaign: Campaign, plan: UploadPlan, user: User | None) -> list[ImportedFile]:
    results = []
    for planned in plan.files:
        if planned.kind == "source":
            results.append(_import_source(campaign, planned))
        elif planned.kind == "reference":
            results.append(_import_reference(campaign, planned))
        else:
            results.append(_import_system_run(campaign, planned, user))
    return results


def _import_source(campaign: Campaign, planned: PlannedFile) -> ImportedFile:
    documents: dict[str, Document] = {}
    doc_of_record = []
    for record in planned.parsed.records:
        doc_id = record.doc_id or DEFAULT_DOCUMENT
        if doc_id not in documents:
            documents[doc_id] = Document(
                campaign=campaign,
                external_id=doc_id,
                position=len(documents),
                implicit=not record.doc_id,
                domain=record.domain or "",
            )
        doc_of_record.append(documents[doc_id])
    Document.objects.bulk_create(documents.values())
    Segment.objects.bulk_create(
        Segment(campaign=campaign, document=document, index=index, source=record.text)
        for index, (record, document) in enumerate(
            zip(planned.parsed.records, doc_of_record, strict=True)
        )
    )
    return ImportedFile(
        "source",
        "source",
        "created",
        planned.segments,
        campaign.id,
        warnings=planned.parsed.warnings,
        documents=planned.documents,
    )


def _segment_ids(campaign: Campaign) -> list[int]:
    return list(
        Segment.objects.filter(campaign=campaign).order_by("index").values_list("id", flat=True)
    )


def _import_reference(campaign: Campaign, planned: PlannedFile) -> ImportedFile:
    if planned.action == "unchanged":
        assert planned.existing_id is not None
        return ImportedFile(
            "reference", planned.name, "unchanged", planned.segments, planned.existing_id
        )
    reference = Reference.objects.create(
        campaign=campaign,
        name=planned.name,
        content_hash=planned.content_hash,
        filename=planned.parsed.filename[:255],
    )
    ReferenceSegment.objects.bulk_create(
        ReferenceSegment(reference=reference, segment_id=segment_id, text=text)
        for segment_id, text in zip(_segment_ids(campaign), planned.parsed.texts, strict=True)
    )
    # New references change every automatic score: recompute them all.
    for run_id in SystemRun.objects.filter(campaign=campaign).values_list("id", flat=True):
        job_request(kind=Job.Kind.RUN_METRICS, target_id=run_id)
    return ImportedFile(
        "reference",
        planned.name,
        "created",
        planned.segments,
        reference.id,
        warnings=planned.parsed.warnings,
    )


def _import_system_run(campaign: Campaign, planned: PlannedFile, user: User | None) -> ImportedFile:
    if planned.action == "unchanged":
        assert planned.existing_id is not None
        run = SystemRun.objects.get(id=planned.existing_id)
        return ImportedFile(
            "system", planned.name, "unchanged", planned.segments, run.id, run.number
        )
    if planned.action == "new_run":
        assert planned.existing_id is not None
        system = System.objects.get(id=planned.existing_id)
        number = (system.runs.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    else:
        system = System.objects.create(campaign=campaign, name=planned.name)
        number = 1
    run = SystemRun.objects.create(
        system=system,
        campaign=campaign,
        number=number,
        content_hash=planned.content_hash,
        filename=planned.parsed.filename[:255],
        uploaded_by=user,
    )
    Output.objects.bulk_create(
        Output(run=run, segment_id=segment_id, text=text)
        for segment_id, text in zip(_segment_ids(campaign), planned.parsed.texts, strict=True)
    )
    job_request(kind=Job.Kind.RUN_METRICS, target_id=run.id)
    return ImportedFile(
        "system",
        planned.name,
        "created" if number == 1 else "new_run",
        planned.segments,
        run.id,
        number,
        warnings=planned.parsed.warnings,
    )


@transaction.atomic
def upload_import(
    *,
    campaign: Campaign,
    kind: str,
    files: list[tuple[str, bytes]],
    user: User | None,
    name: str | None = None,
    add_run: bool = False,
    documents: tuple[str, bytes] | None = None,
    names: list[str] | None = None,
) -> list[ImportedFile]:
    """Validates and imports: all files or none; metrics jobs are queued on commit.

    The campaign row is locked first, so two uploads to one campaign are serialised and each
    is validated against what the other wrote. A preview (:func:`upload_plan`) is advisory:
    confirming it calls this again on the same bytes.
    """
    Campaign.objects.select_for_update().get(id=campaign.id)
    plan = upload_plan(
        campaign=campaign,
        kind=kind,
        files=files,
        name=name,
        add_run=add_run,
        documents=documents,
        names=names,
    )
    imported = _apply(campaign, plan, user)
    results_snapshots_prepare(campaign_id=campaign.id)  # its results computed ahead
    return imported
