"""One realistic world for the security tests, built once per module through the services.

Two campaigns, a user for every role, every task type launched, judgments by two
annotators, a slot leased to the first, an invitation and a pending upload. Module fixtures
build it in a transaction that is rolled back at the end of the module; each test runs in a
savepoint of its own (pytest-django's ``db``), so a test may change anything.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import transaction
from django.test import Client, override_settings

from annotation.models import Campaign, PendingUpload, Slot, Task
from annotation.services.assignment import slot_claim_next
from annotation.services.campaigns import campaign_create, membership_set
from annotation.services.imports import upload_import
from annotation.services.invitations import invitation_create
from annotation.services.judgments import judgment_record
from annotation.services.pending_uploads import pending_upload_create
from annotation.services.shared_tasks import shared_task_create
from annotation.services.tasks import task_create, task_launch
from tests.conftest import DEMO, answer_for, demo_documents

# The roles of the permission matrix, in the order its rows list them.
ANON = "anonymous"
ANN = "annotator"
ANN_OTHER = "annotator_other"
MGR_OTHER = "manager_other"
MGR = "manager"
ORG = "organiser"
ADMIN = "admin"
ROLES = (ANON, ANN, ANN_OTHER, MGR_OTHER, MGR, ORG, ADMIN)

PASSWORD = "a-long-test-password-7"  # of every test account
# Distinctive names, so that a page or a JSON body naming a system is caught by a substring.
SYSTEMS = {"Sysname-Quokka": "Online-B", "Sysname-Narwhal": "UEdin", "Sysname-Axolotl": "happypoet"}
OTHER_SYSTEM = "Sysname-Pangolin"
PENDING_SYSTEM = "Sysname-Tapir"
ALL_SYSTEM_NAMES = (*SYSTEMS, OTHER_SYSTEM, PENDING_SYSTEM)
TASK_SETTINGS: dict[str, dict[str, Any]] = {
    "adequacy": {
        "judgments_per_item": 2,
        "show_reference": True,
        "context_size": 1,
        "reference_rate": 0.2,
        "bad_reference_rate": 0.2,
        "repeat_rate": 0.2,
    },
    "fluency": {},
    "adequacy_fluency": {"judgments_per_item": 2},
    "pairwise": {"judgments_per_item": 2},
    "ranking": {"ranking_size": 3, "judgments_per_item": 2, "reference_rate": 0.3},
    "postedit": {},
}
JUDGED_TYPES = ("adequacy", "pairwise", "ranking")
JUDGMENTS_EACH = 3  # per annotator and judged task type


def lines(name: str, n: int) -> bytes:
    return "\n".join((DEMO / name).read_text().split("\n")[:n]).encode() + b"\n"


@dataclass
class World:
    campaign: Campaign
    other: Campaign
    users: dict[str, Any]  # role -> user (no entry for the anonymous visitor)
    annotator2: Any  # a second annotator of the campaign
    tasks: dict[str, Task]  # task type -> launched task of the campaign
    other_task: Task
    leased: Slot  # leased to the annotator in the adequacy task, unanswered
    judged_by_annotator2: Slot  # answered by the second annotator (adequacy)
    token: str  # an unused invitation to the campaign
    pending: PendingUpload  # the manager's previewed, unconfirmed upload
    shared_task: Any = None  # the manager's shared task of the campaign (one pair)


def _judge(task: Task, user: Any, count: int) -> list[Slot]:
    slots = []
    for _ in range(count):
        slot = slot_claim_next(task=task, annotator_id=user.id)
        assert slot is not None
        judgment_record(
            task_id=task.id,
            slot_id=slot.id,
            annotator_id=user.id,
            answer=answer_for(task.task_type, len(slot.item.candidates)),
        )
        slots.append(slot)
    return slots


def build_world() -> World:
    users_model = get_user_model()
    add_campaign = Permission.objects.get(
        codename="add_campaign", content_type__app_label="annotation"
    )

    def user(username: str, **extra: Any) -> Any:
        return users_model.objects.create_user(username, password=PASSWORD, **extra)

    users = {
        MGR: user("perm-manager"),
        MGR_OTHER: user("perm-manager-other"),
        ORG: user("perm-organiser"),
        ANN: user("perm-annotator"),
        ANN_OTHER: user("perm-annotator-other"),
        ADMIN: user("perm-admin", is_staff=True, is_superuser=True),
    }
    for role in (MGR, MGR_OTHER):
        users[role].user_permissions.add(add_campaign)
    annotator2 = user("perm-annotator-2")

    campaign = campaign_create(
        name="Permission campaign", source_language="en", target_language="de", owner=users[MGR]
    )
    membership_set(campaign=campaign, user=users[ORG], role="organiser")
    membership_set(campaign=campaign, user=users[ANN], role="annotator")
    membership_set(campaign=campaign, user=annotator2, role="annotator")
    manager = users[MGR]
    upload_import(
        campaign=campaign,
        kind="source",
        files=[("s.en", lines("source.en", 12))],
        documents=demo_documents(12),
        user=manager,
    )
    upload_import(
        campaign=campaign,
        kind="reference",
        name="A",
        files=[("r.de", lines("reference.A.de", 12))],
        user=manager,
    )
    for name, demo in SYSTEMS.items():
        upload_import(
            campaign=campaign,
            kind="system",
            name=name,
            files=[("x.de", lines(f"{demo}.de", 12))],
            user=manager,
        )
    tasks = {}
    for task_type, settings in TASK_SETTINGS.items():
        # A fixed seed: the tests on the outputs' positions read one shuffle, not a random one.
        task = task_create(campaign=campaign, task_type=task_type, seed=12345, **settings)
        task_launch(task_id=task.id)
        task.refresh_from_db()
        tasks[task_type] = task
    judged_by_2 = []
    for task_type in JUDGED_TYPES:
        _judge(tasks[task_type], users[ANN], JUDGMENTS_EACH)
        judged_by_2 += _judge(tasks[task_type], annotator2, JUDGMENTS_EACH)
    leased = slot_claim_next(task=tasks["adequacy"], annotator_id=users[ANN].id)
    assert leased is not None
    _, token = invitation_create(campaign=campaign, created_by=manager, note="for a new annotator")
    pending = pending_upload_create(
        campaign=campaign,
        user=manager,
        kind="system",
        files=[("tapir.de", lines("Facebook-AI.de", 12))],
        name=PENDING_SYSTEM,
    )

    other = campaign_create(
        name="Other campaign", source_language="en", target_language="de", owner=users[MGR_OTHER]
    )
    membership_set(campaign=other, user=users[ANN_OTHER], role="annotator")
    for kind, name, demo in (("source", "", "source.en"), ("system", OTHER_SYSTEM, "UEdin.de")):
        upload_import(
            campaign=other,
            kind=kind,
            name=name or None,
            files=[("o.txt", lines(demo, 4))],
            user=users[MGR_OTHER],
        )
    other_task = task_create(campaign=other, task_type="adequacy")
    task_launch(task_id=other_task.id)
    _judge(other_task, users[ANN_OTHER], 1)
    shared_task = shared_task_create(name="Shared", owner=manager, campaign_ids=[campaign.id])
    return World(
        campaign=campaign,
        other=other,
        users=users,
        annotator2=annotator2,
        tasks=tasks,
        other_task=other_task,
        leased=leased,
        judged_by_annotator2=judged_by_2[0],
        token=token,
        pending=pending,
        shared_task=shared_task,
    )


def client_for(world: World, role: str, **options: Any) -> Client:
    client = Client(**options)
    if role != ANON:
        client.force_login(world.users[role])
    return client


@contextmanager
def world_for_module(django_db_blocker) -> Iterator[World]:
    """The world, in a transaction rolled back when the module is done. Passwords use a
    fast hasher: the tests log in and ask for tokens many times."""
    fast = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    with fast, django_db_blocker.unblock(), transaction.atomic():
        yield build_world()
        transaction.set_rollback(True)
