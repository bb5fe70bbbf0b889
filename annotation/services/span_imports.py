"""Importing finished MQM ratings (Google's MQM TSV) as a campaign with an MQM task, its
items, its raters' judgments and their spans, so that results and exports work on them.

The whole file is read and checked before anything is written; raters become accounts that
cannot log in (no usable password), named as in the file.

HOTW attention checks (Anthea's ``HOTW-test`` rows) are never errors: each is stored on the
item it was given on (``Item.source_meta["hotw"]``: rater, found, the injected text and its
kind), and ``annotation.selectors.hotw.hotw_results`` counts them per rater for the pages.
Anthea shows the injected error in place of the segment the rater is rating, so each is also
an attention-check outcome (``CheckOutcome``, kind ``hotw``) on the slot of that rating: the
raters' accounts then have their HOTW checks in the reliability table like any annotator's.
A rating made of HOTW rows only gives no judgment and no slot: its outcome has none, and
still counts for the rater (one whose ratings are all such has a row of checks only).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.errors import ApplicationError
from annotation.models import (
    Batch,
    CheckKind,
    CheckOutcome,
    Document,
    ErrorSpan,
    Item,
    ItemType,
    Judgment,
    Segment,
    Slot,
    System,
    Task,
)
from annotation.protocols import PROTOCOLS
from annotation.services.campaigns import CampaignError, campaign_create
from annotation.services.logins import UsernameError, username_clean
from annotation.services.results_snapshots import results_snapshots_prepare
from annotation.services.spans import error_span_row
from metrics.spans import GOOGLE_MQM_CATEGORIES, HotwCheck, MqmRating

# The most time one imported rating is given (a gap beyond it between two ratings was a break;
# the reliability table caps idle time far below it anyway).
LONGEST_RATING = timedelta(hours=1)
# The protocol Google's MQM TSV ratings are imported as, as it declares (``mqm_tsv``).
MQM_TSV_TYPE = next(task_type for task_type, p in PROTOCOLS.items() if p.mqm_tsv)


class SpanImportError(ApplicationError):
    """Ratings that cannot be imported, with the reason."""


def _checked(ratings: list[MqmRating]) -> None:
    seen: set[tuple[str, str, str, str]] = set()
    sources: dict[tuple[str, str], str] = {}
    for rating in ratings:
        key = (rating.system, rating.doc, rating.seg_id, rating.rater)
        if key in seen:
            raise SpanImportError(
                f"rater {rating.rater!r} rates {rating.system} {rating.doc} segment "
                f"{rating.seg_id} in two places of the file"
            )
        seen.add(key)
        segment = (rating.doc, rating.seg_id)
        if sources.setdefault(segment, rating.source) != rating.source:
            raise SpanImportError(f"{rating.doc} segment {rating.seg_id} has two sources")
        for span in rating.spans:
            span.check_within(rating.target if span.side == "target" else rating.source)


def rater_accounts(*, usernames: list[str]) -> dict[str, User]:
    """An account per imported rater, that cannot log in (no usable password); a name that
    belongs to a real account stops the import (its owner did not give these ratings)."""
    raters = {}
    for username in usernames:
        try:
            name = username_clean(username=username)
        except UsernameError as error:
            raise SpanImportError(f"rater {username[:150]!r}: {error}") from None
        # In any case: usernames are unique whatever their case (migration 0025).
        user = User.objects.filter(username__iexact=name).first()
        if user is None:
            user = User(username=name)
            user.set_unusable_password()
            user.save()
        elif user.has_usable_password():
            raise SpanImportError(f"rater {username!r} is the name of an account; rename it")
        raters[username] = user
    return raters


def _account_name(rater: str) -> str:
    """The account of a rater named in an MQM file. Anthea writes ``project:rater``; a colon
    cannot stand in a username, so it becomes a dot (``project.rater``)."""
    return rater.replace(":", ".")


def _rating_times(ratings: list[MqmRating], now: datetime) -> list[tuple[datetime, datetime]]:
    """(served, submitted) per rating. Anthea's rows carry their times: a rating was
    submitted at its last row's and served when the rater's previous rating (in time) was
    submitted (their first: at its first row's; a longer gap than ``LONGEST_RATING`` was a
    break), so the reliability table's time per item is the rater's; a file without times
    gives every rating the import's time (0 s)."""
    stamped: dict[str, list[tuple[datetime, datetime, int]]] = {}
    for index, rating in enumerate(ratings):
        if rating.timestamps is not None:
            first, last = (datetime.fromtimestamp(t / 1000, tz=UTC) for t in rating.timestamps)
            stamped.setdefault(rating.rater, []).append((last, first, index))
    times = [(now, now)] * len(ratings)
    for rows in stamped.values():
        previous = None
        for last, first, index in sorted(rows):
            served = first if previous is None else max(previous, last - LONGEST_RATING)
            times[index] = (served, last)
            previous = last
    return times


def _hotw_outcome(
    task: Task, slot: Slot | None, rater: User, checks: tuple[HotwCheck, ...]
) -> CheckOutcome:
    """The HOTW checks given with one rating as the outcome of its slot (None: a rating made
    of HOTW rows only): passed when the rater found every injected error (Anthea gives a
    segment one)."""
    missed = sum(1 for check in checks if not check.found)
    reason = ""
    if missed:
        kinds = ", ".join(sorted({check.kind for check in checks if check.kind}))
        reason = f"missed {missed} of {len(checks)} injected errors" + (
            f" ({kinds})" if kinds else ""
        )
    return CheckOutcome(
        task=task,
        slot=slot,
        annotator=rater,
        kind=CheckKind.HOTW,
        passed=not missed,
        reason=reason[:200],
    )


