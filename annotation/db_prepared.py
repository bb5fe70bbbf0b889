"""A cursor whose statements PostgreSQL plans once per session: the annotator loop's
statements (every judgment runs the same four: the token's user, the task and role, the
judgment with the next claim, the shown slot) are prepared on their first run and kept.

Planning cost those short lookups more than running them (the shown slot's join: 0.24 ms
planning, 0.03 ms running), and it is the database's CPU, which every web process shares
(bench/load.py --server-pid, 50 annotators: PostgreSQL 2.54-2.61 -> 1.78-1.81 ms per
judgment). Only these statements: the rest of the site keeps Django's client-side
parameters, with which any SQL the ORM writes runs. ``DATABASE_PREPARE=0`` turns them off
(settings.DATABASE_PREPARED_STATEMENTS) for a pooler in transaction mode that cannot keep
them (PgBouncer before 1.21)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import connection, models
from django.db.backends.postgresql.base import ServerBindingCursor


class _PreparingCursor(ServerBindingCursor):
    """Django's server-side binding cursor, every statement prepared (the connection's
    threshold stays off, as Django sets it, for every other cursor)."""

    def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
        # django-stubs do not know psycopg's cursor under Django's class.
        return super().execute(query, params, prepare=True, **kwargs)  # type: ignore[misc]


def prepared_cursor() -> Any:
    """A cursor as ``connection.cursor()`` gives (Django's wrapper: query logging, execute
    wrappers, error translation), whose statements are prepared."""
    if not settings.DATABASE_PREPARED_STATEMENTS:
        return connection.cursor()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    # Django's own wrapping of a new cursor (a private method: tests/test_loop_prepared.py
    # fails if a Django release changes it).
    with connection.wrap_database_errors:
        raw = _PreparingCursor(connection.connection)  # type: ignore[call-arg]
        return connection._prepare_cursor(raw)  # type: ignore[attr-defined]


def model_columns(model: type[models.Model], alias: str) -> str:
    """The model's concrete columns, named (never ``alias.*``: a column a migration adds
    would change the rows of a statement a session keeps prepared)."""
    return ", ".join(f"{alias}.{field.column}" for field in model._meta.concrete_fields)


def model_from_row(model: type[models.Model], values: Sequence[Any]) -> Any:
    """A model instance from its concrete columns' values (``model_columns``' order),
    converted as the ORM does (a JSON column arrives as text)."""
    fields = model._meta.concrete_fields
    converted = [
        field.from_db_value(value, None, connection) if hasattr(field, "from_db_value") else value
        for field, value in zip(fields, values, strict=True)
    ]
    return model.from_db(connection.alias, [field.attname for field in fields], converted)
