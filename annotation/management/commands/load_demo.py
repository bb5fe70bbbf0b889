"""Loads the demo campaign (WMT21 en-de, 100 segments, 5 systems) and its users; idempotent."""

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand
from django.db import transaction

from annotation.models import Campaign, Role
from annotation.services.campaigns import campaign_create, membership_set
from annotation.services.imports import upload_import
from annotation.services.scoring import campaign_metrics_recompute
from annotation.services.tasks import task_create, task_launch

DEMO_DIR = Path(settings.BASE_DIR) / "demo" / "wmt21-en-de"
DEMO_CAMPAIGN = "WMT21 en-de demo"
SYSTEMS = ("Facebook-AI", "Online-B", "UEdin", "VolcTrans-GLAT", "happypoet")
# Demo accounts for a local stack; their passwords are printed by `make up`.
DEMO_USERS = {
    "manager": Role.MANAGER,
    "organiser": Role.ORGANISER,
    "annotator1": Role.ANNOTATOR,
    "annotator2": Role.ANNOTATOR,
    "annotator3": Role.ANNOTATOR,
}
ADMIN = "admin"
DEMO_TASKS = {
    "adequacy": {
        "judgments_per_item": 3,
        "context_size": 1,
        "repeat_rate": 0.05,
        "bad_reference_rate": 0.05,
        "reference_rate": 0.1,
    },
    "fluency": {"judgments_per_item": 1},
    "pairwise": {"show_reference": True},
    "ranking": {"ranking_size": 5, "reference_rate": 0.2},
    "postedit": {"show_reference": False},
}


def demo_password(username: str) -> str:
    return f"{username}-demo"


class Command(BaseCommand):
    help = __doc__

    @transaction.atomic
    def handle(self, *args, **options):
        User = get_user_model()
        users = {}
        for username in (*DEMO_USERS, ADMIN):
            user, created = User.objects.get_or_create(username=username)
            if created:
                user.set_password(demo_password(username))
                user.is_staff = user.is_superuser = username == ADMIN
                user.save()
            users[username] = user
        users["manager"].user_permissions.add(
            Permission.objects.get(codename="add_campaign", content_type__app_label="annotation")
        )
        campaign = Campaign.objects.filter(name=DEMO_CAMPAIGN).first()
        if campaign is None:
            campaign = campaign_create(
                name=DEMO_CAMPAIGN,
                source_language="en",
                target_language="de",
                owner=users["manager"],
                description="WMT21 news, English→German: the first 100 segments, 5 systems.",
            )
            self._import(campaign, users["manager"])
        for username, role in DEMO_USERS.items():
            membership_set(campaign=campaign, user=users[username], role=role)
        # Metrics jobs that failed or never ran (say, the worker was down) are asked again.
        campaign_metrics_recompute(campaign=campaign, only_unfinished=True)
        for task_type, task_settings in DEMO_TASKS.items():
            if not campaign.tasks.filter(task_type=task_type).exists():
                task = task_create(campaign=campaign, task_type=task_type, **task_settings)
                task_launch(task_id=task.id)
        self.stdout.write(
            f"demo campaign {campaign.name!r} ready ({campaign.segments.count()} "
            f"segments, {campaign.systems.count()} systems)"
        )

    def _import(self, campaign, manager):
        def read(name):
            return [(name, (DEMO_DIR / name).read_bytes())]

        upload_import(campaign=campaign, kind="source", files=read("source.en"), user=manager)
        upload_import(
            campaign=campaign,
            kind="reference",
            name="A",
            files=read("reference.A.de"),
            user=manager,
        )
        for system in SYSTEMS:
            upload_import(
                campaign=campaign,
                kind="system",
                name=system,
                files=read(f"{system}.de"),
                user=manager,
            )
