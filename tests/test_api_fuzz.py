"""Schemathesis fuzzes every operation of the API's own OpenAPI schema: no server errors.

The schema is the one ``/api/schema/`` serves. Every operation is called as an annotator, a
manager and an organiser of a realistic campaign (``tests/security_world.py``), with data
generated from the schema, valid and invalid. Ids in paths and bodies are mostly swapped for
ids that exist, so that requests get past the 404s into the code behind them. Responses must
not be 5xx; their status codes, content types and bodies must be those the schema documents
(``annotation/api/schema.py`` adds the errors common to all operations); and data that breaks
the schema must be refused with a 4xx. Hypothesis runs derandomised: the same examples on
every run. What it found is pinned by plain regression tests (``test_logins.py``,
``test_imports.py``, ``test_views_human.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.specs.openapi.checks import positive_data_acceptance

from annotation.models import Invitation
from tests.security_world import ANN, MGR, ORG, World, world_for_module

ROLES = (ANN, MGR, ORG)
EXAMPLES = 50  # per operation and role

app = get_wsgi_application()
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", app)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker) -> Iterator[World]:
    with world_for_module(django_db_blocker) as built:
        yield built


@pytest.fixture(scope="module")
def tokens(world: World, django_db_blocker) -> dict[str, str]:
    with django_db_blocker.unblock():
        return {role: Token.objects.get_or_create(user=world.users[role])[0].key for role in ROLES}


@pytest.fixture
def in_test_transaction(db) -> Iterator[None]:
    """Requests share the test's connection and transaction, as Django's test client does:
    the request signals would otherwise close the connection in the middle of it."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _swappable(value: Any) -> bool:
    """Three generated ids in four, chosen by the value itself (so that examples stay
    reproducible and shrinkable), and never one outside bigint: that one is schemathesis's
    schema-violating example, which must reach the server as generated and be refused."""
    return isinstance(value, int) and -(2**63) <= value < 2**63 and bool(value % 4)


def _swap_ids(case: Any, world: World) -> None:
    """An id that exists in place of a generated one, where ``_swappable`` says so."""
    tasks = list(world.tasks.values())
    params = case.path_parameters or {}
    if _swappable(params.get("campaign_id")):
        params["campaign_id"] = world.campaign.id
    if _swappable(params.get("task_id")):
        params["task_id"] = tasks[params["task_id"] % len(tasks)].id
    if _swappable(params.get("invitation_id")):
        pending = Invitation.objects.filter(campaign=world.campaign, used_at=None).first()
        if pending is not None:
            params["invitation_id"] = pending.id
    body = case.body
    if isinstance(body, dict):
        if isinstance(body.get("token"), str) and len(body["token"]) % 4:
            body["token"] = world.token
        if isinstance(body.get("username"), str) and len(body["username"]) % 4:
            body["username"] = world.annotator2.username
        if _swappable(body.get("task")):
            body["task"] = world.tasks["adequacy"].id
            if _swappable(body.get("slot")):
                body["slot"] = world.leased.id
        if _swappable(body.get("annotator")):
            body["annotator"] = world.annotator2.id


@pytest.mark.parametrize("role", ROLES)
@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_operation(case, role, world, tokens, in_test_transaction):
    _swap_ids(case, world)
    case.call_and_validate(
        headers={"Authorization": f"Token {tokens[role]}"},
        # Schema-valid is not always acceptable: wrong credentials, a score off the task's
        # scale or a slot leased to someone else are refused with a 4xx the schema documents.
        excluded_checks=[positive_data_acceptance],
    )
