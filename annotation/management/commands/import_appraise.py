"""Imports an Appraise campaign: its manifest and its batches JSON file.

    manage.py import_appraise manifest.json batches.json --owner manager

Direct and Document campaigns become an adequacy task on the 0-100 scale, Pairwise and
PairwiseDocument a pairwise task scored side by side on 0-100; every item is kept, with its
type (TGT, BAD, REF, CHK). Everything is validated first; on an error nothing is written.
"""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotation.services.appraise import appraise_import, appraise_load
from annotation.services.appraise_files import AppraiseError


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("manifest", type=Path)
        parser.add_argument("batches", type=Path)
        parser.add_argument("--owner", required=True, help="username of the campaign's manager")

    def handle(self, *args, manifest: Path, batches: Path, owner: str, **options):
        user = get_user_model().objects.filter(username=owner).first()
        if user is None:
            raise CommandError(f"no user named {owner!r}")
        try:
            parsed = appraise_load(
                manifest_text=manifest.read_text(encoding="utf-8"),
                batches_text=batches.read_text(encoding="utf-8"),
                manifest_name=str(manifest),
                batches_name=str(batches),
            )
            task = appraise_import(parsed=parsed, owner=user)
        except (AppraiseError, OSError, UnicodeDecodeError) as error:
            raise CommandError(f"{error}\nNothing was imported.") from None
        counts = {
            kind: task.items.filter(item_type=kind).count() for kind in ("TGT", "BAD", "REF", "CHK")
        }
        self.stdout.write(
            f"campaign {task.campaign.name!r}: {task.get_task_type_display()} task with "
            f"{task.items.count()} items ("
            + ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
            + ")"
        )
