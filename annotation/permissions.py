"""Who may do what in a campaign: the one rule, and ``authorize``, the decorator every view
and API view uses to apply it.

Non-members get 404, not 403, so that ids reveal nothing; members whose role does not allow
the action get 403; admins (superusers) may do everything except annotate, which needs an
annotator's membership.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.utils.functional import SimpleLazyObject

from annotation.db_prepared import model_columns, model_from_row, prepared_cursor
from annotation.models import Campaign, CrowdParticipant, Membership, Role, SharedTask, Task

# What each role may do; admins (superusers) may do everything but annotate.
CAN_MANAGE = frozenset({Role.MANAGER})
CAN_SEE_RESULTS = frozenset({Role.MANAGER, Role.ORGANISER})
CAN_ANNOTATE = frozenset({Role.ANNOTATOR})
# A media source's file: who reads results, and annotators (of their own items: the view checks).
CAN_SEE_MEDIA = CAN_SEE_RESULTS | CAN_ANNOTATE
# Leaving an annotator out of the results: the people who read them (README: organisers).
CAN_EXCLUDE = frozenset({Role.MANAGER, Role.ORGANISER})

ADMIN = "admin"
# Annotators of a paused or closed task are told so on its page (no new items).
ANNOTATOR_VISIBLE_STATES = ("launched", "paused", "closed")


def campaign_role(user, campaign_id: int) -> str | None:
    if not user.is_authenticated:
        return None
    return (
        Membership.objects.filter(campaign_id=campaign_id, user=user)
        .values_list("role", flat=True)
        .first()
    )


def _role_allowed(user, role: str | None, allowed: frozenset[str]) -> str:
    """The role the user acts with, or 404 (not a member) / 403 (a role not allowed)."""
    annotating = allowed == CAN_ANNOTATE
    if user.is_authenticated and user.is_superuser and not annotating:
        return ADMIN
    if role is None:
        raise Http404("no such campaign" if not annotating else "no such task")
    if role not in allowed:
        raise PermissionDenied(
            "only the campaign's annotators judge its items"
            if annotating
            else "your role in this campaign does not allow this"
        )
    return role


def campaign_access(user, campaign_id: int, allowed: frozenset[str]) -> tuple[Campaign, str]:
    """The campaign and the role the user acts with in it (404 / 403 as the rule says)."""
    campaign = Campaign.objects.filter(id=campaign_id).first()
    if campaign is None:
        raise Http404("no such campaign")
    return campaign, _role_allowed(user, campaign_role(user, campaign_id), allowed)


def task_access(user, task_id: int, allowed: frozenset[str]) -> tuple[Task, str]:
    """The task (its campaign selected) and the user's role in its campaign. Annotators
    reach only launched, paused or closed tasks, and a crowd participant only their own."""
    if allowed == CAN_ANNOTATE:
        return _annotator_task(user, task_id)
    task = Task.objects.select_related("campaign").filter(id=task_id).first()
    if task is None:
        raise Http404("no such task")
    return task, _role_allowed(user, campaign_role(user, task.campaign_id), allowed)


# The annotator's task, role and crowd scope in one query: the annotator's hot path (the
# next item and every judgment) pays one round trip and no ORM compilation for the rule.
_ANNOTATOR_TASK_SQL = (
    f"SELECT {model_columns(Task, 't')}, m.role, cp.task_id"  # noqa: S608 (model tables)
    f" FROM {Task._meta.db_table} t"
    f" LEFT JOIN {Membership._meta.db_table} m"
    " ON m.campaign_id = t.campaign_id AND m.user_id = %s"
    f" LEFT JOIN {CrowdParticipant._meta.db_table} cp ON cp.user_id = %s"
    " WHERE t.id = %s AND t.state = ANY(%s)"
)


def _annotator_task(user, task_id: int) -> tuple[Task, str]:
    if not user.is_authenticated:
        raise Http404("no such task")
    states = list(ANNOTATOR_VISIBLE_STATES)
    with prepared_cursor() as cursor:
        cursor.execute(_ANNOTATOR_TASK_SQL, [user.id, user.id, task_id, states])
        row = cursor.fetchone()
    if row is None:
        raise Http404("no such task")
    task, (role, crowd_task_id) = model_from_row(Task, row[:-2]), row[-2:]
    if crowd_task_id is not None and crowd_task_id != task.id:
        raise Http404("no such task")
    return task, _role_allowed(user, role, CAN_ANNOTATE)


def authorize_request(
    request, allowed: frozenset[str], *, campaign_id: int | None = None, task_id: int | None = None
) -> None:
    """Applies the rule and sets ``request.campaign`` and ``request.role`` (and
    ``request.task`` when the task is what is named)."""
    if campaign_id is not None:
        request.campaign, request.role = campaign_access(request.user, campaign_id, allowed)
        return
    if task_id is None:
        raise TypeError("authorize needs a campaign_id or a task_id")
    request.task, request.role = task_access(request.user, task_id, allowed)
    task = request.task
    # The annotator's one-query lookup leaves the campaign unloaded: read if a view needs it.
    loaded = Task.campaign.is_cached(task)
    request.campaign = task.campaign if loaded else SimpleLazyObject(lambda: task.campaign)


def authorize(allowed: frozenset[str]) -> Callable:
    """Decorates a page view or an API view's method: the URL's ``campaign_id`` (else its
    ``task_id``) names what is reached; ``request.campaign`` and ``request.role`` are set
    before the view runs, and non-members get 404, members with another role 403.

    Put it below ``login_required`` on pages; DRF authenticates API views before it runs.
    """

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            # A page view is called with the request first; an API view's method with self.
            request = args[0] if _is_request(args[0]) else args[1]
            authorize_request(
                request,
                allowed,
                campaign_id=kwargs.get("campaign_id"),
                task_id=None if "campaign_id" in kwargs else kwargs.get("task_id"),
            )
            return view(*args, **kwargs)

        return wrapper

    return decorate


def _is_request(value: object) -> bool:
    from rest_framework.request import Request

    return isinstance(value, HttpRequest | Request)


def can_manage(role: str) -> bool:
    return role in CAN_MANAGE or role == ADMIN


def can_exclude(role: str) -> bool:
    return role in CAN_EXCLUDE or role == ADMIN


# --- Shared tasks -----------------------------------------------------------------------------
# A shared task shows each reader the pairs whose results their campaign role shows them
# (CAN_SEE_RESULTS, as on each campaign's results page); its owner (or an admin) changes it.


def results_campaign_ids(user, campaign_ids) -> set[int]:
    """The campaigns among ``campaign_ids`` whose results ``user`` may see."""
    ids = set(campaign_ids)
    if not user.is_authenticated or not ids:
        return set()
    if user.is_superuser:
        return ids
    return set(
        Membership.objects.filter(
            user=user, campaign_id__in=ids, role__in=CAN_SEE_RESULTS
        ).values_list("campaign_id", flat=True)
    )


def may_create_shared_task(user) -> bool:
    """Who reads some campaign's results may group campaigns into a shared task."""
    if not user.is_authenticated:
        return False
    return (
        user.is_superuser or Membership.objects.filter(user=user, role__in=CAN_SEE_RESULTS).exists()
    )


