"""Which reads may go to the replica (annotation/db_routing.py); the replica itself is in
tests/test_faults_replica.py."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.http import HttpResponse
from django.test import RequestFactory
from django.urls import resolve, reverse

from annotation.db_routing import lagging_reads_allowed, read_may_lag
from annotation.models import Campaign, Judgment, Membership
from evalsite.urls import LAGGING_READS
from tests.test_settings import _import_settings


def observe(method: str, body) -> dict[str, bool]:
    """Runs ``body(seen)`` inside a view wrapped as the results views are."""
    seen: dict[str, bool] = {}

    def view(request):
        body(seen)
        return HttpResponse()

    request = getattr(RequestFactory(), method)("/")
    lagging_reads_allowed(view)(request)
    return seen


def test_results_data_may_lag_who_may_see_what_may_not():
    def body(seen):
        for model in (Judgment, User, Campaign, Membership):
            seen[model.__name__] = read_may_lag(model)

    assert observe("get", body) == {
        "Judgment": True,
        "User": False,
        "Campaign": False,
        "Membership": False,
    }


@pytest.mark.django_db(transaction=True)  # a test transaction would hide the rule
def test_no_lag_in_a_transaction_after_a_write_or_outside_the_scope():
    def body(seen):
        seen["before"] = read_may_lag(Judgment)
        with transaction.atomic():
            seen["in a transaction"] = read_may_lag(Judgment)
        User.objects.filter(id=-1).update(first_name="x")  # bookkeeping: still may lag
        seen["after an identity write"] = read_may_lag(Judgment)
        Judgment.objects.filter(id=-1).update(score=1)
        seen["after a write"] = read_may_lag(Judgment)

    assert observe("get", body) == {
        "before": True,
        "in a transaction": False,
        "after an identity write": True,
        "after a write": False,
    }
    assert observe("post", lambda seen: seen.update(post=read_may_lag(Judgment))) == {"post": False}
    assert read_may_lag(Judgment) is False  # no view opted in


def test_only_the_results_and_downloads_opt_in():
    urls = {
        "results-human": {"campaign_id": 1},
        "results-automatic": {"campaign_id": 1},
        "api-results-human-judgments": {"campaign_id": 1, "fmt": "csv"},
        "annotate": {"task_id": 1},
        "annotate-submit": {"task_id": 1},
        "api-next-item": {"task_id": 1},
        "api-judgments": {},
        "results-human-exclusion": {"campaign_id": 1, "annotator_id": 1},
    }
    opted_in = {
        name
        for name, kwargs in urls.items()
        if getattr(resolve(reverse(name, kwargs=kwargs)).func, "reads_may_lag", False)
    }
    assert opted_in == {"results-human", "results-automatic", "api-results-human-judgments"}
    assert {"results-human", "api-results-human", "results-human-judgments"} <= LAGGING_READS


def test_the_replica_alias_exists_only_when_its_url_is_set(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    url = "postgres://reader:pw@replica.example:5433/evalsite"
    with_replica = _import_settings(
        tmp_path / "a", show="DATABASES", SECRET_KEY="a-real-secret", DATABASE_REPLICA_URL=url
    )
    assert with_replica.returncode == 0, with_replica.stderr
    assert "'replica': {'ENGINE': 'django.db.backends.postgresql'" in with_replica.stdout
    assert "'HOST': 'replica.example', 'PORT': '5433'" in with_replica.stdout
    without = _import_settings(tmp_path / "b", show="DATABASES", SECRET_KEY="a-real-secret")
    assert without.returncode == 0, without.stderr
    assert "'replica'" not in without.stdout
