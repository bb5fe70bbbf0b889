"""DatabaseUnavailableMiddleware: connection failures become 503 + Retry-After; query and
constraint errors stay errors. The failures are real ones, raised by PostgreSQL."""

import json

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, OperationalError, connection, transaction
from django.db.backends.postgresql.base import DatabaseWrapper
from django.test import RequestFactory

from annotation.middleware import DatabaseUnavailableMiddleware, database_unavailable

pytestmark = pytest.mark.django_db(transaction=True)


def raised(action) -> Exception:
    with pytest.raises(Exception) as caught:  # the test then looks at what it is
        action()
    return caught.value


def a_second_connection(**changes) -> DatabaseWrapper:
    # Under the default alias: django.contrib.postgres's set-up looks the alias up.
    return DatabaseWrapper({**connection.settings_dict, **changes}, alias="default")


def test_refused_and_terminated_connections_are_unavailable():
    refused = raised(a_second_connection(PORT="1").ensure_connection)
    assert isinstance(refused, OperationalError) and database_unavailable(refused)

    second = a_second_connection()
    try:
        with second.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
        # What a restart does to a session: terminated by the server ...
        terminated = raised(lambda: second.cursor().execute("SELECT 1"))
        assert database_unavailable(terminated)
        # ... and then closed.
        closed = raised(lambda: second.cursor().execute("SELECT 1"))
        assert database_unavailable(closed)
    finally:
        second.close()


def test_query_and_constraint_errors_are_not():
    def slow_query():
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 1")
            cursor.execute("SELECT pg_sleep(1)")

    canceled = raised(slow_query)
    assert isinstance(canceled, OperationalError) and not database_unavailable(canceled)
    User.objects.create_user("twice")
    duplicate = raised(lambda: User.objects.create_user("twice"))
    assert isinstance(duplicate, IntegrityError) and not database_unavailable(duplicate)
    assert not database_unavailable(ValueError("not a database error"))


def test_answers_json_to_scripts_and_a_page_to_browsers():
    refused = raised(a_second_connection(PORT="1").ensure_connection)
    middleware = DatabaseUnavailableMiddleware(lambda request: None)
    factory = RequestFactory()

    api = middleware.process_exception(factory.post("/api/v1/judgments"), refused)
    script = middleware.process_exception(
        factory.post("/annotate/1/submit/", HTTP_X_REQUESTED_WITH="fetch"), refused
    )
    for response in (api, script):
        assert response.status_code == 503 and response["Retry-After"] == "2"
        assert json.loads(response.content) == {
            "error": "The database is briefly unavailable; retry.",
            "code": "unavailable",
        }
    page = middleware.process_exception(factory.get("/annotate/1/"), refused)
    form = middleware.process_exception(factory.post("/annotate/1/submit/"), refused)
    assert page.status_code == form.status_code == 503
    assert page["Content-Type"].startswith("text/html") and page["Retry-After"] == "2"
    assert b'http-equiv="refresh"' in page.content  # a page reloads itself ...
    assert b'http-equiv="refresh"' not in form.content  # ... a form post is not repeated
    assert b"may not have been saved" in form.content
    duplicate = IntegrityError("duplicate key")
    assert middleware.process_exception(factory.get("/"), duplicate) is None
