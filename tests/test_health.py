"""GET /healthz: database, broker and worker, 200 only when all three are fine."""

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_healthy_with_a_worker(client, celery_worker_process):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok", "worker": "ok"}


def test_broker_down_is_503(client, settings, celery_worker_process):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unhealthy"
    assert body["database"] == "ok"
    assert body["broker"].startswith("down")
    assert body["worker"].startswith("unknown")


def test_no_worker_is_503(client, settings):
    # Another Redis database than the tests' own, which no worker listens on: the broker
    # answers, no worker does.
    base, database = settings.CELERY_BROKER_URL.rsplit("/", 1)
    settings.CELERY_BROKER_URL = f"{base}/{(int(database or 0) + 7) % 16}"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["broker"] == "ok"
    assert response.json()["worker"].startswith("down")
