"""Loads the demo campaigns (WMT21 de-fr, 5 documents, 86 segments, 5 systems, from the WMT XML
test set, so context stays inside each news story) and their users; idempotent.

The first campaign is for trying the annotator pages; the second has been judged already by
simulated raters, so that its human results page shows rankings, agreement and quality
control on a fresh stack. A third (WMT21 en-de, 30 segments, judged by the same simulated raters)
joins the second in a shared task, whose page reads the two pairs together. A fourth
(``load_demo_reliability``) has ESA and MQM tasks judged by careful and careless simulated
raters, each careless one caught by a different reliability check.
"""

from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from annotation.demo import demo_task_simulate
from annotation.models import Campaign, Role, SharedTask
from annotation.services.campaigns import campaign_create, membership_set
from annotation.services.imports import WMT_XML, upload_import
from annotation.services.jobs import campaign_metrics_recompute
from annotation.services.shared_tasks import shared_task_create
from annotation.services.tasks import task_create, task_launch

DEMO_XML = Path(settings.BASE_DIR) / "demo" / "wmt21-de-fr" / "newstest2021.de-fr.demo.xml"
DEMO_EN_DE = Path(settings.BASE_DIR) / "demo" / "wmt21-en-de"
DEMO_CAMPAIGN = "WMT21 de-fr demo"
SIMULATED_CAMPAIGN = "WMT21 de-fr demo, judged by simulated raters"
LANGUAGES = ("de", "fr")
# Raters with unusable passwords; the last one answers at random.
SIMULATED_RATERS = ("sim-rater-1", "sim-rater-2", "sim-rater-3", "sim-rater-4")
SIMULATED_TASKS = {
    "adequacy": {
        "judgments_per_item": 3,
        "repeat_rate": 0.1,
        "bad_reference_rate": 0.1,
        "reference_rate": 0.2,
        "seed": 21,
    },
    # Batches of 25 rankings: about 100 items, so that all four raters rank some (one batch of
    # 100 per replica would leave two of them without rankings, and agreement on two raters).
    "ranking": {
        "ranking_size": 5,
        "judgments_per_item": 2,
        "repeat_rate": 0.2,
        "batch_size": 25,
        "seed": 22,
    },
}
# A second language pair for the demo shared task: the first EN_DE_SEGMENTS lines of the
# en-de text release (no documents), judged for adequacy by the same simulated raters.
EN_DE_CAMPAIGN = "WMT21 en-de demo pair, simulated judgments"
EN_DE_SEGMENTS = 30
EN_DE_SYSTEMS = ("Facebook-AI", "Online-B", "UEdin", "VolcTrans-GLAT", "happypoet")
EN_DE_TASK = {
    "task_type": "adequacy",
    "judgments_per_item": 2,
    "bad_reference_rate": 0.1,
    "reference_rate": 0.2,
    "seed": 23,
}
SHARED_TASK = "WMT21 demo shared task"
# What AutoRank averages on the demo: two metrics where higher is better, one where lower is.
DEMO_AUTORANK = ("chrf", "bleu", "ter")
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
    # ESA (WMT24) on the real documents, with the previous segment as context.
    "esa": {"judgments_per_item": 2, "context_size": 1, "batch_size": 25},
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
                source_language=LANGUAGES[0],
                target_language=LANGUAGES[1],
                owner=users["manager"],
                description="WMT21 news, German→French: the first 5 documents (86 segments), "
                "5 systems.",
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
            f"demo campaign {campaign.name!r} ready ({campaign.segments.count()} segments "
            f"in {campaign.documents.count()} documents, {campaign.systems.count()} systems)"
        )
        if not Campaign.objects.filter(name=SIMULATED_CAMPAIGN).exists():
            self._simulated(users)
        self.stdout.write(f"demo campaign {SIMULATED_CAMPAIGN!r} ready")
        if not Campaign.objects.filter(name=EN_DE_CAMPAIGN).exists():
            self._simulated_en_de(users)
        if not SharedTask.objects.filter(name=SHARED_TASK).exists():
            shared_task_create(
                name=SHARED_TASK,
                owner=users["organiser"],
                description="The two simulated campaigns (de-fr and en-de) read together: "
                "each pair's ranking, the global table and AutoRank.",
                campaign_ids=Campaign.objects.filter(name__in=[SIMULATED_CAMPAIGN, EN_DE_CAMPAIGN])
                .order_by("name")
                .values_list("id", flat=True),
                autorank_metrics=DEMO_AUTORANK,
            )
        self.stdout.write(f"demo shared task {SHARED_TASK!r} ready")
        call_command("load_demo_reliability", stdout=self.stdout)

    def _raters(self, campaign):
        User = get_user_model()
        raters = []
        for username in SIMULATED_RATERS:
            rater, created = User.objects.get_or_create(username=username)
            if created:
                rater.set_unusable_password()
                rater.save()
            membership_set(campaign=campaign, user=rater, role=Role.ANNOTATOR)
            raters.append(rater)
        return raters

    def _simulated_en_de(self, users):
        campaign = campaign_create(
            name=EN_DE_CAMPAIGN,
            source_language="en",
            target_language="de",
            owner=users["manager"],
            description=f"WMT21 news, English→German: the first {EN_DE_SEGMENTS} segments, "
            "5 systems, judged for adequacy by the four simulated raters.",
        )

        def head(name: str) -> list[tuple[str, bytes]]:
            lines = (DEMO_EN_DE / name).read_text(encoding="utf-8").split("\n")[:EN_DE_SEGMENTS]
            return [(name, ("\n".join(lines) + "\n").encode("utf-8"))]

        manager = users["manager"]
        upload_import(campaign=campaign, kind="source", files=head("source.en"), user=manager)
        upload_import(
            campaign=campaign,
            kind="reference",
            name="A",
            files=head("reference.A.de"),
            user=manager,
        )
        for system in EN_DE_SYSTEMS:
            upload_import(
                campaign=campaign,
                kind="system",
                name=system,
                files=head(f"{system}.de"),
                user=manager,
            )
        membership_set(campaign=campaign, user=users["organiser"], role=Role.ORGANISER)
        raters = self._raters(campaign)
        task = task_create(campaign=campaign, **EN_DE_TASK)
        task_launch(task_id=task.id)
        start = timezone.now() - timedelta(days=2)
        demo_task_simulate(task=task, annotators=raters, careless=raters[-1:], start=start, seed=7)

    def _simulated(self, users):
        campaign = campaign_create(
            name=SIMULATED_CAMPAIGN,
            source_language=LANGUAGES[0],
            target_language=LANGUAGES[1],
            owner=users["manager"],
            description="The same data, judged by four simulated raters (one careless) "
            "over three days: a populated human results page.",
        )
        self._import(campaign, users["manager"])
        membership_set(campaign=campaign, user=users["organiser"], role=Role.ORGANISER)
        raters = self._raters(campaign)
        start = timezone.now() - timedelta(days=3)
        for seed, (task_type, task_settings) in enumerate(SIMULATED_TASKS.items()):
            task = task_create(campaign=campaign, task_type=task_type, **task_settings)
            task_launch(task_id=task.id)
            demo_task_simulate(
                task=task, annotators=raters, careless=raters[-1:], start=start, seed=seed
            )

    def _import(self, campaign, manager):
        # One upload: the documents, the source, reference A and the five systems.
        upload_import(
            campaign=campaign,
            kind=WMT_XML,
            files=[(DEMO_XML.name, DEMO_XML.read_bytes())],
            user=manager,
        )