def shared_task_access(user, shared_task_id: int) -> tuple[SharedTask, set[int], bool]:
    """The shared task, the ids of its campaigns the user may see, and whether the user may
    change it (its owner or an admin). 404 for a user who sees none of its pairs and does
    not own it, so that ids reveal nothing."""
    shared_task = SharedTask.objects.filter(id=shared_task_id).first()
    if shared_task is None or not user.is_authenticated:
        raise Http404("no such shared task")
    campaign_ids = shared_task.pairs.values_list("campaign_id", flat=True)
    visible = results_campaign_ids(user, campaign_ids)
    manages = user.is_superuser or shared_task.owner_id == user.id
    if not visible and not manages:
        raise Http404("no such shared task")
    return shared_task, visible, manages


def authorize_shared_task(*, manage: bool = False) -> Callable:
    """Decorates a page view or an API view's method named by ``shared_task_id``: sets
    ``request.shared_task``, ``request.visible_campaign_ids`` and ``request.manages``; 404
    as ``shared_task_access`` says, 403 when ``manage`` and the user may only read."""

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            request = args[0] if _is_request(args[0]) else args[1]
            shared_task, visible, manages = shared_task_access(
                request.user, kwargs["shared_task_id"]
            )
            if manage and not manages:
                raise PermissionDenied("only the shared task's owner changes it")
            request.shared_task = shared_task
            request.visible_campaign_ids = visible
            request.manages = manages
            return view(*args, **kwargs)

        return wrapper

    return decorate
