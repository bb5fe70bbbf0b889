"""Seeds a private database for the fault tests; run as ``python -m tests.faults_seed``.

Runs in its own process against ``DATABASE_URL`` (the fault tests' private PostgreSQL) and
prints what the tests need as JSON: the campaign, an adequacy task with room for many
judgments, and the API tokens of a manager and of annotators (who share one password).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import django

ANNOTATORS = 6
ANNOTATOR_PASSWORD = "annotator-pw-123"
SEGMENTS = 12
SYSTEMS = ("Online-B", "UEdin", "happypoet")
DEMO = Path(__file__).resolve().parent.parent / "demo" / "wmt21-en-de"


def head(name: str, upload_as: str | None = None) -> list[tuple[str, bytes]]:
    """The first segments of a demo file, as a file named ``upload_as``."""
    lines = (DEMO / name).read_text(encoding="utf-8").split("\n")[:SEGMENTS]
    return [(upload_as or name, ("\n".join(lines) + "\n").encode())]


def system_file(system: str) -> list[tuple[str, bytes]]:
    return head(f"{system}.de", upload_as=f"test.en-de.hyp.{system}.de")  # named after system


def seed() -> dict[str, object]:
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import Permission, User
    from rest_framework.authtoken.models import Token

    from annotation.services.campaigns import campaign_create, membership_set
    from annotation.services.imports import upload_import
    from annotation.services.tasks import task_create, task_launch

    manager = User.objects.create_user("manager")  # works through the API with a token
    manager.user_permissions.add(
        Permission.objects.get(codename="add_campaign", content_type__app_label="annotation")
    )
    campaign = campaign_create(
        name="Fault campaign", source_language="en", target_language="de", owner=manager
    )
    upload_import(campaign=campaign, kind="source", files=head("source.en"), user=manager)
    upload_import(
        campaign=campaign, kind="reference", name="A", files=head("reference.A.de"), user=manager
    )
    # All systems in one upload: one transaction, so their metrics jobs are written together.
    upload_import(
        campaign=campaign,
        kind="system",
        files=[file for system in SYSTEMS for file in system_file(system)],
        user=manager,
    )
    # Every annotator may judge every item: room for each client to judge many items.
    task = task_create(
        seed=12345, campaign=campaign, task_type="adequacy", judgments_per_item=ANNOTATORS
    )
    task_launch(task_id=task.id)
    annotators = {}
    hashed = make_password(ANNOTATOR_PASSWORD)  # hashed once: hashing is slow on purpose
    for i in range(ANNOTATORS):
        user = User.objects.create(username=f"ann{i}", password=hashed)
        membership_set(campaign=campaign, user=user, role="annotator")
        annotators[user.username] = Token.objects.create(user=user).key
    return {
        "campaign": campaign.id,
        "task": task.id,
        "manager_token": Token.objects.create(user=manager).key,
        "annotator_tokens": annotators,
    }


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    django.setup()
    from evalsite.celery import app

    # No broker listens: each metrics job stays pending without kombu's 2 s retry.
    app.conf.broker_transport_options = {**app.conf.broker_transport_options, "max_retries": 0}
    json.dump(seed(), sys.stdout)
