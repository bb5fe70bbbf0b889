"""The annotator loop's database cost: its statements planned once per session, its SQL
functions' plans kept from call to call."""

import pytest
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Judgment

pytestmark = pytest.mark.django_db


def _prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [statement for (statement,) in cursor.fetchall()]


def _judge_three(task, user) -> None:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    item = api.get(f"/api/v1/tasks/{task.id}/next").json()
    for _ in range(3):
        body = {"task": task.id, "slot": item["slot"], "score": 4}
        response = api.post("/api/v1/judgments", body, format="json")
        assert response.status_code == 201, response.content
        item = response.json()["next"]


def test_every_judgment_statement_is_prepared(launched, loaded_campaign, make_annotator):
    task = launched("adequacy")
    _judge_three(task, make_annotator(loaded_campaign, "ann"))
    prepared = "\n".join(_prepared())
    # The token's user, the task and role, the judgment with the next claim, the shown slot;
    # GET next's claim with the progress.
    assert "FROM evalsite_claim_with_progress(" in prepared
    assert "JOIN authtoken_token" in prepared
    assert "LEFT JOIN annotation_membership" in prepared
    assert "FROM evalsite_judge_and_claim(" in prepared
    assert "JOIN annotation_segment" in prepared
    assert Judgment.objects.count() == 3


def test_no_loop_function_is_replanned_on_every_call():
    # An SQL function whose body holds a subquery is never inlined: its statement is parsed
    # and planned on each call. PL/pgSQL keeps its plans.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.proname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang"
            " WHERE p.proname LIKE 'evalsite\\_%%' AND p.proname NOT LIKE 'evalsite\\_results\\_%%'"
            " AND l.lanname = 'sql' ORDER BY 1"
        )
        assert [name for (name,) in cursor.fetchall()] == []
