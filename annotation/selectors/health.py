"""Health of the parts the product needs: database, broker and at least one worker."""

from __future__ import annotations

import redis
from django.conf import settings
from django.db import connection

from evalsite.celery import app as celery_app


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:
        return f"down: {type(error).__name__}"
    return "ok"


def _broker() -> str:
    try:
        client = redis.Redis.from_url(
            settings.CELERY_BROKER_URL, socket_timeout=1, socket_connect_timeout=1
        )
        client.ping()
    except Exception as error:
        return f"down: {type(error).__name__}"
    return "ok"


def _worker() -> str:
    try:
        with celery_app.connection_for_write(settings.CELERY_BROKER_URL) as connection:
            replies = celery_app.control.ping(timeout=1.0, limit=1, connection=connection)
    except Exception as error:
        return f"down: {type(error).__name__}"
    return "ok" if replies else "down: no worker answered within 1 s"


def health_status() -> dict[str, str]:
    status = {"database": _database(), "broker": _broker()}
    status["worker"] = _worker() if status["broker"] == "ok" else "unknown: broker down"
    return status