@transaction.atomic
def mqm_ratings_import(
    *,
    ratings: Iterable[MqmRating],
    name: str,
    source_language: str,
    target_language: str,
    owner: User,
    now: datetime | None = None,
) -> Task:
    """Creates a campaign holding the ratings as judgments of a launched MQM task."""
    ratings = list(ratings)
    if not ratings:
        raise SpanImportError("the file holds no ratings")
    _checked(ratings)
    now = now or timezone.now()
    try:
        campaign = campaign_create(
            name=name,
            source_language=source_language,
            target_language=target_language,
            owner=owner,
            description="Imported MQM ratings.",
        )
    except CampaignError as error:
        raise SpanImportError(str(error)) from None
    found = [c for r in ratings for s in r.spans if (c := s.category or "")]
    extra = sorted(set(found) - set(GOOGLE_MQM_CATEGORIES))
    task = Task.objects.create(
        campaign=campaign,
        task_type=MQM_TSV_TYPE,
        state=Task.State.LAUNCHED,
        mqm_categories=[*GOOGLE_MQM_CATEGORIES, *extra] if extra else [],
    )
    documents: dict[str, Document] = {}
    segments: dict[tuple[str, str], Segment] = {}
    for rating in ratings:
        document = documents.setdefault(
            rating.doc,
            Document(campaign=campaign, external_id=rating.doc[:200], position=len(documents)),
        )
        segments.setdefault(
            (rating.doc, rating.seg_id),
            Segment(
                campaign=campaign, document=document, index=len(segments), source=rating.source
            ),
        )
    Document.objects.bulk_create(documents.values())
    Segment.objects.bulk_create(segments.values())
    systems = {
        name: System(campaign=campaign, name=name[:200])
        for name in sorted({rating.system for rating in ratings})
    }
    System.objects.bulk_create(systems.values())
    items: dict[tuple[str, str, str], Item] = {}
    for rating in ratings:
        key = (rating.system, rating.doc, rating.seg_id)
        if key not in items:
            items[key] = Item(
                task=task,
                campaign=campaign,
                external_id=len(items) + 1,
                item_type=ItemType.TGT,
                segment=segments[(rating.doc, rating.seg_id)],
                system=systems[rating.system],
                candidates=[{"text": rating.target, "systems": [rating.system], "type": "TGT"}],
                source_meta={"doc_id": rating.doc_id, "seg_id": rating.seg_id},
            )
        if rating.checks:
            items[key].source_meta.setdefault("hotw", []).extend(
                {
                    "rater": rating.rater,
                    "found": check.found,
                    "injected": check.injected,
                    "kind": check.kind,
                }
                for check in rating.checks
            )
    Item.objects.bulk_create(items.values())
    names = sorted({rating.rater for rating in ratings})
    accounts = rater_accounts(usernames=[_account_name(name) for name in names])
    raters = {name: accounts[_account_name(name)] for name in names}
    checks_only = [rating for rating in ratings if not rating.rated and rating.checks]
    ratings = [rating for rating in ratings if rating.rated]
    batches = {
        username: Batch(
            task=task,
            number=number,
            group=number,
            size=sum(1 for r in ratings if r.rater == username),
            judged=sum(1 for r in ratings if r.rater == username),
            state=Batch.State.DONE,
            annotator=raters[username],
        )
        for number, username in enumerate(raters)
    }
    Batch.objects.bulk_create(batches.values())
    replicas: dict[tuple[str, str, str], int] = {}
    positions: dict[str, int] = {}
    slots, judgments = [], []
    times = _rating_times(ratings, now)
    for rating, (served_at, submitted_at) in zip(ratings, times, strict=True):
        key = (rating.system, rating.doc, rating.seg_id)
        replica = replicas[key] = replicas.get(key, -1) + 1
        position = positions[rating.rater] = positions.get(rating.rater, -1) + 1
        slot = Slot(
            task=task,
            item=items[key],
            batch=batches[rating.rater],
            position=position,
            replica=replica,
            state=Slot.State.DONE,
            annotator=raters[rating.rater],
            served_at=served_at,
        )
        slots.append(slot)
        judgments.append(
            Judgment(
                slot=slot,
                task=task,
                item=items[key],
                annotator=raters[rating.rater],
                task_type=MQM_TSV_TYPE,
                served_at=served_at,
                submitted_at=submitted_at,
                duration_ms=round((submitted_at - served_at).total_seconds() * 1000),
            )
        )
    Slot.objects.bulk_create(slots)
    Judgment.objects.bulk_create(judgments)
    CheckOutcome.objects.bulk_create(
        _hotw_outcome(task, slot, raters[rating.rater], rating.checks)
        for slot, rating in zip(slots, ratings, strict=True)
        if rating.checks
    )
    CheckOutcome.objects.bulk_create(
        _hotw_outcome(task, None, raters[rating.rater], rating.checks) for rating in checks_only
    )
    ErrorSpan.objects.bulk_create(
        error_span_row(judgment=judgment, span=span)
        for judgment, rating in zip(judgments, ratings, strict=True)
        for span in rating.spans
    )
    results_snapshots_prepare(campaign_id=task.campaign_id)  # its results computed ahead
    return task
