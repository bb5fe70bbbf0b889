"""Prints where to go and how to log in after `make up`."""

from django.core.management.base import BaseCommand

from annotation.management.commands.load_demo import (
    ADMIN,
    DEMO_USERS,
    SIMULATED_CAMPAIGN,
    demo_password,
)
from annotation.models import Campaign


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000")

    def handle(self, *args, url, **options):
        lines = [
            "",
            f"evalsite is up at {url}/",
            f"  health    {url}/healthz",
            f"  API docs  {url}/api/docs/",
            f"  admin     {url}/admin/",
        ]
        simulated = Campaign.objects.filter(name=SIMULATED_CAMPAIGN).first()
        if simulated is not None:
            lines.append(
                f"  results   {url}/campaigns/{simulated.id}/results/human/ "
                "(judged by simulated raters; log in as organiser)"
            )
        lines += [
            "",
            "Demo logins (username / password):",
        ]
        for username, role in (*DEMO_USERS.items(), (ADMIN, "admin")):
            lines.append(f"  {username:<11} {demo_password(username):<16} {role}")
        lines += ["", "Stop with `make down`; follow the logs with `make logs`.", ""]
        self.stdout.write("\n".join(lines))
