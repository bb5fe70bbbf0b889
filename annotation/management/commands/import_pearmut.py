"""Imports a Pearmut campaign file, and optionally its annotations.

    manage.py import_pearmut CAMPAIGN.json --owner USER [--annotations ANNOTATIONS.jsonl]
        [--name NAME] [--languages en-de]

How protocols, assignment modes and options map: annotation/lib/pearmut.py. Unknown options
and what evalsite does not run are refused with the reason; the whole file (and the
annotations) is checked first, and on an error nothing is written. Media sources named by a
path are read beside the campaign file (annotation/services/pearmut_media.py); web URLs are
refused, naming them.
"""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotation.services.pearmut_imports import (
    PearmutImportError,
    pearmut_annotation_lines,
    pearmut_import,
    pearmut_load,
)


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("campaign", type=Path)
        parser.add_argument("--owner", required=True, help="username of the campaign's manager")
        parser.add_argument("--annotations", type=Path, help="Pearmut's outputs JSONL")
        parser.add_argument("--name", default="", help="campaign name (default: campaign_id)")
        parser.add_argument("--languages", help="source-target, when the item ids do not say")

    def handle(self, *args, campaign: Path, owner: str, annotations, name, languages, **options):
        user = get_user_model().objects.filter(username=owner).first()
        if user is None:
            raise CommandError(f"no user named {owner!r}")
        pair = None
        if languages:
            source, _, target = languages.partition("-")
            if not source or not target:
                raise CommandError("--languages is source-target, e.g. en-de")
            pair = (source, target)
        try:
            parsed = pearmut_load(text=campaign.read_text(encoding="utf-8"), name=str(campaign))
            lines = (
                pearmut_annotation_lines(
                    text=annotations.read_text(encoding="utf-8"), name=str(annotations)
                )
                if annotations
                else []
            )
            task = pearmut_import(
                parsed=parsed,
                owner=user,
                name=name,
                languages=pair,
                annotations=lines,
                annotations_name=str(annotations),
                media_directory=campaign.resolve().parent,
            )
        except (PearmutImportError, OSError, UnicodeDecodeError) as error:
            raise CommandError(f"{error}\nNothing was imported.") from None
        checks = task.items.filter(item_type="CHK").count()
        judged = task.judgments.count()
        self.stdout.write(
            f"campaign {task.campaign.name!r}: {task.get_task_type_display()} task with"
            f" {task.items.count()} items ({checks} checks or tutorials), {judged} judgments"
        )
        for note in parsed.notes:
            self.stdout.write(f"note: {note}")
